package input

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/neardup/neardup/transforms/format/fingerprint"
	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/internal/workfiles"
	"github.com/neardup/neardup/transforms/jobfiles"
	"github.com/neardup/neardup/transforms/objects"
)

// The first pass's reading of each input file (a summary.InputFile) is
// written to the work directory (jobfiles.SeenName), where the later passes
// that read the input itself find it and check the file against it (see
// Read).

// Seen is what the first pass read of an input file.
type Seen struct {
	unread bool // it rejected the whole file without reading it
	fp     fingerprint.Fingerprint
	Comp   record.Compression // the compression it found
	// lineIDs: it identified the file's records as FILE:LINE.
	lineIDs bool
}

// WriteSeen writes in (JSON, b) to dir as the first pass's reading of its
// file.
func WriteSeen(ctx context.Context, dir string, file int, b []byte) error {
	err := workfiles.Write(ctx, dir, jobfiles.SeenName(file), workfiles.KindSeen, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}, false)
	if err != nil {
		return fmt.Errorf("work directory %s: %w", dir, err)
	}
	return nil
}

// ReadSeen returns the first pass's reading of input file index file from
// dir, or nil if there is none (no work directory, or a pass run without
// the first, as in a test of one stage).
func ReadSeen(ctx context.Context, dir string, file int) (*Seen, error) {
	if dir == "" {
		return nil, nil
	}
	path := objects.JoinPath(dir, jobfiles.SeenName(file))
	rc, err := workfiles.Open(ctx, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the first pass's reading of input file %d: %w", file, err)
	}
	defer rc.Close()
	var in summary.InputFile
	if err := json.NewDecoder(rc).Decode(&in); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if in.Fingerprint == "" {
		return &Seen{unread: true}, nil
	}
	fp, err := fingerprint.Parse(in.Fingerprint)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	comp := record.None
	if in.Compression != "" {
		if comp, err = record.ParseCompression(in.Compression); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return &Seen{fp: fp, Comp: comp, lineIDs: in.IDs == summary.LineIDs}, nil
}
