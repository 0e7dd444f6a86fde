package transforms

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/candidates"
)

func init() {
	register.DoFn3x1[int, []byte, func([]byte), error](&BlockKeysFn{})
	register.DoFn3x1[int, []byte, func([]byte), error](&ExactKeysFn{})
	register.DoFn8x1[context.Context, int, string, func(*[]byte) bool, func(int, []byte), func(int, []byte), func(int, []byte), func(string, int64), error](&IndexScanFn{})
	register.DoFn5x1[context.Context, int, func(*[]byte) bool, func(int, []byte), func(string, int64), error](&AuditExactFn{})
	register.DoFn5x1[context.Context, int, func(*[]byte) bool, func(int, []byte), func(string, int64), error](&AuditCandidatesFn{})
	register.DoFn4x1[int, []byte, func(int, []byte), func(int, []byte), error](&SplitMatchesFn{})
	register.DoFn6x1[context.Context, int, func(*[]byte) bool, func(*[]byte) bool, func(int, []byte), func(string, int64), error](&WriteAuditFn{})
	register.DoFn3x1[context.Context, int, func(*[]byte) bool, error](&WriteAuditSummaryFn{})
	register.DoFn3x0[string, int64, func(string, int64)](&RenameStatFn{})
	register.Emitter1[[]byte]()
}

// Audit stat names (audit-summary.json), beside the run's.
const (
	StatIndexDocs      = "index_documents"           // indexed documents scanned
	StatIndexJoined    = "index_documents_joined"    // of those, sharing a key with the new batch
	StatIndexEntries   = "index_block_entries"       // index block entries joined
	StatDupOfIndex     = "duplicates_of_index"       // new documents with an indexed match
	StatExactOfIndex   = "exact_duplicates_of_index" // of those, identical to an indexed one
	StatIndexMatches   = "index_matches"             // (new, indexed) matches reported
	StatRemovedInBatch = "removed_in_batch"          // removed by the clusters within the batch
	StatBatchOnly      = "removed_in_batch_only"     // of those, not duplicates of the index
)

// KindAudit is the prefix of the audit's per-file outputs.
const KindAudit = "audit"

// AuditSummaryName is the audit's summary file.
const AuditSummaryName = "audit-summary.json"

// Key set chunks: a tag byte, then 8-byte little-endian keys.
const (
	tagExact = 'E'
	tagBlock = 'B'
	tagSim   = 'S' // (key, fingerprint) pairs
)

const keyMask = 1<<wire.KeyBits - 1

// BlockKeysFn turns the new batch's block entries into key set chunks: the
// MinHash band keys, and the SimHash table keys with the fingerprint of
// their document (low wire.KeyBits bits of the keys, as the shuffle carries
// them).
//
// In: (partition, wire.Entry chunk, or wire.SimEntry for partitions >=
// Cfg.Partitions). Out: a key set chunk.
type BlockKeysFn struct {
	Cfg Config

	tables *blocking.Tables
}

func (fn *BlockKeysFn) Setup() (err error) {
	fn.tables, err = fn.Cfg.simTables()
	return err
}

func (fn *BlockKeysFn) ProcessElement(part int, chunk []byte, emit func([]byte)) error {
	var out []byte
	var err error
	if part < fn.Cfg.Partitions {
		out = []byte{tagBlock}
		var es []wire.Entry
		if es, err = wire.AppendEntries(es, chunk); err == nil {
			for _, e := range es {
				out = binary.LittleEndian.AppendUint64(out, e.Key&keyMask)
			}
		}
	} else {
		out = []byte{tagSim}
		var es []wire.SimEntry
		if es, err = simEntries(es, chunk, fn.tables); err == nil {
			for _, e := range es {
				out = binary.LittleEndian.AppendUint64(out, e.Key&keyMask)
				out = binary.LittleEndian.AppendUint64(out, e.FP)
			}
		}
	}
	if err != nil {
		return fmt.Errorf("key set: %w", err)
	}
	emit(out)
	return nil
}

// ExactKeysFn turns the new batch's exact-key records into a key set chunk.
//
// In: (partition, wire.Info chunk with Exact set). Out: a key set chunk.
type ExactKeysFn struct{}

func (fn *ExactKeysFn) ProcessElement(_ int, chunk []byte, emit func([]byte)) error {
	out := []byte{tagExact}
	var in wire.Info
	for c := chunk; len(c) > 0; {
		var err error
		if c, err = wire.DecodeInfo(c, &in); err != nil {
			return fmt.Errorf("key set: %w", err)
		}
		out = binary.LittleEndian.AppendUint64(out, in.Exact)
	}
	emit(out)
	return nil
}

// IndexScanFn reads one index shard and passes on only what meets the new
// batch: the exact keys and MinHash band keys the batch has too, and the
// SimHash table keys the batch has with a fingerprint within Hamming bits
// (a semi-join against the batch's key set, a side input), so that what is
// shuffled follows the size of the batch, not of the index. (A SimHash table
// key holds only 64/simhash_blocks bits of a fingerprint: most indexed
// documents share one with some new document.)
//
// In: (shard number, shard name), side input: key set chunks. Out: exact-key
// records of indexed documents whose key the batch has (wire.Info chunks
// keyed by partition of the key, as ReadKeysFn), block entries whose key the
// batch has (partitioned as SignFn's), the infos of the indexed documents
// with any such entry (keyed by partition of the document), and stats.
type IndexScanFn struct {
	Cfg    Config
	Dir    string
	Shards []index.Shard

	exact, block map[uint64]struct{}
	sim          map[uint64][]uint64 // table key -> fingerprints of new documents
	tables       *blocking.Tables
}

func (fn *IndexScanFn) Setup() (err error) {
	fn.tables, err = fn.Cfg.simTables()
	return err
}

func (fn *IndexScanFn) keySets(keys func(*[]byte) bool) error {
	if fn.exact != nil {
		return nil // the side input is the same for every element
	}
	fn.exact, fn.block, fn.sim = map[uint64]struct{}{}, map[uint64]struct{}{}, map[uint64][]uint64{}
	var chunk []byte
	for keys(&chunk) {
		if len(chunk) == 0 || (len(chunk)-1)%8 != 0 {
			return fmt.Errorf("index scan: key set: %w", wire.ErrCorrupt)
		}
		switch chunk[0] {
		case tagExact, tagBlock:
			set := fn.block
			if chunk[0] == tagExact {
				set = fn.exact
			}
			for c := chunk[1:]; len(c) > 0; c = c[8:] {
				set[binary.LittleEndian.Uint64(c)] = struct{}{}
			}
		case tagSim:
			if (len(chunk)-1)%16 != 0 {
				return fmt.Errorf("index scan: key set: %w", wire.ErrCorrupt)
			}
			for c := chunk[1:]; len(c) > 0; c = c[16:] {
				k := binary.LittleEndian.Uint64(c)
				fn.sim[k] = append(fn.sim[k], binary.LittleEndian.Uint64(c[8:]))
			}
		default:
			return fmt.Errorf("index scan: key set: %w: tag %q", wire.ErrCorrupt, chunk[0])
		}
	}
	return nil
}

func (fn *IndexScanFn) ProcessElement(ctx context.Context, n int, name string, keys func(*[]byte) bool,
	emitExact, emitEntry, emitInfo func(int, []byte), emitStat func(string, int64)) error {
	defer busy(ctx, "IndexScan", time.Now())
	if err := fn.keySets(keys); err != nil {
		return err
	}
	if n < 0 || n >= len(fn.Shards) || fn.Shards[n].Name != name {
		return fmt.Errorf("index scan: shard %d (%s) is not in the manifest", n, name)
	}
	path := JoinPath(fn.Dir, name)
	rd, rc, err := openShard(ctx, path)
	if err != nil {
		return fmt.Errorf("index scan: %s: %w", path, err)
	}
	defer rc.Close()
	file := IndexFileBase + n
	exacts, entries, infos := wire.NewBatcher(0), wire.NewBatcher(0), wire.NewBatcher(0)
	P := fn.Cfg.Partitions
	prevLine := make([]int64, 2*P) // per entry partition, see wire.AppendEntry
	var r index.Record
	var tkeys []uint64
	var docs, joined, nentries int64
	for {
		ok, err := rd.Next(&r)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		docs++
		doc := wire.DocNum(file, r.Line)
		if _, hit := fn.exact[r.Exact]; hit {
			in := wire.Info{Doc: doc, ID: r.ID, Len: r.Len, Exact: r.Exact}
			exacts.Add(wire.Partition(r.Exact, P), func(c []byte) []byte { return wire.AppendInfo(c, &in) }, emitExact)
		}
		if len(r.Sketch) == 0 {
			continue // no shingles: matches nothing but its exact duplicates
		}
		hits := 0
		for _, k := range r.Bands {
			if _, hit := fn.block[k&keyMask]; hit {
				hits++
				e := wire.Entry{Key: k, Doc: doc}
				p := wire.Partition(k, P)
				entries.Add(p, func(c []byte) []byte { return wire.AppendEntry(c, e, &prevLine[p]) }, emitEntry)
			}
		}
		if fn.tables != nil {
			tkeys = fn.tables.AppendKeys(tkeys[:0], r.SimHash)
			for i, k := range tkeys {
				if fn.near(k, r.SimHash) {
					hits++
					e := wire.SimEntry{Key: k, Doc: doc, FP: r.SimHash, Table: i}
					p := P + wire.Partition(k, P)
					entries.Add(p, func(c []byte) []byte { return wire.AppendSimEntry(c, e, &prevLine[p]) }, emitEntry)
				}
			}
		}
		if hits > 0 {
			joined++
			nentries += int64(hits)
			in := wire.Info{Doc: doc, ID: r.ID, Len: r.Len, Exact: r.Exact, SimHash: r.SimHash, Sketch: r.Sketch}
			infos.Add(wire.Partition(doc, P), func(c []byte) []byte { return wire.AppendInfo(c, &in) }, emitInfo)
		}
	}
	if err := rd.Check(fn.Shards[n]); err != nil {
		return err
	}
	exacts.Flush(emitExact)
	entries.Flush(emitEntry)
	infos.Flush(emitInfo)
	emitStat(StatIndexDocs, docs)
	emitStat(StatIndexJoined, joined)
	emitStat(StatIndexEntries, nentries)
	return nil
}

// near reports whether a new document with table key k has a fingerprint
// within Hamming bits of fp.
func (fn *IndexScanFn) near(k, fp uint64) bool {
	for _, f := range fn.sim[k&keyMask] {
		if bits.OnesCount64(f^fp) <= fn.Cfg.Hamming {
			return true
		}
	}
	return false
}

// AuditExactFn finds the new documents identical to an indexed one.
//
// In: (partition, wire.Info chunks with Exact set: of the new batch and of
// the indexed documents the scan passed on). Out: for each new document
// whose exact key an indexed document has, an exact match (A: the new
// document, B: the first such indexed document) as wire.Match chunks keyed
// by the new document's file.
type AuditExactFn struct{ Cfg Config }

func (fn *AuditExactFn) ProcessElement(ctx context.Context, _ int, chunks func(*[]byte) bool, emit func(int, []byte), emitStat func(string, int64)) error {
	defer busy(ctx, "AuditExact", time.Now())
	infos, err := byExactKey(chunks)
	if err != nil {
		return err
	}
	b := wire.NewBatcher(0)
	for i := 0; i < len(infos); {
		j := i + 1
		for j < len(infos) && infos[j].Exact == infos[i].Exact {
			j++
		}
		group := infos[i:j]
		i = j
		// New documents sort first; the first indexed one is the match.
		k := slices.IndexFunc(group, func(in wire.Info) bool { return IsIndexed(in.Doc) })
		if k <= 0 {
			continue
		}
		idx := &group[k]
		for _, nw := range group[:k] {
			m := wire.Match{A: nw.Doc, B: idx.Doc, IDA: nw.ID, IDB: idx.ID, LenA: nw.Len, LenB: idx.Len, Jaccard: 1, Method: wire.Exact}
			b.Add(wire.File(m.A), func(c []byte) []byte { return wire.AppendMatch(c, &m) }, emit)
		}
	}
	b.Flush(emit)
	return nil
}

// AuditCandidatesFn is CandidatesFn for an audit: the buckets hold new and
// indexed documents, and pairs of two indexed documents are dropped (the
// index was deduplicated when it was built).
type AuditCandidatesFn struct {
	Cfg Config

	tables *blocking.Tables
}

func (fn *AuditCandidatesFn) Setup() (err error) {
	fn.tables, err = fn.Cfg.simTables()
	return err
}

func (fn *AuditCandidatesFn) ProcessElement(ctx context.Context, part int, chunks func(*[]byte) bool, emit func(int, []byte), emitStat func(string, int64)) error {
	defer busy(ctx, "Candidates", time.Now())
	var st candidates.Stats
	var pairs []wire.Pair
	var chunk []byte
	var err error
	if part < fn.Cfg.Partitions {
		var entries []wire.Entry
		for chunks(&chunk) {
			if entries, err = wire.AppendEntries(entries, chunk); err != nil {
				return err
			}
		}
		pairs = candidates.Append(nil, candidates.Sort(entries), fn.Cfg.limits(), &st)
	} else {
		var entries []wire.SimEntry
		for chunks(&chunk) {
			if entries, err = simEntries(entries, chunk, fn.tables); err != nil {
				return err
			}
		}
		pairs = candidates.AppendNear(nil, candidates.SortSim(entries), fn.Cfg.Hamming, fn.Cfg.limits(), &st)
	}
	pairs = slices.DeleteFunc(pairs, func(p wire.Pair) bool { return IsIndexed(p.A) })
	pairs = candidates.Unique(pairs)
	P := fn.Cfg.Partitions
	emitCandidates(pairs, func(d wire.Doc) int { return wire.Partition(d, P) }, emit)
	emitStat(StatBuckets, st.Buckets)
	emitStat(StatHot, st.HotBuckets)
	emitStat(StatSkipped, st.Skipped)
	emitStat(StatFar, st.Far)
	return nil
}

// SplitMatchesFn splits matches into those within the new batch and those
// of a new document with an indexed one. With Decide, the (new, indexed)
// matches are pairs the estimate could not decide and whose indexed text
// is not read: they are accepted when the estimate reaches the threshold.
//
// In: (file, wire.Match chunk). Out: batch matches, index matches, both
// keyed by the file of A (the new document).
type SplitMatchesFn struct {
	Cfg    Config
	Decide bool
}

func (fn *SplitMatchesFn) ProcessElement(file int, chunk []byte, emitBatch, emitIndex func(int, []byte)) error {
	var batch, idx []byte
	var m wire.Match
	for c := chunk; len(c) > 0; {
		start := c
		var err error
		if c, err = wire.DecodeMatch(c, &m); err != nil {
			return err
		}
		rec := start[:len(start)-len(c)]
		switch {
		case !IsIndexed(m.B):
			batch = append(batch, rec...)
		case !fn.Decide || float64(m.Jaccard) >= fn.Cfg.Threshold:
			idx = append(idx, rec...)
		}
	}
	if len(batch) > 0 {
		emitBatch(file, batch)
	}
	if len(idx) > 0 {
		emitIndex(file, idx)
	}
	return nil
}

// RenameStatFn renames stat From to To.
type RenameStatFn struct{ From, To string }

func (fn *RenameStatFn) ProcessElement(name string, v int64, emit func(string, int64)) {
	if name == fn.From {
		name = fn.To
	}
	emit(name, v)
}

// AuditMatch is one indexed document a new document duplicates.
type AuditMatch struct {
	ID      string  `json:"id"`
	Jaccard float64 `json:"jaccard"`
	Hamming int     `json:"hamming"`
	Method  string  `json:"method"`
	Source  string  `json:"source"`
}

// AuditLine is one line of audit-*.jsonl: a new document and the indexed
// documents it duplicates, best first.
type AuditLine struct {
	Doc     string       `json:"doc"`
	Matches []AuditMatch `json:"matches"`
}

// WriteAuditFn writes the audit lines of one new input file and merges its
// two removal lists.
//
// In: (file index, (new, indexed) matches of its documents, its documents
// removed within the batch). Out: audit-<file>.jsonl (when any document of
// the file has an indexed match), one line per such document in input
// order; the union of both removal lists (uvarint lines keyed by file) for
// the deduplicated copy; and the counts.
type WriteAuditFn struct {
	Cfg     Config
	Sources []string // source file of each index shard
}

func (fn *WriteAuditFn) ProcessElement(ctx context.Context, file int, matchChunks, removeChunks func(*[]byte) bool, emitRemove func(int, []byte), emitStat func(string, int64)) error {
	defer busy(ctx, "Write.audit", time.Now())
	inBatch, err := readLineSet(removeChunks)
	if err != nil {
		return fmt.Errorf("audit: removal list of file %d: %w", file, err)
	}
	best := map[wire.Doc]map[wire.Doc]wire.Match{} // new doc -> indexed doc -> match
	var chunk []byte
	for matchChunks(&chunk) {
		for c := chunk; len(c) > 0; {
			var m wire.Match
			if c, err = wire.DecodeMatch(c, &m); err != nil {
				return err
			}
			byIdx := best[m.A]
			if byIdx == nil {
				byIdx = map[wire.Doc]wire.Match{}
				best[m.A] = byIdx
			}
			if old, ok := byIdx[m.B]; !ok || better(m, old) {
				byIdx[m.B] = m
			}
		}
	}
	docs := make([]wire.Doc, 0, len(best))
	for d := range best {
		docs = append(docs, d)
	}
	slices.Sort(docs)
	var exact, nmatches, batchOnly int64
	if len(docs) > 0 {
		err = writeAtomically(ctx, fn.Cfg.Output, ShardName(KindAudit, file), func(w io.Writer) error {
			for _, d := range docs {
				ms := make([]wire.Match, 0, len(best[d]))
				for _, m := range best[d] {
					ms = append(ms, m)
				}
				slices.SortFunc(ms, func(a, b wire.Match) int {
					if better(a, b) {
						return -1
					}
					if better(b, a) {
						return 1
					}
					return cmpU64(a.B, b.B)
				})
				line := AuditLine{Doc: ms[0].IDA}
				for _, m := range ms {
					k := wire.File(m.B) - IndexFileBase
					src := ""
					if k >= 0 && k < len(fn.Sources) {
						src = fn.Sources[k]
					}
					j, _ := strconv.ParseFloat(strconv.FormatFloat(float64(m.Jaccard), 'f', 4, 32), 64)
					line.Matches = append(line.Matches, AuditMatch{ID: m.IDB, Jaccard: j, Hamming: int(m.Hamming), Method: m.Method.String(), Source: src})
				}
				if ms[0].Method == wire.Exact {
					exact++
				}
				nmatches += int64(len(ms))
				b, err := json.Marshal(line)
				if err != nil {
					return err
				}
				if _, err := w.Write(append(b, '\n')); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	removed := wire.NewBatcher(0)
	batchLines := inBatch.lines()
	all := make([]int64, 0, len(docs)+len(batchLines))
	for _, d := range docs {
		all = append(all, wire.Line(d))
	}
	for _, l := range batchLines {
		if _, dup := best[wire.DocNum(file, l)]; !dup {
			all = append(all, l)
			batchOnly++
		}
	}
	slices.Sort(all)
	for _, l := range all {
		removed.Add(file, func(c []byte) []byte { return binary.AppendUvarint(c, uint64(l)) }, emitRemove)
	}
	removed.Flush(emitRemove)
	emitStat(StatDupOfIndex, int64(len(docs)))
	emitStat(StatExactOfIndex, exact)
	emitStat(StatIndexMatches, nmatches)
	emitStat(StatBatchOnly, batchOnly)
	emitStat(StatRemoved, int64(len(all)))
	return nil
}

// better orders matches of one new document: exact first, then by
// Jaccard, then by Hamming distance.
func better(a, b wire.Match) bool {
	if (a.Method == wire.Exact) != (b.Method == wire.Exact) {
		return a.Method == wire.Exact
	}
	if a.Jaccard != b.Jaccard {
		return a.Jaccard > b.Jaccard
	}
	return a.Hamming < b.Hamming
}

// AuditSummary is audit-summary.json.
type AuditSummary struct {
	Index    string           `json:"index"`
	Counts   map[string]int64 `json:"counts"`
	Balanced bool             `json:"balanced"` // input_records == kept + removed + rejected
	// removed == duplicates_of_index + removed_in_batch_only
	// Added by the command after the job, like Summary's.
	WallSeconds float64   `json:"wall_seconds,omitempty"`
	Settings    *Settings `json:"settings,omitempty"`
}

// WriteAuditSummaryFn writes audit-summary.json from the summed stats.
type WriteAuditSummaryFn struct {
	Cfg   Config
	Index string
}

func (fn *WriteAuditSummaryFn) ProcessElement(ctx context.Context, _ int, chunks func(*[]byte) bool) error {
	defer busy(ctx, "Summary", time.Now())
	sum := AuditSummary{Index: fn.Index, Counts: map[string]int64{}}
	var chunk []byte
	for chunks(&chunk) {
		name, v, err := decodeStat(chunk)
		if err != nil {
			return err
		}
		sum.Counts[name] += v
	}
	c := sum.Counts
	c[StatVerified] = c[StatByEstimate] + c[StatByExact]
	sum.Balanced = c[StatInput] == c[StatKept]+c[StatRemoved]+c[StatRejected] &&
		c[StatRemoved] == c[StatDupOfIndex]+c[StatBatchOnly]
	return writeAtomically(ctx, fn.Cfg.Output, AuditSummaryName, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	})
}
