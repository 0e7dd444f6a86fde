package outdir

import "testing"

func TestFileList(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, "no files"},
		{[]string{"clusters-00000.jsonl", "clusters-00001.jsonl", "dedup-00000.jsonl.gz", "report.html", "summary.json"},
			"summary.json, report.html, clusters-* (2 files), dedup-* (1 file)"},
		{[]string{"index-00000.bin", "index.json", "keys-00003.bin"}, "index.json, index-* (1 file), keys-* (1 file)"},
		{[]string{"my-file", "a-"}, "my-file, a-"},
	} {
		if got := FileList(c.names); got != c.want {
			t.Errorf("FileList(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}
