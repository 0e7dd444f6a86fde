package inputs

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/rank"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/objects"
)

// keepFlag is the fieldFlag.flag of a keep order's field.
const keepFlag = "--keep"

// A fieldFlag is a field option to check against the input's records.
type fieldFlag struct {
	flag, name string
}

// CheckFields refuses field options that none of the first
// record.SurveyRecords records of the inputs (JSONL records, or the
// schemas of Parquet files, in the order of files) has, with one line
// naming the fields they have: the text field, and the id field when it
// was chosen (given, or recorded in an audit's index) rather than left at
// its default, whose absence means FILE:LINE ids. Inputs that cannot be
// read here, or have no JSON object among their first lines, are left to
// the run, which rejects their records with reasons.
//
// A keep order by a field (--keep field:NAME) is checked alike, and
// CheckFields sets the field's type in cfg.Keep from what the survey saw
// (record.Survey.Type): strings when no input could be surveyed, with a
// line on stderr. A TSV record's keep fields are its url and title.
//
// With --fates, CheckFields refuses what a fate cannot be added to (see
// checkFates) and the inputs surveyed whose records have a field
// output.FateKey of their own (fateField).
func CheckFields(ctx context.Context, cfg *job.Config, given map[string]bool, files []string) error {
	if err := checkFates(cfg); err != nil {
		return err
	}
	keep := cfg.Keep.Order == job.KeepField
	if keep && cfg.Format == record.Text {
		return fmt.Errorf("--keep %v: a text input is one document without fields; keep by a field of JSONL, TSV or Parquet records", cfg.Keep)
	}
	if keep && cfg.Format == record.TSV {
		if !slices.Contains(record.TSVKeepFields, cfg.Keep.Field) {
			return fmt.Errorf("--keep %v: a TSV record's fields are url, title and content; want url or title", cfg.Keep)
		}
		cfg.Keep.Type = rank.String
		keep = false
	}
	var asked []fieldFlag
	if cfg.TextField != "" {
		asked = append(asked, fieldFlag{"--text-field", cfg.TextField})
	}
	if keep {
		asked = append(asked, fieldFlag{keepFlag, cfg.Keep.Field})
	}
	if cfg.IDField != "" && (given["id-field"] || cfg.IDField != record.DefaultIDField) {
		asked = append(asked, fieldFlag{"--id-field", cfg.IDField})
	}
	names := make([]string, len(asked))
	for i, a := range asked {
		names[i] = a.name
	}
	var all record.Survey
	var read []string
	for _, file := range files {
		if all.Records >= record.SurveyRecords {
			break
		}
		s, ok := surveyFile(ctx, file, cfg.Format, record.SurveyRecords-all.Records, cfg.MaxDocBytes, names)
		if !ok {
			continue
		}
		if err := fateField(cfg, s, file, cfg.WorkDir().NameOf(file)); err != nil {
			return err
		}
		all.Add(s)
		read = append(read, cfg.WorkDir().NameOf(file))
	}
	if len(read) == 0 {
		if keep {
			cfg.Keep.Type = rank.String
			fmt.Fprintf(os.Stderr, "neardup: --keep %v: no input could be surveyed for the field's type; its values compare as strings\n", cfg.Keep)
		}
		return nil
	}
	for _, a := range asked {
		if !all.Has(a.name) {
			if a.flag == keepFlag {
				return fmt.Errorf("--keep %v: %s", cfg.Keep, notFound(all, cfg.Format, read))
			}
			return fmt.Errorf("%s %q: %s", a.flag, a.name, notFound(all, cfg.Format, read))
		}
	}
	if keep {
		cfg.Keep.Type = all.Type(cfg.Keep.Field)
	}
	return nil
}

// checkFates refuses --fates with --removed (the fates file has the
// removed records, marked) and with --format text (a text record is a
// whole file, without fields).
func checkFates(cfg *job.Config) error {
	switch {
	case !cfg.Fates:
		return nil
	case cfg.Removed:
		return fmt.Errorf("--fates and --removed: the fates files hold the removed records too, marked \"fate\":\"removed\"; give one of them")
	case cfg.Format == record.Text:
		return fmt.Errorf("--fates: a text input's record is a whole file, without fields to add a fate to; --removed copies the removed files")
	}
	return nil
}

// fateField refuses, with --fates, the survey s of file (its name as
// named) when its records have a field output.FateKey of their own: a
// JSONL record's top-level key, a Parquet file's column (a leaf or a
// group).
func fateField(cfg *job.Config, s record.Survey, file, name string) error {
	if !cfg.Fates {
		return nil
	}
	if record.FormatFor(file, cfg.Format) == record.Parquet {
		for _, f := range s.Fields {
			if f == output.FateKey || strings.HasPrefix(f, output.FateKey+".") {
				return fmt.Errorf("--fates: %s has a column %q, which --fates adds to every row; rename it, or leave --fates out", name, output.FateKey)
			}
		}
		return nil
	}
	if slices.Contains(s.Fields, output.FateKey) {
		return fmt.Errorf("--fates: records of %s have a top-level %q key, which --fates adds to every record; rename it, or leave --fates out", name, output.FateKey)
	}
	return nil
}

// notFound says that the records a survey read lack a field, and which
// fields they have.
func notFound(s record.Survey, f record.Format, files []string) string {
	what := files[0]
	if len(files) > 1 {
		what = fmt.Sprintf("%s (and %d more files)", files[0], len(files)-1)
	}
	if len(files) == 1 && record.FormatFor(files[0], f) == record.Parquet {
		return fmt.Sprintf("%s has no such column; its columns: %s", what, s.FieldList())
	}
	return fmt.Sprintf("none of the first %d records of %s has it; their fields: %s", s.Records, what, s.FieldList())
}

// surveyFile surveys the file at path, if it is JSONL or Parquet, local or
// on gs:// or s3://, and can be opened and read.
func surveyFile(ctx context.Context, path string, f record.Format, n, maxLine int, names []string) (record.Survey, bool) {
	if maxLine <= 0 {
		maxLine = record.DefaultMaxDocBytes
	}
	if strings.Contains(path, "://") && !objects.Supported(path) {
		return record.Survey{}, false // a filesystem of Beam's other than gs:// and s3://
	}
	switch record.FormatFor(path, f) {
	case record.JSONL:
		rc, err := openInput(ctx, path)
		if err != nil {
			return record.Survey{}, false
		}
		defer rc.Close()
		r, err := record.Decompress(path, rc)
		if err != nil {
			return record.Survey{}, false
		}
		s, err := record.SurveyJSONL(r, n, maxLine, names...)
		return s, err == nil && s.Records > 0
	case record.Parquet:
		var ra io.ReaderAt
		var size int64
		if strings.Contains(path, "://") {
			o, err := objects.Open(ctx, path)
			if err != nil {
				return record.Survey{}, false
			}
			ra, size = o, o.Size
		} else {
			file, err := os.Open(path)
			if err != nil {
				return record.Survey{}, false
			}
			defer file.Close()
			fi, err := file.Stat()
			if err != nil || !fi.Mode().IsRegular() {
				return record.Survey{}, false
			}
			ra, size = file, fi.Size()
		}
		s, err := record.SurveyParquet(ra, size, names...)
		return s, err == nil
	}
	return record.Survey{}, false
}

// openInput opens the input file at path, local or remote.
func openInput(ctx context.Context, path string) (io.ReadCloser, error) {
	if !strings.Contains(path, "://") {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			f.Close()
			return nil, fmt.Errorf("%s: not a regular file", path)
		}
		return f, nil
	}
	fsys, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	rc, err := fsys.OpenRead(ctx, path)
	if err != nil {
		fsys.Close()
		return nil, err
	}
	return closeBoth{rc, fsys}, nil
}

type closeBoth struct {
	io.ReadCloser
	fsys filesystem.Interface
}

func (c closeBoth) Close() error {
	err := c.ReadCloser.Close()
	c.fsys.Close()
	return err
}

// LacksField says, after ": ", which of the fields idField and textField
// none of the first records of the JSONL file at path has, and the fields
// they have; "" if they have both, or the file cannot be surveyed.
func LacksField(path, idField, textField string) string {
	s, ok := surveyFile(context.Background(), path, record.JSONL, record.SurveyRecords, 0, []string{idField, textField})
	if !ok {
		return ""
	}
	for _, f := range []struct{ flag, name string }{{"--id-field", idField}, {"--text-field", textField}} {
		if !s.Has(f.name) {
			return fmt.Sprintf(": none of the first %d records has the field %q (%s); their fields: %s", s.Records, f.name, f.flag, s.FieldList())
		}
	}
	return ""
}
