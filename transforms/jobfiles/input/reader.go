package input

import (
	"context"
	"errors"
	"io/fs"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/internal/docpool"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/jobfiles/spool"
)

// Reader returns the reader of input file index file at path: from the
// spool if it holds the file, else from path itself, checked against the
// first pass's reading of it in w.Dir (see Read). Records and rejects
// are named by path either way. A spool copy's records are identified as
// the first pass identified the file's (IDs decided by a line that the
// copy holds as a blank one). A pass that reads the spool copy checks the
// input's size and modification time against the first pass's, before
// and after it reads (Seen.checkUnchanged): an input that changed
// fails the pass with or without the spool.
func Reader(ctx context.Context, w jobfiles.WorkDir, file int, path string, opt record.Options) docpool.FileReader {
	return func(doc func(record.Doc) error, reject func(record.Reject) error) error {
		seen, err := ReadSeen(ctx, w.Dir, file)
		if err != nil {
			return err
		}
		rd := FileRead{Open: spool.Source(w, file, path), Name: w.NameOf(path), Opt: opt, plain: true}
		if rd.Open != path {
			if seen != nil && rd.Opt.IDs == record.IDAuto {
				rd.Opt.IDs = record.IDFromField
				if seen.lineIDs {
					rd.Opt.IDs = record.IDFromLine
				}
			}
			if err := seen.checkUnchanged(ctx, path); err != nil {
				return err
			}
			read := false // a record or reject came
			_, err = Read(ctx, rd, func(d record.Doc) error {
				read = true
				return doc(d)
			}, func(r record.Reject) error {
				read = true
				return reject(r)
			})
			if err == nil {
				err = seen.checkUnchanged(ctx, path)
			}
			if read || !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			// The copy was dropped since spooled found it.
		}
		rd = FileRead{Open: path, Name: w.NameOf(path), Opt: opt, seen: seen}
		_, err = Read(ctx, rd, doc, reject)
		return err
	}
}
