package job

import (
	"encoding"
	"fmt"

	"github.com/neardup/neardup/transforms/choice"
	"github.com/neardup/neardup/transforms/format/record"
)

// checkChoices reports a setting that names no choice of its type.
func (c Config) checkChoices() error {
	for _, v := range []encoding.TextMarshaler{c.Format, c.Tokens, c.Dictionary, c.MinHash, c.Method, c.Verify, c.Keep, c.Clusters} {
		if _, err := v.MarshalText(); err != nil {
			return err
		}
	}
	return nil
}

// Dictionary names the gse dictionary of word mode: auto picks the
// simplified or the traditional one by each text's script (see package
// tokenize).
type Dictionary string

// dictionaryNames are the names of the dictionaries.
var dictionaryNames = choice.Names[Dictionary]{
	{Value: "auto", Name: "auto"},
	{Value: "zh_s", Name: "zh_s"},
	{Value: "zh_t", Name: "zh_t"},
	{Value: "zh", Name: "zh"},
}

// MarshalText returns d, if it names a dictionary.
func (d Dictionary) MarshalText() ([]byte, error) { return dictionaryNames.Marshal("dictionary", d) }

// UnmarshalText sets d to the dictionary text names: auto, zh_s, zh_t or
// zh.
func (d *Dictionary) UnmarshalText(text []byte) (err error) {
	*d, err = dictionaryNames.Parse(string(text))
	return err
}

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
