package write

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/stagetest"
)

// TestWriteParts: cluster lines of two files, in many chunks and in no
// order, spread over segments of 64 lines (two 32 KiB chunks a part), give each file's shard with
// every line once, sorted by key, with and without spilling (whose reader
// reuses its buffer), and leave no part in the shard's directory.
func TestWriteParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type line struct {
		k1   uint64
		text string
	}
	var all []line
	for file := range 2 {
		for l := range 200 {
			doc := wire.DocNum(file, int64(l*3))
			all = append(all, line{doc, fmt.Sprintf(`{"file":%d,"line":%d,"pad":%q}`, file, l*3, strings.Repeat("x", rng.IntN(4000)))})
		}
	}
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	var chunks []stagetest.Chunk
	for i := 0; i < len(all); i += 7 { // small chunks: several for each part
		byFile := map[int][]byte{}
		for _, l := range all[i:min(i+7, len(all))] {
			byFile[wire.File(l.k1)] = wire.AppendLine(byFile[wire.File(l.k1)], l.k1, 0, []byte(l.text))
		}
		for f, c := range byFile {
			chunks = append(chunks, stagetest.Chunk{Key: f, Chunk: c})
		}
	}
	for _, spill := range []bool{false, true} {
		t.Run(fmt.Sprintf("spill=%v", spill), func(t *testing.T) {
			cfg := stagetest.Config(t)
			cfg.SegmentBits, cfg.Spill = 6, spill
			p, s := beam.NewPipelineWithRoot()
			writeLines(s, OptionsFor(cfg), output.KindClusters, stagetest.Chunks(s, chunks...))
			stagetest.Run(t, p)
			for file := range 2 {
				var want []string
				for _, l := range all {
					if wire.File(l.k1) == file {
						want = append(want, l.text)
					}
				}
				slices.SortFunc(want, func(a, b string) int {
					var fa, la, fb, lb int
					fmt.Sscanf(a, `{"file":%d,"line":%d`, &fa, &la)
					fmt.Sscanf(b, `{"file":%d,"line":%d`, &fb, &lb)
					return la - lb
				})
				b, err := os.ReadFile(filepath.Join(cfg.Output, output.ShardName(output.KindClusters, file)))
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"); !slices.Equal(got, want) {
					t.Errorf("file %d: %d lines, want %d sorted by key", file, len(got), len(want))
				}
			}
			for _, name := range stagetest.DirNames(t, cfg.Output) {
				if strings.HasPrefix(name, "part-") {
					t.Errorf("a part in the output directory: %s", name)
				}
			}
			if parts := slices.DeleteFunc(stagetest.DirNames(t, cfg.Work), func(n string) bool { return !jobfiles.IsPartName(n) }); len(parts) < 2*600/64 {
				t.Errorf("%d parts in the work directory, want one per 64-line segment of 600 lines in each file", len(parts))
			}
		})
	}
}
