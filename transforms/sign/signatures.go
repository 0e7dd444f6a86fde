package sign

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/internal/docpool"
	"github.com/neardup/neardup/transforms/internal/faults"
	"github.com/neardup/neardup/transforms/internal/rounds"
	"github.com/neardup/neardup/transforms/internal/tally"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobfiles/docshards"
	"github.com/neardup/neardup/transforms/jobfiles/recshards"
	"github.com/neardup/neardup/transforms/jobfiles/spilled"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/match/blockkeys"
	"github.com/neardup/neardup/transforms/match/ensemble"
	"github.com/neardup/neardup/transforms/sketch/signature"
)

func init() {
	register.DoFn7x1[context.Context, int64, func(*[]byte) bool, func(*[]byte) bool, func(int64, []byte), func(int64, []byte), func(string, int64), error](&signFn{})
}

// Signatures is the second pass, segment by segment of each input file:
// SimHash, MinHash, block keys. A segment's documents come from its
// document shard (see docshards.SegmentDocs), so a 1-file input has as many keys as
// segments. The documents' infos go to one info shard per segment in
// o.Work, which Verify reads.
//
// In: Read's segment markers (segment, marker) and lines to skip (segment,
// chunk). Out: block entries (partition, chunk) in o.Rounds
// collections, by key mod that (see rounds.Split), and with them the
// stage's stats, under blockkeys.KeySpace's StatsKey: the stage has one output, which Beam's
// Spark runner computes once (it computes a stage again for each further
// output it cannot hold in memory). With o.Work.Spill the entries' chunks
// go to spill files, and the entries name them (see spilled.Out).
func Signatures(s beam.Scope, o Options, segments, skips beam.PCollection) (entries []beam.PCollection) {
	s = s.Scope("Signatures")
	out := beam.ParDoN(s, newSignFn(o, true), beam.CoGroupByKey(s, segments, skips))
	return rounds.Split(s, o.Rounds, out[0]) // out[1], the shuffled infos, and out[2], the stats, stay empty
}

// PassStats emits the stat records of chunks, the group of the
// blockkeys.KeySpace's StatsKey under which Signatures sends its stats
// with the block entries, one wire stat record a chunk, to emitStat.
func PassStats(chunks func(*[]byte) bool, emitStat func(string, int64)) error {
	var c []byte
	for chunks(&c) {
		name, v, err := wire.DecodeStat(c)
		if err != nil {
			return fmt.Errorf("signature stats: %w", err)
		}
		emitStat(name, v)
	}
	return nil
}

// AuditSignatures is Signatures with the infos shuffled rather than written
// to info shards: an audit joins them with the infos of indexed documents.
//
// Out: block entries (partition, chunk), infos (partition, chunk), stats.
func AuditSignatures(s beam.Scope, o Options, segments, skips beam.PCollection) (entries, infos, st beam.PCollection) {
	s = s.Scope("Signatures")
	return beam.ParDo3(s, newSignFn(o, false), beam.CoGroupByKey(s, segments, skips))
}

// signFn is the second pass over an input file: signatures and block keys.
//
// In: (segment, its marker, line lists to skip: the exact duplicates that
// are not their group's representative). Out: block entries keyed by
// blockkeys.KeySpace (see blockkeys.Sender), to a spill file of
// the bundle with Work.Spill; and document infos for verification
// (wire.Info chunks keyed by partition of the document), or, with
// InfoShards, none: the infos go to the segment's info shard in the work
// directory instead. Documents without any shingle get no keys and can
// match nothing.
type signFn struct {
	Options
	InfoShards bool
	// StatsWithEntries sends the stats with the block entries, under
	// the KeySpace's StatsKey, instead of to the stats output.
	StatsWithEntries bool

	keyer   blockkeys.Keyer
	signers *SignerPool  // shared in the process (signers.go), reused from segment to segment
	spilled *spilled.Out // block entries
}

// newSignFn returns a run's signFn (run: infos to info shards, stats
// with the entries) or an audit's.
func newSignFn(o Options, run bool) *signFn {
	return &signFn{Options: o, InfoShards: run, StatsWithEntries: run}
}

// statsTo returns emitStat, or with StatsWithEntries an emitter that sends
// each stat to emitEntry under the KeySpace's StatsKey.
func (fn *signFn) statsTo(emitEntry func(int64, []byte), emitStat func(string, int64)) func(string, int64) {
	if !fn.StatsWithEntries {
		return emitStat
	}
	key := int64(fn.keys().StatsKey())
	return func(name string, v int64) { emitEntry(key, wire.AppendStat(nil, name, v)) }
}

// keys is the key space of the block entries.
func (fn *signFn) keys() blockkeys.KeySpace { return blockkeys.KeySpace{P: fn.Partitions} }

// Setup gets the process's signers of the configuration (sharedSigners,
// which checks it; gse's dictionary, in word mode, loads once per worker
// process) and the block keyer, once per DoFn instance.
func (fn *signFn) Setup() (err error) {
	if fn.signers, err = SharedSigners(fn.Sign); err != nil {
		return err
	}
	fn.keyer = blockkeys.Keyer{Bands: fn.Bands, Index: fn.IndexOut != "", NoBands: fn.NoBands}
	if fn.keyer.Tables, err = job.NewTables(fn.Tables); err != nil {
		return err
	}
	if fn.Contain.Threshold > 0 {
		if fn.keyer.Levels, err = ensemble.NewLevels(fn.Contain); err != nil {
			return err
		}
	}
	fn.spilled = spilled.To(fn.Work, "entries")
	return nil
}

// signResult is what a worker computes for one document.
type signResult struct {
	skip bool
	blockkeys.Doc
}

func (fn *signFn) ProcessElement(ctx context.Context, k int64, markers func(*[]byte) bool, skipChunks func(*[]byte) bool, emitEntry, emitInfo func(int64, []byte), emitStat func(string, int64)) error {
	seg := int(k)
	defer jobstate.Busy(ctx, "Signatures", jobstate.Begin())
	file, index := wire.SegmentFile(seg, fn.Work.SegmentBits)
	var marker []byte
	if !markers(&marker) {
		return fmt.Errorf("sign: lines to skip in input file %d, segment %d, which the first pass did not write", file, index)
	}
	ndocs, path, err := wire.DecodeMarker(marker)
	if err != nil {
		return fmt.Errorf("sign: input file %d, segment %d: %w", file, index, err)
	}
	if markers(&marker) {
		return fmt.Errorf("sign: input file %d, segment %d written twice by the first pass", file, index)
	}
	skip, err := wire.ReadLineSet(skipChunks)
	if err != nil {
		return fmt.Errorf("sign: skip list for %s: %w", path, err)
	}
	ss := segmentSigner{fn: fn, file: file, index: index, path: path, skip: skip}
	emitStat = fn.statsTo(emitEntry, emitStat)
	if err := ss.run(ctx, seg, ndocs, emitEntry, emitInfo, emitStat); err != nil {
		return err
	}
	ss.stats().Emit(emitStat)
	beam.NewCounter(jobstate.MetricsNamespace, jobstate.SignedCounter).Inc(ctx, ss.signed)
	beam.NewCounter(jobstate.MetricsNamespace, jobstate.WorkerSignedPrefix+jobstate.WorkerID).Inc(ctx, ss.signed)
	return faults.Inject("Signatures", path)
}

// FinishBundle emits the names of the bundle's spill file of block entries
// (see spilled.Out).
func (fn *signFn) FinishBundle(emitEntry, _ func(int64, []byte), _ func(string, int64)) error {
	return spilled.Finish(nil, emitEntry, fn.spilled)
}

// segmentSigner signs the documents of one segment.
type segmentSigner struct {
	fn          *signFn
	file, index int    // the segment's input file and segment within it
	path        string // the input file's
	skip        wire.LineSet

	signed, empty, truncated, keys int64
	small                          int64 // below the containment minimum size

	mu   sync.Mutex
	held []*signature.Signer // the signers its workers took from fn.signers
}

// run signs the segment seg of ndocs documents (from its document shard):
// block entries to emitEntry, infos to the segment's info shard (with
// fn.InfoShards) or to emitInfo, signatures to the pre-shard (with an
// index).
func (ss *segmentSigner) run(ctx context.Context, seg int, ndocs int64, emitEntry, emitInfo func(int64, []byte), emitStat func(string, int64)) error {
	fn := ss.fn
	defer ss.release()
	sendEntry := fn.spilled.Wrap(emitEntry)
	var shuffles [blockkeys.StatRecords]tally.Shuffle // by kind of entries
	var sends [blockkeys.StatRecords]func(int64, []byte)
	for kind := range sends {
		sends[kind] = shuffles[kind].Count(sendEntry)
	}
	ks := fn.keys()
	entries := blockkeys.NewSender(ks, func(key int64, chunk []byte) { sends[ks.Kind(int(key))](key, chunk) })
	emitInfo, reportInfos := tally.CountShuffle(tally.ShuffleInfos, emitInfo, emitStat)
	infos := wire.NewBatcher(0)
	pre := recshards.NewPreShard(fn.IndexOut) // nil unless the job writes an index
	var shards *recshards.InfoWriter          // nil unless the infos go to info shards
	if fn.InfoShards {
		shards = recshards.NewInfoWriter(ctx, fn.Work, ss.file, ss.path)
	}
	err := docpool.Map(docshards.SegmentDocs(ctx, fn.Work, seg, ndocs, nil), fn.Work.Workers, ss.worker, func(r *signResult) {
		if !ss.count(r) {
			return
		}
		pre.AddDoc(&r.Doc)
		if r.Empty {
			return
		}
		entries.Send(&r.Doc)
		if shards != nil {
			shards.Add(&r.Info)
		} else {
			infos.Add(wire.Partition(r.Info.Doc, fn.Partitions), func(c []byte) []byte { return wire.AppendInfo(c, &r.Info) }, emitInfo)
		}
	}, nil) // rejects: counted by the first pass
	if err := shards.Close(err); err != nil {
		return err
	}
	if err := pre.Write(ctx, fn.IndexOut, recshards.PreShardName(ss.file, ss.index), ss.path); err != nil {
		return err
	}
	entries.Flush()
	infos.Flush(emitInfo)
	shuffles[blockkeys.BandEntries].Report(tally.ShuffleBands, emitStat)
	shuffles[blockkeys.TableEntries].Report(tally.ShuffleTables, emitStat)
	if fn.keyer.Levels != nil {
		shuffles[blockkeys.ContainEntries].Report(tally.ShuffleContain, emitStat)
	}
	reportInfos()
	return nil
}

// worker is docpool.Map' worker: a signer of its own, held until the segment
// is signed.
func (ss *segmentSigner) worker() (func(*docpool.Doc, *signResult), error) {
	signer, err := ss.fn.signers.Get()
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	ss.held = append(ss.held, signer)
	ss.mu.Unlock()
	var sig signature.Signature
	keyer, file, skip := &ss.fn.keyer, ss.file, &ss.skip
	return func(d *docpool.Doc, r *signResult) {
		if r.skip = skip.Has(d.Index); !r.skip {
			text := d.Norm(ss.fn.Sign.Norm)
			signer.Sign(text, &sig)
			keyer.Derive(&r.Doc, wire.DocNum(file, d.Index), d.ID, d.Len, text, &sig)
			r.Doc.Info.Rank = d.Rank
			if keyer.Levels != nil {
				keyer.DeriveContain(&r.Doc, &sig, signer.Distinct())
			}
		}
	}, nil
}

// count counts a result and reports whether it is a signed document.
func (ss *segmentSigner) count(r *signResult) bool {
	if r.skip {
		return false
	}
	ss.signed++
	jobstate.Progress.Signed.Add(1)
	if r.Truncated {
		ss.truncated++
	}
	if r.Small {
		ss.small++
	}
	if r.Empty {
		ss.empty++
	} else {
		ss.keys += int64(len(r.Bands) + len(r.Tables))
	}
	return true
}

// release gives the workers' signers back.
func (ss *segmentSigner) release() {
	for _, s := range ss.held {
		ss.fn.signers.Put(s)
	}
}

// stats is what the segment counted.
func (ss *segmentSigner) stats() tally.Counts {
	c := tally.Counts{
		{Name: summary.StatSignSegments, N: 1},
		{Name: summary.StatSigned, N: ss.signed},
		{Name: summary.StatNoShingles, N: ss.empty},
		{Name: summary.StatTruncated, N: ss.truncated},
		{Name: summary.StatKeys, N: ss.keys},
	}
	if ss.fn.keyer.Levels != nil {
		c = append(c, tally.Stat{Name: summary.StatContainSmall, N: ss.small})
	}
	return c
}

// MapBytes is the most memory the batches of one segment's docpool.Map
// hold on workers goroutines (docpool.MapBytes).
func MapBytes(workers int) int64 { return docpool.MapBytes[signResult](workers) }
