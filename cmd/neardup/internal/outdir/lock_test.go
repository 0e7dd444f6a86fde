package outdir

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/objects"
)

// memObjects lists the objects below the memfs:// directory dir (three
// levels deep), by name relative to dir.
func memObjects(t *testing.T, dir string) []string {
	t.Helper()
	ctx := context.Background()
	fsys, err := filesystem.New(ctx, dir+"/x")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, glob := range []string{"/*", "/*/*", "/*/*/*"} {
		listed, err := fsys.List(ctx, dir+glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range listed {
			names = append(names, strings.TrimPrefix(p, dir+"/"))
		}
	}
	slices.Sort(names)
	return names
}

// lockObjects lists the lock objects in dir.
func lockObjects(t *testing.T, dir string) []string {
	t.Helper()
	return slices.DeleteFunc(memObjects(t, dir), func(n string) bool { return !isURLLockName(n) })
}

// otherLock is the lock object of another run, renewed ago.
func otherLock(run, host string, pid int, ago time.Duration) []byte {
	now := time.Now()
	return lockInfo{run: run, pid: pid, host: host, started: now.Add(-time.Hour), renewed: now.Add(-ago)}.marshal()
}

// TestLockURL: a run takes a free directory on a remote filesystem; it
// refuses one another run holds, even with --overwrite, and leaves the
// other run's lock in place; a stale lock (not renewed for long, or of a
// process of this host that is gone and missed a renewal) is refused
// without --overwrite and broken with it; a lock object neardup cannot
// read is refused. Whatever happens, a refusing run leaves no lock of its
// own.
func TestLockURL(t *testing.T) {
	run := randomHex() // memfs is one for the process: a directory of its own for each -count
	host, _ := os.Hostname()
	const other = ".neardup.lock.00000000000000aa"
	times := lockTimes{renew: time.Minute, stale: 10 * time.Minute}
	tests := []struct {
		name      string
		objects   map[string][]byte // in the directory before
		overwrite bool
		err       string   // part of the error; "": it takes the lock
		left      []string // the lock objects of others left after
	}{
		{"free", nil, false, "", nil},
		{"a previous run's outputs, not locks", map[string][]byte{"summary.json": []byte("{}"), ".neardup.lock.notes": nil}, false, "", nil},
		{"held by a run on another host", map[string][]byte{other: otherLock("aa", "elsewhere", 4242, 30*time.Second)}, false,
			"is in use by another neardup run (pid 4242 on elsewhere, started ", []string{other}},
		{"held by a run on another host, overwrite", map[string][]byte{other: otherLock("aa", "elsewhere", 4242, 30*time.Second)}, true,
			"is in use by another neardup run (pid 4242 on elsewhere, started ", []string{other}},
		{"held by a run on another host that missed renewals", map[string][]byte{other: otherLock("aa", "elsewhere", 4242, 9*time.Minute)}, true,
			"is in use by another neardup run (pid 4242 on elsewhere", []string{other}},
		{"held by a live process of this host, not renewed for 5 minutes", map[string][]byte{other: otherLock("aa", host, os.Getpid(), 5*time.Minute)}, true,
			fmt.Sprintf("is in use by another neardup run (pid %d on %s", os.Getpid(), host), []string{other}},
		{"a gone process of this host that has not missed a renewal", map[string][]byte{other: otherLock("aa", host, 1<<30, 30*time.Second)}, true,
			"holds the lock of neardup pid 1073741824 of this host, which is gone, but renewed it 30s ago: --overwrite breaks it from ", []string{other}},
		{"stale: another host, not renewed for an hour", map[string][]byte{other: otherLock("aa", "elsewhere", 4242, time.Hour)}, false,
			"holds the lock of neardup pid 4242 on elsewhere, not renewed for 1h0m0s: that run is gone (use --overwrite to break it; lock object ", []string{other}},
		{"stale: another host, not renewed for an hour, overwrite", map[string][]byte{other: otherLock("aa", "elsewhere", 4242, time.Hour)}, true, "", nil},
		{"stale: a gone process of this host", map[string][]byte{other: otherLock("aa", host, 1<<30, 3*time.Minute)}, false,
			"that run is gone (use --overwrite to break it", []string{other}},
		{"stale: a gone process of this host, overwrite", map[string][]byte{other: otherLock("aa", host, 1<<30, 3*time.Minute)}, true, "", nil},
		{"stale and held", map[string][]byte{
			other:                            otherLock("aa", "elsewhere", 4242, time.Hour),
			".neardup.lock.00000000000000bb": otherLock("bb", "there", 77, time.Second),
		}, true, "is in use by another neardup run (pid 77 on there", []string{other, ".neardup.lock.00000000000000bb"}},
		{"unreadable", map[string][]byte{other: []byte("hello\n")}, true,
			"is locked by memfs://", []string{other}},
	}
	for n, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fmt.Sprintf("memfs://lock-url-%s/%d", run, n)
			for name, b := range tt.objects {
				memfs.Write(dir+"/"+name, b)
			}
			l, err := lockURL(context.Background(), dir, "--output "+dir, tt.overwrite, times, nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "--output "+dir) || strings.Contains(err.Error(), "\n") {
					t.Errorf("error %v; want one line naming the directory, with %q", err, tt.err)
				}
				if err == nil {
					l.release()
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				b, err := readObject(context.Background(), l.fsys, l.path)
				if err != nil {
					t.Fatal(err)
				}
				i, ok := parseLockInfo(b)
				if !ok || i.run != l.id || i.pid != os.Getpid() || i.host != host || l.path != dir+"/"+urlLockPrefix+l.id {
					t.Errorf("lock object %s holds %q", l.path, b)
				}
				if got := lockObjects(t, dir); !slices.Equal(got, []string{urlLockPrefix + l.id}) {
					t.Errorf("lock objects %q while held; want only %s", got, l.path)
				}
				if err := l.check(context.Background()); err != nil {
					t.Errorf("check: %v", err)
				}
				l.release()
				l.release() // twice: nothing more
			}
			if got := lockObjects(t, dir); !slices.Equal(got, tt.left) {
				t.Errorf("lock objects after: %q; want %q", got, tt.left)
			}
		})
	}
}

// jitterFS is memfs:// as jitter://, each call after a random pause of
// up to 200µs, so that the calls of runs racing interleave.
type jitterFS struct{ filesystem.Interface }

func init() {
	filesystem.Register("jitter", func(ctx context.Context) filesystem.Interface {
		return jitterFS{memfs.New(ctx)}
	})
}

func jitter() { time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond) }

func mem(p string) string { return "memfs://" + strings.TrimPrefix(p, "jitter://") }

func (f jitterFS) List(ctx context.Context, glob string) ([]string, error) {
	jitter()
	listed, err := f.Interface.List(ctx, mem(glob))
	for i, p := range listed {
		listed[i] = "jitter://" + strings.TrimPrefix(p, "memfs://")
	}
	return listed, err
}

func (f jitterFS) OpenRead(ctx context.Context, p string) (io.ReadCloser, error) {
	jitter()
	return f.Interface.OpenRead(ctx, mem(p))
}

func (f jitterFS) OpenWrite(ctx context.Context, p string) (io.WriteCloser, error) {
	jitter()
	return f.Interface.OpenWrite(ctx, mem(p))
}

func (f jitterFS) Remove(ctx context.Context, p string) error {
	jitter()
	return f.Interface.(filesystem.Remover).Remove(ctx, mem(p))
}

// TestLockURLRace: of runs locking one directory at once, never more than
// one holds it (all may back off); each that backs off leaves no lock.
// memfs, like GCS and S3, lists every object whose write has returned.
func TestLockURLRace(t *testing.T) {
	run := randomHex() // memfs is one for the process: a directory of its own for each -count
	t.Parallel()
	const rounds, runs = 300, 4
	times := lockTimes{renew: time.Minute, stale: 10 * time.Minute}
	held := map[int]int{} // rounds by the number of holders
	for r := range rounds {
		dir := fmt.Sprintf("jitter://lock-race-%s/%d", run, r)
		var wg sync.WaitGroup
		start := make(chan struct{})
		locks := make([]*urlLock, runs)
		for g := range runs {
			wg.Go(func() {
				<-start
				locks[g], _ = lockURL(context.Background(), dir, dir, false, times, nil)
			})
		}
		close(start)
		wg.Wait()
		n := 0
		for _, l := range locks {
			if l != nil {
				n++
				if got := lockObjects(t, mem(dir)); !slices.Equal(got, []string{urlLockPrefix + l.id}) {
					t.Errorf("round %d: lock objects %q while %s holds it", r, got, l.id)
				}
				l.release()
			}
		}
		held[n]++
		if got := lockObjects(t, mem(dir)); len(got) > 0 {
			t.Errorf("round %d: lock objects %q left", r, got)
		}
	}
	t.Logf("rounds by holders: %v", held)
	if held[0]+held[1] != rounds {
		t.Errorf("rounds by holders %v: more than one run held the directory", held)
	}
	if held[1] == 0 {
		t.Errorf("no round of %d had a holder: the lock never succeeds under contention", rounds)
	}
}

// TestLockURLRenew: the holder rewrites its lock object every renew; once
// the object is removed (by a run that broke it as stale), renewal stops
// and check refuses to commit.
func TestLockURLRenew(t *testing.T) {
	run := randomHex() // memfs is one for the process: a directory of its own for each -count
	t.Parallel()
	dir := "memfs://lock-renew-" + run + "/out"
	l, err := lockURL(context.Background(), dir, dir, false, lockTimes{renew: 20 * time.Millisecond, stale: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.release()
	renewed := func() time.Time {
		b, err := readObject(context.Background(), l.fsys, l.path)
		if err != nil {
			return time.Time{}
		}
		i, _ := parseLockInfo(b)
		return i.renewed
	}
	first := renewed()
	deadline := time.Now().Add(10 * time.Second)
	for !renewed().After(first) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !renewed().After(first) {
		t.Fatalf("lock not renewed since %v", first)
	}
	if err := l.check(context.Background()); err != nil {
		t.Fatalf("check while held: %v", err)
	}
	if err := l.rm.Remove(context.Background(), l.path); err != nil {
		t.Fatal(err)
	}
	if err := l.check(context.Background()); err == nil || !strings.Contains(err.Error(), "was removed while this run held it") {
		t.Errorf("check after the lock went: %v", err)
	}
	<-l.done // renewal noticed and stopped
	if got := lockObjects(t, dir); len(got) > 0 {
		t.Errorf("renewal wrote the broken lock again: %q", got)
	}
	l.mu.Lock()
	lost := l.lost
	l.mu.Unlock()
	if lost == nil {
		t.Error("renewal did not mark the lock lost")
	}

	// A holder that could not renew for half the stale time (a suspended
	// machine, a store it could not reach) may have been broken: it gives
	// up the lock even if its next renewal succeeds.
	dir = "memfs://lock-renew-" + run + "/late"
	late, err := lockURL(context.Background(), dir, dir, false, lockTimes{renew: time.Hour, stale: 10 * time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer late.release()
	if err := late.renew(); err != nil {
		t.Fatalf("renewal on time: %v", err)
	}
	late.mu.Lock()
	late.renewed = time.Now().Add(-6 * time.Minute)
	late.mu.Unlock()
	if err := late.renew(); err == nil || !strings.Contains(err.Error(), "was not renewed for 6m0s") {
		t.Errorf("late renewal: %v", err)
	}
	if err := late.check(context.Background()); err == nil || !strings.Contains(err.Error(), "was not renewed for") {
		t.Errorf("check after a late renewal: %v", err)
	}
}

// TestURLTargetLock: a URL output directory is locked from open to commit
// or abort, whichever way the run ends, and a second run into it refuses
// without touching the first one's files; the lock object is neither an
// output nor something --overwrite replaces.
func TestURLTargetLock(t *testing.T) {
	run := randomHex() // memfs is one for the process: a directory of its own for each -count
	t.Parallel()
	ctx := context.Background()
	host, _ := os.Hostname()
	stage := func(t *testing.T, tg *Dir, names ...string) {
		for _, n := range names {
			memfs.Write(objects.JoinPath(tg.stage, n), []byte(n))
		}
	}
	for _, end := range []string{"commit", "abort", "failed commit"} {
		t.Run(end, func(t *testing.T) {
			dir := "memfs://target-lock-" + run + "/" + strings.ReplaceAll(end, " ", "-")
			memfs.Write(dir+"/pairs-00007.jsonl", []byte("old"))
			first, err := open(Output, dir, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(first.replaced, func(p string) bool { return strings.Contains(p, lockName) }) {
				t.Errorf("--overwrite would replace a lock: %q", first.replaced)
			}
			stage(t, first, "pairs-00000.jsonl", summary.FileName)
			before := memObjects(t, dir)
			for _, overwrite := range []bool{false, true} {
				_, err := open(Output, dir, overwrite, nil)
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("--output %s is in use by another neardup run (pid %d on %s", dir, os.Getpid(), host)) {
					t.Errorf("second run, overwrite %v: %v", overwrite, err)
				}
			}
			if got := memObjects(t, dir); !slices.Equal(got, before) {
				t.Errorf("after the second runs %q; was %q", got, before)
			}
			switch end {
			case "commit":
				if err := first.Commit(ctx, summary.FileName); err != nil {
					t.Fatal(err)
				}
				if got, want := memObjects(t, dir), []string{"pairs-00000.jsonl", summary.FileName}; !slices.Equal(got, want) {
					t.Errorf("after commit %q; want %q", got, want)
				}
			case "abort":
				first.Abort()
				if got, want := memObjects(t, dir), []string{"pairs-00007.jsonl"}; !slices.Equal(got, want) {
					t.Errorf("after abort %q; want %q", got, want)
				}
			case "failed commit":
				// Another run broke the lock as stale meanwhile: no commit.
				if err := first.urlLock.rm.Remove(ctx, first.urlLock.path); err != nil {
					t.Fatal(err)
				}
				if err := first.Commit(ctx, summary.FileName); err == nil || !strings.Contains(err.Error(), "was removed while this run held it") {
					t.Errorf("commit without the lock: %v", err)
				}
				first.Abort()
				if got, want := memObjects(t, dir), []string{"pairs-00007.jsonl"}; !slices.Equal(got, want) {
					t.Errorf("after the failed commit %q; want %q", got, want)
				}
			}
			if got := lockObjects(t, dir); len(got) > 0 {
				t.Errorf("lock objects left: %q", got)
			}
		})
	}

	t.Run("refused after the lock", func(t *testing.T) {
		// The checks after the lock fail: the lock goes with the error.
		dir := "memfs://target-lock-" + run + "/refused"
		memfs.Write(dir+"/"+stagePrefix+"0123/notes.txt", []byte("mine"))
		if _, err := open(Output, dir, true, nil); err == nil || !strings.Contains(err.Error(), "which neardup did not write") {
			t.Errorf("open: %v", err)
		}
		if got := memObjects(t, dir); !slices.Equal(got, []string{stagePrefix + "0123/notes.txt"}) {
			t.Errorf("after the refusal %q", got)
		}
		dir = "memfs://target-lock-" + run + "/not-empty"
		memfs.Write(dir+"/summary.json", []byte("{}"))
		if _, err := open(Output, dir, false, nil); err == nil || !strings.Contains(err.Error(), "is not empty") {
			t.Errorf("open: %v", err)
		}
		if got := memObjects(t, dir); !slices.Equal(got, []string{"summary.json"}) {
			t.Errorf("after the refusal %q", got)
		}
	})

	t.Run("stale lock broken by --overwrite", func(t *testing.T) {
		// A killed run left its lock, its staging directory and old
		// outputs: --overwrite breaks the lock and replaces the rest; the
		// index directory, which refuses foreign objects, takes lock
		// objects for its own.
		for _, kind := range []Kind{Output, Index} {
			dir := "memfs://target-lock-" + run + "/stale-" + strings.TrimPrefix(kind.flag, "--")
			memfs.Write(dir+"/.neardup.lock.00000000000000cc", otherLock("cc", "elsewhere", 9, time.Hour))
			memfs.Write(dir+"/"+stagePrefix+"00000000000000cc/index-00000.bin", nil)
			tg, err := open(kind, dir, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := tg.replaced, []string{dir + "/" + stagePrefix + "00000000000000cc/index-00000.bin"}; !slices.Equal(got, want) {
				t.Errorf("replaced %q; want %q", got, want)
			}
			stage(t, tg, "index-00000.bin")
			if err := tg.Commit(ctx, summary.FileName); err != nil {
				t.Fatal(err)
			}
			var want []string // the output directory does not take index files
			if kind.flag == "" {
				want = []string{"index-00000.bin"}
			}
			if got := memObjects(t, dir); !slices.Equal(got, want) {
				t.Errorf("%s after commit %q; want %q", dir, got, want)
			}
			if got := lockObjects(t, dir); len(got) > 0 {
				t.Errorf("lock objects left: %q", got)
			}
		}
	})
}
