// Package progress shows the progress of a job that runs in this process.
package progress

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/neardup/neardup/transforms/jobstate"
)

// The progress display of a job that runs in this process (Prism, direct):
// the stage at work, the share of the input read and when the read will
// be done, then the share of the documents signed; at the end one line
// with the time of each stage. On a terminal it is one line redrawn in
// place; otherwise a line every few seconds. The counts come from
// jobstate.Progress (the DoFns run in this process).

// progressSample is what the display knows at one moment.
type progressSample struct {
	at                              time.Duration // since the job started
	bytes                           int64         // stored input bytes read by the first pass
	read, signed, verified, matched int64
	skipped                         int64                       // documents read that are not signed (exact duplicates)
	spans                           map[string][2]time.Duration // per stage: first start and latest end of its work, since the job started
}

// progressView turns samples into lines; it remembers the sample before
// and when signing started.
type progressView struct {
	total     int64 // stored bytes of all input files; 0 if unknown
	prev      progressSample
	stage     string        // the stage of the last line
	active    time.Duration // when that stage last showed work
	signStart time.Duration // when the first document was signed; -1 before
}

func newProgressView(total int64) *progressView {
	return &progressView{total: total, signStart: -1}
}

// stageGuess names the stage at work in s, given the sample before: the
// stage that showed work last, where work is a counter that moved since
// prev (as of s.at) or the end of a stage's piece of work (transforms'
// stage clock). Counters win ties, the later stage of the pipeline first.
// It returns "" if nothing has shown work yet.
func stageGuess(prev, s progressSample) (string, time.Duration) {
	stage, at := "", time.Duration(-1)
	// Stages by the end of their latest piece of work, earliest first.
	names := make([]string, 0, len(s.spans))
	for n := range s.spans {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(s.spans[a][1], s.spans[b][1]), cmp.Compare(s.spans[a][0], s.spans[b][0]), cmp.Compare(a, b))
	})
	for _, n := range names {
		if end := s.spans[n][1]; end >= at {
			stage, at = n, end
		}
	}
	switch {
	case s.verified > prev.verified:
		return "Verify", s.at
	case s.matched > prev.matched:
		return "ExactJaccard", s.at
	case s.signed > prev.signed:
		return "Signatures", s.at
	case s.read > prev.read || s.bytes > prev.bytes:
		return "Read", s.at
	}
	return stage, at
}

// line returns the display's line for s and takes s as the sample before
// the next.
func (v *progressView) line(s progressSample) string {
	if v.signStart < 0 && s.signed > 0 {
		v.signStart = v.prev.at // signing started after the sample before
	}
	// A stage that shows work later than the one shown takes its place; a
	// counter that pauses for a moment does not give it back to an earlier
	// stage.
	if stage, at := stageGuess(v.prev, s); stage != "" && (v.stage == "" || at >= v.active) {
		v.stage, v.active = stage, at
	}
	v.prev = s
	var b strings.Builder
	fmt.Fprintf(&b, "neardup %s", clock(s.at))
	stage := cmp.Or(v.stage, "Read")
	switch stage {
	case "Read":
		b.WriteString("  Read")
		if v.total > 0 {
			done := min(s.bytes, v.total)
			fmt.Fprintf(&b, " %d%% of %s", percent(done, v.total), byteSize(v.total))
			if done > 0 && s.at > 0 {
				rate := float64(done) / s.at.Seconds()
				fmt.Fprintf(&b, "  %s/s  ETA %s", byteSize(int64(rate)), clock(seconds(float64(v.total-done)/rate)))
			}
		} else {
			fmt.Fprintf(&b, " %s", byteSize(s.bytes))
		}
		fmt.Fprintf(&b, "  %s docs", count(s.read))
	case "Signatures":
		todo := max(s.read-s.skipped, 0)
		fmt.Fprintf(&b, "  Signatures %d%% of %s docs", percent(min(s.signed, todo), todo), count(todo))
		if spent := s.at - v.signStart; v.signStart >= 0 && spent > 0 && s.signed > 0 && s.signed < todo {
			rate := float64(s.signed) / spent.Seconds()
			fmt.Fprintf(&b, "  %s/s  ETA %s", count(int64(rate)), clock(seconds(float64(todo-s.signed)/rate)))
		}
	case "Verify":
		fmt.Fprintf(&b, "  Verify  %s pairs checked, %s matched", count(s.verified), count(s.matched))
	default:
		fmt.Fprintf(&b, "  %s  (%s docs read, %s pairs matched)", stage, count(s.read), count(s.matched))
	}
	if idle := s.at - v.active; v.stage != "" && idle >= 3*time.Second {
		fmt.Fprintf(&b, "  (no news for %s)", clock(idle))
	}
	return b.String()
}

// stageTimes is the last line: the job's time, and each stage's from the
// start of its first piece of work to the end of its last, in the order
// they started.
func stageTimes(took time.Duration, spans map[string][2]time.Duration) string {
	names := make([]string, 0, len(spans))
	for n := range spans {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(spans[a][0], spans[b][0]), cmp.Compare(a, b))
	})
	var b strings.Builder
	fmt.Fprintf(&b, "neardup: %s in all", clockFine(took))
	for i, n := range names {
		sep := ", "
		if i == 0 {
			sep = "; stages: "
		}
		fmt.Fprintf(&b, "%s%s %s", sep, n, clockFine(spans[n][1]-spans[n][0]))
	}
	return b.String()
}

// percent is 100·n/total rounded down, 0 if total is 0.
func percent(n, total int64) int64 {
	if total <= 0 {
		return 0
	}
	return n * 100 / total
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// clock formats a duration to the second: 7s, 3m05s, 1h02m.
func clock(d time.Duration) string {
	s := int64((d + time.Second/2) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
}

// clockFine is clock with tenths of a second below a minute.
func clockFine(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return clock(d)
}

// byteSize formats n bytes in decimal units: 950 B, 12.3 MB, 240 MB.
func byteSize(n int64) string {
	const units = "kMGTPE"
	if n < 1000 {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n)/1000, 0
	for f >= 999.5 && i < len(units)-1 {
		f, i = f/1000, i+1
	}
	if f < 9.95 {
		return fmt.Sprintf("%.1f %cB", f, units[i])
	}
	return fmt.Sprintf("%.0f %cB", f, units[i])
}

// count formats n with thousands separators: 1,234,567.
func count(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// fit cuts line to width runes, for a line redrawn in place: a longer one
// would wrap and the next \r would redraw only its last part.
func fit(line string, width int) string {
	if utf8.RuneCountInString(line) <= width {
		return line
	}
	r := []rune(line)
	return string(r[:width-1]) + "…"
}

// sample reads jobstate.Progress at since start.
func sample(start time.Time) progressSample {
	p := &jobstate.Progress
	s := progressSample{
		at:    time.Since(start),
		bytes: p.Bytes.Load(), read: p.Read.Load(), signed: p.Signed.Load(),
		verified: p.Verified.Load(), matched: p.Matched.Load(), skipped: p.Skipped.Load(),
	}
	if spans := p.Stages.Spans(); len(spans) > 0 {
		s.spans = make(map[string][2]time.Duration, len(spans))
		for n, sp := range spans {
			s.spans[n] = [2]time.Duration{max(sp[0].Sub(start), 0), max(sp[1].Sub(start), 0)}
		}
	}
	return s
}

// show shows the display on w until stop is closed, then, if it gets
// true (the job succeeded), writes the last line (stageTimes), and
// returns. On a terminal (tty) it redraws one line every interval;
// otherwise it writes a line every interval. Once a write fails (a pipe
// nobody reads, a terminal gone) it writes no more.
func show(w io.Writer, tty bool, interval time.Duration, total int64, stop <-chan bool) {
	w = &untilError{w: w}
	start := time.Now()
	v := newProgressView(total)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case ok := <-stop:
			s := sample(start)
			if tty {
				fmt.Fprint(w, "\r\x1b[K")
			}
			if ok {
				fmt.Fprintln(w, stageTimes(s.at, s.spans))
			}
			return
		case <-t.C:
			line := v.line(sample(start))
			if tty {
				fmt.Fprintf(w, "\r%s\x1b[K", fit(line, 79))
			} else {
				fmt.Fprintln(w, line)
			}
		}
	}
}

// untilError writes to w until a write fails, then drops every write.
type untilError struct {
	w   io.Writer
	err error
}

func (u *untilError) Write(p []byte) (int, error) {
	if u.err == nil {
		_, u.err = u.w.Write(p)
	}
	return len(p), nil
}

// End ends the progress display of the job, if there is one:
// call it once the job is done, before printing anything else, with
// whether the job succeeded (only then is the last line written). Only the
// first call does anything.
func End(ok bool) {
	progressEnd.Lock()
	end := progressEnd.fn
	progressEnd.Unlock()
	if end != nil {
		end(ok)
	}
}

// progressEnd ends the display Start started.
var progressEnd struct {
	sync.Mutex
	fn func(ok bool)
}

// Start starts the progress display on stderr for the given input files
// and returns the function that ends it as a failed job's (if End did not
// end it before).
func Start(files []string) func() {
	tty := isTerminal(os.Stderr)
	interval := 5 * time.Second
	if tty {
		interval = 500 * time.Millisecond
	}
	quit := make(chan bool, 1)
	done := make(chan struct{})
	go func() { show(os.Stderr, tty, interval, inputSize(files), quit); close(done) }()
	var once sync.Once
	progressEnd.Lock()
	progressEnd.fn = func(ok bool) { once.Do(func() { quit <- ok; <-done }) }
	progressEnd.Unlock()
	return func() { End(false) }
}

// isTerminal reports whether f is a terminal (a character device other
// than /dev/null).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}

// inputSize is the total stored size of files; a file whose size cannot
// be had (the job rejects it whole, unread) counts 0.
func inputSize(files []string) int64 {
	var total int64
	for _, path := range files {
		if !strings.Contains(path, "://") {
			if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
				total += fi.Size()
			}
			continue
		}
		ctx := context.Background()
		if fs, err := filesystem.New(ctx, path); err == nil {
			if n, err := fs.Size(ctx, path); err == nil {
				total += n
			}
			fs.Close()
		}
	}
	return total
}
