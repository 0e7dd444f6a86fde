package record

import (
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// readText reads the whole stream r as one document with ID = file, reading
// at most MaxDocBytes+1 bytes. Rejects have Line 0. With Options.Only, it
// reads nothing unless Only(0) is true; with Options.Raw, the Doc has only
// Raw set.
func (p *parser) readText(r io.Reader) error {
	if p.opt.Lines != nil {
		return fmt.Errorf("record: %s: a range of lines of a text file, which is one record", p.file)
	}
	if p.opt.Only != nil && !p.opt.Only(0) {
		return nil
	}
	limit := int64(p.opt.MaxDocBytes)
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	var trailer error
	if err != nil && errors.Is(err, ErrTrailingGarbage) {
		trailer, err = err, nil
	}
	if err := p.textDoc(data, err, limit); err != nil {
		return err
	}
	return p.trailer(trailer, int64(len(data)))
}

// textDoc reports the document data, or its reject: read error err, too
// large, not UTF-8 or blank.
func (p *parser) textDoc(data []byte, err error, limit int64) error {
	switch {
	case err != nil:
		return p.emitReject(0, 0, readErrorReason(err),
			fmt.Sprintf("reading stopped after %d bytes, document lost: %v", len(data), err), data)
	case int64(len(data)) > limit:
		return p.emitReject(0, 0, ReasonTooLarge,
			fmt.Sprintf("file is over the limit of %d bytes", limit), data)
	case !utf8.Valid(data):
		return p.emitReject(0, 0, ReasonInvalidUTF8, invalidUTF8Detail(data), data)
	case isSpaceOnlyBytes(data):
		return p.emitReject(0, 0, ReasonEmptyText, "file is empty or white space", data)
	}
	if p.opt.Copy != nil {
		if _, err := p.opt.Copy.Write(data); err != nil {
			return fmt.Errorf("record: %s: copy: %w", p.file, err)
		}
	}
	if p.opt.Raw {
		return p.emitDoc(Doc{Raw: data}, 0)
	}
	return p.emitDoc(Doc{ID: p.file, Text: string(data), Raw: data}, 0)
}
