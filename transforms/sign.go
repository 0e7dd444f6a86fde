package transforms

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/neardup/neardup/transforms/blocking"
	"github.com/neardup/neardup/transforms/normalize"
	"github.com/neardup/neardup/transforms/record"
	"github.com/neardup/neardup/transforms/signature"
	"github.com/neardup/neardup/transforms/tokenize"
	"github.com/neardup/neardup/transforms/verify"
	"github.com/neardup/neardup/transforms/wire"
)

func init() {
	register.DoFn7x1[context.Context, int, func(*string) bool, func(*[]byte) bool, func(int, []byte), func(int, []byte), func(string, int64), error](&SignFn{})
}

// SignFn is the second pass over an input file: signatures and block keys.
//
// In: (file index, its path, chunks of line numbers to skip: the exact
// duplicates that are not their group's representative). Out: block entries
// (wire.Entry chunks keyed by partition of the block key: MinHash band keys
// and, unless the method is minhash, SimHash table keys) and document infos
// for verification (wire.Info chunks keyed by partition of the document).
// Documents without any shingle get no keys and can match nothing.
type SignFn struct {
	Cfg Config

	signer *signature.Signer
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
	if fn.signer, err = signature.New(sc); err != nil {
		return err
	}
	fn.bands = blocking.Bands{B: fn.Cfg.Bands, R: fn.Cfg.Rows}
	fn.method = fn.Cfg.verifyConfig().Method
	if fn.method != verify.MinHash {
		if fn.tables, err = blocking.NewTables(blocking.Design{K: fn.Cfg.Hamming, Blocks: fn.Cfg.SimBlocks}); err != nil {
			return err
		}
	}
	return nil
}

func (fn *SignFn) ProcessElement(ctx context.Context, file int, paths func(*string) bool, skipChunks func(*[]byte) bool, emitEntry, emitInfo func(int, []byte), emitStat func(string, int64)) error {
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
	infos := wire.NewBatcher(0)
	var sig signature.Signature
	var info wire.Info
	var keys []uint64
	var signed, empty, truncated, nkeys int64
	err := readFile(ctx, path, fn.Cfg.recordOptions(), func(d record.Doc) error {
		if skip[d.Index] {
			return nil
		}
		norm := normalize.Text(d.Text)
		fn.signer.Sign(norm, &sig)
		signed++
		if sig.Truncated {
			truncated++
		}
		if sig.Shingles == 0 {
			empty++
			return nil
		}
		doc := wire.DocNum(file, d.Index)
		keys = keys[:0]
		if fn.method != verify.SimHash {
			keys = fn.bands.AppendKeys(keys, sig.MinHash)
		}
		if fn.tables != nil {
			keys = fn.tables.AppendKeys(keys, sig.SimHash)
		}
		nkeys += int64(len(keys))
		for _, k := range keys {
			e := wire.Entry{Key: k, Doc: doc}
			entries.Add(wire.Partition(k, fn.Cfg.Partitions), func(c []byte) []byte { return wire.AppendEntry(c, e) }, emitEntry)
		}
		info = wire.Info{Doc: doc, ID: d.ID, Len: int64(len(d.Raw)), SimHash: sig.SimHash, Sketch: verify.Low16(info.Sketch, sig.MinHash)}
		infos.Add(wire.Partition(doc, fn.Cfg.Partitions), func(c []byte) []byte { return wire.AppendInfo(c, &info) }, emitInfo)
		return nil
	}, func(record.Reject) error { return nil }) // counted by the first pass
	if err != nil {
		return err
	}
	entries.Flush(emitEntry)
	infos.Flush(emitInfo)
	emitStat(StatSigned, signed)
	emitStat(StatNoShingles, empty)
	emitStat(StatTruncated, truncated)
	emitStat(StatKeys, nkeys)
	return nil
}
