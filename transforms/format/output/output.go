// Package output names the files a run or an audit writes in its output
// directory and defines their line formats and summary.json: the contract
// between the job, the command and the people and programs that read the
// outputs. The job writes the line types it declares; Each, EachIn and
// ReadSummary read them back (the report and eval do). It knows nothing of
// Beam.
package output

import (
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
		if isNumbered(name, KindDedup+"-", ext) || isNumbered(name, KindRemoved+"-", ext) {
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

// PairLine is one line of pairs-*.jsonl.
type PairLine struct {
	A       string  `json:"a"`
	B       string  `json:"b"`
	Jaccard float64 `json:"jaccard"`
	Hamming int     `json:"hamming"`
	Method  string  `json:"method"`
	// For Method "containment" (--containment): the containment of the
	// contained document (the share of its distinct shingles the other
	// has, rounded as Jaccard) and which it is, ContainedA or ContainedB.
	Containment float64 `json:"containment,omitempty"`
	Contained   string  `json:"contained,omitempty"`
	// With --locations: where A and B are.
	ALocation *Location `json:"a_location,omitempty"`
	BLocation *Location `json:"b_location,omitempty"`
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
	pl := PairLine{A: m.IDA, B: m.IDB, Jaccard: RoundJaccard(m.Jaccard), Hamming: int(m.Hamming), Method: m.Method.String()}
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
	Cluster        string   `json:"cluster"` // the first member
	Size           int      `json:"size"`
	Representative string   `json:"representative"` // the member kept
	Members        []string `json:"members"`        // in input order
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
// Via, and gives its containment (rounded as Jaccard).
type RemovedMember struct {
	ID          string  `json:"id"`
	Method      string  `json:"method"`
	Jaccard     float64 `json:"jaccard"`
	Hamming     int     `json:"hamming"`
	Containment float64 `json:"containment,omitempty"`
	Via         string  `json:"via,omitempty"`
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

// AuditMatch is one indexed document a new document duplicates.
type AuditMatch struct {
	ID      string  `json:"id"`
	Jaccard float64 `json:"jaccard"`
	Hamming int     `json:"hamming"`
	Method  string  `json:"method"`
	Source  string  `json:"source"`
	// Containment, for Method "containment", is the share of the
	// contained document's shingles in the other; Inside names the
	// contained one: "new" (the audited document, removed) or "indexed"
	// (the indexed one: it does not remove the new document).
	Containment float64 `json:"containment,omitempty"`
	Inside      string  `json:"inside,omitempty"`
}

// AuditLine is one line of audit-*.jsonl: a new document and the indexed
// documents it duplicates, best first. Kept marks a new document whose
// only indexed matches are indexed documents inside it: it is not removed.
type AuditLine struct {
	Doc     string       `json:"doc"`
	Matches []AuditMatch `json:"matches"`
	Kept    bool         `json:"kept,omitempty"`
}
