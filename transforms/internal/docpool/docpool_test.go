package docpool

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/text/normalize"
)

// textOf is the text of document i in TestMapDocsSlots: lengths from a few
// bytes to past slotBytes and maxSlotBytes, so that slots grow, are reused
// and are dropped.
func textOf(i int64) string {
	n := int(i*7919%5000) + 1
	if i%997 == 0 {
		n = maxSlotBytes + 10 // dropped when the batch is freed
	}
	return strings.Repeat(fmt.Sprintf("<%d>", i), n/6+1)
}

// TestMapDocsSlots: texts handed to Map as TextBytes in a buffer the
// reader overwrites after each call reach the workers intact, over many
// batches and over calls that reuse the slots of earlier ones, on any
// number of workers.
func TestMapDocsSlots(t *testing.T) {
	const docs = 3000
	for _, workers := range []int{1, 2, 4} {
		for call := range 2 {
			read := func(doc func(*Doc) error, _ func(record.Reject) error) error {
				var buf []byte
				var item Doc
				for i := int64(0); i < docs; i++ {
					buf = append(buf[:0], textOf(i)...)
					item = Doc{ID: fmt.Sprint(i), TextBytes: buf, Index: i, Normalized: true}
					if err := doc(&item); err != nil {
						return err
					}
					for j := range buf { // the reader reuses its buffer
						buf[j] = 'x'
					}
				}
				return nil
			}
			var mu sync.Mutex
			bad := 0
			seen := 0
			err := Map(read, workers, func() (func(*Doc, *bool), error) {
				return func(d *Doc, ok *bool) {
					*ok = d.Text == textOf(d.Index) && d.Norm(normalize.Form{}) == d.Text && d.ID == fmt.Sprint(d.Index)
				}, nil
			}, func(ok *bool) {
				mu.Lock()
				defer mu.Unlock()
				seen++
				if !*ok {
					bad++
				}
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if seen != docs || bad != 0 {
				t.Errorf("%d workers, call %d: %d documents, %d with a wrong text", workers, call, seen, bad)
			}
		}
	}
}

// TestMapDocsOrder: results reach emit in the order the reader gave the
// documents, however the workers' batches finish (here, each batch's
// documents take a random time), and every document once.
func TestMapDocsOrder(t *testing.T) {
	const docs = 20 * Batch
	for _, workers := range []int{1, 3, 8} {
		read := func(doc func(*Doc) error, _ func(record.Reject) error) error {
			for i := int64(0); i < docs; i++ {
				// Lines with gaps, as rejects leave them.
				if err := doc(&Doc{ID: fmt.Sprint(i), Text: "x", Index: 3*i + i%2}); err != nil {
					return err
				}
			}
			return nil
		}
		var got []int64
		err := Map(read, workers, func() (func(*Doc, *int64), error) {
			return func(d *Doc, line *int64) {
				if d.Index%Batch == 0 {
					time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
				}
				*line = d.Index
			}, nil
		}, func(line *int64) { got = append(got, *line) }, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != docs || !slices.IsSorted(got) || got[docs-1] != 3*(docs-1)+(docs-1)%2 {
			t.Errorf("%d workers: %d results, sorted %v", workers, len(got), slices.IsSorted(got))
		}
	}
}

// TestMapBatchesAsNeeded: Map makes its batches as the reader fills them,
// so that a file of one document on many workers takes one batch, not
// the MapBytes of all of them; a file of many documents takes no more
// than mapBatches.
func TestMapBatchesAsNeeded(t *testing.T) {
	const workers = 1000
	oneDoc := func(doc func(*Doc) error, _ func(record.Reject) error) error {
		return doc(&Doc{ID: "a", Text: "one document", Normalized: true})
	}
	newWorker := func() (func(*Doc, *[64]byte), error) { return func(*Doc, *[64]byte) {}, nil }
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	if err := Map(oneDoc, workers, newWorker, func(*[64]byte) { n++ }, nil); err != nil || n != 1 {
		t.Fatalf("Map: %d results, %v; want 1", n, err)
	}
	runtime.ReadMemStats(&after)
	all := MapBytes[[64]byte](workers)
	if got := int64(after.TotalAlloc - before.TotalAlloc); got > all/100 {
		t.Errorf("Map of one document on %d workers allocated %d bytes; want at most %d, a hundredth of all its batches (%d)", workers, got, all/100, all)
	}
}
