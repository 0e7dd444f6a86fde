package workerkey

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	const sum = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{sum, sum, true},
		{strings.ToUpper(sum), sum, true},
		{sum[:62], "", false},
		{sum + "00", "", false},
		{"z" + sum[1:], "", false},
		{"", "", false},
		{"../" + sum[3:], "", false},
	} {
		got, ok := Parse(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Parse(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "worker")
	if err := os.WriteFile(path, []byte("test"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := File(path)
	if err != nil {
		t.Fatal(err)
	}
	// sha256sum of "test"
	if want := "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"; got != want {
		t.Errorf("File = %s; want %s", got, want)
	}
	if _, err := File(path + ".gone"); err == nil {
		t.Error("no error for a file that is not there")
	}
}
