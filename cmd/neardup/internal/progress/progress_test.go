package progress

import (
	"bytes"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/neardup/neardup/transforms/jobstate"
)

const sec = time.Second

// TestProgressLine checks the line shown for a sample, given the display's
// state: the stage named, the percentages and the ETA.
func TestProgressLine(t *testing.T) {
	tests := []struct {
		name  string
		total int64
		view  progressView // its total is set from total
		s     progressSample
		want  string
	}{
		{
			name:  "nothing yet",
			total: 240e6,
			view:  progressView{signStart: -1},
			s:     progressSample{at: 0},
			want:  "neardup 0s  Read 0% of 240 MB  0 docs",
		},
		{
			name:  "reading: percent of the bytes, rate and ETA from the bytes",
			total: 240e6,
			view:  progressView{signStart: -1, prev: progressSample{at: 5 * sec, bytes: 50e6, read: 40000}},
			s:     progressSample{at: 10 * sec, bytes: 100e6, read: 81234},
			// 100 MB in 10 s: 10 MB/s, 140 MB left: 14 s.
			want: "neardup 10s  Read 41% of 240 MB  10 MB/s  ETA 14s  81,234 docs",
		},
		{
			name:  "size unknown: bytes and documents only",
			total: 0,
			view:  progressView{signStart: -1},
			s:     progressSample{at: 3 * sec, bytes: 1500, read: 12},
			want:  "neardup 3s  Read 1.5 kB  12 docs",
		},
		{
			name:  "bytes read twice (a retried bundle) stop at 100%",
			total: 1000,
			view:  progressView{signStart: -1, prev: progressSample{at: 1 * sec, bytes: 900, read: 9}},
			s:     progressSample{at: 2 * sec, bytes: 1500, read: 10},
			want:  "neardup 2s  Read 100% of 1.0 kB  500 B/s  ETA 0s  10 docs",
		},
		{
			name:  "signing: percent of the documents read, ETA from the signing rate since it began",
			total: 240e6,
			view:  progressView{signStart: 20 * sec, stage: "Signatures", prev: progressSample{at: 25 * sec, bytes: 240e6, read: 80000, signed: 20000}},
			s:     progressSample{at: 30 * sec, bytes: 240e6, read: 80000, signed: 40000},
			// 40,000 in 10 s: 4,000/s, 40,000 left: 10 s.
			want: "neardup 30s  Signatures 50% of 80,000 docs  4,000/s  ETA 10s",
		},
		{
			name:  "signing skips the exact duplicates",
			total: 240e6,
			view:  progressView{signStart: 20 * sec, stage: "Signatures", prev: progressSample{at: 25 * sec, bytes: 240e6, read: 100000, skipped: 20000, signed: 20000}},
			s:     progressSample{at: 30 * sec, bytes: 240e6, read: 100000, skipped: 20000, signed: 60000},
			// 60,000 of 80,000 in 10 s: 6,000/s, 20,000 left: 3 s.
			want: "neardup 30s  Signatures 75% of 80,000 docs  6,000/s  ETA 3s",
		},
		{
			// Seen in a capture: the counter stood still for one tick and
			// the line named a stage that had ended seconds before.
			name:  "a counter that pauses keeps its stage",
			total: 240e6,
			view:  progressView{signStart: 20 * sec, stage: "Signatures", active: 25 * sec, prev: progressSample{at: 25 * sec, bytes: 240e6, read: 80000, signed: 20000}},
			s: progressSample{at: 26 * sec, bytes: 240e6, read: 80000, signed: 20000, spans: map[string][2]time.Duration{
				"Read": {0, 19 * sec}, "ExactDuplicates": {19 * sec, 20 * sec},
			}},
			want: "neardup 26s  Signatures 25% of 80,000 docs  3,333/s  ETA 18s",
		},
		{
			name:  "signing starts: it began after the sample before",
			total: 240e6,
			view:  progressView{signStart: -1, stage: "ExactDuplicates", prev: progressSample{at: 24 * sec, bytes: 240e6, read: 80000}},
			s:     progressSample{at: 25 * sec, bytes: 240e6, read: 80000, signed: 8000},
			want:  "neardup 25s  Signatures 10% of 80,000 docs  8,000/s  ETA 9s",
		},
		{
			name:  "verifying",
			total: 240e6,
			view:  progressView{signStart: 20 * sec, prev: progressSample{at: 40 * sec, read: 80000, signed: 80000, verified: 100}},
			s:     progressSample{at: 45 * sec, read: 80000, signed: 80000, verified: 12345, matched: 3456},
			want:  "neardup 45s  Verify  12,345 pairs checked, 3,456 matched",
		},
		{
			// The counters stand still in the last seconds: the stage that
			// ended a piece of work last is named, not a rate of 0.
			name:  "a later stage without a counter is named from its work",
			total: 240e6,
			view:  progressView{signStart: 20 * sec, stage: "Verify", active: 45 * sec, prev: progressSample{at: 45 * sec, read: 80000, signed: 80000, verified: 12345, matched: 3456}},
			s: progressSample{at: 50 * sec, read: 80000, signed: 80000, verified: 12345, matched: 3456, spans: map[string][2]time.Duration{
				"Verify":     {40 * sec, 45 * sec},
				"Clusters":   {46 * sec, 49 * sec},
				"Candidates": {35 * sec, 40 * sec},
			}},
			want: "neardup 50s  Clusters  (80,000 docs read, 3,456 pairs matched)",
		},
		{
			name:  "exact checks: matched moves alone",
			total: 240e6,
			view:  progressView{signStart: 20 * sec, stage: "Verify", prev: progressSample{at: 45 * sec, read: 80000, signed: 80000, verified: 12345, matched: 3456}},
			s:     progressSample{at: 46 * sec, read: 80000, signed: 80000, verified: 12345, matched: 3500},
			want:  "neardup 46s  ExactJaccard  (80,000 docs read, 3,500 pairs matched)",
		},
		{
			name:  "no news for a while: said so",
			total: 240e6,
			view:  progressView{signStart: 20 * sec, stage: "Candidates", active: 40 * sec, prev: progressSample{at: 44 * sec, read: 80000, signed: 80000}},
			s: progressSample{at: 45 * sec, read: 80000, signed: 80000, spans: map[string][2]time.Duration{
				"Candidates": {35 * sec, 40 * sec},
			}},
			want: "neardup 45s  Candidates  (80,000 docs read, 0 pairs matched)  (no news for 5s)",
		},
		{
			name:  "minutes",
			total: 2e9,
			view:  progressView{signStart: -1, prev: progressSample{at: 60 * sec, bytes: 400e6, read: 1}},
			s:     progressSample{at: 125 * sec, bytes: 500e6, read: 2},
			// 500 MB in 125 s: 4 MB/s; 1.5 GB left: 375 s.
			want: "neardup 2m05s  Read 25% of 2.0 GB  4.0 MB/s  ETA 6m15s  2 docs",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.view
			v.total = tt.total
			if got := v.line(tt.s); got != tt.want {
				t.Errorf("line:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestProgressSequence feeds a whole job's samples, one second apart: the
// stage named follows the work, and never shows a rate of 0 once the
// counters stop.
func TestProgressSequence(t *testing.T) {
	spans := map[string][2]time.Duration{}
	samples := []progressSample{
		{at: 1 * sec, bytes: 300, read: 3},
		{at: 2 * sec, bytes: 1000, read: 10},
		{at: 3 * sec, bytes: 1000, read: 10, spans: map[string][2]time.Duration{"Read": {0, 2500 * time.Millisecond}, "ExactDuplicates": {2600 * time.Millisecond, 2900 * time.Millisecond}}},
		{at: 4 * sec, bytes: 1000, read: 10, signed: 5},
		{at: 5 * sec, bytes: 1000, read: 10, signed: 10},
		{at: 6 * sec, bytes: 1000, read: 10, signed: 10, spans: map[string][2]time.Duration{"Candidates": {5 * sec, 5800 * time.Millisecond}}},
		{at: 7 * sec, bytes: 1000, read: 10, signed: 10, verified: 4, matched: 2},
		{at: 8 * sec, bytes: 1000, read: 10, signed: 10, verified: 4, matched: 2, spans: map[string][2]time.Duration{"Clusters": {7 * sec, 7900 * time.Millisecond}}},
	}
	want := []string{"Read", "Read", "ExactDuplicates", "Signatures", "Signatures", "Candidates", "Verify", "Clusters"}
	v := newProgressView(1000)
	for i, s := range samples {
		for n, sp := range s.spans {
			spans[n] = sp
		}
		s.spans = spans
		line := v.line(s)
		if !strings.Contains(line, "  "+want[i]) {
			t.Errorf("at %v: %q does not name %s", s.at, line, want[i])
		}
		if strings.Contains(line, "(0/s)") || strings.Contains(line, " 0 B/s") {
			t.Errorf("at %v: %q shows a rate of 0", s.at, line)
		}
	}
}

func TestStageTimes(t *testing.T) {
	got := stageTimes(23500*time.Millisecond, map[string][2]time.Duration{
		"Signatures":      {7200 * time.Millisecond, 15200 * time.Millisecond},
		"Read":            {0, 7100 * time.Millisecond},
		"ExactDuplicates": {7100 * time.Millisecond, 7500 * time.Millisecond},
		"Clusters":        {20 * sec, 95 * sec},
	})
	want := "neardup: 23.5s in all; stages: Read 7.1s, ExactDuplicates 0.4s, Signatures 8.0s, Clusters 1m15s"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got, want := stageTimes(time.Second, nil), "neardup: 1.0s in all"; got != want {
		t.Errorf("no stages: got %q, want %q", got, want)
	}
}

func TestFormatting(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{clock(0), "0s"},
		{clock(59 * sec), "59s"},
		{clock(59600 * time.Millisecond), "1m00s"},
		{clock(3599 * sec), "59m59s"},
		{clock(3720 * sec), "1h02m"},
		{byteSize(999), "999 B"},
		{byteSize(1000), "1.0 kB"},
		{byteSize(12_345_678), "12 MB"},
		{byteSize(9_940_000), "9.9 MB"},
		{byteSize(999_600), "1.0 MB"},
		{byteSize(1_390_000_000), "1.4 GB"},
		{count(0), "0"},
		{count(999), "999"},
		{count(1000), "1,000"},
		{count(1234567), "1,234,567"},
		{count(-1234), "-1,234"},
		{fit("abcdef", 6), "abcdef"},
		{fit("abcdefg", 6), "abcde…"},
		{fit("读取读取读取读", 6), "读取读取读…"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// lockedBuffer is a bytes.Buffer safe to write from the progress goroutine
// while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestProgress runs the display on jobstate.Progress: plain lines when
// not on a terminal, one line redrawn with \r on one, a last line with the
// stage times once stopped, and nothing after.
func TestProgress(t *testing.T) {
	jobstate.Progress.Read.Store(1000)
	jobstate.Progress.Bytes.Store(5000)
	defer jobstate.Progress.Read.Store(0)
	defer jobstate.Progress.Bytes.Store(0)
	for _, tty := range []bool{false, true} {
		stop := make(chan bool, 1)
		done := make(chan struct{})
		var out lockedBuffer
		go func() { show(&out, tty, 10*time.Millisecond, 10000, stop); close(done) }()
		deadline := time.Now().Add(10 * time.Second)
		for strings.Count(out.String(), "Read") < 2 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		stop <- true
		<-done
		got := out.String()
		if n := strings.Count(got, "Read 50% of 10 kB"); n < 2 {
			t.Fatalf("tty %v: %d progress lines at 50%% in 10s:\n%q", tty, n, got)
		}
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		last := lines[len(lines)-1]
		if tty {
			if len(lines) != 1 || !strings.HasPrefix(got, "\r") {
				t.Errorf("tty: want one line redrawn with \\r, got %q", got)
			}
			last = last[strings.LastIndex(last, "\r\x1b[K")+len("\r\x1b[K"):]
		} else if strings.Contains(got, "\r") {
			t.Errorf("not a tty: \\r in %q", got)
		}
		if !strings.HasPrefix(last, "neardup: ") || !strings.Contains(last, " in all") {
			t.Errorf("tty %v: last line %q is not the stage times", tty, last)
		}
		n := len(out.String())
		time.Sleep(30 * time.Millisecond)
		if len(out.String()) != n {
			t.Errorf("tty %v: progress went on after stop", tty)
		}
	}
}

// TestProgressFailed ends the display as a failed job's: no stage times
// (the error is the one line), and on a terminal the line is cleared.
func TestProgressFailed(t *testing.T) {
	for _, tty := range []bool{false, true} {
		stop := make(chan bool, 1)
		var out lockedBuffer
		stop <- false
		show(&out, tty, time.Hour, 100, stop)
		want := ""
		if tty {
			want = "\r\x1b[K"
		}
		if got := out.String(); got != want {
			t.Errorf("tty %v: got %q, want %q", tty, got, want)
		}
	}
}

// failingWriter counts its writes, each of which fails.
type failingWriter struct{ writes atomic.Int64 }

func (f *failingWriter) Write([]byte) (int, error) {
	f.writes.Add(1)
	return 0, syscall.EPIPE
}

// TestProgressClosedPipe: once a write fails (a pipe nobody reads), the
// display writes no more, and the job's end is not held up.
func TestProgressClosedPipe(t *testing.T) {
	var w failingWriter
	stop := make(chan bool, 1)
	done := make(chan struct{})
	go func() { show(&w, false, time.Millisecond, 100, stop); close(done) }()
	time.Sleep(50 * time.Millisecond)
	stop <- true
	<-done
	if n := w.writes.Load(); n != 1 {
		t.Errorf("%d writes, want 1", n)
	}
}
