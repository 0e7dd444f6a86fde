package ingest

import (
	"strings"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/wire"
)

// A local line file (JSONL or TSV, not compressed) of more than
// splitter.UnitRows lines is read in units too, as a Parquet file is (see
// units.go): the splitter reads the file once, counting lines with a scan
// for "\n" (record.SplitLines), and cuts it every unitRows lines, whole
// segments, recording the byte offset at which each unit's first line
// starts; each unit seeks there and reads its lines (record.Options.Lines),
// numbered from its first, and unit 0 reads on to the end of the file for
// the fingerprint's checksum. The splitter also settles where the records
// get their ids (record.IDAuto takes the file's first parsable record,
// which a later unit does not read: LineSplit.IDs), so the units together
// give what one read gives, byte for byte. A compressed file (by name or
// by its first bytes, as record.NewReader finds it) is one unit: a
// compressed stream cannot be entered in the middle. So is a file of at
// most unitRows bytes (it has no more lines), which is not even scanned,
// and one whose scan fails: its reading says why.

// splitLineFile returns the units of the line file of whole: one unit for
// a remote file (Beam's filesystems read a stream, not ranges) or a local
// one that openRegular refuses, whose reading says what is wrong.
func (c splitter) splitLineFile(whole readUnit) []readUnit {
	one := []readUnit{whole}
	if strings.Contains(whole.Path, "://") {
		return one
	}
	fh, fi, err := openRegular(whole.Path)
	if err != nil {
		return one
	}
	defer fh.Close()
	per := c.UnitRows
	if fi.Size() <= per || record.ByName(whole.Path) != record.Unknown {
		return one
	}
	var head [4]byte
	n, _ := fh.ReadAt(head[:], 0)
	if record.Sniff(head[:n]) != record.None {
		return one
	}
	split, err := record.SplitLines(fh, c.Read.Options(), per)
	if err != nil || len(split.Ranges) < 2 || split.Bytes != fi.Size() {
		return one
	}
	ids := split.IDs
	units := make([]readUnit, len(split.Ranges))
	for k, rg := range split.Ranges {
		units[k] = readUnit{File: whole.File, Path: whole.Path, U: k, Of: len(units), First: rg.First, End: rg.End,
			Size: fi.Size(), ModTime: fi.ModTime(), Offset: rg.Offset, IDs: &ids}
	}
	units[len(units)-1].End = wire.MaxLines // the rest, however many lines the file has when read
	return units
}
