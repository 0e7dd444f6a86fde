package quality

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"
)

// Kept counts which copy a run keeps of planted (original, variant) pairs
// (Synthetic: A the original, B the variant). A pair is decided when one
// of its documents is removed for the other: it is a member of the cluster
// whose representative, the document kept for it, is the other. Every other
// pair is undecided: both kept, or one or both removed for other documents.
type Kept struct {
	Pairs   int `json:"pairs"`
	Decided int `json:"decided"`
	// OriginalKept: decided pairs whose variant is removed for the
	// original; VariantKept: whose original is removed for the variant.
	OriginalKept int `json:"original_kept"`
	VariantKept  int `json:"variant_kept"`
	// OriginalShare is OriginalKept / Decided (0 when none is decided).
	OriginalShare float64 `json:"original_kept_share"`
	// Undecided is Pairs - Decided: BothKept (neither removed),
	// OriginalForOther (the original removed for another document, the
	// variant kept), VariantForOther (the reverse) and BothForOthers (both
	// removed, neither for the other).
	Undecided        int `json:"undecided"`
	BothKept         int `json:"both_kept"`
	OriginalForOther int `json:"original_removed_for_other"`
	VariantForOther  int `json:"variant_removed_for_other"`
	BothForOthers    int `json:"both_removed_for_others"`
}

// add counts one pair, given the document each of its documents is
// removed for ("" when kept).
func (k *Kept) add(original, variant, originalFor, variantFor string) {
	k.Pairs++
	switch {
	case variantFor == original:
		k.Decided++
		k.OriginalKept++
	case originalFor == variant:
		k.Decided++
		k.VariantKept++
	case originalFor == "" && variantFor == "":
		k.BothKept++
	case variantFor == "":
		k.OriginalForOther++
	case originalFor == "":
		k.VariantForOther++
	default:
		k.BothForOthers++
	}
}

func (k *Kept) finish() {
	k.Undecided = k.Pairs - k.Decided
	if k.Decided > 0 {
		k.OriginalShare = float64(k.OriginalKept) / float64(k.Decided)
	}
}

// keptBy counts, over all the synthetic pairs and per edit type, which
// copy the clusters keep (see Kept). A document listed by two clusters is
// removed for the representative of the first, as in Removals.
func keptBy(synthetic []Synthetic, clusters []Cluster) (Kept, map[string]Kept) {
	removedFor := map[string]string{}
	eachRemoval(clusters, func(m, kept string) { removedFor[m] = kept })
	var all Kept
	byEdit := map[string]Kept{}
	for _, s := range synthetic {
		of, vf := removedFor[s.A], removedFor[s.B]
		all.add(s.A, s.B, of, vf)
		e := byEdit[s.Edit]
		e.add(s.A, s.B, of, vf)
		byEdit[s.Edit] = e
	}
	all.finish()
	for e, k := range byEdit {
		k.finish()
		byEdit[e] = k
	}
	return all, byEdit
}

// printKept writes the Kept figures of r, all pairs then each edit type in
// name order; nothing without synthetic pairs.
func printKept(w io.Writer, r Report) {
	if r.SyntheticKept.Pairs == 0 {
		return
	}
	fmt.Fprintf(w, "\nwhich copy is kept, of the synthetic (original, variant) pairs: decided, one removed for the other; the original's share of them\n")
	fmt.Fprintf(w, "undecided: both kept, the original or the variant removed for another document (the other kept), both removed for others\n")
	width := len("edit")
	for e := range r.SyntheticKeptByEdit {
		width = max(width, len(e))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tpairs\tdecided\toriginal kept\tvariant kept\toriginal share\tundecided\tboth kept\toriginal for other\tvariant for other\tboth for others\t\n", width, "edit")
	row := func(name string, k Kept) {
		share := "-"
		if k.Decided > 0 {
			share = fmt.Sprintf("%.1f%%", 100*k.OriginalShare)
		}
		fmt.Fprintf(tw, "%-*s\t%d\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t\n", width, name, k.Pairs, k.Decided, k.OriginalKept, k.VariantKept, share,
			k.Undecided, k.BothKept, k.OriginalForOther, k.VariantForOther, k.BothForOthers)
	}
	row("all", r.SyntheticKept)
	for _, e := range slices.Sorted(maps.Keys(r.SyntheticKeptByEdit)) {
		row(e, r.SyntheticKeptByEdit[e])
	}
	tw.Flush()
}
