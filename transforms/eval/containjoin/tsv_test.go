package containjoin

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/eval/quality"
)

func TestTSVRoundTrip(t *testing.T) {
	pairs := []Pair{
		{A: "d2", B: "d1", SizeA: 4, SizeB: 10, Inter: 4},
		{A: "d3", B: "d4", SizeA: 7, SizeB: 7, Inter: 5},
	}
	var buf bytes.Buffer
	if err := WriteTSV(&buf, pairs); err != nil {
		t.Fatal(err)
	}
	want := Header + "\n" +
		"d2\td1\t0.400000\t4\t10\t4\t10\t1.000000\t0.400000\n" +
		"d3\td4\t0.555556\t5\t9\t7\t7\t0.714286\t0.714286\n"
	if buf.String() != want {
		t.Fatalf("WriteTSV =\n%s\nwant\n%s", buf.String(), want)
	}
	path := filepath.Join(t.TempDir(), "truth.tsv")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTSV(path)
	if err != nil || !slices.Equal(got, pairs) {
		t.Errorf("ReadTSV = %v, %v; want %v", got, err, pairs)
	}
	// neardup eval reads it as a Jaccard truth file.
	truth, err := quality.ReadTruth(path)
	if err != nil || len(truth) != 2 || truth[0].Inter != 4 || truth[0].Union != 10 || truth[1].Union != 9 {
		t.Errorf("quality.ReadTruth = %+v, %v", truth, err)
	}
}

func TestReadTSVErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"empty", "", "empty, want the header"},
		{"no header", "a\tb\t1\t1\t1\t1\t1\t1\t1\n", ":1: want the header"},
		{"columns", Header + "\na\tb\t1\t1\n", ":2: want 9 columns, got 4"},
		{"count", Header + "\na\tb\t1\tx\t1\t1\t1\t1\t1\n", ":2: column 4: \"x\" is not a count"},
		{"same id", Header + "\na\ta\t1\t1\t1\t1\t1\t1\t1\n", "want two different ids"},
		{"sizes", Header + "\na\tb\t0.5\t2\t4\t3\t2\t1\t1\n", "want 0 < size_a <= size_b"},
		{"inter", Header + "\na\tb\t1\t4\t3\t3\t4\t1\t1\n", "inter 4 above size_a 3"},
		{"union", Header + "\na\tb\t1\t3\t5\t3\t4\t1\t1\n", "union 5, want size_a + size_b - inter = 4"},
		{"twice", Header + "\na\tb\t1\t3\t4\t3\t4\t1\t1\nb\ta\t1\t3\t4\t3\t4\t1\t1\n", ":3: the pair b a again (first at line 2)"},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "truth.tsv")
		if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadTSV(path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: ReadTSV error %v, want %q", tt.name, err, tt.want)
		}
	}
}
