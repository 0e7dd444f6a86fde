package exact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/ingest"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/stagetest"
)

// TestExactDuplicatesStage: of three documents with the same text and one
// other (Read, then ExactDuplicates), the representative is kept and the
// two others are exact matches of it and skip lines (file, line): with
// keep=first the first document in input order, with keep=longest the
// longest text (not the longest record).
func TestExactDuplicatesStage(t *testing.T) {
	text := stagetest.Text(1, 30)
	f0 := []string{
		stagetest.JSON("a", text),
		stagetest.JSON("b", stagetest.Text(2, 30)),
		// c: the longest record, its text as a's.
		`{"id":"c","source":"` + strings.Repeat("somewhere else ", 10) + `","text":"` + text + `"}`,
	}
	// d: the longest text, normalized as a's (NFKC: a full-width first
	// letter, 3 bytes instead of 1), in a shorter record than c's.
	f1 := []string{stagetest.JSON("d", string(rune(0xFF00+int(text[0])-0x20))+text[1:])}
	if len(f1[0]) >= len(f0[2]) {
		t.Fatalf("d's record (%d bytes) is not shorter than c's (%d)", len(f1[0]), len(f0[2]))
	}
	for _, tc := range []struct {
		keep           string
		matches, skips []string
	}{
		// Lines to skip are keyed by segment: file 1's first is 1<<24.
		{"first", []string{"0/a-c:exact", "0/a-d:exact"}, []string{"0:2", fmt.Sprintf("%d:0", wire.Segment(wire.DocNum(1, 0), 16))}},
		{"longest", []string{"0/a-d:exact", "0/c-d:exact"}, []string{"0:0", "0:2"}},
	} {
		t.Run(tc.keep, func(t *testing.T) {
			cfg := stagetest.Config(t)
			cfg.Keep = stagetest.Must(job.ParseKeep(tc.keep))
			in := t.TempDir()
			paths := []string{stagetest.Input(t, in, "f0.jsonl", f0...), stagetest.Input(t, in, "f1.jsonl", f1...)}

			p, s := beam.NewPipelineWithRoot()
			keys, _, _, _, _ := ingest.Read(s, ingest.OptionsFor(cfg), stagetest.Files(t, s, paths, cfg.Branches))
			matches, skips, st := ExactDuplicates(s, OptionsFor(cfg), keys)
			passert.Equals(s, stagetest.Decode(s, "match", 0, matches), stagetest.Any(tc.matches)...)
			passert.Equals(s, stagetest.Decode(s, "lines", 0, skips), stagetest.Any(tc.skips)...)
			passert.Equals(s, stagetest.Stats(s, st, summary.StatExactDups), "exact_duplicates=2")
			stagetest.Shuffled(s, st, tally.ShuffleMatches, 0, 0, matches)
			stagetest.Shuffled(s, st, tally.ShuffleSkipLines, 0, 0, skips)
			stagetest.Run(t, p)
		})
	}
}

// TestPassOn: the first pass with one output (ingest.ReadOne), through
// PassOn, gives what Read and ExactDuplicates give: the same exact matches,
// skip lines, reject lines, what each file read, segment markers and
// stats, with and without spilled shuffles.
func TestPassOn(t *testing.T) {
	text := stagetest.Text(1, 30)
	f0 := []string{stagetest.JSON("a", text), stagetest.JSON("b", stagetest.Text(2, 30)), `{"id":"bad"}`, stagetest.JSON("c", text)}
	f1 := []string{stagetest.JSON("d", text), `not json`, stagetest.JSON("e", stagetest.Text(3, 30))}
	for _, spill := range []bool{false, true} {
		t.Run(fmt.Sprint("spill=", spill), func(t *testing.T) {
			cfg := stagetest.Config(t)
			cfg.Spill = spill
			in := t.TempDir()
			paths := []string{stagetest.Input(t, in, "f0.jsonl", f0...), stagetest.Input(t, in, "f1.jsonl", f1...)}

			p, s := beam.NewPipelineWithRoot()
			files := stagetest.Files(t, s, paths, cfg.Branches)
			keys, rejects, seen, segments, readSt := ingest.Read(s, ingest.OptionsFor(cfg), files)
			matches, skips, exactSt := ExactDuplicates(s, OptionsFor(cfg), keys)

			first := ingest.ReadOne(s.Scope("One"), ingest.OptionsFor(cfg), files)
			matches1, skips1, rejects1, inputs1, segments1, st1 := PassOn(s.Scope("One"), OptionsFor(cfg), first)
			seen1 := ingest.MergeInputs(s.Scope("One"), ingest.OptionsFor(cfg), inputs1)

			passert.Equals(s, stagetest.Decode(s, "match", 0, matches1), stagetest.Decode(s, "match", 0, matches))
			passert.Equals(s, stagetest.Decode(s, "lines", 0, skips1), stagetest.Decode(s, "lines", 0, skips))
			str := func(col beam.PCollection) beam.PCollection { return beam.ParDo(s, chunkStr, col) }
			passert.Equals(s, str(rejects1), str(rejects))
			passert.Equals(s, str(seen1), str(seen))
			passert.Equals(s, str(segments1), str(segments))
			passert.Equals(s, beam.ParDo(s, statStr, st1), beam.ParDo(s, statStr, beam.Flatten(s, readSt, exactSt)))
			passert.Equals(s, stagetest.Stats(s, st1, summary.StatExactDups, summary.StatRejected), "exact_duplicates=2", "rejected=2")
			stagetest.Run(t, p)
		})
	}
}

func init() {
	register.Function2x1(chunkStr)
	register.Function2x1(statStr)
}

// chunkStr and statStr format a keyed chunk and a stat for passert.
func chunkStr(k int64, c []byte) string   { return fmt.Sprintf("%d:%x", k, c) }
func statStr(name string, v int64) string { return fmt.Sprintf("%s=%d", name, v) }
