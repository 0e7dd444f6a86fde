package outdir

import (
	"context"
	"errors"
	"io"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"
)

// failFS is a remote filesystem ("failfs://"), memfs's objects under
// memfs://failfs/, whose renames to an object named failRename fail, as a
// bucket's copy may fail half way through a commit.
type failFS struct{ m filesystem.Interface }

var failRename string

func toMem(p string) string   { return "memfs://failfs/" + strings.TrimPrefix(p, "failfs://") }
func fromMem(p string) string { return "failfs://" + strings.TrimPrefix(p, "memfs://failfs/") }

func (f failFS) Close() error { return nil }
func (f failFS) List(ctx context.Context, glob string) ([]string, error) {
	got, err := f.m.List(ctx, toMem(glob))
	for i := range got {
		got[i] = fromMem(got[i])
	}
	return got, err
}
func (f failFS) OpenRead(ctx context.Context, p string) (io.ReadCloser, error) {
	return f.m.OpenRead(ctx, toMem(p))
}
func (f failFS) OpenWrite(ctx context.Context, p string) (io.WriteCloser, error) {
	return f.m.OpenWrite(ctx, toMem(p))
}
func (f failFS) Size(ctx context.Context, p string) (int64, error) { return f.m.Size(ctx, toMem(p)) }
func (f failFS) LastModified(ctx context.Context, p string) (time.Time, error) {
	return f.m.(filesystem.LastModifiedGetter).LastModified(ctx, toMem(p))
}
func (f failFS) Remove(ctx context.Context, p string) error {
	return f.m.(filesystem.Remover).Remove(ctx, toMem(p))
}
func (f failFS) Rename(ctx context.Context, from, to string) error {
	if path.Base(to) == failRename {
		return errors.New("copy failed")
	}
	return f.m.(filesystem.Renamer).Rename(ctx, toMem(from), toMem(to))
}

func init() {
	filesystem.Register("failfs", func(ctx context.Context) filesystem.Interface { return failFS{memfs.New(ctx)} })
}

// TestCommitAllRemote (issue 32): a remote commit cannot be undone, but a
// move that fails in it leaves no file that looks final: the index's
// index.json and the output's summary.json are moved only once every
// other file of both directories is in place, summary.json last.
func TestCommitAllRemote(t *testing.T) {
	ctx := context.Background()
	exists := func(p string) bool {
		_, err := failFS{memfs.New(ctx)}.Size(ctx, p)
		return err == nil
	}
	write := func(dir string, names ...string) {
		for _, n := range names {
			w, err := failFS{memfs.New(ctx)}.OpenWrite(ctx, dir+"/"+n)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(w, n)
			w.Close()
		}
	}
	for _, tc := range []struct {
		fail       string // the rename that fails
		index, out bool   // index.json and summary.json in place after
	}{
		{"", true, true},
		{"pairs-00000.jsonl", false, false},
		{"index-00000.bin", false, false},
		{"summary.json", true, false},
	} {
		t.Run("fail "+tc.fail, func(t *testing.T) {
			failRename = tc.fail
			defer func() { failRename = "" }()
			base := "failfs://bucket/" + strings.ReplaceAll(t.Name(), "/", "_")
			idx, err := open(Index, base+"/idx", false, nil)
			if err != nil {
				t.Fatal(err)
			}
			out, err := open(Output, base+"/out", false, nil)
			if err != nil {
				t.Fatal(err)
			}
			write(idx.Stage(), "index-00000.bin", "index.json")
			write(out.Stage(), "pairs-00000.jsonl", "dedup-00000.jsonl", "summary.json")
			err = CommitAll(ctx, Commit{Dir: idx, Last: "index.json", Flag: "--index-out"}, Commit{Dir: out, Last: "summary.json", Flag: "--output"})
			if (err != nil) != (tc.fail != "") {
				t.Fatalf("CommitAll = %v", err)
			}
			idx.Abort()
			out.Abort()
			if got := exists(base + "/idx/index.json"); got != tc.index {
				t.Errorf("index.json in place: %v, want %v", got, tc.index)
			}
			if got := exists(base + "/out/summary.json"); got != tc.out {
				t.Errorf("summary.json in place: %v, want %v", got, tc.out)
			}
		})
	}
}
