package record

import (
	"bytes"
	"strings"
	"testing"
)

// TestCopy: Options.Copy gets the reported lines with their terminators
// and only the terminator of every other line, so that a raw read of the
// copy reports the same lines, at the same indexes, byte for byte.
func TestCopy(t *testing.T) {
	big := `{"id":"big","text":"` + strings.Repeat("x", 100) + `"}`
	for _, tc := range []struct {
		name string
		opt  Options
		in   string
		want string
	}{
		{"good lines", Options{}, "{\"id\":\"a\",\"text\":\"one\"}\n{\"id\":\"b\",\"text\":\"two\"}",
			"{\"id\":\"a\",\"text\":\"one\"}\n{\"id\":\"b\",\"text\":\"two\"}"},
		{"CRLF kept", Options{}, "{\"id\":\"a\",\"text\":\"one\"}\r\n", "{\"id\":\"a\",\"text\":\"one\"}\r\n"},
		{"CRLF kept, raw", Options{Raw: true}, "{\"id\":\"a\",\"text\":\"one\"}\r\n", "{\"id\":\"a\",\"text\":\"one\"}\r\n"},
		{"rejects and blanks are line ends", Options{},
			"not json\r\n  \r\n{\"id\":\"a\",\"text\":\"\"}\n{\"id\":\"b\",\"text\":\"two\"}\n",
			"\n\n\n{\"id\":\"b\",\"text\":\"two\"}\n"},
		{"a rejected last line without a line end", Options{}, "{\"id\":\"b\",\"text\":\"two\"}\nnot json",
			"{\"id\":\"b\",\"text\":\"two\"}\n"},
		{"too large", Options{MaxDocBytes: 50}, big + "\n{\"id\":\"b\",\"text\":\"two\"}\n",
			"\n{\"id\":\"b\",\"text\":\"two\"}\n"},
		{"byte order mark", Options{}, "\xEF\xBB\xBF{\"id\":\"a\",\"text\":\"one\"}\n", "{\"id\":\"a\",\"text\":\"one\"}\n"},
		{"left out by Only", Options{Only: func(i int64) bool { return i != 0 }},
			"{\"id\":\"a\",\"text\":\"one\"}\n{\"id\":\"b\",\"text\":\"two\"}\n", "\n{\"id\":\"b\",\"text\":\"two\"}\n"},
		{"tsv", Options{Format: TSV}, "u\tt\tc\r\nshort\n", "u\tt\tc\r\n\n"},
		{"text", Options{Format: Text}, "a text\r\n", "a text\r\n"},
		{"empty text", Options{Format: Text}, " \n", ""},
		{"text too large", Options{Format: Text, MaxDocBytes: 4}, "a long text", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cp bytes.Buffer
			opt := tc.opt
			opt.Copy = &cp
			var docs []Doc
			err := Read(strings.NewReader(tc.in), "f", opt, func(d Doc) error {
				docs = append(docs, Doc{Raw: bytes.Clone(d.Raw), Index: d.Index})
				return nil
			}, func(Reject) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if cp.String() != tc.want {
				t.Errorf("copy %q, want %q", cp.String(), tc.want)
			}
			// The copy read raw gives the lines reported, at their indexes.
			raw := Options{Format: opt.Format, Raw: true, MaxDocBytes: opt.MaxDocBytes}
			var again []Doc
			err = Read(bytes.NewReader(cp.Bytes()), "f", raw, func(d Doc) error {
				again = append(again, Doc{Raw: bytes.Clone(d.Raw), Index: d.Index})
				return nil
			}, func(Reject) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if len(again) != len(docs) {
				t.Fatalf("the copy has %d records, the stream reported %d", len(again), len(docs))
			}
			for i := range docs {
				cr := []byte("\r") // a raw read keeps it, a parsed one does not
				if again[i].Index != docs[i].Index || !bytes.Equal(bytes.TrimSuffix(again[i].Raw, cr), bytes.TrimSuffix(docs[i].Raw, cr)) {
					t.Errorf("record %d of the copy: %q at %d, want %q at %d", i, again[i].Raw, again[i].Index, docs[i].Raw, docs[i].Index)
				}
			}
		})
	}
}
