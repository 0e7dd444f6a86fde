package transforms

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/verify"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/text/normalize"
	"github.com/neardup/neardup/transforms/text/tokenize"
)

func init() {
	register.DoFn7x1[context.Context, int, func(*string) bool, func(*[]byte) bool, func(int, []byte), func(int, []byte), func(string, int64), error](&SignFn{})
}

// SignFn is the second pass over an input file: signatures and block keys.
//
// In: (file index, its path, chunks of line numbers to skip: the exact
// duplicates that are not their group's representative). Out: block entries
// keyed by partition of the block key: MinHash band keys as wire.Entry chunks
// in partitions [0, P) and, unless the method is minhash, SimHash table keys
// as wire.SimEntry chunks in partitions [P, 2P); and document infos
// for verification (wire.Info chunks keyed by partition of the document),
// or, with InfoShards, none: the infos go to the file's info shard in
// Cfg.Work instead (see infoshard.go). Documents without any shingle get no
// keys and can match nothing.
type SignFn struct {
	Cfg        Config
	InfoShards bool

	bands  blocking.Bands
	tables *blocking.Tables
	method verify.Method
}

// Setup builds the signer once per DoFn instance; gse's dictionary (word
// mode) loads once per worker process.
func (fn *SignFn) Setup() error {
	sc, err := fn.Cfg.signatureConfig()
	if err != nil {
		return err
	}
	if sc.Tokens == tokenize.Word {
		tokenize.Dictionary = fn.Cfg.Dictionary
	}
	if _, err = signature.New(sc); err != nil { // fail early on a bad configuration
		return err
	}
	fn.bands = blocking.Bands{B: fn.Cfg.Bands, R: fn.Cfg.Rows}
	fn.method = fn.Cfg.verifyConfig().Method
	fn.tables, err = fn.Cfg.simTables()
	return err
}

// signResult is what a worker computes for one document.
type signResult struct {
	skip, empty, truncated bool
	info                   wire.Info
	bands, tables          []uint64
	rec                    index.Record // with Cfg.IndexOut: the document's index record
}

// newSigner returns a Signer for one worker goroutine.
func (fn *SignFn) newSigner() (*signature.Signer, error) {
	sc, err := fn.Cfg.signatureConfig()
	if err != nil {
		return nil, err
	}
	return signature.New(sc)
}

func (fn *SignFn) ProcessElement(ctx context.Context, file int, paths func(*string) bool, skipChunks func(*[]byte) bool, emitEntry, emitInfo func(int, []byte), emitStat func(string, int64)) error {
	defer busy(ctx, "Signatures", time.Now())
	var path string
	if !paths(&path) {
		return fmt.Errorf("sign: no path for file %d", file)
	}
	skip := make(map[int64]bool)
	var chunk []byte
	for skipChunks(&chunk) {
		for c := chunk; len(c) > 0; {
			line, n := binary.Uvarint(c)
			if n <= 0 {
				return fmt.Errorf("sign: corrupt skip list for %s", path)
			}
			skip[int64(line)] = true
			c = c[n:]
		}
	}
	entries := wire.NewBatcher(0)
	prevLine := make([]int64, 2*fn.Cfg.Partitions) // per entry partition, see wire.AppendEntry
	infos := wire.NewBatcher(0)
	pre := fn.Cfg.newPreShard() // nil unless the job writes an index
	var shard *recordShard      // nil unless the infos go to an info shard
	if fn.InfoShards {
		shard = &recordShard{}
	}
	var signed, empty, truncated, nkeys int64
	newWorker := func() (func(*docItem, *signResult), error) {
		signer, err := fn.newSigner()
		if err != nil {
			return nil, err
		}
		var sig signature.Signature
		return func(d *docItem, r *signResult) {
			r.skip = skip[d.Index]
			if r.skip {
				return
			}
			text := d.norm()
			signer.Sign(text, &sig)
			r.truncated, r.empty = sig.Truncated, sig.Shingles == 0
			if pre != nil {
				r.rec = index.Record{Line: d.Index, ID: d.ID, Len: int64(d.RawLen), Exact: normalize.Key(text)}
			}
			if r.empty {
				return
			}
			r.info = wire.Info{Doc: wire.DocNum(file, d.Index), ID: d.ID, Len: int64(d.RawLen), SimHash: sig.SimHash,
				Sketch: verify.LowBits(r.info.Sketch, sig.MinHash)}
			r.bands = r.bands[:0]
			if fn.method != verify.SimHash {
				r.bands = fn.bands.AppendKeys(r.bands, sig.MinHash)
			}
			r.tables = r.tables[:0]
			if fn.tables != nil {
				r.tables = fn.tables.AppendKeys(r.tables, sig.SimHash)
			}
			if pre != nil {
				r.rec.SimHash, r.rec.Sketch, r.rec.Bands = sig.SimHash, r.info.Sketch, r.bands
			}
		}, nil
	}
	err := mapDocs(fn.Cfg.docs(ctx, file, path, fn.Cfg.recordOptions()), fn.Cfg.Workers, newWorker, func(r *signResult) {
		if r.skip {
			return
		}
		signed++
		Progress.Signed.Add(1)
		if r.truncated {
			truncated++
		}
		pre.add(&r.rec)
		if r.empty {
			empty++
			return
		}
		doc := r.info.Doc
		nkeys += int64(len(r.bands) + len(r.tables))
		for _, k := range r.bands {
			e := wire.Entry{Key: k, Doc: doc}
			p := wire.Partition(k, fn.Cfg.Partitions)
			entries.Add(p, func(c []byte) []byte { return wire.AppendEntry(c, e, &prevLine[p]) }, emitEntry)
		}
		// SimHash entries go to partitions [P, 2P): their chunks carry the
		// fingerprint too.
		for i, k := range r.tables {
			e := wire.SimEntry{Key: k, Doc: doc, FP: r.info.SimHash, Table: i}
			p := fn.Cfg.Partitions + wire.Partition(k, fn.Cfg.Partitions)
			entries.Add(p, func(c []byte) []byte { return wire.AppendSimEntry(c, e, &prevLine[p]) }, emitEntry)
		}
		if shard != nil {
			rec := infoRecord(&r.info)
			shard.add(&rec)
		} else {
			infos.Add(wire.Partition(doc, fn.Cfg.Partitions), func(c []byte) []byte { return wire.AppendInfo(c, &r.info) }, emitInfo)
		}
	}, nil) // rejects: counted by the first pass
	if err != nil {
		return err
	}
	if err := pre.write(ctx, fn.Cfg.IndexOut, preShardName(file), path); err != nil {
		return err
	}
	if err := shard.write(ctx, fn.Cfg.Work, infoShardName(file), path); err != nil {
		return err
	}
	entries.Flush(emitEntry)
	infos.Flush(emitInfo)
	emitStat(StatSigned, signed)
	emitStat(StatNoShingles, empty)
	emitStat(StatTruncated, truncated)
	emitStat(StatKeys, nkeys)
	return InjectFault("Signatures", path)
}
