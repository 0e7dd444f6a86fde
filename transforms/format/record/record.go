// Package record parses document shards into documents and sets bad records
// aside with a reason, never losing one.
//
// A shard is read from an io.Reader (already decompressed; see Decompress) in
// one of three formats:
//
//   - JSONL: one JSON object per line; the document ID and text come from two
//     configurable fields (default "id" and "text").
//   - TSV: url<TAB>title<TAB>content per line; ID = url, Text = title + "\n" + content.
//   - Text: the whole stream is one document whose ID is the file name.
//
// Read reports every record exactly once, in input order, either as a Doc or
// as a Reject. For the line formats, every physical line of the stream is one
// of: a Doc, a Reject, or a blank line (empty or only spaces, tabs and
// carriage returns), which is not a record and is skipped silently. Blank
// lines still count in Doc.Index and Reject.Line, so both are stable line
// positions. A read error in the middle of the stream (for example a damaged
// gzip member) ends the file with one Reject that stands for the partial line
// it cut and everything after it. Bytes after the last gzip member or zstd
// frame that are not zero padding are one Reject of the file, after its
// records, that is no record (ReasonTrailingGarbage).
//
// Later passes over a file that need only some of its records, or only their
// bytes, can say so with Options.Only (report only the selected lines,
// skipping the others before any parsing) and Options.Raw (report each line
// as raw bytes, without parsing or validating it). A large stream can be
// read in ranges, by several readers at once: Options.Rows (Parquet) and
// Options.Lines (JSONL and TSV, cut by SplitLines).
//
// The package does not import Beam; the pipeline's DoFns open files through
// Beam's filesystem package and hand the reader to Decompress and Read.
package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/neardup/neardup/transforms/choice"
	"github.com/neardup/neardup/transforms/format/rank"
)

// Format is the format of an input shard.
type Format int

// The shard formats.
const (
	JSONL   Format = iota // one JSON object per line
	TSV                   // url<TAB>title<TAB>content per line
	Text                  // the whole stream is one document
	Parquet               // one document per row of a Parquet file (see ReadParquet)
)

// formatNames are the names of the formats.
var formatNames = choice.Names[Format]{
	{Value: JSONL, Name: "jsonl"},
	{Value: TSV, Name: "tsv"},
	{Value: Text, Name: "text"},
	{Value: Parquet, Name: "parquet"},
}

// String returns the name of f.
func (f Format) String() string {
	if name, ok := formatNames.Name(f); ok {
		return name
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// MarshalText returns the name of f.
func (f Format) MarshalText() ([]byte, error) { return formatNames.Marshal("format", f) }

// UnmarshalText sets f to the format named text: jsonl, tsv, text or
// parquet, in any case.
func (f *Format) UnmarshalText(text []byte) (err error) {
	*f, err = formatNames.Parse(string(text))
	return err
}

// ParseFormat returns the format named s (Format.UnmarshalText); its error
// quotes s.
func ParseFormat(s string) (Format, error) {
	f, err := formatNames.Parse(s)
	if err != nil {
		return 0, fmt.Errorf("format %q: %w", s, err)
	}
	return f, nil
}

// DefaultMaxDocBytes is the record size limit used when Options.MaxDocBytes
// is zero or negative.
const DefaultMaxDocBytes = 10 << 20

// Default JSONL field names.
const (
	DefaultIDField   = "id"
	DefaultTextField = "text"
)

// Options says how to parse a shard. The zero value reads JSONL with the
// default field names and size limit, every record fully parsed.
type Options struct {
	Format Format
	// IDField and TextField name the JSONL fields of the ID and the text:
	// a top-level key, or a dotted path through nested objects
	// ("meta.url"; a top-level key that is the whole name, dots and all,
	// wins). Defaults "id" and "text".
	IDField   string
	TextField string
	// Keep, if its Name is not "", is the field whose value ranks each Doc
	// (Doc.Rank; --keep field:NAME), named as IDField is: for TSV, url or
	// title.
	Keep rank.Field
	// IDs says where JSONL records get their ID: IDFromField (the zero
	// value), IDAuto or IDFromLine.
	IDs IDSource
	// OnLineIDs, if not nil, is called once, before the first record is
	// reported, when the file's JSONL records are identified as FILE:LINE
	// (IDFromLine, or IDAuto deciding so).
	OnLineIDs func()
	// MaxDocBytes is the largest record accepted: a JSONL/TSV line (without
	// its terminator) or a whole Text file. Longer records are rejected with
	// ReasonTooLarge without being held in memory whole. Default
	// DefaultMaxDocBytes.
	MaxDocBytes int
	// Only, when non-nil, selects the records to report by their 0-based
	// line index (Doc.Index, which is Reject.Line-1). A line for which Only
	// returns false is skipped before any parsing or validation: no doc and
	// no reject is reported for it, not even for a line over MaxDocBytes,
	// but it still counts in the indexes, line numbers and offsets of the
	// lines after it. Blank lines are skipped as always.
	//
	// Only is called at most once per line, in increasing index order, from
	// the goroutine that called Read. It is not called for a line cut by a
	// read error: the final ReasonCorruptGzip or ReasonReadError Reject is
	// always reported, because it also stands for every line after the cut,
	// selected or not.
	//
	// For the Text format, Only(0) is called first; if it returns false,
	// Read reports nothing and does not read r at all.
	Only func(index int64) bool
	// Raw skips parsing and validation: every selected line (see Only) that
	// is not blank and not over MaxDocBytes is reported as a Doc with only
	// Raw, Index and Offset set; ID and Text are empty, and nothing is
	// checked about the content (bad JSON, missing fields, too few columns
	// or invalid UTF-8 all pass). Lines over MaxDocBytes are still rejected
	// with ReasonTooLarge (their bytes are never held whole), and a read
	// error or damaged gzip data still ends the file with its final Reject,
	// so the caller can tell where the stream stopped.
	//
	// Raw is meant for copying records byte for byte once an earlier full
	// read has said which lines are good: Doc.Raw keeps the "\r" of a line
	// that ends in "\r\n", so the copy of a line is Raw and "\n". For the Text format, the whole
	// content is reported as Raw (ID and Text empty), still subject to the
	// ReasonTooLarge, ReasonInvalidUTF8 and ReasonEmptyText rejects.
	Raw bool
	// Workers is the number of row groups of a Parquet file decoded at once
	// (see ReadParquet); 0 or 1: one after the other. With more, Only is
	// called for the rows of each row group before it is decoded, so also
	// for rows after damage that ends the file.
	Workers int
	// Rows, if not nil, limits a Parquet read (see ReadParquet) to the rows
	// [Rows.First, Rows.End) of the file, so that several reads of one
	// file, each given a range, together read it as one read does: rows
	// outside the range are neither docs nor rejects (Only is not called
	// for them), row groups entirely outside it are not decoded, and a
	// whole-file Reject (Line 0) comes only from a range that starts at row
	// 0. The line formats ignore it.
	Rows *RowRange
	// Lines, if not nil, limits a JSONL or TSV read to a range of its
	// lines, which r then starts at (see LineRange), so that several
	// reads of one stream, each given a range, together read it as one
	// read does. A Text read with it fails; Parquet ignores it.
	Lines *LineRange
	// Copy, if not nil, gets the bytes of the stream that can reach a
	// copy of its records: of a JSONL or TSV stream, each line reported
	// as a Doc with its own terminator ("\n" or "\r\n"; none for a last
	// line without one), and of every other line (rejected, blank, left
	// out by Only) its terminator alone, as "\n", so that the copy has the
	// same lines, numbered alike, and its reported lines byte for byte;
	// of a Text stream, its content if it is reported. A write error
	// ends the read with it. Parquet ignores it.
	Copy io.Writer
}

// IDSource says where a JSONL record's ID comes from.
type IDSource int8

// The ID sources. A line ID is the file name (as given to Read), a colon
// and the 1-based line number (Reject.Line of the same line), as in
// "data/part-1.jsonl:17".
const (
	// IDFromField: the IDField field; a record without it is rejected
	// (ReasonMissingID).
	IDFromField IDSource = iota
	// IDAuto: the IDField field, unless the file's first parsable record
	// (the first line, blank and too large ones aside, that is a JSON
	// object) has no such field: then every record of the file gets its
	// line ID and the field is not read. The decision takes that line
	// whatever Options.Only selects, so every pass over the same bytes
	// makes it alike.
	IDAuto
	// IDFromLine: every record gets its line ID.
	IDFromLine
)

// LineID is the ID of the record at 1-based line in file, for IDFromLine.
func LineID(file string, line int64) string { return file + ":" + strconv.FormatInt(line, 10) }

// withDefaults returns opt with its zero fields filled in.
func (opt Options) withDefaults() Options {
	if opt.IDField == "" {
		opt.IDField = DefaultIDField
	}
	if opt.TextField == "" {
		opt.TextField = DefaultTextField
	}
	if opt.MaxDocBytes <= 0 {
		opt.MaxDocBytes = DefaultMaxDocBytes
	}
	return opt
}

// Doc is one parsed record.
//
// With Options.Raw, ID and Text are empty and only Raw, Index and Offset are
// set.
type Doc struct {
	ID   string
	Text string
	// Raw is the record exactly as read: the JSONL/TSV line without its
	// "\n" or "\r\n" terminator, or the whole Text file. With
	// Options.Raw, it is the line without its "\n" only (the "\r" of a
	// "\r\n" stays), so that Raw and "\n" are the line's bytes as read. It
	// is valid only during the callback; callers copy it if they keep it.
	Raw []byte
	// Index is the 0-based ordinal of the record's physical line within the
	// file. Every line counts, including rejected and blank ones, so Index is
	// Line-1 of the same line. Always 0 for Text.
	Index int64
	// Offset is the byte offset of the record's first byte in the
	// (decompressed) stream.
	Offset int64
	// Rank is the Key of the value of Options.Keep (rank.Field.Of), the
	// zero Key when the record has none or it does not parse. The value
	// is taken as text: a JSON string unquoted, a number as written, true
	// and false as 1 and 0 (null, an object or an array: none); a TSV
	// column; a Parquet value, a number in decimal, a boolean as 1 or 0, a
	// DATE as 2006-01-02, a TIMESTAMP in RFC 3339.
	Rank rank.Key
}

// Len is the document's length, the one `--keep longest` compares: the
// bytes of its text as decoded (Text: a JSON string unescaped, a TSV
// title + "\n" + content, a Text file whole, a Parquet text value), before
// normalization. The same text has the same length in every format; the
// record syntax around it (a JSONL line's other fields and escapes, a TSV
// url) does not count. With Options.Raw, Text is empty and Len 0.
func (d Doc) Len() int { return len(d.Text) }

// Reject is a record that could not be used.
type Reject struct {
	File   string
	Line   int64  // 1-based line number; 0 for whole-file problems (Text format)
	Offset int64  // byte offset of the record's first byte in the (decompressed) stream
	Reason string // one of the Reason* codes
	Detail string // human-readable detail that says what failed and where (file:line)
	// Sample is at most the first SampleBytes bytes of the raw record, as
	// valid UTF-8 (invalid bytes replaced by U+FFFD) cut on a rune boundary.
	Sample string
}

// Reason codes of a Reject.
const (
	ReasonBadJSON       = "bad_json"        // not valid JSON, or not a JSON object
	ReasonMissingID     = "missing_id"      // no ID field, or an empty ID
	ReasonMissingText   = "missing_text"    // no text field
	ReasonIDNotString   = "id_not_string"   // ID is an object, array, bool, null or an out-of-range number
	ReasonTextNotString = "text_not_string" // text is not a JSON string
	ReasonInvalidUTF8   = "invalid_utf8"    // the raw record is not valid UTF-8
	ReasonTooLarge      = "too_large"       // the record is longer than MaxDocBytes
	ReasonEmptyText     = "empty_text"      // the text is empty or only white space
	ReasonTooFewColumns = "too_few_columns" // a TSV line with fewer than 3 columns
	ReasonCorruptGzip   = "corrupt_gzip"    // the gzip stream is damaged; covers the rest of the file
	ReasonCorruptZstd   = "corrupt_zstd"    // the zstd stream is damaged; covers the rest of the file
	ReasonReadError     = "read_error"      // reading the stream failed; covers the rest of the file
	// ReasonTrailingGarbage: bytes that are neither compressed data nor
	// zero padding follow the last gzip member or zstd frame (Line 0,
	// reported after the file's records; no record: see IsRecord).
	ReasonTrailingGarbage = "trailing_garbage"
	ReasonNotAFile        = "not_a_file" // the path is a directory (Line 0: the whole file)
	ReasonUnreadable      = "unreadable" // opening the file is not permitted (Line 0)
)

// SampleBytes is the largest length of Reject.Sample.
const SampleBytes = 200

// Read parses one shard from r, which must already be decompressed (see
// Decompress). file names the shard in rejects and error messages, and is
// the document ID for the Text format.
//
// Read calls doc for every good record and reject for every bad one, in input
// order (only for the lines that Options.Only selects, and without parsing
// with Options.Raw). A read error in the middle of the stream becomes one final Reject
// (ReasonCorruptGzip or ReasonCorruptZstd when the error wraps
// ErrCorruptGzip or ErrCorruptZstd, else ReasonReadError) with the line number the error cut; the records read
// before it stay good, and Read returns nil. An ErrTrailingGarbage error
// after the last record is one final Reject with ReasonTrailingGarbage and
// Line 0, which is no record (see IsRecord). Read returns an error only when
// a callback returns one (the error wraps it, with the position), or for a
// nil reader or callback or an unknown format; the caller should treat it as
// fatal.
func Read(r io.Reader, file string, opt Options, doc func(Doc) error, reject func(Reject) error) error {
	if r == nil || doc == nil || reject == nil {
		return fmt.Errorf("record: %s: Read needs a reader and both callbacks", file)
	}
	opt = opt.withDefaults()
	p := &parser{file: file, opt: opt, doc: doc, reject: reject}
	switch opt.Format {
	case JSONL, TSV:
		return p.readLines(r)
	case Text:
		return p.readText(r)
	case Parquet:
		return p.readParquet(r)
	}
	return fmt.Errorf("record: %s: unknown format %v", file, opt.Format)
}

// parser carries the state shared by the format readers of one shard.
type parser struct {
	file   string
	opt    Options
	doc    func(Doc) error
	reject func(Reject) error
	json   jsonFields // JSONL field names, pre-converted
	// lineIDs: the records get line IDs; idsDecided: that is settled.
	lineIDs, idsDecided bool
	docs                int64 // docs reported so far
}

// emitDoc passes d to the doc callback, wrapping its error with the position.
func (p *parser) emitDoc(d Doc, line int64) error {
	p.docs++
	if err := p.doc(d); err != nil {
		return fmt.Errorf("record: %s: doc callback: %w", p.where(line), err)
	}
	return nil
}

// emitReject builds a Reject for the record raw at (line, off) and passes it
// to the reject callback, wrapping its error with the position. The detail is
// prefixed with file:line.
func (p *parser) emitReject(line, off int64, reason, detail string, raw []byte) error {
	rj := Reject{
		File:   p.file,
		Line:   line,
		Offset: off,
		Reason: reason,
		Detail: p.where(line) + ": " + detail,
		Sample: Sample(raw),
	}
	if err := p.reject(rj); err != nil {
		return fmt.Errorf("record: %s: reject callback: %w", p.where(line), err)
	}
	return nil
}

// where formats a position as file:line, or just file for line 0.
func (p *parser) where(line int64) string {
	if line == 0 {
		return p.file
	}
	return fmt.Sprintf("%s:%d", p.file, line)
}

// readErrorReason maps a read error to ReasonCorruptGzip, ReasonCorruptZstd
// or ReasonReadError.
func readErrorReason(err error) string {
	switch {
	case errors.Is(err, ErrCorruptGzip):
		return ReasonCorruptGzip
	case errors.Is(err, ErrCorruptZstd):
		return ReasonCorruptZstd
	}
	return ReasonReadError
}

// EndsFile reports whether a reject of reason stands for the rest of its
// file (a read error or damaged compressed data cut the stream there).
func EndsFile(reason string) bool {
	return reason == ReasonCorruptGzip || reason == ReasonCorruptZstd || reason == ReasonReadError
}

// IsRecord reports whether a reject of reason stands for a record, to be
// counted with the file's records: all do but ReasonTrailingGarbage, which
// is about the file's bytes after its last record.
func IsRecord(reason string) bool {
	return reason != ReasonTrailingGarbage
}

// Sample returns the first SampleBytes bytes (at most) of raw as valid UTF-8:
// invalid bytes are replaced by U+FFFD and the cut falls on a rune boundary.
func Sample(raw []byte) string {
	// A rune that starts within the first SampleBytes bytes ends within
	// utf8.UTFMax more; replacement only makes the text longer, so nothing
	// past this prefix can reach the output.
	if len(raw) > SampleBytes+utf8.UTFMax {
		raw = raw[:SampleBytes+utf8.UTFMax]
	}
	s := strings.ToValidUTF8(string(raw), "\uFFFD")
	if len(s) <= SampleBytes {
		return s
	}
	i := SampleBytes
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// isBlank reports whether b holds only spaces, tabs and carriage returns.
func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// isSpaceOnly reports whether s is empty or only Unicode white space.
func isSpaceOnly(s string) bool {
	return strings.TrimSpace(s) == ""
}

// isSpaceOnlyBytes is isSpaceOnly for a byte slice, without copying it.
func isSpaceOnlyBytes(b []byte) bool {
	return len(bytes.TrimSpace(b)) == 0
}
