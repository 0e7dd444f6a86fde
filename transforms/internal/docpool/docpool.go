// Package docpool runs work over the documents of one file on several
// goroutines (Map), and a bundle's elements ahead of the runner (Ahead,
// AheadEmits, AheadStream): a runner that gives a stage one bundle at a time (Prism)
// would otherwise use one core for the whole stage.
package docpool

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/neardup/neardup/transforms/format/rank"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/text/normalize"
)

// Doc is the part of a parsed record that outlives the reader's
// callback, or a document read from a document shard.
type Doc struct {
	ID    string
	Text  string
	Index int64
	// Len is the document's length (record.Doc.Len: its text's bytes
	// before normalization), which --keep longest compares.
	Len int
	// Rank is the document's key under --keep field:NAME (record.Doc.Rank).
	Rank rank.Key
	// RawLen is the record's bytes as read (record.Doc.Raw), for the
	// input_bytes count; 0 for a document read from a document shard.
	RawLen int
	// Normalized says that Text is already the record's text normalized
	// (read from a document shard).
	Normalized bool
	// TextBytes, if not nil, is the text as bytes that a Reader hands to
	// its callback and may reuse after it: Map copies it into Buf and
	// sets Text to it.
	TextBytes []byte
	// Buf is storage that Map keeps with each slot of a batch, reused
	// by the documents that later take the slot: for Text when it comes as
	// TextBytes, else free for the worker's use until the batch is done
	// (see Slot). A Reader leaves it unset.
	Buf []byte
}

// Norm returns the document's text normalized in form f (Normalized:
// as it was read, which the job normalized in the same form).
func (d *Doc) Norm(f normalize.Form) string {
	if d.Normalized {
		return d.Text
	}
	return f.Text(d.Text)
}

// Batch is the number of documents a worker takes at a time.
const Batch = 256

// slotBytes is the smallest text buffer of a batch slot (Doc.Buf).
const slotBytes = 4 << 10

// Slot returns a slot's storage emptied, with room for n bytes: buf's
// own if it has it, else new, with room for most documents so that a slot
// rarely grows.
func Slot(buf []byte, n int) []byte {
	if cap(buf) < n {
		return make([]byte, 0, max(n, slotBytes))
	}
	return buf[:0]
}

// freeItems holds batches of Docs (capacity Batch) between calls of
// Map, with their slots' text storage, for the next files and passes of
// every job of the process: process-wide by nature, as memory is. A
// sync.Pool would lose them at every garbage collection, several a second
// in a run.
var freeItems struct {
	sync.Mutex
	batches [][]Doc
}

// maxFreeItems bounds freeItems: the batches of two concurrent Map on
// two cores. maxSlotBytes bounds the storage kept with each of their slots
// (longer documents' storage is dropped): at most 32 MiB kept in all.
//
// maxBusySlotBytes bounds the storage a slot keeps from one batch to the
// next within one Map, so that a slot does not grow to the longest
// document a long file's read ever held: the slots of a call hold at most
// (2·workers+2)·Batch·32 KiB, 48 MiB on two cores.
const (
	maxFreeItems     = 16
	maxSlotBytes     = 2 * slotBytes
	maxBusySlotBytes = 8 * slotBytes
)

func getItems() []Doc {
	freeItems.Lock()
	defer freeItems.Unlock()
	if n := len(freeItems.batches); n > 0 {
		items := freeItems.batches[n-1]
		freeItems.batches = freeItems.batches[:n-1]
		return items
	}
	return make([]Doc, 0, Batch)
}

// putItems keeps a batch in freeItems, with only its slots' storage.
func putItems(items []Doc) {
	items = items[:cap(items)]
	for i := range items {
		buf := items[i].Buf[:0]
		if cap(buf) > maxSlotBytes {
			buf = nil // a rare long document's storage is not kept
		}
		items[i] = Doc{Buf: buf}
	}
	freeItems.Lock()
	defer freeItems.Unlock()
	if len(freeItems.batches) < maxFreeItems {
		freeItems.batches = append(freeItems.batches, items[:0])
	}
}

// mapBatches is the most batches a Map call on workers goroutines holds:
// one in work or waiting for each worker, as many done and waiting to be
// emitted, one being filled and one being emitted.
func mapBatches(workers int) int { return 2*workers + 2 }

// MapBytes is the most memory a Map call on workers goroutines (0:
// GOMAXPROCS) with results R holds in its batches, each document taking a
// slot of the smallest storage (slotBytes, which holds most documents' text:
// a longer document's slot holds the document, counted in the input).
func MapBytes[R any](workers int) int64 {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var d Doc
	var r R
	return int64(mapBatches(workers)) * Batch * int64(unsafe.Sizeof(d)+unsafe.Sizeof(r)+slotBytes)
}

type docJob[R any] struct {
	items []Doc
	out   []R
	seq   int // the batch's place in read order
}

// A FileReader reads one input file, calling doc and reject for its records.
type FileReader func(doc func(record.Doc) error, reject func(record.Reject) error) error

// A Reader reads the documents of one input file, parsed (from the input
// or its decompressed spool copy) or from document shards, calling
// doc and reject for its records. doc must not keep item, nor
// item.TextBytes, which holds the text instead of item.Text when not nil.
type Reader func(doc func(item *Doc) error, reject func(record.Reject) error) error

// Parsed is the Reader of records read by read.
func Parsed(read FileReader) Reader {
	return func(doc func(*Doc) error, reject func(record.Reject) error) error {
		var item Doc
		return read(func(d record.Doc) error {
			item = Doc{ID: d.ID, Text: d.Text, Index: d.Index, Len: d.Len(), Rank: d.Rank, RawLen: len(d.Raw)}
			return doc(&item)
		}, reject)
	}
}

// Map reads a file with read and runs work on every good record on
// `workers` goroutines, each with its own state from newWorker (a Signer, say),
// in batches; emit is called for every result on the calling goroutine, so
// it may use Beam emitters. Results come in the order read delivered the
// documents (a batch done early waits for the ones before it): line order
// for every reader, the document shards included, which the first pass
// writes from its results, so that the signature pass can write each
// segment's info shard once the next segment's results come. onReject, if not nil, gets every reject on the reading
// goroutine; whatever it collects is safe to read once Map has
// returned.
//
// A runner that gives a stage one bundle at a time (Prism) would otherwise
// use one core for the whole stage; on a cluster, workers run bundles in
// parallel anyway and workers <= GOMAXPROCS keeps the extra goroutines bounded.
func Map[R any](read Reader, workers int,
	newWorker func() (func(*Doc, *R), error), emit func(*R), onReject func(record.Reject) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan *docJob[R], workers)
	done := make(chan *docJob[R], workers)
	// The batches, at most mapBatches(workers), are made as the reader
	// needs them: a file of a few documents takes one.
	free := make(chan *docJob[R], mapBatches(workers))
	var made int
	take := func() *docJob[R] {
		if len(free) == 0 && made < cap(free) {
			made++
			return &docJob[R]{items: getItems(), out: make([]R, Batch)}
		}
		return <-free
	}
	// The batches' items, with their slots' text storage, serve the next
	// files and passes.
	defer func() {
		for len(free) > 0 {
			putItems((<-free).items)
		}
	}()
	var readErr, setupErr error
	go func() {
		defer close(jobs)
		readErr = feedDocs(read, onReject, jobs, take)
	}()
	startWorkers(workers, newWorker, jobs, done, &setupErr)
	emitInOrder(done, free, emit, &setupErr)
	if setupErr != nil {
		return setupErr
	}
	return readErr
}

// feedDocs reads the documents with read into batches from take and
// sends them to jobs, numbered in read order; onReject (nil: none) gets the
// rejects.
func feedDocs[R any](read Reader, onReject func(record.Reject) error, jobs chan *docJob[R], take func() *docJob[R]) error {
	j, seq := take(), 0
	if onReject == nil {
		onReject = func(record.Reject) error { return nil }
	}
	err := read(func(d *Doc) error {
		if d.Index >= wire.MaxLines {
			return fmt.Errorf("more than %d lines", int64(wire.MaxLines))
		}
		n := len(j.items)
		j.items = j.items[:n+1] // cap(j.items) is Batch
		it := &j.items[n]
		buf := it.Buf
		*it = *d
		if d.TextBytes != nil {
			// The Text of the documents of a batch lives in their
			// slots' storage until the batch is done.
			buf = append(Slot(buf, len(d.TextBytes)), d.TextBytes...)
			it.Text, it.TextBytes = unsafe.String(unsafe.SliceData(buf), len(buf)), nil
		}
		it.Buf = buf
		if len(j.items) == Batch {
			j.seq, seq = seq, seq+1
			jobs <- j
			j = take()
		}
		return nil
	}, onReject)
	if len(j.items) > 0 {
		j.seq = seq
		jobs <- j
	}
	return err
}

// startWorkers starts workers goroutines, each with its own state from
// newWorker, that work on the batches of jobs and pass them on to done,
// which is closed once they all end. The first error of newWorker goes to
// *setupErr; a worker without state passes its batches on untouched.
func startWorkers[R any](workers int, newWorker func() (func(*Doc, *R), error), jobs, done chan *docJob[R], setupErr *error) {
	var wg sync.WaitGroup
	var once sync.Once
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn, err := newWorker()
			if err != nil {
				once.Do(func() { *setupErr = err })
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
}

// emitInOrder emits the results of the batches of done in read order
// (unless a worker's setup failed) and returns the batches to free.
func emitInOrder[R any](done, free chan *docJob[R], emit func(*R), setupErr *error) {
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
			if *setupErr == nil {
				for i := range j.items {
					emit(&j.out[i])
				}
			}
			for i := range j.items {
				if cap(j.items[i].Buf) > maxBusySlotBytes {
					j.items[i].Buf = nil // see maxBusySlotBytes
				}
			}
			j.items = j.items[:0]
			free <- j
		}
	}
}
