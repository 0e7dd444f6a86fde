// Package output names the files a run or an audit writes in its output
// directory and defines their line formats and summary.json: the contract
// between the job, the command and the people and programs that read the
// outputs. The job writes the line types it declares; Each, EachIn and
// ReadSummary read them back (the report and eval do). It knows nothing of
// Beam.
package output

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/neardup/neardup/transforms/format/wire"
)

// Kinds: the file name prefixes of the per-input-file outputs.
const (
	KindPairs    = "pairs"
	KindClusters = "clusters"
	KindRejects  = "rejects"
	KindDedup    = "dedup"
	KindRemoved  = "removed"
	KindAudit    = "audit"
)

// ShardName is the name of the output shard of kind for input file index.
func ShardName(kind string, file int) string { return fmt.Sprintf("%s-%05d.jsonl", kind, file) }

// DedupExt is the extension of the deduplicated copy of an input file of
// each format: the copy holds the input's own records, so it keeps their
// format.
var DedupExt = map[string]string{"jsonl": ".jsonl", "tsv": ".tsv", "text": ".txt", "parquet": ".parquet"}

// DedupName is the name of the deduplicated copy of input file index file
// in format: dedup-NNNNN.jsonl, .tsv, .txt or .parquet (a Parquet input
// is Parquet whatever the format: see record.FormatFor).
func DedupName(format string, file int) string {
	return fmt.Sprintf("%s-%05d%s", KindDedup, file, DedupExt[format])
}

// RemovedName is the name of the copy of the removed records of input
// file index file in format, as DedupName names the kept ones:
// removed-NNNNN.jsonl, .tsv, .txt or .parquet.
func RemovedName(format string, file int) string {
	return fmt.Sprintf("%s-%05d%s", KindRemoved, file, DedupExt[format])
}

// OutputName reports whether name is one of the numbered output files of
// a run or an audit ("pairs-00001.jsonl", "dedup-00003.jsonl.zst", ...),
// with or without a compression suffix.
func OutputName(name string) bool {
	if base, ok := strings.CutSuffix(name, ".gz"); ok {
		name = base
	} else {
		name = strings.TrimSuffix(name, ".zst")
	}
	for _, k := range []string{KindPairs, KindClusters, KindRejects, KindAudit} {
		if isNumbered(name, k+"-", ".jsonl") {
			return true
		}
	}
	for _, ext := range DedupExt {
		if isNumbered(name, KindDedup+"-", ext) || isNumbered(name, KindRemoved+"-", ext) || isNumbered(name, KindFates+"-", ext) {
			return true
		}
	}
	return false
}

// isNumbered reports whether name is prefix, digits, ext.
func isNumbered(name, prefix, ext string) bool {
	n, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	n, ok = strings.CutSuffix(n, ext)
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

// Location is where a document is, with --locations: the index of its
// input file (summary.json's inputs) and its 1-based line (0 for a text
// file's one document), as in rejects.
type Location struct {
	File int   `json:"file"`
	Line int64 `json:"line"`
}

// LocationOf is the location of the record at line index index (0-based,
// wire.Line) of input file index file.
func LocationOf(file int, index int64) Location { return Location{File: file, Line: index + 1} }

// PairLine is one line of pairs-*.jsonl. Its similarities are written
// under names that say what they are: "jaccard" and "containment" when
// computed from the two documents' shingle sets (or 1 for an exact
// duplicate), "jaccard_estimate" and "containment_estimate" when they are
// the MinHash estimates (Estimated: a pair accepted on the estimate, and
// every --method simhash pair). Reading takes either name.
type PairLine struct {
	A         string
	B         string
	Jaccard   float64
	Estimated bool // Jaccard and Containment are the MinHash estimates
	Hamming   int
	Method    string
	// For Method "containment" (--containment): the containment of the
	// contained document (the share of its distinct shingles the other
	// has, rounded as Jaccard) and which it is, ContainedA or ContainedB.
	Containment float64
	Contained   string
	// With --locations: where A and B are.
	ALocation *Location
	BLocation *Location
}

// pairJSON is PairLine as its line has it.
type pairJSON struct {
	A                   string    `json:"a"`
	B                   string    `json:"b"`
	Jaccard             *float64  `json:"jaccard,omitempty"`
	JaccardEstimate     *float64  `json:"jaccard_estimate,omitempty"`
	Hamming             int       `json:"hamming"`
	Method              string    `json:"method"`
	Containment         float64   `json:"containment,omitempty"`
	ContainmentEstimate float64   `json:"containment_estimate,omitempty"`
	Contained           string    `json:"contained,omitempty"`
	ALocation           *Location `json:"a_location,omitempty"`
	BLocation           *Location `json:"b_location,omitempty"`
}

// MarshalJSON writes p's line: its Jaccard and containment as exact or
// estimated values by their names.
func (p PairLine) MarshalJSON() ([]byte, error) { return p.JSON() }

// JSON is p's line as json.Marshal(p) writes it, without the check
// json.Marshal makes of what MarshalJSON returns (at a third of the time):
// for the job's writers.
func (p PairLine) JSON() ([]byte, error) {
	l := pairJSON{A: p.A, B: p.B, Hamming: p.Hamming, Method: p.Method, Contained: p.Contained, ALocation: p.ALocation, BLocation: p.BLocation}
	l.Jaccard, l.JaccardEstimate = labeled(p.Jaccard, p.Estimated)
	l.Containment, l.ContainmentEstimate = labeledOmit(p.Containment, p.Estimated)
	return json.Marshal(l)
}

// UnmarshalJSON reads a pairs line, with its similarities exact or
// estimated.
func (p *PairLine) UnmarshalJSON(b []byte) error {
	var l pairJSON
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	*p = PairLine{A: l.A, B: l.B, Hamming: l.Hamming, Method: l.Method, Contained: l.Contained, ALocation: l.ALocation, BLocation: l.BLocation}
	p.Jaccard, p.Estimated = unlabeled(l.Jaccard, l.JaccardEstimate)
	p.Containment = max(l.Containment, l.ContainmentEstimate)
	return nil
}

// labeled is similarity v under its exact or its estimate name.
func labeled(v float64, estimated bool) (exact, estimate *float64) {
	if estimated {
		return nil, &v
	}
	return &v, nil
}

// labeledOmit is labeled for a similarity left out when 0.
func labeledOmit(v float64, estimated bool) (exact, estimate float64) {
	if estimated {
		return 0, v
	}
	return v, 0
}

// unlabeled is the similarity given under its exact or its estimate name,
// and whether it is the estimate.
func unlabeled(exact, estimate *float64) (float64, bool) {
	if exact == nil && estimate != nil {
		return *estimate, true
	}
	if exact == nil {
		return 0, false
	}
	return *exact, false
}

// PairLine.Contained of a containment match: its A or its B is inside the
// other.
const (
	ContainedA = "a"
	ContainedB = "b"
)

// NewPairLine is the pairs line of m, without locations: a containment
// match (wire.Containment) with its containment and contained side.
func NewPairLine(m *wire.Match) PairLine {
	pl := PairLine{A: m.IDA, B: m.IDB, Jaccard: RoundJaccard(m.Jaccard), Estimated: m.Estimated, Hamming: int(m.Hamming), Method: m.Method.String()}
	if m.Method != wire.Containment {
		return pl
	}
	pl.Containment = RoundJaccard(m.Containment)
	switch m.Inside {
	case wire.SideA:
		pl.Contained = ContainedA
	case wire.SideB:
		pl.Contained = ContainedB
	}
	return pl
}

// ClusterLine is one line of clusters-*.jsonl: the documents removed for
// one kept document (Representative), and that document; with --clusters
// components, one connected component of the matches.
type ClusterLine struct {
	Cluster        string `json:"cluster"` // the first member
	Size           int    `json:"size"`
	Representative string `json:"representative"` // the member kept
	// Keep is the order that chose Representative (--keep: longest, first,
	// field:NAME or field:-NAME), and KeptKey the representative's value
	// in it: its length in bytes (longest), its field's value (field:, as
	// rank.Field.Value gives it; absent when it has none); none for first,
	// whose order is the members'.
	Keep    string   `json:"keep,omitempty"`
	KeptKey any      `json:"kept_key,omitempty"`
	Members []string `json:"members"` // in input order
	// Removed: each member but the representative, in the order of Members,
	// with the match that removes it (not with --clusters components).
	Removed []RemovedMember `json:"removed,omitempty"`
	// Component and ComponentSize: the first document of the connected
	// component of the matches the cluster is part of, and its size (not
	// with --clusters components, where they are Cluster and Size).
	Component     string `json:"component,omitempty"`
	ComponentSize int    `json:"component_size,omitempty"`
	// With --locations: where each member is, in the order of Members.
	Locations []Location `json:"locations,omitempty"`
}

// RemovedMember is a document of a cluster removed for its representative,
// and the match that removes it: the pair of the document and the
// representative, or with Via, of Via (an exact duplicate of the document,
// in the same cluster) and the representative. A containment match (Method
// "containment") removes only its contained document, the member or its
// Via, and gives its containment (rounded as Jaccard). Its similarities
// are named as PairLine's: "jaccard", "containment" when exact,
// "jaccard_estimate", "containment_estimate" when Estimated.
type RemovedMember struct {
	ID          string
	Method      string
	Jaccard     float64
	Estimated   bool // Jaccard and Containment are the MinHash estimates
	Hamming     int
	Containment float64
	Via         string
}

// removedJSON is RemovedMember as its line has it.
type removedJSON struct {
	ID                  string   `json:"id"`
	Method              string   `json:"method"`
	Jaccard             *float64 `json:"jaccard,omitempty"`
	JaccardEstimate     *float64 `json:"jaccard_estimate,omitempty"`
	Hamming             int      `json:"hamming"`
	Containment         float64  `json:"containment,omitempty"`
	ContainmentEstimate float64  `json:"containment_estimate,omitempty"`
	Via                 string   `json:"via,omitempty"`
}

// MarshalJSON writes r's entry: its Jaccard and containment as exact or
// estimated values by their names.
func (r RemovedMember) MarshalJSON() ([]byte, error) {
	l := removedJSON{ID: r.ID, Method: r.Method, Hamming: r.Hamming, Via: r.Via}
	l.Jaccard, l.JaccardEstimate = labeled(r.Jaccard, r.Estimated)
	l.Containment, l.ContainmentEstimate = labeledOmit(r.Containment, r.Estimated)
	return json.Marshal(l)
}

// UnmarshalJSON reads a removed member, with its similarities exact or
// estimated.
func (r *RemovedMember) UnmarshalJSON(b []byte) error {
	var l removedJSON
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	*r = RemovedMember{ID: l.ID, Method: l.Method, Hamming: l.Hamming, Via: l.Via}
	r.Jaccard, r.Estimated = unlabeled(l.Jaccard, l.JaccardEstimate)
	r.Containment = max(l.Containment, l.ContainmentEstimate)
	return nil
}

// RoundJaccard is j as the outputs print it: to 4 decimals.
func RoundJaccard(j float32) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(float64(j), 'f', 4, 32), 64)
	return r
}

// RejectLine is one line of rejects-*.jsonl.
type RejectLine struct {
	File   string `json:"file"`
	Line   int64  `json:"line"`
	Offset int64  `json:"offset"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`
	Sample string `json:"sample,omitempty"`
}

// AuditMatch is one indexed document a new document duplicates. Its
// similarities are named as PairLine's: "jaccard", "containment" when
// exact, "jaccard_estimate", "containment_estimate" when Estimated.
type AuditMatch struct {
	ID        string
	Jaccard   float64
	Estimated bool // Jaccard and Containment are the MinHash estimates
	Hamming   int
	Method    string
	Source    string
	// Containment, for Method "containment", is the share of the
	// contained document's shingles in the other; Inside names the
	// contained one: "new" (the audited document, removed) or "indexed"
	// (the indexed one: it does not remove the new document).
	Containment float64
	Inside      string
}

// auditMatchJSON is AuditMatch as its line has it.
type auditMatchJSON struct {
	ID                  string   `json:"id"`
	Jaccard             *float64 `json:"jaccard,omitempty"`
	JaccardEstimate     *float64 `json:"jaccard_estimate,omitempty"`
	Hamming             int      `json:"hamming"`
	Method              string   `json:"method"`
	Source              string   `json:"source"`
	Containment         float64  `json:"containment,omitempty"`
	ContainmentEstimate float64  `json:"containment_estimate,omitempty"`
	Inside              string   `json:"inside,omitempty"`
}

// MarshalJSON writes a's entry: its Jaccard and containment as exact or
// estimated values by their names.
func (a AuditMatch) MarshalJSON() ([]byte, error) {
	l := auditMatchJSON{ID: a.ID, Hamming: a.Hamming, Method: a.Method, Source: a.Source, Inside: a.Inside}
	l.Jaccard, l.JaccardEstimate = labeled(a.Jaccard, a.Estimated)
	l.Containment, l.ContainmentEstimate = labeledOmit(a.Containment, a.Estimated)
	return json.Marshal(l)
}

// UnmarshalJSON reads an audit match, with its similarities exact or
// estimated.
func (a *AuditMatch) UnmarshalJSON(b []byte) error {
	var l auditMatchJSON
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	*a = AuditMatch{ID: l.ID, Hamming: l.Hamming, Method: l.Method, Source: l.Source, Inside: l.Inside}
	a.Jaccard, a.Estimated = unlabeled(l.Jaccard, l.JaccardEstimate)
	a.Containment = max(l.Containment, l.ContainmentEstimate)
	return nil
}

// AuditLine is one line of audit-*.jsonl: a new document and the indexed
// documents it duplicates, best first. Kept marks a new document whose
// only indexed matches are indexed documents inside it: it is not removed.
type AuditLine struct {
	Doc     string       `json:"doc"`
	Matches []AuditMatch `json:"matches"`
	Kept    bool         `json:"kept,omitempty"`
}
