package record

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"
)

// readBufSize is the bufio buffer size; lines up to this long are passed on
// without being copied.
const readBufSize = 64 << 10

// utf8BOM is the byte order mark that some tools write at the start of a file.
var utf8BOM = []byte("\xEF\xBB\xBF")

// line is one physical line of a stream.
type line struct {
	raw  []byte // the line without "\n" or "\r\n" (keepCR: "\n"); a prefix only if tooLarge or err != nil
	num  int64  // 1-based line number
	off  int64  // offset of the line's first byte in the stream
	size int64  // full length of the line without its terminator
	term int    // the bytes of the terminator not in raw: 0, 1 ("\n") or 2 ("\r\n")
	// tooLarge is set when the line is longer than the limit; raw then holds
	// only its first bytes, enough for a sample.
	tooLarge bool
	// err is a read error that cut the line (never io.EOF); raw holds what
	// was read of it.
	err error
}

// lineReader splits a stream into lines without ever holding more than
// max+2 bytes of one line in memory.
type lineReader struct {
	br      *bufio.Reader
	max     int    // longest line (without terminator) returned whole
	buf     []byte // accumulates a line that spans several bufio reads
	num     int64  // lines returned so far
	off     int64  // stream offset of the next line
	started bool   // the first fragment has been read (and a BOM skipped)
	done    bool   // the stream ended or failed
	keepCR  bool   // a line's raw keeps the "\r" of a "\r\n" terminator
	// trailer is the ErrTrailingGarbage error that ended the stream after
	// its data, if one did.
	trailer error
}

// newLineReader returns a lineReader on r that returns lines of at most max
// bytes whole. A UTF-8 byte order mark at the start of r is skipped: it counts
// in the offsets but belongs to no line.
func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, readBufSize), max: max}
}

// next returns the next line, or ok == false at the end of the stream. After
// a line with err set, next reports the end of the stream. The line's raw
// bytes are valid until the following call.
func (lr *lineReader) next() (ln line, ok bool) {
	if lr.done {
		return line{}, false
	}
	ln = line{num: lr.num + 1, off: lr.off}
	lr.buf = lr.buf[:0]
	var (
		n     int64   // bytes consumed, terminator included
		whole []byte  // the line with its "\n", when one fragment held it all
		last  [2]byte // the last two bytes consumed
		ended bool    // the line ended with "\n"
	)
	for {
		frag, err := lr.br.ReadSlice('\n')
		if !lr.started {
			// The first fragment holds the whole BOM if there is one: a
			// fragment is cut short only by a full buffer, "\n" or the end.
			lr.started = true
			if bytes.HasPrefix(frag, utf8BOM) {
				frag = frag[len(utf8BOM):]
				lr.off += int64(len(utf8BOM))
				ln.off = lr.off
			}
		}
		n += int64(len(frag))
		last = lastTwo(last, frag)
		switch {
		case ln.tooLarge:
			// Discard the rest; the sample is already saved.
		case len(lr.buf)+len(frag) > lr.max+2: // +2: room for "\r\n"
			ln.tooLarge = true
			lr.buf = appendHead(lr.buf, frag, SampleBytes+utf8.UTFMax)
		case err == nil && len(lr.buf) == 0:
			whole = frag
		default:
			lr.buf = append(lr.buf, frag...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == nil {
			ended = true
			break
		}
		lr.done = true
		if err != io.EOF && errors.Is(err, ErrTrailingGarbage) {
			lr.trailer, err = err, io.EOF
		}
		if err == io.EOF {
			if n == 0 {
				return line{}, false
			}
		} else {
			ln.err = err
		}
		break
	}
	lr.num++
	lr.off += n
	ln.raw = lr.buf
	if whole != nil {
		ln.raw = whole
	}
	eol := lineEnd(ended, n, last)
	ln.size = n - int64(eol)
	if lr.keepCR && eol == 2 {
		eol = 1
	}
	ln.term = eol
	if !ln.tooLarge {
		ln.raw = ln.raw[:len(ln.raw)-eol]
		ln.tooLarge = ln.size > int64(lr.max)
	}
	return ln, true
}

// lineEnd is the length of the terminator of a line of n bytes that
// ended with "\n" (ended) or not, whose last two bytes are last: 0, 1
// ("\n") or 2 ("\r\n").
func lineEnd(ended bool, n int64, last [2]byte) int {
	switch {
	case !ended:
		return 0
	case n >= 2 && last[0] == '\r':
		return 2
	}
	return 1
}

// lastTwo returns the last two bytes of the stream after frag, given the
// last two bytes before it.
func lastTwo(prev [2]byte, frag []byte) [2]byte {
	switch n := len(frag); n {
	case 0:
		return prev
	case 1:
		return [2]byte{prev[1], frag[0]}
	default:
		return [2]byte{frag[n-2], frag[n-1]}
	}
}

// appendHead appends to dst the start of frag, so that dst holds at most
// limit bytes.
func appendHead(dst, frag []byte, limit int) []byte {
	if len(dst) >= limit {
		return dst[:limit]
	}
	if room := limit - len(dst); len(frag) > room {
		frag = frag[:room]
	}
	return append(dst, frag...)
}

// readLines parses a JSONL or TSV stream line by line.
func (p *parser) readLines(r io.Reader) error {
	if p.opt.Format == JSONL {
		p.json = newJSONFields(p.opt.IDField, p.opt.TextField, p.opt.Keep.Name)
		switch p.opt.IDs {
		case IDFromLine:
			p.setLineIDs()
		case IDAuto:
			p.idsDecided = p.opt.Raw // a raw copy has no IDs
		default:
			p.idsDecided = true
		}
	}
	lr := newLineReader(r, p.opt.MaxDocBytes)
	lr.keepCR = p.opt.Raw // the line as read, for a copy that adds the "\n"
	end := int64(math.MaxInt64)
	if rg := p.opt.Lines; rg != nil { // r starts at line First (see LineRange)
		lr.num, lr.off, lr.started, end = rg.First, rg.Offset, rg.First > 0, rg.End
	}
	for lr.num < end {
		ln, ok := lr.next()
		if !ok {
			return p.trailer(lr.trailer, lr.off)
		}
		docs := p.docs
		if err := p.line(ln); err != nil {
			return err
		}
		if err := p.copyLine(ln, p.docs > docs); err != nil {
			return err
		}
	}
	return nil
}

// copyLine writes ln to Options.Copy, if set: the line and its terminator
// if it was reported (doc), else its terminator alone, as "\n".
func (p *parser) copyLine(ln line, doc bool) error {
	w := p.opt.Copy
	if w == nil || ln.err != nil {
		return nil
	}
	var err error
	switch {
	case doc:
		if _, err = w.Write(ln.raw); err == nil && ln.term > 0 {
			_, err = io.WriteString(w, "\r\n"[2-ln.term:])
		}
	case ln.term > 0:
		_, err = io.WriteString(w, "\n")
	}
	if err != nil {
		return fmt.Errorf("record: %s: copy: %w", p.where(ln.num), err)
	}
	return nil
}

// trailer reports err, if it is not nil, as the ReasonTrailingGarbage
// reject of the file, at Line 0 and the offset off where the data ended.
func (p *parser) trailer(err error, off int64) error {
	if err == nil {
		return nil
	}
	return p.emitReject(0, off, ReasonTrailingGarbage,
		fmt.Sprintf("%v; the %d bytes of data before them are all read", err, off), nil)
}

// line handles one physical line: it reports a read error, skips a line
// that Options.Only leaves out, reports an oversized line, skips a blank
// one, or parses it as a record (or passes it on whole with Options.Raw).
func (p *parser) line(ln line) error {
	if ln.err != nil {
		return p.emitReject(ln.num, ln.off, readErrorReason(ln.err),
			fmt.Sprintf("reading stopped after %d bytes of this line, rest of file lost: %v", len(ln.raw), ln.err), ln.raw)
	}
	if !p.idsDecided && !ln.tooLarge && !isBlank(ln.raw) {
		p.decideIDs(ln.raw)
	}
	if p.opt.Only != nil && !p.opt.Only(ln.num-1) {
		return nil
	}
	switch {
	case ln.tooLarge:
		return p.emitReject(ln.num, ln.off, ReasonTooLarge,
			fmt.Sprintf("line is %d bytes, over the limit of %d", ln.size, p.opt.MaxDocBytes), ln.raw)
	case isBlank(ln.raw):
		return nil
	case p.opt.Raw:
		return p.emitDoc(Doc{Raw: ln.raw, Index: ln.num - 1, Offset: ln.off}, ln.num)
	}
	var d Doc
	var reason, detail string
	if p.opt.Format == JSONL {
		d, reason, detail = p.parseJSONL(ln.raw, ln.num)
	} else {
		d, reason, detail = parseTSV(ln.raw, p.opt.Keep)
	}
	if reason != "" {
		return p.emitReject(ln.num, ln.off, reason, detail, ln.raw)
	}
	d.Raw, d.Index, d.Offset = ln.raw, ln.num-1, ln.off
	return p.emitDoc(d, ln.num)
}

// decideIDs settles IDAuto on the line raw if it is the file's first
// parsable record (a JSON object): line IDs if it has no ID field.
func (p *parser) decideIDs(raw []byte) {
	id, _, ok := p.json.scan(raw)
	if !ok || raw[skipWS(raw, 0)] != '{' {
		return
	}
	p.idsDecided = true
	if id == nil {
		p.setLineIDs()
	}
}

// setLineIDs settles on line IDs.
func (p *parser) setLineIDs() {
	p.lineIDs, p.idsDecided = true, true
	if p.opt.OnLineIDs != nil {
		p.opt.OnLineIDs()
	}
}
