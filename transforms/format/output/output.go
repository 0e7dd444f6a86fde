// Package output names the files a run or an audit writes in its output
// directory and defines their line formats and summary.json: the contract
// between the job, the command and the people and programs that read the
// outputs. It knows nothing of Beam.
package output

import (
	"fmt"
	"strings"
)

// Kinds: the file name prefixes of the per-input-file outputs.
const (
	KindPairs    = "pairs"
	KindClusters = "clusters"
	KindRejects  = "rejects"
	KindDedup    = "dedup"
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

// JoinPath joins an output directory (a local path or a URL such as
// gs://bucket/dir) and a file name.
func JoinPath(dir, name string) string { return strings.TrimSuffix(dir, "/") + "/" + name }

// PairLine is one line of pairs-*.jsonl.
type PairLine struct {
	A       string  `json:"a"`
	B       string  `json:"b"`
	Jaccard float64 `json:"jaccard"`
	Hamming int     `json:"hamming"`
	Method  string  `json:"method"`
}

// ClusterLine is one line of clusters-*.jsonl.
type ClusterLine struct {
	Cluster        string   `json:"cluster"`
	Size           int      `json:"size"`
	Representative string   `json:"representative"`
	Members        []string `json:"members"`
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
}

// AuditLine is one line of audit-*.jsonl: a new document and the indexed
// documents it duplicates, best first.
type AuditLine struct {
	Doc     string       `json:"doc"`
	Matches []AuditMatch `json:"matches"`
}
