package record

import (
	"bytes"
	"unicode/utf8"

	"github.com/neardup/neardup/transforms/format/rank"
)

// TSVKeepFields are the fields of a TSV record a keep order can name
// (Options.Keep): its first two columns.
var TSVKeepFields = []string{"url", "title"}

// parseTSV parses one non-blank url<TAB>title<TAB>content line into a Doc
// with ID = url and Text = title + "\n" + content, or returns a reason code
// and a detail (without position) for a reject. Tabs after the second one
// belong to the content. With keep url or title, the Doc's Rank is that
// column's.
func parseTSV(raw []byte, keep rank.Field) (d Doc, reason, detail string) {
	if !utf8.Valid(raw) {
		return d, ReasonInvalidUTF8, invalidUTF8Detail(raw)
	}
	i := bytes.IndexByte(raw, '\t')
	if i < 0 {
		return d, ReasonTooFewColumns, "1 column, want url<TAB>title<TAB>content"
	}
	j := bytes.IndexByte(raw[i+1:], '\t')
	if j < 0 {
		return d, ReasonTooFewColumns, "2 columns, want url<TAB>title<TAB>content"
	}
	url, title, content := raw[:i], raw[i+1:i+1+j], raw[i+2+j:]
	if isSpaceOnlyBytes(url) {
		return d, ReasonMissingID, "url (column 1) is empty"
	}
	d.ID = string(url)
	d.Text = string(title) + "\n" + string(content)
	if isSpaceOnly(d.Text) {
		return Doc{}, ReasonEmptyText, "title and content (columns 2 and 3) are empty or white space"
	}
	switch keep.Name {
	case "url":
		d.Rank = keep.Of(d.ID)
	case "title":
		d.Rank = keep.Of(string(title))
	}
	return d, "", ""
}
