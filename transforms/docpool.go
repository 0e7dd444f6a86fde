package transforms

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/text/normalize"
)

// docItem is the part of a parsed record that outlives the reader's
// callback.
type docItem struct {
	ID    string
	Text  string
	Index int64
	// Len is the document's length (record.Doc.Len: its text's bytes
	// before normalization), which --keep longest compares.
	Len int
	// RawLen is the record's bytes as read (record.Doc.Raw), for the
	// input_bytes count; 0 for a document read from a document shard.
	RawLen int
	// Normalized says that Text is already normalize.Text of the record's
	// text (read from a document shard, see docshards.go).
	Normalized bool
	// textBytes, if not nil, is the text as bytes that a docReader hands to
	// its callback and may reuse after it: mapDocs copies it into buf and
	// sets Text to it.
	textBytes []byte
	// buf is storage that mapDocs keeps with each slot of a batch, reused
	// by the documents that later take the slot: for Text when it comes as
	// textBytes, else free for the worker's use until the batch is done.
	buf []byte
}

// norm returns the document's normalized text.
func (d *docItem) norm() string {
	if d.Normalized {
		return d.Text
	}
	return normalize.Text(d.Text)
}

const docBatch = 256

// slotBytes is the smallest text buffer of a batch slot (docItem.buf).
const slotBytes = 4 << 10

// slotFor returns a slot's storage emptied, with room for n bytes: buf's
// own if it has it, else new, with room for most documents so that a slot
// rarely grows.
func slotFor(buf []byte, n int) []byte {
	if cap(buf) < n {
		return make([]byte, 0, max(n, slotBytes))
	}
	return buf[:0]
}

// freeItems holds batches of docItems (capacity docBatch) between calls of
// mapDocs, with their slots' text storage, for the next files and passes. A
// sync.Pool would lose them at every garbage collection, several a second
// in a run.
var freeItems struct {
	sync.Mutex
	batches [][]docItem
}

// maxFreeItems bounds freeItems: the batches of two concurrent mapDocs on
// two cores. maxSlotBytes bounds the storage kept with each of their slots
// (longer documents' storage is dropped): at most 32 MiB kept in all.
//
// maxBusySlotBytes bounds the storage a slot keeps from one batch to the
// next within one mapDocs: without it every slot of a long file's read
// grew to the longest document it ever held (276 MB of slots at the peak
// of a 2.8M-document one-file run); with it the slots of a call hold at
// most (2·workers+2)·docBatch·32 KiB, 48 MiB on two cores.
const (
	maxFreeItems     = 16
	maxSlotBytes     = 2 * slotBytes
	maxBusySlotBytes = 8 * slotBytes
)

func getItems() []docItem {
	freeItems.Lock()
	defer freeItems.Unlock()
	if n := len(freeItems.batches); n > 0 {
		items := freeItems.batches[n-1]
		freeItems.batches = freeItems.batches[:n-1]
		return items
	}
	return make([]docItem, 0, docBatch)
}

// putItems keeps a batch in freeItems, with only its slots' storage.
func putItems(items []docItem) {
	items = items[:cap(items)]
	for i := range items {
		buf := items[i].buf[:0]
		if cap(buf) > maxSlotBytes {
			buf = nil // a rare long document's storage is not kept
		}
		items[i] = docItem{buf: buf}
	}
	freeItems.Lock()
	defer freeItems.Unlock()
	if len(freeItems.batches) < maxFreeItems {
		freeItems.batches = append(freeItems.batches, items[:0])
	}
}

type docJob[R any] struct {
	items []docItem
	out   []R
	seq   int // the batch's place in read order
}

// A fileReader reads one input file, calling doc and reject for its records.
type fileReader func(doc func(record.Doc) error, reject func(record.Reject) error) error

// A docReader reads the documents of one input file, parsed (from the input
// or its decompressed spool copy) or from document shards, calling
// doc and reject for its records. doc must not keep item, nor
// item.textBytes, which holds the text instead of item.Text when not nil.
type docReader func(doc func(item *docItem) error, reject func(record.Reject) error) error

// parsed is the docReader of records read by read.
func parsed(read fileReader) docReader {
	return func(doc func(*docItem) error, reject func(record.Reject) error) error {
		var item docItem
		return read(func(d record.Doc) error {
			item = docItem{ID: d.ID, Text: d.Text, Index: d.Index, Len: d.Len(), RawLen: len(d.Raw)}
			return doc(&item)
		}, reject)
	}
}

// mapDocs reads a file with read and runs work on every good record on
// `workers` goroutines, each with its own state from newWorker (a Signer, say),
// in batches; emit is called for every result on the calling goroutine, so
// it may use Beam emitters. Results come in the order read delivered the
// documents (a batch done early waits for the ones before it): line order
// for every reader, the document shards included, which the first pass
// writes from its results, so that the signature pass can write each
// segment's info shard once the next segment's results come (see
// infoSegments). onReject, if not nil, gets every reject on the reading
// goroutine; whatever it collects is safe to read once mapDocs has
// returned.
//
// A runner that gives a stage one bundle at a time (Prism) would otherwise
// use one core for the whole stage; on a cluster, workers run bundles in
// parallel anyway and workers <= GOMAXPROCS keeps the extra goroutines bounded.
func mapDocs[R any](read docReader, workers int,
	newWorker func() (func(*docItem, *R), error), emit func(*R), onReject func(record.Reject) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan *docJob[R], workers)
	done := make(chan *docJob[R], workers)
	free := make(chan *docJob[R], 2*workers+2)
	for i := 0; i < cap(free); i++ {
		free <- &docJob[R]{items: getItems(), out: make([]R, docBatch)}
	}
	// The batches' items, with their slots' text storage, serve the next
	// files and passes.
	defer func() {
		for len(free) > 0 {
			putItems((<-free).items)
		}
	}()

	var readErr error
	go func() {
		defer close(jobs)
		j, seq := <-free, 0
		if onReject == nil {
			onReject = func(record.Reject) error { return nil }
		}
		readErr = read(func(d *docItem) error {
			if d.Index >= wire.MaxLines {
				return fmt.Errorf("more than %d lines", int64(wire.MaxLines))
			}
			n := len(j.items)
			j.items = j.items[:n+1] // cap(j.items) is docBatch
			it := &j.items[n]
			buf := it.buf
			*it = *d
			if d.textBytes != nil {
				// The Text of the documents of a batch lives in their
				// slots' storage until the batch is done.
				buf = append(slotFor(buf, len(d.textBytes)), d.textBytes...)
				it.Text, it.textBytes = unsafe.String(unsafe.SliceData(buf), len(buf)), nil
			}
			it.buf = buf
			if len(j.items) == docBatch {
				j.seq, seq = seq, seq+1
				jobs <- j
				j = <-free
			}
			return nil
		}, onReject)
		if len(j.items) > 0 {
			j.seq = seq
			jobs <- j
		}
	}()

	var wg sync.WaitGroup
	var setupErr error
	var once sync.Once
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn, err := newWorker()
			if err != nil {
				once.Do(func() { setupErr = err })
			}
			for j := range jobs {
				if fn != nil {
					for i := range j.items {
						fn(&j.items[i], &j.out[i])
					}
				}
				done <- j
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()

	// Batches done out of order wait here: at most all of them, which the
	// reader cannot refill before the next in order is done, so the one
	// awaited is in work or queued.
	waiting := map[int]*docJob[R]{}
	next := 0
	for j := range done {
		waiting[j.seq] = j
		for j := waiting[next]; j != nil; j = waiting[next] {
			delete(waiting, next)
			next++
			if setupErr == nil {
				for i := range j.items {
					emit(&j.out[i])
				}
			}
			for i := range j.items {
				if cap(j.items[i].buf) > maxBusySlotBytes {
					j.items[i].buf = nil // see maxBusySlotBytes
				}
			}
			j.items = j.items[:0]
			free <- j
		}
	}
	if setupErr != nil {
		return setupErr
	}
	return readErr
}

// ahead runs the work of a bundle's elements on other goroutines while the
// runner hands over the next elements, and gives the results back in
// element order on the goroutine that calls the DoFn, where they may be
// emitted. A stage that a runner runs as one bundle (Prism runs each
// grouped stage so) then uses more than one core. The DoFn drains it in
// FinishBundle, so nothing is emitted after the bundle ends.
type ahead[R any] struct {
	pending []chan R
}

// start runs work on a new goroutine.
func (a *ahead[R]) start(work func() R) {
	ch := make(chan R, 1)
	go func() { ch <- work() }()
	a.pending = append(a.pending, ch)
}

// drain waits for the oldest results and passes them to use until at most
// keep are pending; it stops at the first error of use, after waiting for
// every pending goroutine.
func (a *ahead[R]) drain(keep int, use func(R) error) error {
	for len(a.pending) > keep {
		r := <-a.pending[0]
		a.pending = a.pending[1:]
		if err := use(r); err != nil {
			for _, ch := range a.pending {
				<-ch
			}
			a.pending = nil
			return err
		}
	}
	return nil
}

// aheadEmits is ahead for DoFns that emit: work for one element runs on
// another goroutine with emitters that collect its output chunks and stats,
// and drain passes them, in element order, to the DoFn's own emitters. The
// busy time of the work is added to stage's counter when it is drained.
type aheadEmits struct {
	stage string
	a     ahead[collected]
}

// collected is what the work of one element emitted.
type collected struct {
	outs  [][]keyedChunk // per output
	stats []namedStat
	err   error
	began time.Time
	took  time.Duration
}

type keyedChunk struct {
	key   int
	chunk []byte
}

type namedStat struct {
	name string
	v    int64
}

// start runs work, which has nOut outputs, on a new goroutine. work must
// not use the DoFn's iterators or emitters: they are only valid on the
// DoFn's goroutine.
func (e *aheadEmits) start(nOut int, work func(emits []func(int, []byte), emitStat func(string, int64)) error) {
	e.a.start(func() collected {
		c := collected{outs: make([][]keyedChunk, nOut), began: time.Now()}
		emits := make([]func(int, []byte), nOut)
		for i := range emits {
			emits[i] = func(k int, b []byte) { c.outs[i] = append(c.outs[i], keyedChunk{k, b}) }
		}
		c.err = work(emits, func(name string, v int64) { c.stats = append(c.stats, namedStat{name, v}) })
		c.took = time.Since(c.began)
		return c
	})
}

// drain emits the output of the oldest work until at most keep are
// pending; the first error of a work is returned, after waiting for the
// rest.
func (e *aheadEmits) drain(ctx context.Context, keep int, emits []func(int, []byte), emitStat func(string, int64)) error {
	return e.a.drain(keep, func(c collected) error {
		if c.err != nil {
			return c.err
		}
		for i, out := range c.outs {
			for _, kc := range out {
				emits[i](kc.key, kc.chunk)
			}
		}
		for _, s := range c.stats {
			emitStat(s.name, s.v)
		}
		addBusy(ctx, e.stage, c.took, c.began)
		return nil
	})
}

// reuse keeps slices for reuse, safe for use by several goroutines.
type reuse[T any] struct {
	mu   sync.Mutex
	free [][]T
}

// get returns an empty slice, with the capacity of one put before if any.
func (r *reuse[T]) get() []T {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.free)
	if n == 0 {
		return nil
	}
	s := r.free[n-1]
	r.free = r.free[:n-1]
	return s[:0]
}

// put keeps s, which its caller no longer uses, for a later get.
func (r *reuse[T]) put(s []T) {
	if cap(s) == 0 {
		return
	}
	r.mu.Lock()
	r.free = append(r.free, s[:0])
	r.mu.Unlock()
}
