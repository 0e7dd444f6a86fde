package stagetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // the tests' work files are local
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/stats"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/filelist"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
)

// Shared helpers of the stage tests (of packages ingest, exact, ...):
// small inputs, records built with package wire, and DoFns that decode a
// stage's chunks into plain strings for passert.

func init() {
	register.DoFn3x1[int64, []byte, func(int64, []byte), error](&stageUnspillFn{})
	register.DoFn3x0[int64, []byte, func(string, int64)](&shuffleSizeFn{})
	register.DoFn3x0[string, int64, func(string, int64)](&shuffleStatFn{})
	register.Function2x1(shuffleStr)
	beam.RegisterType(reflect.TypeFor[Chunk]())
	register.Function1x2(stageUnkey)
	beam.RegisterType(reflect.TypeFor[Stat]())
	register.Function1x2(stageUnkeyStat)
	register.DoFn3x1[int64, []byte, func(string), error](&DecodeFn{})
	register.DoFn3x0[string, int64, func(string)](&stageStatFn{})
	register.Function2x0(stageNoStats)
	register.Emitter1[string]()
}

// stageConfig is the default configuration with a fresh output and work
// directory, two branches and rounds, and few partitions.
func Config(t *testing.T) job.Config {
	t.Helper()
	cfg := job.DefaultConfig()
	cfg.Output = t.TempDir()
	cfg.Work = t.TempDir()
	cfg.Branches = 2
	cfg.Rounds = 2
	cfg.Workers = 2
	cfg.Partitions = 16
	cfg.CCPartitions = 4
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// stageRun runs p on the test runner (Prism), failing the test on error.
func Run(t *testing.T, p *beam.Pipeline) {
	t.Helper()
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
}

// stageJSON is a JSONL record with id and text.
func JSON(id, text string) string {
	b, err := json.Marshal(map[string]string{"id": id, "text": text})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// stageInput writes lines, each ended by "\n", to dir/name and returns the
// file's path.
func Input(t *testing.T, dir, name string, lines ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var stageWords = strings.Fields(`river stone lamp window paper garden silver morning
	quiet engine harbor violet thunder meadow copper lantern ribbon orchard
	marble falcon willow canyon pepper saddle velvet harvest anchor cedar`)

// stageText is a deterministic text of n words drawn from stageWords by seed.
// Texts of different seeds share few 5-character shingles.
func Text(seed uint32, n int) string {
	words := make([]string, n)
	x := seed*2654435761 + 12345
	for i := range words {
		x = x*1664525 + 1013904223
		words[i] = stageWords[(x>>16)%uint32(len(stageWords))]
	}
	return strings.Join(words, " ")
}

// stageNear is text with its word i replaced: a near-duplicate of a long
// text.
func Near(text string, i int) string {
	w := strings.Fields(text)
	w[i] = "zebra"
	return strings.Join(w, " ")
}

// stageChunk is one element of a collection of chunks keyed by file or
// partition, built in a test with package wire.
type Chunk struct {
	Key   int
	Chunk []byte
}

func stageUnkey(c Chunk) (int64, []byte) { return int64(c.Key), c.Chunk }

// stageChunks is a collection of (key, chunk) elements.
func Chunks(s beam.Scope, chunks ...Chunk) beam.PCollection {
	return beam.ParDo(s, stageUnkey, beam.CreateList(s, chunks))
}

// stageMatchChunk is one stageChunk holding ms, keyed by the file of the first
// document of ms[0].
func MatchChunk(ms ...wire.Match) Chunk {
	var c []byte
	for i := range ms {
		c = wire.AppendMatch(c, &ms[i])
	}
	return Chunk{Key: wire.File(ms[0].A), Chunk: c}
}

// stageLineChunk is a chunk of uvarint line numbers keyed by file.
func LineChunk(file int, lines ...int64) Chunk {
	var c []byte
	for _, l := range lines {
		c = wire.AppendLineNum(c, l)
	}
	return Chunk{Key: file, Chunk: c}
}

// stageStat is one (name, n) stat element built in a test.
type Stat struct {
	Name string
	N    int64
}

func stageUnkeyStat(st Stat) (string, int64) { return st.Name, st.N }

// stageStatCol is a stats collection of sts.
func StatCol(s beam.Scope, sts ...Stat) beam.PCollection {
	return beam.ParDo(s, stageUnkeyStat, beam.CreateList(s, sts))
}

// stageNoStats emits no stat: an empty stats collection from an impulse.
func stageNoStats(_ []byte, _ func(string, int64)) {}

// stageEmptyStats is a stats collection with no element.
func EmptyStats(s beam.Scope) beam.PCollection {
	return beam.ParDo(s, stageNoStats, beam.Impulse(s))
}

// stageDocStr names document d as "file:line".
func DocStr(d wire.Doc) string { return fmt.Sprintf("%d:%d", wire.File(d), wire.Line(d)) }

// stageDecodeFn decodes the chunks of a stage's output into strings for
// passert, and fails (an error fails the pipeline) on a record keyed
// against the stage's contract. Kinds:
//
//	info:     wire.Info          -> "file:line:id"; with P, the key must be the partition of the exact key
//	infodoc:  wire.Info          -> "file:line:id"; the key must be the partition (P) of the document
//	infolen:  wire.Info          -> "id:len"
//	match:    wire.Match         -> "key/idA-idB:method"; A < B, the key is A's file, Jaccard in (0, 1]
//	pair:     candidate pairs    -> "fileA:lineA-fileB:lineB"; A < B, the key is A's segment (with Bits; or partition, with P)
//	lines:    uvarint lines      -> "key:line"
//	cluster:  wire.OutLine       -> "key/cluster:size:representative:members,..."
//	reject:   wire.OutLine       -> "key/line:reason:file base name"
type DecodeFn struct {
	Kind string
	P    int
	Bits int     // pair: the segment bits
	MinJ float64 // match: the least Jaccard allowed
}

func (fn *DecodeFn) ProcessElement(k int64, chunk []byte, emit func(string)) error {
	key := int(k)
	switch fn.Kind {
	case "info", "infodoc", "infolen":
		for c := chunk; len(c) > 0; {
			var in wire.Info
			var err error
			if c, err = wire.DecodeInfo(c, &in); err != nil {
				return err
			}
			if fn.Kind == "info" && fn.P > 0 && key != wire.Partition(in.Exact, fn.P) {
				return fmt.Errorf("info of %s keyed %d, not by the partition of its exact key", in.ID, key)
			}
			if fn.Kind == "infodoc" && key != wire.Partition(in.Doc, fn.P) {
				return fmt.Errorf("info of %s keyed %d, not by the partition of its document", in.ID, key)
			}
			if fn.Kind == "infolen" {
				emit(fmt.Sprintf("%s:%d", in.ID, in.Len))
				continue
			}
			emit(fmt.Sprintf("%s:%s", DocStr(in.Doc), in.ID))
		}
	case "match":
		for c := chunk; len(c) > 0; {
			var m wire.Match
			var err error
			if c, err = wire.DecodeMatch(c, &m); err != nil {
				return err
			}
			if m.A >= m.B || key != wire.File(m.A) || m.Jaccard <= 0 || m.Jaccard > 1 || float64(m.Jaccard) < fn.MinJ {
				return fmt.Errorf("bad match %+v under key %d", m, key)
			}
			emit(fmt.Sprintf("%d/%s-%s:%s", key, m.IDA, m.IDB, m.Method))
		}
	case "pair":
		ps, err := wire.AppendCandidates(nil, chunk)
		if err != nil {
			return err
		}
		for _, p := range ps {
			want := wire.Segment(p.A, fn.Bits)
			if fn.P > 0 {
				want = wire.Partition(p.A, fn.P)
			}
			if p.A >= p.B || key != want {
				return fmt.Errorf("bad candidate pair %s-%s under key %d", DocStr(p.A), DocStr(p.B), key)
			}
			emit(DocStr(p.A) + "-" + DocStr(p.B))
		}
	case "lines":
		for c := chunk; len(c) > 0; {
			l, rest, err := wire.DecodeLineNum(c)
			if err != nil {
				return err
			}
			c = rest
			emit(fmt.Sprintf("%d:%d", key, l))
		}
	case "cluster", "reject":
		lines, err := wire.AppendLines(nil, chunk)
		if err != nil {
			return err
		}
		for _, l := range lines {
			if fn.Kind == "cluster" {
				var cl output.ClusterLine
				if err := json.Unmarshal(l.Text, &cl); err != nil {
					return err
				}
				emit(fmt.Sprintf("%d/%s:%d:%s:%s", key, cl.Cluster, cl.Size, cl.Representative, strings.Join(cl.Members, ",")))
				continue
			}
			var r output.RejectLine
			if err := json.Unmarshal(l.Text, &r); err != nil {
				return err
			}
			if uint64(r.Line) != l.K1 {
				return fmt.Errorf("reject line %d sorted as %d", r.Line, l.K1)
			}
			emit(fmt.Sprintf("%d/%d:%s:%s", key, r.Line, r.Reason, filepath.Base(r.File)))
		}
	default:
		return fmt.Errorf("stageDecodeFn: no kind %q", fn.Kind)
	}
	return nil
}

// stageDecode decodes col's chunks (see stageDecodeFn).
func Decode(s beam.Scope, kind string, p int, col beam.PCollection) beam.PCollection {
	return beam.ParDo(s, &DecodeFn{Kind: kind, P: p}, col)
}

// stageStatFn formats the stats named Names as "name=n".
type stageStatFn struct{ Names []string }

func (fn *stageStatFn) ProcessElement(name string, n int64, emit func(string)) {
	if slices.Contains(fn.Names, name) {
		emit(fmt.Sprintf("%s=%d", name, n))
	}
}

// stageStats sums the stats st by name and keeps those named names, as
// "name=n". passert.Equals on it checks exactly those stats.
func Stats(s beam.Scope, st beam.PCollection, names ...string) beam.PCollection {
	return beam.ParDo(s, &stageStatFn{Names: names}, stats.SumPerKey(s, st))
}

// stageAny converts ss for passert.Equals.
func Any(ss []string) []any {
	out := make([]any, len(ss))
	for i, v := range ss {
		out[i] = v
	}
	return out
}

// stageReadFile returns the content of dir/name.
func ReadFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stageDirNames lists the file names in dir, sorted.
func DirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// stageFiles writes the file manifest of paths (file i is paths[i]) to a
// new directory and returns its file collections in n branches.
func Files(t *testing.T, s beam.Scope, paths []string, n int) filelist.Files {
	t.Helper()
	refs := make([]filelist.Ref, len(paths))
	for i, p := range paths {
		refs[i] = filelist.Ref{Index: i, Path: p}
	}
	return filelist.New(s, Manifest(t, refs), n)
}

// stageManifest writes refs as a file manifest in a new directory.
func Manifest(t *testing.T, refs []filelist.Ref) string {
	t.Helper()
	m, err := filelist.WriteManifest(context.Background(), t.TempDir(), jobfiles.InputsManifest, refs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// stageShuffled asserts that the tallies of shuffle name in the stats st
// equal the bytes and elements of cols (keys in [lo, hi), hi 0: any),
// measured as the next stage would receive them.
func Shuffled(s beam.Scope, st beam.PCollection, name string, lo, hi int, cols ...beam.PCollection) {
	s = s.Scope("shuffled." + name)
	var sizes []beam.PCollection
	for _, c := range cols {
		sizes = append(sizes, beam.ParDo(s, &shuffleSizeFn{Name: name, Lo: lo, Hi: hi}, c))
	}
	measured := beam.ParDo(s, shuffleStr, stats.SumPerKey(s, beam.Flatten(s, sizes...)))
	tallied := beam.ParDo(s, shuffleStr, stats.SumPerKey(s, beam.ParDo(s, &shuffleStatFn{Name: name}, st)))
	passert.Equals(s, tallied, measured)
	passert.Count(s, measured, "measured", 2) // the stage did emit into the shuffle
}

// shuffleSizeFn measures the chunks of a stage's output as they are: the
// bytes (Name+".bytes") and elements (Name+".elements") of those whose key
// is in [Lo, Hi) (Hi 0: any key).
type shuffleSizeFn struct {
	Name   string
	Lo, Hi int
}

func (fn *shuffleSizeFn) ProcessElement(k int64, chunk []byte, emit func(string, int64)) {
	key := int(k)
	if key < fn.Lo || fn.Hi > 0 && key >= fn.Hi {
		return
	}
	emit(fn.Name+".bytes", int64(len(chunk)))
	emit(fn.Name+".elements", 1)
}

// shuffleStatFn renames the shuffle tallies of shuffle Name in a stage's
// stats as shuffleSizeFn names them, and drops the other stats.
type shuffleStatFn struct{ Name string }

func (fn *shuffleStatFn) ProcessElement(name string, v int64, emit func(string, int64)) {
	switch name {
	case summary.ShuffleBytesPrefix + fn.Name:
		emit(fn.Name+".bytes", v)
	case summary.ShuffleElementsPrefix + fn.Name:
		emit(fn.Name+".elements", v)
	}
}

func shuffleStr(name string, v int64) string { return fmt.Sprintf("%s=%d", name, v) }

// stageUnspill returns the chunks of col, a collection of a shuffle spilled
// under cfg.Spill (see spilled.Col), read back from the files it names; col
// itself without cfg.Spill.
func Unspill(s beam.Scope, cfg job.Config, col beam.PCollection) beam.PCollection {
	if !cfg.Spill {
		return col
	}
	return beam.ParDo(s, &stageUnspillFn{Work: cfg.WorkDir()}, col)
}

type stageUnspillFn struct{ Work jobfiles.WorkDir }

func (fn *stageUnspillFn) ProcessElement(k int64, name []byte, emit func(int64, []byte)) error {
	key := int(k)
	var in spilled.In
	defer in.Close()
	return in.Each(fn.Work, key, spilled.IterOf([][]byte{name}), func(c []byte) error {
		emit(int64(key), slices.Clone(c))
		return nil
	})
}

// stageSpillKinds checks that a run under cfg wrote spill files of each of
// kinds in cfg.Work if cfg.Spill, and none without.
func SpillKinds(t *testing.T, cfg job.Config, kinds ...string) {
	t.Helper()
	for _, kind := range kinds {
		files, err := filepath.Glob(filepath.Join(cfg.Work, "spill-"+kind+"-*.bin"))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Spill != (len(files) > 0) {
			t.Errorf("spill %v: %d spill files of %s", cfg.Spill, len(files), kind)
		}
	}
}

// Must returns v, or panics with err: for a test's parse of a table's
// value, which is never wrong.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
