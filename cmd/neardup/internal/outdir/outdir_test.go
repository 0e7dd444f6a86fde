package outdir

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"

	"github.com/neardup/neardup/transforms/format/summary"
)

// TestDirNames: which file names an output directory and an index
// directory own, final and temporary.
func TestDirNames(t *testing.T) {
	tests := []struct {
		name          string
		output, index bool
	}{
		{"pairs-00000.jsonl", true, false},
		{"clusters-00012.jsonl", true, false},
		{"dedup-123456.jsonl", true, false},
		{"rejects-00001.jsonl", true, false},
		{"summary.json", true, false},
		{"report.html", true, false},
		{"audit-00003.jsonl", true, false},
		{"audit-summary.json", true, false},
		{".tmp-dedup-00001.jsonl-0123456789abcdef", true, false},
		{".tmp-summary.json-00ff", true, false},
		{"pairs-.jsonl", false, false},
		{"pairs-x.jsonl", false, false},
		{"pairs-00000.jsonl.bak", false, false},
		{"pairs-00000.jsonl.zst", true, false},
		{"rejects-00002.jsonl.gz", true, false},
		{"dedup-00001.tsv.gz", true, false},
		{".tmp-clusters-00001.jsonl.zst-0a1b", true, false},
		{"pairs-00000.jsonl.zst.gz", false, false},
		{"pairs-00000.jsonl.bz2", false, false},
		{"pairs-00000.gz", false, false},
		{"dedup-00000.txt", true, false},
		{"dedup-00000.tsv", true, false},
		{"dedup-00000.csv", false, false},
		{"pairs-00000.txt", false, false},
		{"summary.json.old", false, false},
		{"notes.txt", false, false},
		{".tmp-notes", false, false},
		{".tmp-notes.txt-0123", false, false},
		{".tmp-dedup-00001.jsonl", false, false},
		{".tmp-dedup-00001.jsonl-xyz", false, false},
		{"my-pairs-00000.jsonl", false, false},
		{".tmp-.tmp-pairs-00000.jsonl-00-00", false, false},
		{"clusters-00001.jsonl/..", false, false},
		{"CLUSTERS-00001.JSONL", false, false},
		{".tmp-report.html-9f", true, false},
		{".tmp-rejects-00003.jsonl-0123456789abcde", true, false},
		{"index.json", false, true},
		{"index-00000.bin", false, true},
		{".sig-00003.bin", false, true},
		{".tmp-index-00001.bin-0a1b2c3d", false, true},
		{".tmp-index.json-ff", false, true},
		{"index-.bin", false, false},
		{"index-0001.jsonl", false, false},
		{"sig-00003.bin", false, false},
		{".tmp-index-00001.bin", false, false},
		{"index.json.bak", false, false},
	}
	for _, tt := range tests {
		if got := isOutputName(tt.name); got != tt.output {
			t.Errorf("isOutputName(%q) = %v, want %v", tt.name, got, tt.output)
		}
		if got := isIndexName(tt.name); got != tt.index {
			t.Errorf("isIndexName(%q) = %v, want %v", tt.name, got, tt.index)
		}
	}
}

// TestPrepareDir: an absent directory is created, an empty one is used, a
// non-empty one is refused without --overwrite (and left as it was). With
// --overwrite an output directory loses only neardup's own files (and the
// work directory of a failed job), while an index directory is emptied only
// if it holds nothing but an index's files.
func TestPrepareDir(t *testing.T) {
	ours := []string{"pairs-00000.jsonl", "clusters-00001.jsonl", "dedup-00007.jsonl", "rejects-00002.jsonl",
		"summary.json", "report.html", ".tmp-dedup-00000.jsonl-0123456789abcdef"}
	theirs := []string{"notes.txt", "pairs-old.jsonl", "summary.json.bak", ".tmp-mine"}
	index := []string{"index.json", "index-00000.bin", ".sig-00003.bin", ".tmp-index-00001.bin-0a1b2c3d"}
	mkdir := func(t *testing.T, dir string) {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		kind      Kind
		setup     func(t *testing.T, dir string) // nil: the directory does not exist
		overwrite bool
		error     string   // the whole error, DIR standing for the directory
		left      []string // what is in the directory afterwards
	}{
		{"output absent", Output, nil, false, "", nil},
		{"output absent, overwrite", Output, nil, true, "", nil},
		{"output empty", Output, func(*testing.T, string) {}, false, "", nil},
		{"output with only unrelated files", Output, func(t *testing.T, d string) { writeFiles(t, d, theirs...) }, false,
			"--output DIR is not empty (use --overwrite to replace neardup's files in it)", theirs},
		{"output of a previous run", Output, func(t *testing.T, d string) { writeFiles(t, d, ours...) }, false,
			"--output DIR is not empty (use --overwrite to replace neardup's files in it)", ours},
		{"output of a previous run, overwrite", Output, func(t *testing.T, d string) {
			writeFiles(t, d, ours...)
			writeFiles(t, d, theirs...)
			mkdir(t, filepath.Join(d, "pairs-00009.jsonl")) // a directory: not ours
		}, true, "", append([]string{"pairs-00009.jsonl"}, theirs...)},
		{"output with the work directory of a failed job, overwrite", Output, func(t *testing.T, d string) {
			writeFiles(t, d, ours...)
			writeFiles(t, filepath.Join(d, ".tmp-work"), "info-00000-000001.bin", ".tmp-info-00003-000000.bin-0123456789abcdef", "info-00002.bin")
		}, true, "", nil},
		{"output with a work directory holding a file of the user's, overwrite", Output, func(t *testing.T, d string) {
			writeFiles(t, filepath.Join(d, ".tmp-work"), "info-00000-000000.bin", "mine.txt")
		}, true, "DIR/.tmp-work holds mine.txt, which neardup did not write; remove it yourself", []string{".tmp-work"}},

		{"index absent", Index, nil, false, "", nil},
		{"index empty", Index, func(*testing.T, string) {}, true, "", nil},
		{"index of a previous run", Index, func(t *testing.T, d string) { writeFiles(t, d, index...) }, false,
			"DIR is not empty (use --overwrite to replace an index, or what a failed run left, in it)", index},
		{"index of a previous run, overwrite", Index, func(t *testing.T, d string) { writeFiles(t, d, index...) }, true, "", nil},
		{"index with a file of the user's, overwrite", Index, func(t *testing.T, d string) { writeFiles(t, d, "index.json", "notes.txt") }, true,
			"DIR holds notes.txt, which is not part of an index: not overwriting", []string{"index.json", "notes.txt"}},
		{"index with a work directory, overwrite", Index, func(t *testing.T, d string) {
			writeFiles(t, d, "index.json")
			writeFiles(t, filepath.Join(d, ".tmp-work"), "info-00000-000000.bin")
		}, true, "DIR holds .tmp-work, which is not part of an index: not overwriting", []string{".tmp-work", "index.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if tt.setup != nil {
				mkdir(t, dir)
				tt.setup(t, dir)
			}
			var before []string
			if tt.setup != nil {
				before = listDir(t, dir)
			}
			tg, err := open(tt.kind, dir, tt.overwrite, nil)
			switch want := strings.ReplaceAll(tt.error, "DIR", dir); {
			case want != "" && (err == nil || err.Error() != want):
				t.Fatalf("open = %v; want the error %q", err, want)
			case want == "" && (err != nil || tg.dir != dir):
				t.Fatalf("open = %v; want %q", err, dir)
			}
			if err == nil {
				// Nothing is removed before the commit; the lock and the
				// staging directory are added.
				got := slices.DeleteFunc(listDir(t, dir), func(n string) bool {
					return n == lockName || strings.HasPrefix(n, stagePrefix) && filepath.Join(dir, n) == tg.stage
				})
				if !slices.Equal(got, before) {
					t.Errorf("after open: %q, want %q", got, before)
				}
				if err := tg.Commit(context.Background(), summary.FileName); err != nil {
					t.Fatal(err)
				}
			}
			left := listDir(t, dir)
			want := slices.Sorted(slices.Values(tt.left))
			if !slices.Equal(left, want) {
				t.Errorf("left in the directory: %q, want %q", left, want)
			}
		})
	}
}

// TestPrepareDirOther: a file where the directory should be is refused,
// with the flag in front of the error where the kind has one; URLs are used
// as given, an index's without a trailing slash; a relative path comes back
// absolute.
func TestPrepareDirOther(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "out")
	writeFiles(t, tmp, "out")
	t.Chdir(tmp)
	tests := []struct {
		kind Kind
		dir  string
		want string
		err  string // the whole error; "": none
	}{
		{Output, file, "", "--output " + file + ": open " + file + ": not a directory"},
		{Index, file, "", "open " + file + ": not a directory"},
		{Output, "memfs://bucket/out/", "memfs://bucket/out/", ""},
		{Index, "memfs://bucket/idx/", "memfs://bucket/idx", ""},
		{Index, "memfs://bucket/idx", "memfs://bucket/idx", ""},
		{Output, "rel", filepath.Join(tmp, "rel"), ""},
		{Index, "rel/idx", filepath.Join(tmp, "rel", "idx"), ""},
	}
	for _, tt := range tests {
		tg, err := open(tt.kind, tt.dir, true, nil)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("open(%q) = %v; want the error %q", tt.dir, err, tt.err)
			}
			continue
		}
		if err != nil || tg.dir != tt.want {
			t.Errorf("open(%q) = %v; want %q", tt.dir, err, tt.want)
			continue
		}
		if !tg.url {
			if err := tg.Commit(context.Background(), summary.FileName); err != nil {
				t.Error(err)
			}
		}
		tg.Abort()
	}
	if fi, err := os.Stat(filepath.Join(tmp, "rel", "idx")); err != nil || !fi.IsDir() {
		t.Errorf("rel/idx not made: %v", err)
	}
}

// open is New and Open: the directory if Open succeeds.
func open(k Kind, dir string, overwrite bool, inputs []string) (*Dir, error) {
	d := k.New(dir)
	if err := d.Open(overwrite, inputs); err != nil {
		return nil, err
	}
	return d, nil
}

func writeFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestCommitAll: a commit checks every destination of every directory
// before it moves the first file: a directory where a final file goes
// leaves both directories as they were; and a move that fails puts back
// what was moved.
func TestCommitAll(t *testing.T) {
	root := t.TempDir()
	idxDir, outDir := filepath.Join(root, "idx"), filepath.Join(root, "out")
	writeFiles(t, outDir, "pairs-00000.jsonl", "summary.json/mine.txt", "notes.txt")
	before := snapshot(t, root)
	idx, err := open(Index, idxDir, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := open(Output, outDir, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, idx.Stage(), "index-00000.bin", "index.json")
	writeFiles(t, out.Stage(), "pairs-00000.jsonl", "dedup-00000.jsonl", "summary.json")
	err = CommitAll(context.Background(), Commit{Dir: idx, Last: "index.json", Flag: "--index-out"}, Commit{Dir: out, Last: "summary.json", Flag: "--output"})
	want := "--output: --output " + outDir + " holds summary.json (a directory), which is not neardup's to replace: nothing was moved into place"
	if err == nil || err.Error() != want {
		t.Fatalf("CommitAll = %v; want %q", err, want)
	}
	idx.Abort()
	out.Abort()
	if after := snapshot(t, root); !maps.Equal(after, before) {
		t.Errorf("after the failed commit: %q, want %q", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
	}

	// A move that fails half way: the replaced file and the moved ones go back.
	dir := t.TempDir()
	writeFiles(t, dir, "old.jsonl", "stage/a.jsonl")
	before = snapshot(t, dir)
	m := &localMoves{aside: filepath.Join(dir, "stage", replacedDir), replaced: []string{filepath.Join(dir, "old.jsonl")},
		in: [][2]string{{filepath.Join(dir, "stage/a.jsonl"), filepath.Join(dir, "a.jsonl")}, {filepath.Join(dir, "stage/gone"), filepath.Join(dir, "gone")}}}
	if err := m.apply(); err == nil {
		t.Fatal("apply of a missing file succeeded")
	}
	m.undo()
	os.Remove(m.aside)
	if after := snapshot(t, dir); !maps.Equal(after, before) {
		t.Errorf("after undo: %q, want %q", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
	}
}

// snapshot maps every path under root to its content ("" for a directory).
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		b := []byte{}
		if !d.IsDir() {
			b, err = os.ReadFile(p)
		}
		m[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCommitAllAbort: an abort (a signal's cleanup, the index's first or
// the output's first) that comes while the directories are committed
// leaves both committed or neither.
func TestCommitAllAbort(t *testing.T) {
	for i := range 40 {
		root := t.TempDir()
		idx, err := open(Index, filepath.Join(root, "idx"), false, nil)
		if err != nil {
			t.Fatal(err)
		}
		out, err := open(Output, filepath.Join(root, "out"), false, nil)
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, idx.Stage(), "index-00000.bin", "index.json")
		writeFiles(t, out.Stage(), "pairs-00000.jsonl", "summary.json")
		aborted := make(chan struct{})
		go func() {
			if i%2 == 0 {
				idx.Abort()
				out.Abort()
			} else {
				out.Abort()
				idx.Abort()
			}
			close(aborted)
		}()
		err = CommitAll(context.Background(), Commit{Dir: idx, Last: "index.json"}, Commit{Dir: out, Last: "summary.json"})
		<-aborted
		_, ierr := os.Stat(filepath.Join(root, "idx", "index.json"))
		_, oerr := os.Stat(filepath.Join(root, "out", "summary.json"))
		if (ierr == nil) != (oerr == nil) || (err == nil) != (oerr == nil) || idx.Committed() != out.Committed() {
			t.Fatalf("round %d: commit %v, index.json %v, summary.json %v: want both or neither", i, err, ierr, oerr)
		}
	}
}
