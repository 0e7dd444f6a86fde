package jobfiles

import "testing"

func TestIsWorkFile(t *testing.T) {
	for name, want := range map[string]bool{
		"info-00000-000000.bin":                       true,
		"info-00012-1234567.bin":                      true,
		".tmp-info-00003-000002.bin-0123456789abcdef": true,
		"info-00000.bin":                              true, // a whole file's, before segments
		"info-123456.bin":                             true,
		".tmp-info-00003.bin-0123456789abcdef":        true,
		"info-0-000000.bin":                           false,
		"info-00000-0.bin":                            false,
		"info-00000-000000-000000.bin":                false,
		"info-00000--00001.bin":                       false,
		"seen-00000.json":                             true,
		".tmp-seen-00012.json-0123456789abcdef":       true,
		"seen-0.json":                                 false,
		"info-0.bin":                                  false,
		"info-00000.bin.bak":                          false,
		"pairs-00000.jsonl":                           false,
		"docs-00000-000003.bin":                       true,
		".tmp-docs-00001-000000.bin-0123456789abcdef": true,
		"docs-0-000003.bin":                           false,
		"part-pairs-00002-000001.jsonl":               true,
		"part-rejects-00000-000000.jsonl":             true,
		".tmp-part-clusters-00000-000009.jsonl-01234": true,
		"part-dedup-00000-000000.jsonl":               false,
		"part-pairs-2-1.jsonl":                        false,
		"input-00007":                                 true,
		".tmp-input-00007-0123456789ab":               true,
		"input-7":                                     false,
		"input-00007.gz":                              false,
		".tmp-mine":                                   false,
		"notes.txt":                                   false,
	} {
		if got := IsWorkFile(name); got != want {
			t.Errorf("IsWorkFile(%q) = %v, want %v", name, got, want)
		}
	}
}
