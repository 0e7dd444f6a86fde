package containjoin

import (
	"io"
	"slices"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/sketch/signature"
	"github.com/neardup/neardup/transforms/text/normalize"
)

// ReadDocs reads the records of r (the file name, in opt's format) into
// documents whose sets are the shingle sets signer gives their text
// normalized in form, as the run shingles them. A record left out is
// passed to reject, whose error stops the read.
func ReadDocs(r io.Reader, name string, opt record.Options, form normalize.Form, signer *signature.Signer, reject func(record.Reject) error) ([]Doc, error) {
	var docs []Doc
	err := record.Read(r, name, opt, func(d record.Doc) error {
		docs = append(docs, Doc{ID: d.ID, Set: slices.Clone(signer.ShingleSet(form.Text(d.Text)))})
		return nil
	}, reject)
	return docs, err
}
