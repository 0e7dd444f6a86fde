package report

import (
	"fmt"

	"github.com/neardup/neardup/transforms/format/output"
)

// fate is what the run did with a document, from its cluster line: kept
// (the zero fate: the representative of its cluster, or in no cluster),
// or removed for the representative, by the match in its cluster's
// removed entry. A cluster line without removed entries (--clusters
// components) gives no match: the document is removed because its
// component keeps the representative.
type fate struct {
	Rep   string                // the document it was removed for; "" when kept
	Match *output.RemovedMember // the match that removes it, if the cluster line gives one
}

// removed reports whether the run removed the document.
func (f fate) removed() bool { return f.Rep != "" }

// fateOf is the fate of member id of cluster c.
func fateOf(id string, c *output.ClusterLine) fate {
	if id == c.Representative {
		return fate{}
	}
	f := fate{Rep: c.Representative}
	for i := range c.Removed {
		if c.Removed[i].ID == id {
			m := c.Removed[i]
			f.Match = &m
			break
		}
	}
	return f
}

// phrase is a piece of a sentence on the page: text, or an id shown as
// code.
type phrase struct {
	Text string
	Code bool
}

// sentence builds a list of phrases.
type sentence []phrase

func (s *sentence) say(text string) *sentence {
	*s = append(*s, phrase{Text: text})
	return s
}

func (s *sentence) id(id string) *sentence {
	*s = append(*s, phrase{Text: shortID(id), Code: true})
	return s
}

// Badges of a side of a pair: what the run did with the document, as
// seen from the pair.
const (
	badgeKept         = "kept"
	badgeRemoved      = "removed"             // for the pair's other document
	badgeRemovedOther = "removed for another" // for a third document
)

// decision says what the run decided about the pair (a, b) of documents
// of fates fa and fb, in words: which one was removed for which, or that
// neither was removed for the other, and why each is kept or removed; and
// the badge of each side. method is the pair's.
func decision(a, b string, fa, fb fate, method string) (s sentence, badgeA, badgeB string) {
	badgeA, badgeB = badge(b, fa), badge(a, fb)
	switch {
	case fa.Rep == b:
		removedFor(&s, a, b, fa, true)
		s.say("; ").id(b).say(" kept")
		return s, badgeA, badgeB
	case fb.Rep == a:
		removedFor(&s, b, a, fb, true)
		s.say("; ").id(a).say(" kept")
		return s, badgeA, badgeB
	}
	switch {
	case !fa.removed() && !fb.removed():
		s.say("both kept: neither was removed for the other")
		if method == "containment" {
			s.say(" (a containment pair removes only the contained document, and only for a document before it in --keep order)")
		}
	case fa.removed() && fa.Rep == fb.Rep && (fa.Match == nil || fb.Match == nil):
		s.say("neither was removed for the other: both removed, their component keeps ").id(fa.Rep)
	case fa.removed() && fa.Rep == fb.Rep:
		s.say("neither was removed for the other: both were removed for ").id(fa.Rep).say(": ")
		howRemoved(&s, a, fa)
		s.say("; ")
		howRemoved(&s, b, fb)
	default:
		s.say("neither was removed for the other: ")
		for i, d := range []struct {
			id string
			f  fate
		}{{a, fa}, {b, fb}} {
			if i > 0 {
				s.say("; ")
			}
			if d.f.removed() {
				removedFor(&s, d.id, d.f.Rep, d.f, false)
			} else {
				s.id(d.id).say(" kept")
			}
		}
	}
	return s, badgeA, badgeB
}

// removedFor says that id was removed for rep, and by which match: this
// pair's when inPair and the match is id's own.
func removedFor(s *sentence, id, rep string, f fate, inPair bool) {
	m := f.Match
	if m == nil { // --clusters components
		s.id(id).say(" removed: its component keeps ").id(rep)
		return
	}
	s.id(id).say(" removed for ").id(rep)
	if m.Via != "" {
		s.say(" through its exact duplicate ").id(m.Via).say(", whose pair with ").id(rep).say(" is " + matchText(m))
		return
	}
	if inPair {
		s.say(" by this pair")
		return
	}
	s.say(" (" + matchText(m) + ")")
}

// howRemoved names id, removed by the match of f, and the match: through
// which exact duplicate, by which method, at which similarity.
func howRemoved(s *sentence, id string, f fate) {
	s.id(id)
	if v := f.Match.Via; v != "" {
		s.say(" through its exact duplicate ").id(v)
	}
	s.say(" (" + matchText(f.Match) + ")")
}

// badge is the badge of a document of fate f whose pair's other document
// is other.
func badge(other string, f fate) string {
	switch {
	case !f.removed():
		return badgeKept
	case f.Rep == other:
		return badgeRemoved
	}
	return badgeRemovedOther
}

// matchText is a removing match's method and similarity, as the page
// shows it: "minhash, Jaccard 0.8902, Hamming 8", "minhash, Jaccard
// estimate 0.9216, Hamming 7", "containment 0.9500, Jaccard 0.4100,
// Hamming 20", "exact duplicate".
func matchText(m *output.RemovedMember) string {
	switch m.Method {
	case "exact":
		return "exact duplicate"
	case "containment":
		return fmt.Sprintf("%s %.4f, %s %.4f, Hamming %d", simName("containment", m.Estimated), m.Containment, simName("Jaccard", m.Estimated), m.Jaccard, m.Hamming)
	}
	return fmt.Sprintf("%s, %s %.4f, Hamming %d", m.Method, simName("Jaccard", m.Estimated), m.Jaccard, m.Hamming)
}

// simName is the name the page gives similarity name: with "estimate"
// after it when it is the MinHash estimate.
func simName(name string, estimated bool) string {
	if estimated {
		return name + " estimate"
	}
	return name
}
