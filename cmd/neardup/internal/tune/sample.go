package tune

import (
	"fmt"
	"io"
	"os"

	"github.com/neardup/neardup/transforms/format/record"
)

// SampleTexts returns about n texts, every k-th good record of the file.
// A read error or damaged compressed data that cuts the file (a gzip file
// cut short) does not stop it: as a run does, it uses the records before
// the damage, and says so on one line to warn.
func SampleTexts(path string, n int, opt record.Options, warn io.Writer) ([]string, error) {
	var all []string
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := record.Decompress(path, f)
	if err != nil {
		return nil, err
	}
	var cut *record.Reject
	err = record.Read(r, path, opt, func(d record.Doc) error {
		all = append(all, d.Text)
		return nil
	}, func(rj record.Reject) error {
		if record.EndsFile(rj.Reason) {
			cut = &rj
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if cut != nil {
		fmt.Fprintf(warn, "neardup tune: %s (%s): the sample is of the %d documents before it\n", cut.Detail, cut.Reason, len(all))
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%s: no documents", path)
	}
	step := max(1, len(all)/max(n, 1))
	var out []string
	for i := 0; i < len(all) && len(out) < n; i += step {
		out = append(out, all[i])
	}
	return out, nil
}
