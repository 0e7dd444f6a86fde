package audit

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"sort"

	"github.com/neardup/neardup/transforms/format/index"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/indexing"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/ensemble"
	"github.com/neardup/neardup/transforms/near"
)

// batchKeys is the key set of a new batch (a side input), for the
// stages that meet the index with it.
type batchKeys struct {
	exact, block map[uint64]struct{}
	sim          map[uint64][]uint64 // table key -> fingerprints of new documents
	contain      []containKey        // the new documents' containment keys, sorted
	tables       *blocking.Tables
	levels       *ensemble.Levels // nil: no containment
	hamming      int
	partitions   int
}

func (bk *batchKeys) setup(c near.BlockingConfig) (err error) {
	bk.hamming, bk.partitions = c.Hamming, c.Partitions
	if c.Contain.Threshold > 0 {
		if bk.levels, err = ensemble.NewLevels(c.Contain); err != nil {
			return err
		}
	}
	bk.tables, err = job.NewTables(c.Tables)
	return err
}

// load reads the key set chunks of keys, once: the side input is the same
// for every element.
func (bk *batchKeys) load(keys func(*[]byte) bool) error {
	if bk.exact != nil {
		return nil
	}
	bk.exact, bk.block, bk.sim = map[uint64]struct{}{}, map[uint64]struct{}{}, map[uint64][]uint64{}
	var chunk []byte
	for keys(&chunk) {
		_, err := wire.DecodeKeySet(chunk, func(tag byte, k uint64) {
			if tag == wire.KeySetExact {
				bk.exact[k] = struct{}{}
			} else {
				bk.block[k] = struct{}{}
			}
		}, func(tag byte, k, fp uint64) {
			if tag == wire.KeySetSim {
				bk.sim[k] = append(bk.sim[k], fp)
			} else {
				bk.contain = append(bk.contain, containKey{k, fp})
			}
		})
		if err != nil {
			return fmt.Errorf("index scan: %w", err)
		}
	}
	slices.SortFunc(bk.contain, func(a, b containKey) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.fp, b.fp)) })
	bk.contain = slices.Compact(bk.contain)
	return nil
}

// containKey is a containment key of a new document and its
// index.ContainFP (size and band id): a slice of them sorted holds a batch's
// 187 keys a document in 16 bytes each.
type containKey struct{ key, fp uint64 }

// containKeys returns the distinct containment keys of the batch, sorted.
func (bk *batchKeys) containKeys() []uint64 {
	var ks []uint64
	for _, c := range bk.contain {
		if len(ks) == 0 || ks[len(ks)-1] != c.key {
			ks = append(ks, c.key)
		}
	}
	return ks
}

// near reports whether a new document with table key k has a fingerprint
// within Hamming bits of fp.
func (fn *batchKeys) near(k, fp uint64) bool {
	for _, f := range fn.sim[k&indexing.KeyMask] {
		if bits.OnesCount64(f^fp) <= fn.hamming {
			return true
		}
	}
	return false
}

// contains reports whether a document with containment key k and fp
// (index.ContainFP: its size u, the key's band id) pairs with a new
// document of the same key and band under the size-ratio rule
// (ensemble.Levels.Pairs), the smaller of the two in the larger. The
// batch's entries of k are sorted by size, and the sizes that pair with u
// are one range below u and one above (ensemble.Levels.SizeRange), so it
// reads the entries in those ranges only: a key that many new documents
// share (boilerplate) costs binary searches, not a walk over them all.
func (bk *batchKeys) contains(k, fp uint64) bool {
	u, band := index.ContainOf(fp)
	run := bk.keyRun(k)
	size := func(i int) int { q, _ := index.ContainOf(run[i].fp); return int(q) }
	// Smaller new documents: q pairs from where SizeRange(band, q) reaches
	// u up to where it starts above u (both its bounds grow with q).
	end := sort.Search(len(run), func(i int) bool { return size(i) > int(u) })
	from := sort.Search(end, func(i int) bool { _, hi := bk.levels.SizeRange(band, size(i)); return hi >= int(u) })
	for i := from; i < end; i++ {
		if lo, _ := bk.levels.SizeRange(band, size(i)); lo > int(u) {
			break
		}
		if _, b := index.ContainOf(run[i].fp); b == band && bk.levels.Pairs(band, size(i), int(u)) {
			return true
		}
	}
	// Larger new documents: their sizes are in SizeRange(band, u).
	lo, hi := bk.levels.SizeRange(band, int(u))
	for i := sort.Search(len(run), func(i int) bool { return size(i) >= lo }); i < len(run) && size(i) <= hi; i++ {
		if _, b := index.ContainOf(run[i].fp); b == band && bk.levels.Pairs(band, int(u), size(i)) {
			return true
		}
	}
	return false
}

// keyRun returns the batch's containment entries of key k, sorted by
// index.ContainFP (by size, then band id).
func (bk *batchKeys) keyRun(k uint64) []containKey {
	i := sort.Search(len(bk.contain), func(i int) bool { return bk.contain[i].key >= k })
	j := i + sort.Search(len(bk.contain)-i, func(j int) bool { return bk.contain[i+j].key > k })
	return bk.contain[i:j]
}
