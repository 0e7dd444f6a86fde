// Package quietlog is the log handler of the command's Beam log when it is
// not verbose: records of level Error and above are dropped (they repeat a
// failed bundle's plan, and the command prints the error itself, on one
// line), and so is the GCS filesystem's warning that it found no
// credentials (NoGCSCredentials): without them it reads public buckets,
// and any other access fails with an error the command prints.
package quietlog

import (
	"context"
	"log/slog"
	"strings"
)

// NoGCSCredentials starts the warning of Beam's GCS filesystem when it
// falls back to unauthenticated access.
const NoGCSCredentials = "Warning: falling back to unauthenticated GCS access"

// Handler passes on the records of its Handler but those above.
type Handler struct{ slog.Handler }

func (d Handler) Enabled(ctx context.Context, l slog.Level) bool {
	return l < slog.LevelError && d.Handler.Enabled(ctx, l)
}

func (d Handler) Handle(ctx context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, NoGCSCredentials) {
		return nil
	}
	return d.Handler.Handle(ctx, r)
}

func (d Handler) WithAttrs(a []slog.Attr) slog.Handler { return Handler{d.Handler.WithAttrs(a)} }
func (d Handler) WithGroup(n string) slog.Handler      { return Handler{d.Handler.WithGroup(n)} }
