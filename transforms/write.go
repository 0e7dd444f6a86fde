package transforms

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
)

func init() {
	register.DoFn4x1[context.Context, int, func(*[]byte) bool, func(string, int64), error](&WriteLinesFn{})
	register.DoFn6x1[context.Context, int, func(*string) bool, func(*[]byte) bool, func(*[]byte) bool, func(string, int64), error](&WriteDedupFn{})
	register.DoFn3x1[context.Context, int, func(*[]byte) bool, error](&WriteSummaryFn{})
	register.Function2x2(ToOneKey)
}

// ToOneKey moves every element to key 0, for a step that must see them all
// (a manifest, the summary).
func ToOneKey(_ int, v []byte) (int, []byte) { return 0, v }

// Output kinds: the file name prefixes under the output directory.
const (
	KindPairs    = "pairs"
	KindClusters = "clusters"
	KindRejects  = "rejects"
	KindDedup    = "dedup"
)

// ShardName is the name of the output shard of kind for input file index.
func ShardName(kind string, file int) string { return fmt.Sprintf("%s-%05d.jsonl", kind, file) }

// DedupExt is the extension of the deduplicated copy of an input file of
// each format: the copy holds the input's own records, so it keeps their
// format.
var DedupExt = map[string]string{"jsonl": ".jsonl", "tsv": ".tsv", "text": ".txt"}

// DedupName is the name of the deduplicated copy of input file index file
// in format: dedup-NNNNN.jsonl, .tsv or .txt.
func DedupName(format string, file int) string {
	return fmt.Sprintf("%s-%05d%s", KindDedup, file, DedupExt[format])
}

// JoinPath joins an output directory (a local path or a URL such as
// gs://bucket/dir) and a file name.
func JoinPath(dir, name string) string { return strings.TrimSuffix(dir, "/") + "/" + name }

// openRead opens path for reading on its Beam filesystem (local, gs://, ...);
// closing the reader closes the filesystem too.
func openRead(ctx context.Context, path string) (io.ReadCloser, error) {
	fsys, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	rc, err := fsys.OpenRead(ctx, path)
	if err != nil {
		fsys.Close()
		return nil, err
	}
	return fsReader{rc, fsys}, nil
}

type fsReader struct {
	io.ReadCloser
	fsys filesystem.Interface
}

func (r fsReader) Close() error {
	err := r.ReadCloser.Close()
	if cerr := r.fsys.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeAtomically writes a file through a temporary name in the same
// directory and renames it into place, so that a failed or retried bundle
// never leaves a partial final file.
func writeAtomically(ctx context.Context, dir, name string, write func(w io.Writer) error) error {
	final := JoinPath(dir, name)
	fs, err := filesystem.New(ctx, final)
	if err != nil {
		return fmt.Errorf("writing %s: %w", final, err)
	}
	defer fs.Close()
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := JoinPath(dir, ".tmp-"+name+"-"+hex.EncodeToString(rnd[:]))
	wc, err := fs.OpenWrite(ctx, tmp)
	if err != nil {
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	bw := bufio.NewWriterSize(wc, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := wc.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = InjectFault("Write", name)
	}
	if err == nil {
		err = filesystem.Rename(ctx, fs, tmp, final)
	}
	if err != nil {
		if rm, ok := fs.(filesystem.Remover); ok {
			_ = rm.Remove(ctx, tmp)
		}
		return fmt.Errorf("writing %s: %w", final, err)
	}
	return nil
}

// WriteLinesFn writes one output shard of pairs, clusters or rejects.
//
// In: (input file index, chunks: wire.Match for pairs, wire.OutLine for the
// others). Out: the file <kind>-<index>.jsonl, lines sorted by their key, and
// a stat with the number of lines written.
type WriteLinesFn struct {
	Cfg  Config
	Kind string
}

func (fn *WriteLinesFn) ProcessElement(ctx context.Context, file int, chunks func(*[]byte) bool, emitStat func(string, int64)) error {
	defer busy(ctx, "Write."+fn.Kind, time.Now())
	var lines []wire.OutLine
	var chunk []byte
	var err error
	for chunks(&chunk) {
		if fn.Kind == KindPairs {
			lines, err = appendPairLines(lines, chunk)
		} else {
			lines, err = wire.AppendLines(lines, chunk)
		}
		if err != nil {
			return err
		}
	}
	slices.SortFunc(lines, func(a, b wire.OutLine) int {
		if a.K1 != b.K1 {
			return cmpU64(a.K1, b.K1)
		}
		return cmpU64(a.K2, b.K2)
	})
	err = writeAtomically(ctx, fn.Cfg.Output, ShardName(fn.Kind, file), func(w io.Writer) error {
		for _, l := range lines {
			if _, err := w.Write(l.Text); err != nil {
				return err
			}
			if _, err := w.Write([]byte{'\n'}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	emitStat(fn.Kind+"_lines", int64(len(lines)))
	return nil
}

// PairLine is one line of pairs-*.jsonl.
type PairLine struct {
	A       string  `json:"a"`
	B       string  `json:"b"`
	Jaccard float64 `json:"jaccard"`
	Hamming int     `json:"hamming"`
	Method  string  `json:"method"`
}

func appendPairLines(dst []wire.OutLine, chunk []byte) ([]wire.OutLine, error) {
	var m wire.Match
	var err error
	for len(chunk) > 0 {
		if chunk, err = wire.DecodeMatch(chunk, &m); err != nil {
			return dst, err
		}
		j, _ := strconv.ParseFloat(strconv.FormatFloat(float64(m.Jaccard), 'f', 4, 32), 64)
		text, err := json.Marshal(PairLine{A: m.IDA, B: m.IDB, Jaccard: j, Hamming: int(m.Hamming), Method: m.Method.String()})
		if err != nil {
			return dst, err
		}
		dst = append(dst, wire.OutLine{K1: m.A, K2: m.B, Text: text})
	}
	return dst, nil
}

// WriteDedupFn writes the deduplicated copy of one input file.
//
// In: (file index, its path, chunks of uvarint line numbers to remove, the
// file's reject lines from the first pass). Out: the file's DedupName with
// every good record of the file that is not removed, byte for byte as read
// (each line with a "\n"; a text file's content as it is, or nothing if it
// is removed), and the count kept. The file is copied without parsing: the
// first pass already said which lines are records (rejected ones are in
// rejects-*.jsonl).
type WriteDedupFn struct {
	Cfg Config
}

func (fn *WriteDedupFn) ProcessElement(ctx context.Context, file int, paths func(*string) bool, removeChunks, rejectChunks func(*[]byte) bool, emitStat func(string, int64)) error {
	defer busy(ctx, "WriteDedup", time.Now())
	var path string
	if !paths(&path) {
		return fmt.Errorf("dedup: no path for file %d", file)
	}
	remove, err := readLineSet(removeChunks)
	if err != nil {
		return fmt.Errorf("dedup: removal list for %s: %w", path, err)
	}
	var chunk []byte
	for rejectChunks(&chunk) {
		lines, err := wire.AppendLines(nil, chunk)
		if err != nil {
			return err
		}
		for _, l := range lines {
			if l.K1 > 0 { // K1 is the 1-based line; 0: the whole file (text format)
				remove.add(int64(l.K1) - 1)
			}
		}
	}
	opt := fn.Cfg.recordOptions()
	opt.Raw = true
	opt.Only = func(index int64) bool { return !remove.has(index) }
	var kept int64
	end := []byte{'\n'} // a line's terminator
	if fn.Cfg.Format == "text" {
		end = nil // the record is the whole file, terminators and all
	}
	err = writeAtomically(ctx, fn.Cfg.Output, DedupName(fn.Cfg.Format, file), func(w io.Writer) error {
		return fn.Cfg.reader(ctx, file, path, opt)(func(d record.Doc) error {
			kept++
			if _, err := w.Write(d.Raw); err != nil {
				return err
			}
			_, err := w.Write(end)
			return err
		}, func(record.Reject) error { return nil })
	})
	if err != nil {
		return err
	}
	emitStat(StatKept, kept)
	return nil
}

// Summary is summary.json.
type Summary struct {
	Counts   map[string]int64 `json:"counts"`
	Balanced bool             `json:"balanced"` // input_records == kept + removed + rejected
	// Added by the command after the job, from the runner's metrics: they
	// vary between runs, unlike everything above.
	WallSeconds  float64            `json:"wall_seconds,omitempty"`
	StageSeconds map[string]float64 `json:"stage_busy_seconds,omitempty"`
	// StageSpans holds, per stage, the seconds since the job started at
	// which its work first started and last ended.
	StageSpans map[string][2]float64 `json:"stage_spans_seconds,omitempty"`
	// Settings are the settings the job ran with, as the command resolved
	// them (the automatic ones included), also added after the job.
	Settings *Settings `json:"settings,omitempty"`
}

// Settings are the settings of a run: those an index records (what
// decides the signatures and the candidates), how pairs are verified and
// clusters kept, and the shape of the job, which splits the work without
// changing what it finds.
type Settings struct {
	index.Config
	Verify     string  `json:"verify"`
	Confidence float64 `json:"confidence"`
	MaxBucket  int     `json:"max_bucket"`
	Window     int     `json:"window"`
	Keep       string  `json:"keep"`

	Runner       string `json:"runner"`
	Branches     int    `json:"branches"`
	Partitions   int    `json:"partitions"`
	Rounds       int    `json:"rounds"`
	CCPartitions int    `json:"cc_partitions"`
	CCRounds     int    `json:"cc_rounds"`
}

// Settings returns the settings of c for a job on runner.
func (c Config) Settings(runner string) Settings {
	return Settings{
		Config: c.IndexConfig(), Verify: c.Verify, Confidence: c.Confidence,
		MaxBucket: c.MaxBucket, Window: c.Window, Keep: c.Keep,
		Runner: runner, Branches: c.Branches, Partitions: c.Partitions, Rounds: c.ShuffleRounds(),
		CCPartitions: c.CCPartitions, CCRounds: c.CCRounds,
	}
}

// SummaryName is the name of the job's counts in the output directory.
const SummaryName = "summary.json"

// ReadSummary reads SummaryName in the local directory dir. A file that
// cannot be read gives the *fs.PathError of os.ReadFile.
func ReadSummary(dir string) (Summary, error) {
	path := filepath.Join(dir, SummaryName)
	var s Summary
	b, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("reading %s: %w", path, err)
	}
	return s, nil
}

// WriteSummaryFn writes summary.json from the summed stats.
//
// In: (key, stat records: uvarint-length name, then the int64 total). Out:
// summary.json in the output directory.
type WriteSummaryFn struct {
	Cfg Config
}

func (fn *WriteSummaryFn) ProcessElement(ctx context.Context, _ int, chunks func(*[]byte) bool) error {
	defer busy(ctx, "Summary", time.Now())
	sum := Summary{Counts: map[string]int64{}}
	var chunk []byte
	for chunks(&chunk) {
		name, rest, err := decodeStat(chunk)
		if err != nil {
			return err
		}
		sum.Counts[name] += rest
	}
	c := sum.Counts
	c[StatVerified] = c[StatByEstimate] + c[StatByExact]
	if _, ok := c[StatRemainder]; !ok {
		c[StatRemainder] = 0 // no component needed the one-worker remainder
	}
	sum.Balanced = c[StatInput] == c[StatKept]+c[StatRemoved]+c[StatRejected]
	err := writeAtomically(ctx, fn.Cfg.Output, SummaryName, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(sum) // encoding/json sorts map keys: deterministic
	})
	if err != nil {
		return err
	}
	// Every stage that reads the info shards has sent its stats here.
	return removeInfoShards(ctx, fn.Cfg)
}

// EncodeStat packs a (name, value) stat into one element.
func EncodeStat(name string, v int64) (int, []byte) {
	b := binary.AppendUvarint(nil, uint64(len(name)))
	b = append(b, name...)
	return 0, binary.AppendVarint(b, v)
}

func decodeStat(b []byte) (string, int64, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return "", 0, fmt.Errorf("summary: %w", wire.ErrCorrupt)
	}
	name := string(b[k : k+int(n)])
	v, k2 := binary.Varint(b[k+int(n):])
	if k2 <= 0 {
		return "", 0, fmt.Errorf("summary: %w", wire.ErrCorrupt)
	}
	return name, v, nil
}

func init() { register.Function2x2(EncodeStat) }
