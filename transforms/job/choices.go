package job

import (
	"fmt"
	"slices"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/match/verify"
	"github.com/neardup/neardup/transforms/sketch/minhash"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

// checkChoices reports a setting that names no choice of its type.
func (c Config) checkChoices() error {
	switch {
	case !slices.Contains([]record.Format{record.JSONL, record.TSV, record.Text, record.Parquet}, c.Format):
		return fmt.Errorf("format %v unknown", c.Format)
	case !slices.Contains([]tokenize.Mode{tokenize.Char, tokenize.Word}, c.Tokens):
		return fmt.Errorf("tokens %v unknown", c.Tokens)
	case !slices.Contains(Dictionaries, c.Dictionary):
		return fmt.Errorf("dictionary %q: want one of %v", c.Dictionary, Dictionaries)
	case !slices.Contains([]minhash.Mode{minhash.Classic, minhash.OnePermutation}, c.MinHash):
		return fmt.Errorf("minhash mode %v unknown", c.MinHash)
	case !slices.Contains([]verify.Blocking{verify.Both, verify.MinHash, verify.SimHash}, c.Method):
		return fmt.Errorf("method %v unknown", c.Method)
	case !slices.Contains([]verify.Mode{verify.Auto, verify.Estimate, verify.Exact}, c.Verify):
		return fmt.Errorf("verify mode %v unknown", c.Verify)
	case c.Keep != KeepLongest && c.Keep != KeepFirst:
		return fmt.Errorf("keep %d unknown", c.Keep)
	case c.Clusters != ClustersKept && c.Clusters != ClustersComponents:
		return fmt.Errorf("cluster rule %d unknown", c.Clusters)
	}
	return nil
}

// Dictionaries are the gse dictionaries of word mode: auto picks the
// simplified or the traditional one by each text's script (see package
// tokenize).
var Dictionaries = []string{"auto", "zh_s", "zh_t", "zh"}

// checkCompression reports a Compress or CompressLevel that is not one, or
// a level the compression does not have (gzip has no level above 9; with
// no Compress, a level must suit both gzip and zstd inputs).
func (c Config) checkCompression() error {
	comps := []record.Compression{record.Gzip, record.Zstd}
	switch c.Compress {
	case record.Unknown:
	case record.None, record.Gzip, record.Zstd:
		comps = []record.Compression{c.Compress}
	default:
		return fmt.Errorf("compression %v unknown", c.Compress)
	}
	for _, comp := range comps {
		if err := c.CompressLevel.Check(comp); err != nil {
			return err
		}
	}
	return nil
}
