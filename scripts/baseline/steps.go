package main

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"unsafe"

	"github.com/neardup/neardup/transforms/format/output"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/blockkeys"
	"github.com/neardup/neardup/transforms/match/candidates"
	"github.com/neardup/neardup/transforms/match/exactdup"
	"github.com/neardup/neardup/transforms/match/verify"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/sketch/similarity"
	"github.com/neardup/neardup/transforms/text/normalize"
)

// job is the state of one run.
type job struct {
	files      []*file
	spool, out string
	temps      []string // removed by cleanup
	bands      blocking.Bands
	tables     *blocking.Tables
	opt        record.Options

	parts   []partFile   // the block entries, by partition
	pairs   []wire.Pair  // candidate pairs, sorted
	matches []wire.Match // exact, verified by the estimate, then exactly
	unsure  []wire.Match // the pairs the estimate cannot decide
	counts  counts
}

// counts are the numbers summary.json reports.
type counts struct {
	records, bytes, rejected, exact, signed, keys int64
	candidates, byEstimate, byExact, unsure       int64
	clusters, clustered, kept, removed            int64
}

// file is one input file: its good documents in line order, their
// signatures, and what the outputs need.
type file struct {
	index      int
	path       string
	comp       record.Compression
	raw, norm  string // spool: decompressed copy ("": read the input), normalized documents
	lines      []int64
	ids        []string
	lens       []int64
	exact      []uint64
	sketch     []byte // perms bytes per document, signed or not
	simhash    []uint64
	signed     []bool // signed, with shingles
	skip, drop wire.LineSet
	rejects    []wire.OutLine
	clusters   []wire.OutLine
	pairs      []wire.Match
	records    int64
}

// info is the wire.Info of the document at position k of f.
func (f *file) info(k int) wire.Info {
	return wire.Info{Doc: wire.DocNum(f.index, f.lines[k]), ID: f.ids[k], Len: f.lens[k], SimHash: f.simhash[k], Sketch: f.sketch[k*perms : (k+1)*perms]}
}

// pos is the position of line in f, or -1.
func (f *file) pos(line int64) int {
	k := sort.Search(len(f.lines), func(i int) bool { return f.lines[i] >= line })
	if k < len(f.lines) && f.lines[k] == line {
		return k
	}
	return -1
}

// doc is the position of document d in its file.
func (j *job) doc(d wire.Doc) (*file, int) {
	f := j.files[wire.File(d)]
	return f, f.pos(wire.Line(d))
}

// read parses every file, normalizes and keys its documents, and writes the
// spool of each.
func (j *job) read() error {
	var mu sync.Mutex
	return parallel(len(j.files), func(i int) error {
		f := j.files[i]
		in, err := os.Open(f.path)
		if err != nil {
			return err
		}
		defer in.Close()
		// A compressed file (by its name or its first bytes, as the job
		// finds it) gets a decompressed copy, for the dedup copy.
		src := bufio.NewReaderSize(in, 1<<20)
		head, _ := src.Peek(4)
		var raw io.Writer = io.Discard
		var rawOut *os.File
		var rw *bufio.Writer
		if record.ByName(f.path) > record.None || record.Sniff(head) != record.None {
			f.raw = filepath.Join(j.spool, fmt.Sprintf("raw-%05d", i))
			if rawOut, rw, err = create(f.raw); err != nil {
				return err
			}
			defer rawOut.Close()
			raw = rw
		}
		f.norm = filepath.Join(j.spool, fmt.Sprintf("norm-%05d", i))
		normOut, nw, err := create(f.norm)
		if err != nil {
			return err
		}
		defer normOut.Close()
		dec := record.NewReader(f.path, src, record.Unknown)
		var buf, rec []byte
		var bytes, rejected int64
		broken := false
		err = record.Read(io.TeeReader(dec, raw), f.path, j.opt, func(d record.Doc) error {
			buf = norm.Into(buf, d.Text)
			f.lines = append(f.lines, d.Index)
			f.ids = append(f.ids, d.ID)
			f.lens = append(f.lens, int64(d.Len()))
			f.exact = append(f.exact, normalize.Key(unsafe.String(unsafe.SliceData(buf), len(buf))))
			bytes += int64(len(d.Raw))
			rec = wire.AppendNormRecord(rec[:0], d.Index, d.Len(), d.Rank, d.ID, buf)
			_, err := nw.Write(rec)
			return err
		}, func(r record.Reject) error {
			rejected++
			broken = broken || record.EndsFile(r.Reason)
			if r.Line > 0 {
				f.drop.Add(r.Line - 1)
			}
			line, err := jsonLine(output.RejectLine{File: r.File, Line: r.Line, Offset: r.Offset, Reason: r.Reason, Detail: r.Detail, Sample: r.Sample})
			f.rejects = append(f.rejects, wire.OutLine{K1: uint64(r.Line), K2: uint64(r.Offset), Text: line})
			return err
		})
		if err == nil && rw != nil {
			err = closeAll(rw, rawOut)
		}
		if err == nil {
			err = closeAll(nw, normOut)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", f.path, err)
		}
		f.comp = max(dec.Compression(), record.None)
		if f.raw != "" && (f.comp == record.None || broken) {
			os.Remove(f.raw)
			f.raw = ""
		}
		f.records = int64(len(f.lines)) + rejected
		mu.Lock()
		j.counts.records += f.records
		j.counts.rejected += rejected
		j.counts.bytes += bytes
		mu.Unlock()
		return nil
	})
}

// exactDuplicates groups the documents by their exact keys: every member
// of a group but its representative (the longest) is matched with it and
// not signed.
func (j *job) exactDuplicates() error {
	type keyed struct {
		exact uint64
		doc   wire.Doc
	}
	var all []keyed
	for _, f := range j.files {
		for k, line := range f.lines {
			all = append(all, keyed{f.exact[k], wire.DocNum(f.index, line)})
		}
		f.exact = nil
	}
	slices.SortFunc(all, func(a, b keyed) int { return cmp.Or(cmp.Compare(a.exact, b.exact), cmp.Compare(a.doc, b.doc)) })
	var group []wire.Info
	for i := 0; i < len(all); {
		n := 1
		for i+n < len(all) && all[i+n].exact == all[i].exact {
			n++
		}
		if n > 1 {
			group = group[:0]
			for _, kd := range all[i : i+n] {
				f, k := j.doc(kd.doc)
				group = append(group, wire.Info{Doc: kd.doc, ID: f.ids[k], Len: f.lens[k], Exact: kd.exact})
			}
			rep := exactdup.Representative(group, true)
			for k := range group {
				if k != rep {
					j.matches = append(j.matches, exactdup.Match(&group[rep], &group[k]))
					j.files[wire.File(group[k].Doc)].skip.Add(wire.Line(group[k].Doc))
					j.counts.exact++
				}
			}
		}
		i += n
	}
	return nil
}

// partFile is the spill file of one partition of the block entries.
type partFile struct {
	mu   sync.Mutex
	path string
	f    *os.File
	w    *bufio.Writer
}

// sign signs every document that is not an exact duplicate, from the
// spool, keeps its sketch and SimHash, and writes its block entries, packed
// as the job sends them (blockkeys.Sender), to the partition files: bands
// in [0, partitions), SimHash tables in [partitions, 2×partitions).
func (j *job) sign() error {
	j.parts = make([]partFile, 2*partitions)
	for p := range j.parts {
		pf := &j.parts[p]
		pf.path = filepath.Join(j.spool, fmt.Sprintf("part-%03d", p))
		f, err := os.Create(pf.path)
		if err != nil {
			return err
		}
		pf.f, pf.w = f, bufio.NewWriterSize(f, 32<<10) // 512 of them
	}
	emit := func(p int64, chunk []byte) {
		pf := &j.parts[p]
		pf.mu.Lock()
		var n [binary.MaxVarintLen64]byte
		pf.w.Write(n[:binary.PutUvarint(n[:], uint64(len(chunk)))])
		pf.w.Write(chunk)
		pf.mu.Unlock()
	}
	var mu sync.Mutex
	err := parallel(len(j.files), func(i int) error {
		f := j.files[i]
		signer, err := signature.New(signature.DefaultConfig())
		if err != nil {
			return err
		}
		keyer := blockkeys.Keyer{Bands: j.bands, Tables: j.tables}
		sender := blockkeys.NewSender(blockkeys.KeySpace{P: partitions}, emit)
		f.sketch = make([]byte, len(f.lines)*perms)
		f.simhash = make([]uint64, len(f.lines))
		f.signed = make([]bool, len(f.lines))
		var sig signature.Signature
		var d blockkeys.Doc
		var signed, keys int64
		k := 0
		err = eachNorm(f, nil, func(r wire.NormRecord) {
			for f.lines[k] != r.Index {
				k++
			}
			if f.skip.Has(r.Index) {
				return
			}
			text := unsafe.String(unsafe.SliceData(r.Text), len(r.Text))
			signer.Sign(text, &sig)
			keyer.Derive(&d, wire.DocNum(i, r.Index), f.ids[k], r.Len, text, &sig)
			signed++
			if d.Empty {
				return
			}
			copy(f.sketch[k*perms:], d.Info.Sketch)
			f.simhash[k], f.signed[k] = d.Info.SimHash, true
			keys += int64(len(d.Bands) + len(d.Tables))
			sender.Send(&d)
		})
		sender.Flush()
		mu.Lock()
		j.counts.signed += signed
		j.counts.keys += keys
		mu.Unlock()
		return err
	})
	for p := range j.parts {
		if e := closeAll(j.parts[p].w, j.parts[p].f); err == nil {
			err = e
		}
	}
	return err
}

// candidates sorts each partition's entries and lists the candidate pairs
// of its buckets, then keeps each pair once.
func (j *job) candidates() error {
	var mu sync.Mutex
	err := parallel(len(j.parts), func(p int) error {
		b, err := os.ReadFile(j.parts[p].path)
		if err != nil {
			return err
		}
		os.Remove(j.parts[p].path)
		var entries []wire.Entry
		var sims []wire.SimEntry
		for len(b) > 0 {
			n, w := binary.Uvarint(b)
			if w <= 0 || uint64(len(b)-w) < n {
				return fmt.Errorf("partition %d: bad chunk", p)
			}
			chunk := b[w : w+int(n)]
			b = b[w+int(n):]
			if p < partitions {
				entries, err = wire.AppendEntries(entries, chunk)
			} else {
				sims, err = wire.AppendSimEntries(sims, chunk, j.tables)
			}
			if err != nil {
				return fmt.Errorf("partition %d: %w", p, err)
			}
		}
		var st candidates.Stats
		var pairs []wire.Pair
		if p < partitions {
			pairs = candidates.Append(nil, candidates.Sort(entries), limits, &st)
		} else {
			pairs = candidates.AppendNear(nil, candidates.SortSim(sims), hamming, limits, &st)
		}
		pairs = candidates.Unique(pairs)
		mu.Lock()
		j.pairs = append(j.pairs, pairs...)
		mu.Unlock()
		return nil
	})
	j.pairs = candidates.Unique(j.pairs)
	j.counts.candidates = int64(len(j.pairs))
	return err
}

// verify decides each candidate pair on the 8-bit MinHash estimate: accepted
// pairs are matches, the pairs it cannot decide go to the exact checks.
func (j *job) verify() error {
	const chunk = 1 << 16
	n := (len(j.pairs) + chunk - 1) / chunk
	accepted, unsure := make([][]wire.Match, n), make([][]wire.Match, n)
	err := parallel(n, func(c int) error {
		for _, p := range j.pairs[c*chunk : min((c+1)*chunk, len(j.pairs))] {
			fa, ka := j.doc(p.A)
			fb, kb := j.doc(p.B)
			if ka < 0 || kb < 0 || !fa.signed[ka] || !fb.signed[kb] {
				return fmt.Errorf("candidate pair %d-%d: a document without a signature", p.A, p.B)
			}
			a, b := fa.info(ka), fb.info(kb)
			switch m, d := verify.Check(&a, &b, vcfg); d {
			case verify.Accept:
				accepted[c] = append(accepted[c], m)
			case verify.CheckExactly:
				unsure[c] = append(unsure[c], m)
			}
		}
		return nil
	})
	for c := range n {
		j.matches = append(j.matches, accepted[c]...)
		j.unsure = append(j.unsure, unsure[c]...)
		j.counts.byEstimate += int64(len(accepted[c]))
	}
	j.counts.unsure = int64(len(j.unsure))
	// The matches carry what the later steps need of their documents.
	j.pairs = nil
	for _, f := range j.files {
		f.lines, f.ids, f.lens, f.sketch, f.simhash, f.signed = nil, nil, nil, nil, nil, nil
	}
	return err
}

// exactChecks computes the exact Jaccard of the unsure pairs from the
// shingle sets of their documents, re-tokenized from the spool (the low 32
// bits of each shingle hash, as the job), in batches: the sets of the first
// documents of a batch of files are held while each file of the second
// documents is read once.
func (j *job) exactChecks() error {
	slices.SortFunc(j.unsure, func(a, b wire.Match) int { return cmp.Or(cmp.Compare(a.A, b.A), cmp.Compare(a.B, b.B)) })
	for len(j.unsure) > 0 {
		// The batch: whole files of first documents, about setDocs of them.
		n, docs := 0, 0
		for n < len(j.unsure) && (docs < setDocs || wire.File(j.unsure[n].A) == wire.File(j.unsure[n-1].A)) {
			if n == 0 || j.unsure[n].A != j.unsure[n-1].A {
				docs++
			}
			n++
		}
		batch := j.unsure[:n]
		j.unsure = j.unsure[n:]
		sets, err := j.shingleSets(batch, func(m *wire.Match) wire.Doc { return m.A })
		if err != nil {
			return err
		}
		byB := slices.Clone(batch)
		slices.SortFunc(byB, func(a, b wire.Match) int { return cmp.Or(cmp.Compare(a.B, b.B), cmp.Compare(a.A, b.A)) })
		files := groupByFile(byB, func(m *wire.Match) wire.Doc { return m.B })
		accepted := make([][]wire.Match, len(files))
		err = parallel(len(files), func(g int) error {
			ms := files[g]
			k := 0 // ms is sorted by B, and the documents come in line order
			return j.eachSet(ms, func(m *wire.Match) wire.Doc { return m.B }, func(doc wire.Doc, set []uint32) {
				for ; k < len(ms) && ms[k].B < doc; k++ {
				}
				for ; k < len(ms) && ms[k].B == doc; k++ {
					if s := similarity.Jaccard(sets[ms[k].A], set); s >= threshold {
						ms[k].Jaccard, ms[k].Estimated = float32(s), false
						accepted[g] = append(accepted[g], ms[k])
					}
				}
			})
		})
		if err != nil {
			return err
		}
		for _, a := range accepted {
			j.matches = append(j.matches, a...)
			j.counts.byExact += int64(len(a))
		}
	}
	return nil
}

// groupByFile splits ms, sorted by doc, into runs of one file each.
func groupByFile(ms []wire.Match, doc func(*wire.Match) wire.Doc) [][]wire.Match {
	var out [][]wire.Match
	for len(ms) > 0 {
		n := 1
		for n < len(ms) && wire.File(doc(&ms[n])) == wire.File(doc(&ms[0])) {
			n++
		}
		out = append(out, ms[:n])
		ms = ms[n:]
	}
	return out
}

// shingleSets returns the shingle sets of the documents doc names in ms,
// sorted by doc, one file at a time on every core.
func (j *job) shingleSets(ms []wire.Match, doc func(*wire.Match) wire.Doc) (map[wire.Doc][]uint32, error) {
	sets := map[wire.Doc][]uint32{}
	var mu sync.Mutex
	files := groupByFile(ms, doc)
	err := parallel(len(files), func(g int) error {
		return j.eachSet(files[g], doc, func(d wire.Doc, set []uint32) {
			mu.Lock()
			sets[d] = slices.Clone(set)
			mu.Unlock()
		})
	})
	return sets, err
}

// eachSet reads the file of the documents doc names in ms (one file) from
// the spool and calls fn with each one's shingle set, in line order.
func (j *job) eachSet(ms []wire.Match, doc func(*wire.Match) wire.Doc, fn func(wire.Doc, []uint32)) error {
	f := j.files[wire.File(doc(&ms[0]))]
	var want wire.LineSet
	for k := range ms {
		want.Add(wire.Line(doc(&ms[k])))
	}
	signer, err := signature.New(signature.DefaultConfig())
	if err != nil {
		return err
	}
	var sorter similarity.Sorter
	var set []uint32
	return eachNorm(f, want.Has, func(r wire.NormRecord) {
		set = set[:0]
		for _, h := range signer.Shingles(unsafe.String(unsafe.SliceData(r.Text), len(r.Text))) {
			set = append(set, uint32(h))
		}
		set = sorter.Set(set)
		fn(wire.DocNum(f.index, r.Index), set)
	})
}

// eachNorm calls fn with each record of f's normalized spool that only
// selects (all if nil).
func eachNorm(f *file, only func(int64) bool, fn func(wire.NormRecord)) error {
	in, err := os.Open(f.norm)
	if err != nil {
		return err
	}
	defer in.Close()
	r := bufio.NewReaderSize(in, 1<<20)
	var buf []byte
	for {
		rec, err := wire.ReadNormRecord(r, &buf, only)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", f.norm, err)
		}
		fn(rec)
	}
}

// create creates a file and a buffered writer on it.
func create(path string) (*os.File, *bufio.Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	return f, bufio.NewWriterSize(f, 256<<10), nil
}

// closeAll flushes or closes each of cs in turn and returns the first error.
func closeAll(cs ...any) error {
	var first error
	for _, c := range cs {
		var err error
		switch c := c.(type) {
		case *bufio.Writer:
			err = c.Flush()
		case io.Closer:
			err = c.Close()
		}
		if first == nil {
			first = err
		}
	}
	return first
}
