package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Parquet files are read with github.com/parquet-go/parquet-go: pure Go,
// maintained, and able to read one column chunk of one row group at a time
// from an io.ReaderAt, so that only the id and text columns are decoded.
//
// A Parquet row is what the line formats call a line: Doc.Index is the
// 0-based row number in the file (row groups counted one after the
// other), Reject.Line the 1-based one, and Options.Only selects rows by that
// index, so every later pass that selects records by line works on Parquet
// unchanged. Doc.Offset is 0 (a row has no byte offset of its own) and
// Doc.Raw is the bytes of the text value.

// IsParquet reports whether name ends in ".parquet" (in any case).
func IsParquet(name string) bool {
	const ext = ".parquet"
	return len(name) >= len(ext) && strings.EqualFold(name[len(name)-len(ext):], ext)
}

// FormatFor returns the format in which to read the input file name when
// the job's format is f: Parquet for a name ending in ".parquet" (whatever
// f says: a Parquet file is never text), else f.
func FormatFor(name string, f Format) Format {
	if IsParquet(name) {
		return Parquet
	}
	return f
}

// ReasonCorruptParquet is the reason of a Reject for a Parquet file that is
// damaged or not Parquet at all: Line 0 when its footer cannot be read (no
// row is known), else the row where reading stopped, covering the rest of
// its row group.
const ReasonCorruptParquet = "corrupt_parquet"

// parquetOptions are the options with which Parquet files are opened: the
// page index and bloom filters serve lookups, not a full scan.
var parquetOptions = []parquet.FileOption{parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true)}

// openOptions returns the options with which to open the Parquet file in
// ra: parquetOptions, with decoder read buffers (the footer's, each
// column's) of the size ra prefers if it says one, rather than
// parquet-go's 4 KiB: a reader of remote storage, where each read is one
// request (see package transforms/objects), so that a page header is not
// a request of its own.
func openOptions(ra io.ReaderAt) []parquet.FileOption {
	if p, ok := ra.(interface{ PreferredReadSize() int }); ok && p.PreferredReadSize() > 0 {
		return append(slices.Clip(parquetOptions), parquet.ReadBufferSize(p.PreferredReadSize()))
	}
	return parquetOptions
}

// ReadParquet parses the Parquet file of size bytes in ra as Read parses a
// line format (see Read and the package doc): the document text comes from
// the column Options.TextField, the id from the column Options.IDField
// (strings as they are, integers in decimal). A name with dots that is not a
// top-level column names a nested one ("meta.url"). With Options.IDs
// IDFromLine, or when the file has no id column (whatever Options.IDs: the
// schema says it for the whole file), each document's id is its line ID,
// file:row (LineID; the row 1-based, as Reject.Line), and
// Options.OnLineIDs is called before the first row.
//
// A file whose text column is missing, repeated or not a byte array, or
// whose id column is repeated or neither a byte array nor an integer, is one
// whole-file Reject (Line 0; missing_text, text_not_string or
// id_not_string). A row with a null text is rejected as text_not_string, a
// null or empty id as missing_id; the text checks are those of JSONL (size,
// UTF-8, white space). A file that cannot be opened as Parquet is one
// Reject with ReasonCorruptParquet and Line 0. Damage found while reading
// a row group ends the row group with one ReasonCorruptParquet Reject at
// the row where it stopped, and reading goes on with the next row group
// (each is coded on its own); a failure of ra itself ends the file with
// one ReasonReadError Reject. The decoder's panics on damaged data are
// caught and reported so. With Options.Rows, the reads of a file in
// ranges that cover it give together what one read of it gives, damage
// included.
func ReadParquet(ra io.ReaderAt, size int64, file string, opt Options, doc func(Doc) error, reject func(Reject) error) error {
	if ra == nil || doc == nil || reject == nil {
		return fmt.Errorf("record: %s: ReadParquet needs a reader and both callbacks", file)
	}
	opt = opt.withDefaults()
	p := &parser{file: file, opt: opt, doc: doc, reject: reject}
	r := &parquetReader{p: p, src: &sourceReaderAt{r: ra, size: size}}
	return r.read(size)
}

// readParquet reads a whole Parquet stream into memory for ReadParquet
// (Read with Format Parquet, for a reader that is not an io.ReaderAt).
func (p *parser) readParquet(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return p.emitReject(0, 0, readErrorReason(err), fmt.Sprintf("reading stopped after %d bytes, file lost: %v", len(data), err), nil)
	}
	pr := &parquetReader{p: p, src: &sourceReaderAt{r: bytes.NewReader(data), size: int64(len(data))}}
	return pr.read(int64(len(data)))
}

// sourceReaderAt remembers the first error of the underlying reader other
// than io.EOF, to tell I/O failures from damaged data, and where reads
// failed, to tell which row groups they hit. A read that starts outside
// the file's size bytes is damage (an offset the file's metadata gives),
// not a failure of the reader; one that ends past them is cut there and
// ends with io.EOF, whatever the underlying reader would say. Row groups
// decoded at once read it from several goroutines.
type sourceReaderAt struct {
	r      io.ReaderAt
	size   int64
	mu     sync.Mutex
	err    error
	failed [][2]int64 // [offset, end) of the reads that failed
}

func (s *sourceReaderAt) ReadAt(b []byte, off int64) (int, error) {
	if off < 0 || off > s.size {
		return 0, fmt.Errorf("read at offset %d, outside the file's %d bytes", off, s.size)
	}
	cut := false
	if rest := s.size - off; int64(len(b)) > rest {
		b, cut = b[:rest], true
	}
	n, err := s.r.ReadAt(b, off)
	if err == nil && cut {
		err = io.EOF
	}
	if err != nil && err != io.EOF {
		s.mu.Lock()
		if s.err == nil {
			s.err = err
		}
		s.failed = append(s.failed, [2]int64{off, off + int64(len(b))})
		s.mu.Unlock()
	}
	return n, err
}

// failedIn reports whether a read of the bytes [lo, hi) failed.
func (s *sourceReaderAt) failedIn(lo, hi int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.failed {
		if f[0] < hi && f[1] > lo {
			return true
		}
	}
	return false
}

// ParquetRowGroups returns the number of rows of each row group of the
// Parquet file of size bytes in ra, from its footer, or an error if the
// footer cannot be read (the file is then one whole-file Reject when
// read: see ReadParquet).
func ParquetRowGroups(ra io.ReaderAt, size int64) (rows []int64, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("parquet decoder failed: %v", v)
		}
	}()
	if err := checkFooter(ra, size); err != nil {
		return nil, err
	}
	f, err := parquet.OpenFile(ra, size, openOptions(ra)...)
	if err != nil {
		return nil, err
	}
	for _, rg := range f.RowGroups() {
		rows = append(rows, rg.NumRows())
	}
	return rows, nil
}

// parquetReader reads one Parquet file for ReadParquet.
type parquetReader struct {
	p   *parser
	src *sourceReaderAt
	// inCallback is set while a callback runs: a panic there is not the
	// decoder's and is not caught.
	inCallback bool
	at         int64 // the row being read; -1 while opening the file
}

// reason is the reason of a Reject for damage: ReasonReadError when the
// reader failed, else ReasonCorruptParquet.
func (r *parquetReader) reason() string {
	if r.src.err != nil {
		return ReasonReadError
	}
	return ReasonCorruptParquet
}

func (r *parquetReader) read(size int64) (err error) {
	defer func() {
		if r.inCallback {
			return // a panic in a callback goes on
		}
		if v := recover(); v != nil {
			err = r.stopped(fmt.Errorf("decoder failed: %v", v))
		}
	}()
	if err := checkFooter(r.src, size); err != nil {
		return r.stopped(err)
	}
	f, err := parquet.OpenFile(r.src, size, openOptions(r.src.r)...)
	if err != nil {
		return r.stopped(err)
	}
	cols, rj := r.p.parquetColumns(f.Schema())
	if rj != nil {
		if !r.p.opt.Rows.fromStart() {
			return nil
		}
		return r.callReject(0, rj.reason, rj.detail, nil)
	}
	if cols.id < 0 && r.p.opt.OnLineIDs != nil {
		r.inCallback = true
		r.p.opt.OnLineIDs()
		r.inCallback = false
	}
	groups := r.p.groupsInRange(f)
	if r.p.opt.Workers > 1 && len(groups) > 1 {
		return r.parallel(groups, cols)
	}
	for _, pg := range groups {
		gerr := r.serialGroup(pg, cols)
		if err := r.stop(pg, gerr); err != nil {
			return err
		}
		if r.failedRead(pg, gerr) { // a read error ends the file
			return nil
		}
	}
	return nil
}

// pqGroup is the part of a row group that a read covers: rows [first,
// first+n) of the file, in row group g.
type pqGroup struct {
	g        int
	rg       parquet.RowGroup
	first, n int64
	size     int64 // the row group's uncompressed bytes (0: unknown)
	lo, hi   int64 // the file's bytes [lo, hi) that hold its column chunks
}

// groupsInRange returns the parts of f's row groups that Options.Rows
// covers (all of them without it), in file order. A part ends where the
// range does, so rows after it are not decoded; it starts at its row
// group's first row, the rows before the range being decoded and skipped.
func (p *parser) groupsInRange(f *parquet.File) []pqGroup {
	md := f.Metadata().RowGroups
	var parts []pqGroup
	row := int64(0)
	for g, rg := range f.RowGroups() {
		n := rg.NumRows()
		first, end := row, row+n
		row = end
		if rr := p.opt.Rows; rr != nil {
			if end <= rr.First || first >= rr.End {
				continue
			}
			end = min(end, rr.End)
		}
		pg := pqGroup{g: g, rg: rg, first: first, n: end - first}
		if g < len(md) {
			pg.size = max(md[g].TotalByteSize, 0)
			pg.lo, pg.hi = chunkBytes(md[g].Columns)
		}
		parts = append(parts, pg)
	}
	return parts
}

// failedRead reports whether err is damage (a *stopError) found in pg
// because the reader itself failed there.
func (r *parquetReader) failedRead(pg pqGroup, err error) bool {
	var stop *stopError
	return errors.As(err, &stop) && r.src.failedIn(pg.lo, pg.hi)
}

// chunkBytes returns the bytes [lo, hi) of the file that hold cols.
func chunkBytes(cols []format.ColumnChunk) (lo, hi int64) {
	lo = math.MaxInt64
	for _, c := range cols {
		m := c.MetaData
		start := m.DataPageOffset
		if m.DictionaryPageOffset > 0 {
			start = min(start, m.DictionaryPageOffset)
		}
		lo, hi = min(lo, start), max(hi, m.DataPageOffset+m.TotalCompressedSize)
	}
	return lo, hi
}

// only returns the selection of rows of a read: those of Options.Rows
// that Options.Only selects; nil for every row.
func (p *parser) only() func(int64) bool {
	rr, only := p.opt.Rows, p.opt.Only
	if rr == nil {
		return only
	}
	return func(row int64) bool { return rr.has(row) && (only == nil || only(row)) }
}

// serialGroup reads the rows of pg and hands them on; damage, a decoder
// panic included, is returned as a *stopError.
func (r *parquetReader) serialGroup(pg pqGroup, cols parquetCols) (err error) {
	r.at = pg.first
	defer func() {
		if r.inCallback {
			return // a panic in a callback goes on
		}
		if v := recover(); v != nil {
			err = &stopError{r.at, fmt.Errorf("decoder failed: %v", v)}
		}
	}()
	return r.p.rowGroup(pg.rg, cols, pg.first, pg.n, r.p.only(), &r.at, r.deliver)
}

// stop turns damage found in pg (a *stopError) into a Reject at the row
// where reading stopped, standing for the rest of the row group (of the
// file after a read error), unless that row is outside Options.Rows: the
// read that covers it reports it. It returns any other error (a
// callback's) as it is. Row groups are coded on their own, so the reading
// goes on with the next one: how a file is split into reads does not
// change what the reads give together.
func (r *parquetReader) stop(pg pqGroup, err error) error {
	var stop *stopError
	if !errors.As(err, &stop) {
		return err
	}
	if !r.p.opt.Rows.has(stop.row) {
		return nil
	}
	reason, rest := ReasonCorruptParquet, fmt.Sprintf("rest of row group %d lost", pg.g)
	if r.failedRead(pg, err) {
		reason, rest = ReasonReadError, "rest of file lost"
	}
	return r.callReject(stop.row+1, reason, fmt.Sprintf("reading stopped at row %d, %s: row group %d: %v", stop.row+1, rest, pg.g, stop.err), nil)
}

// checkFooter checks the end of a Parquet file of size bytes: its magic
// and a footer length that fits in the file (the decoder would allocate
// whatever length a damaged file says, up to 4 GiB).
func checkFooter(ra io.ReaderAt, size int64) error {
	var tail [8]byte
	if size < 12 {
		return fmt.Errorf("%d bytes, too short for Parquet", size)
	}
	if _, err := ra.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(tail[4:]) != "PAR1" {
		return fmt.Errorf("invalid magic footer of parquet file: %q", tail[4:])
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return fmt.Errorf("footer of %d bytes in a file of %d bytes", n, size)
	}
	return nil
}

// stopError is damage found at row.
type stopError struct {
	row int64
	err error
}

func (e *stopError) Error() string { return fmt.Sprintf("row %d: %v", e.row+1, e.err) }

// stopped reports err, found before any row, as the file's one Reject
// (Line 0), from the read that starts at row 0 only.
func (r *parquetReader) stopped(err error) error {
	if !r.p.opt.Rows.fromStart() {
		return nil
	}
	return r.callReject(0, r.reason(), "not a readable Parquet file: "+err.Error(), nil)
}

func (r *parquetReader) callReject(line int64, reason, detail string, raw []byte) error {
	r.inCallback = true
	defer func() { r.inCallback = false }()
	return r.p.emitReject(line, 0, reason, detail, raw)
}

func (r *parquetReader) callDoc(d Doc) error {
	r.inCallback = true
	defer func() { r.inCallback = false }()
	return r.p.emitDoc(d, d.Index+1)
}

// parquetCols are the leaf columns that ReadParquet decodes.
type parquetCols struct {
	text, id int // column indexes; id -1 when the file has no id column
	idKind   parquet.Kind
	keep     int          // the keep field's column index, or -1
	keepType parquet.Type // its type
}

type schemaReject struct{ reason, detail string }

// parquetColumns finds the text and id columns in schema, or says why the
// file cannot be read.
func (p *parser) parquetColumns(schema *parquet.Schema) (parquetCols, *schemaReject) {
	cols := parquetCols{id: -1, keep: -1}
	if k, ok := lookupColumn(schema, p.opt.Keep.Name); ok && k.MaxRepetitionLevel == 0 {
		cols.keep, cols.keepType = k.ColumnIndex, k.Node.Type()
	}
	text, ok := lookupColumn(schema, p.opt.TextField)
	if !ok && isGroup(schema, p.opt.TextField) {
		return cols, &schemaReject{ReasonTextNotString, fmt.Sprintf("column %q is a group (a list, map or struct), want a string column", p.opt.TextField)}
	}
	if !ok {
		return cols, &schemaReject{ReasonMissingText, fmt.Sprintf("no column %q (columns: %s)", p.opt.TextField, columnNames(schema))}
	}
	if why := notScalar(text, parquet.ByteArray); why != "" {
		return cols, &schemaReject{ReasonTextNotString, fmt.Sprintf("column %q is %s, want a string column", p.opt.TextField, why)}
	}
	cols.text = text.ColumnIndex
	if p.opt.IDs == IDFromLine {
		return cols, nil
	}
	id, ok := lookupColumn(schema, p.opt.IDField)
	if !ok && isGroup(schema, p.opt.IDField) {
		return cols, &schemaReject{ReasonIDNotString, fmt.Sprintf("column %q is a group (a list, map or struct), want a string or integer column", p.opt.IDField)}
	}
	if ok {
		if why := notScalar(id, parquet.ByteArray, parquet.Int32, parquet.Int64); why != "" {
			return cols, &schemaReject{ReasonIDNotString, fmt.Sprintf("column %q is %s, want a string or integer column", p.opt.IDField, why)}
		}
		cols.id, cols.idKind = id.ColumnIndex, id.Node.Type().Kind()
	}
	return cols, nil
}

// lookupColumn finds the leaf column name: a top-level column, else a
// nested one named by a dotted path.
func lookupColumn(schema *parquet.Schema, name string) (parquet.LeafColumn, bool) {
	if name == "" {
		return parquet.LeafColumn{}, false
	}
	if c, ok := schema.Lookup(name); ok && c.Node != nil && c.Node.Leaf() {
		return c, true
	}
	if c, ok := schema.Lookup(strings.Split(name, ".")...); ok && c.Node != nil && c.Node.Leaf() {
		return c, true
	}
	return parquet.LeafColumn{}, false
}

// isGroup reports whether name (or its dotted path) is a group of columns.
func isGroup(schema *parquet.Schema, name string) bool {
	if name == "" {
		return false
	}
	for _, path := range schema.Columns() {
		if len(path) > 1 && path[0] == name {
			return true
		}
		if dotted := strings.Split(name, "."); len(path) > len(dotted) && slices.Equal(path[:len(dotted)], dotted) {
			return true
		}
	}
	return false
}

// notScalar says what the column is when it is not one value per row of
// one of kinds: "repeated (a list)" or its physical type; "" if it is.
func notScalar(c parquet.LeafColumn, kinds ...parquet.Kind) string {
	if c.MaxRepetitionLevel > 0 {
		return "repeated (a list)"
	}
	k := c.Node.Type().Kind()
	for _, want := range kinds {
		if k == want {
			return ""
		}
	}
	return "of type " + k.String()
}

// columnNames lists the leaf columns of schema as dotted paths, at most 20.
func columnNames(schema *parquet.Schema) string {
	var names []string
	for _, path := range schema.Columns() {
		if len(names) == 20 {
			names = append(names, "...")
			break
		}
		names = append(names, strings.Join(path, "."))
	}
	return strings.Join(names, ", ")
}

// pqItem is what one row gives: a Doc (reason "") or a Reject's line,
// reason, detail and raw bytes for its sample. Its bytes are valid during
// the emit call only, unless owned (see own).
type pqItem struct {
	doc            Doc
	line           int64
	reason, detail string
	raw            []byte
}

// own makes the item's bytes its own, to hand it on after the row group's
// pages are gone: a doc's Raw becomes its Text's bytes (or a copy with
// Options.Raw), a reject keeps the start of raw that its sample needs.
func (it *pqItem) own(raw bool) {
	switch {
	case it.reason != "":
		it.raw = bytes.Clone(it.raw[:min(len(it.raw), SampleBytes+utf8.UTFMax)])
	case raw:
		it.doc.Raw = bytes.Clone(it.doc.Raw)
	default:
		it.doc.Raw = unsafe.Slice(unsafe.StringData(it.doc.Text), len(it.doc.Text))
	}
}

// deliver passes an item to the doc or reject callback.
func (r *parquetReader) deliver(it *pqItem) error {
	if it.reason != "" {
		return r.callReject(it.line, it.reason, it.detail, it.raw)
	}
	return r.callDoc(it.doc)
}

// rowGroup reads the n rows of rg, the first of which is row first of the
// file, and emits those that only (if not nil) selects; *at is the row
// being read. Damage is returned as a *stopError.
func (p *parser) rowGroup(rg parquet.RowGroup, cols parquetCols, first, n int64, only func(int64) bool, at *int64, emit func(*pqItem) error) error {
	chunks := rg.ColumnChunks()
	text := newColumnValues(chunks[cols.text])
	defer text.close()
	var id *columnValues
	if cols.id >= 0 {
		id = newColumnValues(chunks[cols.id])
		defer id.close()
	}
	var keep *columnValues
	if cols.keep >= 0 {
		keep = newColumnValues(chunks[cols.keep])
		defer keep.close()
	}
	var it pqItem
	for i := int64(0); i < n; i++ {
		row := first + i
		*at = row
		tv, err := text.next()
		if err != nil {
			return &stopError{row, fmt.Errorf("column %q: %w", p.opt.TextField, err)}
		}
		var iv parquet.Value
		if id != nil {
			if iv, err = id.next(); err != nil {
				return &stopError{row, fmt.Errorf("column %q: %w", p.opt.IDField, err)}
			}
		}
		var kv parquet.Value
		if keep != nil {
			if kv, err = keep.next(); err != nil {
				return &stopError{row, fmt.Errorf("column %q: %w", p.opt.Keep.Name, err)}
			}
		}
		if only != nil && !only(row) {
			continue
		}
		p.parquetRow(&it, row, tv, iv, id != nil, cols.idKind)
		if keep != nil && it.reason == "" && !p.opt.Raw {
			if v, ok := parquetKeep(kv, cols.keepType); ok {
				it.doc.Rank = p.opt.Keep.Of(v)
			}
		}
		if err := emit(&it); err != nil {
			return err
		}
	}
	return nil
}

// parquetRow checks one row and sets it to its Doc or Reject.
func (p *parser) parquetRow(it *pqItem, row int64, tv, iv parquet.Value, hasID bool, idKind parquet.Kind) {
	line := row + 1
	*it = pqItem{line: line}
	bad := func(reason, detail string, raw []byte) { it.reason, it.detail, it.raw = reason, detail, raw }
	if tv.IsNull() {
		bad(ReasonTextNotString, fmt.Sprintf("%q is null, want a string", p.opt.TextField), nil)
		return
	}
	tb := tv.ByteArray()
	if len(tb) > p.opt.MaxDocBytes {
		bad(ReasonTooLarge, fmt.Sprintf("text is %d bytes, over the limit of %d", len(tb), p.opt.MaxDocBytes), tb)
		return
	}
	if p.opt.Raw {
		it.doc = Doc{Raw: tb, Index: row}
		return
	}
	var id string
	switch {
	case !hasID:
		id = LineID(p.file, line)
	case iv.IsNull():
		bad(ReasonMissingID, fmt.Sprintf("%q is null", p.opt.IDField), tb)
		return
	case idKind == parquet.Int32:
		id = strconv.FormatInt(int64(iv.Int32()), 10)
	case idKind == parquet.Int64:
		id = strconv.FormatInt(iv.Int64(), 10)
	default:
		b := iv.ByteArray()
		if len(b) == 0 {
			bad(ReasonMissingID, fmt.Sprintf("%q is empty", p.opt.IDField), tb)
			return
		}
		if !utf8.Valid(b) {
			bad(ReasonInvalidUTF8, fmt.Sprintf("%q: %s", p.opt.IDField, invalidUTF8Detail(b)), b)
			return
		}
		id = string(b)
	}
	switch {
	case !utf8.Valid(tb):
		bad(ReasonInvalidUTF8, fmt.Sprintf("%q: %s", p.opt.TextField, invalidUTF8Detail(tb)), tb)
	case isSpaceOnlyBytes(tb):
		bad(ReasonEmptyText, fmt.Sprintf("%q is empty or white space", p.opt.TextField), tb)
	default:
		it.doc = Doc{ID: id, Text: string(tb), Raw: tb, Index: row}
	}
}

// columnValues reads the values of one column chunk, one at a time, a page
// after the other.
type columnValues struct {
	pages parquet.Pages
	page  parquet.Page
	vals  parquet.ValueReader
	buf   []parquet.Value
	i     int
}

func newColumnValues(c parquet.ColumnChunk) *columnValues {
	return &columnValues{pages: c.Pages(), buf: make([]parquet.Value, 0, 256)}
}

// next returns the next value; a byte array value's bytes are valid until
// the following call. Running out of values is an error: the caller asks
// for one value per row.
func (c *columnValues) next() (parquet.Value, error) {
	for c.i == len(c.buf) {
		if c.vals != nil {
			n, err := c.vals.ReadValues(c.buf[:cap(c.buf)])
			c.buf, c.i = c.buf[:n], 0
			if err == io.EOF || (n == 0 && err == nil) {
				c.vals = nil // n may be > 0: the values are used first
			} else if err != nil {
				return parquet.Value{}, err
			}
			continue
		}
		c.release()
		page, err := c.pages.ReadPage()
		if err == io.EOF {
			return parquet.Value{}, errors.New("fewer values than rows")
		}
		if err != nil {
			return parquet.Value{}, err
		}
		c.page, c.vals = page, page.Values()
	}
	v := c.buf[c.i]
	c.i++
	return v, nil
}

func (c *columnValues) release() {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
}

func (c *columnValues) close() {
	c.release()
	c.pages.Close()
}

// CopyParquet writes to w a Parquet file with the schema, key-value
// metadata and compression codec of the Parquet file of size bytes in ra,
// holding the rows whose 0-based indexes rows lists (in increasing order),
// in input order, one row group per input row group that keeps a row. It
// returns the number of rows written. The bytes written depend only on the
// input and on rows. Row groups without a kept row, and the rows after the
// last kept one, are not decoded, so damage there (where an earlier
// ReadParquet stopped) does not matter; damage elsewhere, in any column, is
// an error: the caller has read the file before and knows which rows are
// good.
func CopyParquet(ra io.ReaderAt, size int64, rows []int64, w io.Writer) (kept int64, err error) {
	return CopyParquetAdding(ra, size, rows, nil, w)
}

// CopyParquetAdding is CopyParquet with the column add appended to the
// schema and to every row (none when add is nil); see ParquetGroup for
// the metadata it leaves out.
func CopyParquetAdding(ra io.ReaderAt, size int64, rows []int64, add *ParquetGroup, w io.Writer) (kept int64, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("parquet decoder failed: %v", v)
		}
	}()
	if err := checkFooter(ra, size); err != nil {
		return 0, err
	}
	f, err := parquet.OpenFile(ra, size, openOptions(ra)...)
	if err != nil {
		return 0, err
	}
	md := f.Metadata()
	schema, adding, err := add.schema(f.Schema())
	if err != nil {
		return 0, err
	}
	opts := []parquet.WriterOption{schema}
	if len(md.RowGroups) > 0 && len(md.RowGroups[0].Columns) > 0 {
		opts = append(opts, parquet.Compression(parquet.LookupCompressionCodec(md.RowGroups[0].Columns[0].MetaData.Codec)))
	}
	for _, kv := range md.KeyValueMetadata {
		if add == nil || !slices.Contains(SchemaMetadataKeys, kv.Key) {
			opts = append(opts, parquet.KeyValueMetadata(kv.Key, kv.Value))
		}
	}
	cfg, err := parquet.NewWriterConfig(opts...)
	if err != nil {
		return 0, err
	}
	pw := parquet.NewWriter(w, cfg)
	buf := make([]parquet.Row, 128)
	sel := make([]parquet.Row, 0, len(buf))
	var first int64
	for g, rg := range f.RowGroups() {
		n := rg.NumRows()
		k := 0 // the kept rows of this row group are rows[:k]
		for k < len(rows) && rows[k] < first+n {
			k++
		}
		if k > 0 {
			if err := copyRows(pw, rg.Rows(), buf, sel, first, rows[:k], adding); err != nil {
				return kept, fmt.Errorf("row group %d: %w", g, err)
			}
			if err := pw.Flush(); err != nil {
				return kept, err
			}
			kept += int64(k)
		}
		rows = rows[k:]
		first += n
	}
	if len(rows) > 0 {
		return kept, fmt.Errorf("row %d is past the file's %d rows", rows[0]+1, first)
	}
	return kept, pw.Close()
}

// copyRows writes to pw the rows of rows (whose first is row first of the
// file) that keep lists (increasing, all in this row group), reading no
// further than the last of them, each with add's values appended (add nil:
// none). buf holds the rows read (ReadRows reuses their storage), sel those
// kept.
func copyRows(pw *parquet.Writer, rows parquet.Rows, buf, sel []parquet.Row, first int64, keep []int64, add *groupValues) error {
	defer rows.Close()
	row := first
	for len(keep) > 0 {
		n, err := rows.ReadRows(buf[:min(int64(len(buf)), keep[len(keep)-1]-row+1)])
		sel = sel[:0]
		for i := range buf[:n] {
			if len(keep) > 0 && keep[0] == row {
				if add != nil {
					var aerr error
					if buf[i], aerr = add.append(buf[i], row); aerr != nil {
						return fmt.Errorf("row %d: %w", row+1, aerr)
					}
				}
				sel = append(sel, buf[i])
				keep = keep[1:]
			}
			row++
		}
		if len(sel) > 0 {
			if _, err := pw.WriteRows(sel); err != nil {
				return err
			}
		}
		if len(keep) > 0 && (err == io.EOF || (err == nil && n == 0)) {
			return fmt.Errorf("row %d: fewer rows than the file says", row+1)
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("row %d: %w", row+1, err)
		}
	}
	return nil
}

// maxInFlight bounds the uncompressed size of the row groups that parallel
// decodes at once (it always decodes at least one).
const maxInFlight = 256 << 20

// groupResult is what the decoding of one row group gave.
type groupResult struct {
	items []pqItem
	err   error // a *stopError for damage
}

// parallel reads the row groups of groups on up to Options.Workers
// goroutines, as many at a time as maxInFlight allows, and hands their rows
// on in file order. Options.Only is called, in row order, on the calling
// goroutine for the rows of each row group before it is decoded.
func (r *parquetReader) parallel(groups []pqGroup, cols parquetCols) error {
	p := r.p
	only := p.only()
	var pending []chan groupResult
	var sizes []int64
	var inFlight int64
	next := 0
	defer func() { // wait for the goroutines of an early return
		for _, ch := range pending {
			<-ch
		}
	}()
	for _, pg := range groups {
		for next < len(groups) && len(pending) < p.opt.Workers {
			ng := groups[next]
			if len(pending) > 0 && inFlight+ng.size > maxInFlight {
				break
			}
			var sel []bool
			if only != nil {
				sel = make([]bool, ng.n)
				for i := range sel {
					sel[i] = only(ng.first + int64(i))
				}
			}
			ch := make(chan groupResult, 1)
			go p.decodeGroup(ng.rg, cols, ng.first, ng.n, sel, ch)
			pending, sizes = append(pending, ch), append(sizes, ng.size)
			inFlight += ng.size
			next++
		}
		res := <-pending[0]
		pending, inFlight, sizes = pending[1:], inFlight-sizes[0], sizes[1:]
		for i := range res.items {
			if err := r.deliver(&res.items[i]); err != nil {
				return err
			}
		}
		if err := r.stop(pg, res.err); err != nil {
			return err
		}
		if r.failedRead(pg, res.err) { // a read error ends the file
			return nil
		}
	}
	return nil
}

// decodeGroup decodes the n rows of rg from row first on, those that sel
// (if not nil) selects, and sends their items to ch.
func (p *parser) decodeGroup(rg parquet.RowGroup, cols parquetCols, first, n int64, sel []bool, ch chan<- groupResult) {
	var res groupResult
	at := first
	defer func() {
		if v := recover(); v != nil {
			res.err = &stopError{at, fmt.Errorf("decoder failed: %v", v)}
		}
		ch <- res
	}()
	var only func(int64) bool
	if sel != nil {
		only = func(row int64) bool { return sel[row-first] }
	}
	res.err = p.rowGroup(rg, cols, first, n, only, &at, func(it *pqItem) error {
		it.own(p.opt.Raw)
		res.items = append(res.items, *it)
		return nil
	})
}

// parquetKeep is the text of the keep column's value v, of type t, that
// Doc.Rank is the Key of: a
// number in decimal (a boolean 1 or 0), a DATE as 2006-01-02, a TIMESTAMP
// in RFC 3339 (UTC), a string or bytes as they are; none for null.
func parquetKeep(v parquet.Value, t parquet.Type) (string, bool) {
	if v.IsNull() {
		return "", false
	}
	var lv format.LogicalTypeValue
	if lt := t.LogicalType(); lt != nil {
		lv = lt.Value
	}
	switch v.Kind() {
	case parquet.Boolean:
		if v.Boolean() {
			return "1", true
		}
		return "0", true
	case parquet.Int32:
		if _, ok := lv.(*format.DateType); ok {
			return time.Unix(int64(v.Int32())*86400, 0).UTC().Format(time.DateOnly), true
		}
		return strconv.FormatInt(int64(v.Int32()), 10), true
	case parquet.Int64:
		if ts, ok := lv.(*format.TimestampType); ok && ts.Unit.Value != nil {
			at := time.Unix(0, v.Int64())
			switch ts.Unit.Value.Duration() {
			case time.Millisecond:
				at = time.UnixMilli(v.Int64())
			case time.Microsecond:
				at = time.UnixMicro(v.Int64())
			}
			return at.UTC().Format(time.RFC3339Nano), true
		}
		return strconv.FormatInt(v.Int64(), 10), true
	case parquet.Float:
		return strconv.FormatFloat(float64(v.Float()), 'g', -1, 32), true
	case parquet.Double:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64), true
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return string(v.ByteArray()), true
	}
	return "", false
}
