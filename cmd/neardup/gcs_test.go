package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/neardup/neardup/cmd/neardup/internal/quietlog"
	"github.com/neardup/neardup/transforms/format/summary"
)

// TestRunGCS runs the command with its inputs, outputs and work files on
// gs://, against a local GCS emulator (fake-gcs-server in this process; the
// command, a child process, reaches it through STORAGE_EMULATOR_HOST, which
// the Go GCS client honours): the outputs are the local run's byte for byte,
// no staging or work object is left, a second run into the same prefix
// refuses without --overwrite, and --overwrite replaces a stale shard of an
// earlier run.
func TestRunGCS(t *testing.T) {
	t.Parallel()
	srv, host := startFakeGCS(t)
	env := []string{"STORAGE_EMULATOR_HOST=" + host, "GOOGLE_APPLICATION_CREDENTIALS=", "NEARDUP_TEST_FAIL_ONCE="}

	local := filepath.Join(t.TempDir(), "local")
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", sampleFile(t, "sample-0.jsonl")+","+sampleFile(t, "sample-1.jsonl.gz"), "--output", local); code != 0 {
		t.Fatalf("local run: exit code %d: %s", code, stderr)
	}
	want := snapshot(t, local)
	delete(want, "report.html") // not written for remote outputs
	delete(want, summary.FileName)

	objects := func() map[string]string { return gcsObjects(t, srv, "out", "") }
	args := []string{"run", "--quiet", "--input", "gs://corpus/in/sample-*", "--output", "gs://out/run1"}
	if code, stderr := neardupEnv(t, env, args...); code != 0 {
		t.Fatalf("gs:// run: exit code %d: %s", code, stderr)
	}
	got := objects()
	if got["run1/"+summary.FileName] == "" {
		t.Fatalf("no summary.json among %q", keys(got))
	}
	for name, b := range want {
		if got["run1/"+name] != b {
			t.Errorf("run1/%s differs from the local run's %s (%d bytes, want %d)", name, name, len(got["run1/"+name]), len(b))
		}
	}
	for name := range got {
		if strings.Contains(name, ".tmp") || strings.Contains(name, lockName) {
			t.Errorf("left behind: %s", name)
		}
	}
	if len(got) != len(want)+1 {
		t.Errorf("gs://out holds %q, want the local run's %q and summary.json", keys(got), keys(want))
	}

	code, stderr := neardupEnv(t, env, args...)
	if code == 0 || !strings.Contains(stderr, "is not empty") {
		t.Fatalf("second run without --overwrite: exit code %d: %s", code, stderr)
	}
	srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "out", Name: "run1/dedup-00007.jsonl"}, Content: []byte("{}\n")})
	if code, stderr := neardupEnv(t, env, append(args, "--overwrite")...); code != 0 {
		t.Fatalf("--overwrite: exit code %d: %s", code, stderr)
	}
	after := objects()
	if _, ok := after["run1/dedup-00007.jsonl"]; ok || len(after) != len(got) {
		t.Errorf("after --overwrite gs://out holds %q, want %q", keys(after), keys(got))
	}
}

// startFakeGCS starts a GCS emulator (fake-gcs-server) on loopback with
// the bucket "corpus" holding the bundled sample under in/ and an empty
// bucket "out"; it returns the server and the host:port for
// STORAGE_EMULATOR_HOST.
func startFakeGCS(t *testing.T) (*fakestorage.Server, string) {
	t.Helper()
	// The Go client reads objects from the emulator's host by the XML
	// API's paths, which the server serves only for its PublicHost: it
	// needs the port before it starts, so the test listens first (a port
	// found free and bound later can be taken in between by a parallel
	// test) and serves the emulator's handler there.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	host := "127.0.0.1:" + strconv.Itoa(port)
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{Scheme: "http", Host: "127.0.0.1", Port: uint16(port), PublicHost: host, Writer: io.Discard, NoListener: true})
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv.HTTPHandler()}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close(); srv.Stop() })
	srv.CreateBucket("corpus")
	srv.CreateBucket("out")
	for _, name := range []string{"sample-0.jsonl", "sample-1.jsonl.gz"} {
		b, err := os.ReadFile(sampleFile(t, name))
		if err != nil {
			t.Fatal(err)
		}
		srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "corpus", Name: "in/" + name}, Content: b})
	}
	return srv, host
}

// gcsObjects returns the objects of bucket under prefix, by name.
func gcsObjects(t *testing.T, srv *fakestorage.Server, bucket, prefix string) map[string]string {
	t.Helper()
	attrs, _, err := srv.ListObjects(bucket, prefix, "", false)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, a := range attrs {
		obj, err := srv.GetObject(bucket, a.Name)
		if err != nil {
			t.Fatal(err)
		}
		m[a.Name] = string(obj.Content)
	}
	return m
}

// TestRunGCSLock: a second run into a gs:// output that a first run is
// writing refuses at once with one line naming the holder, even with
// --overwrite, and changes nothing there; the first run completes with
// the outputs of a local run and leaves no lock. An interrupted run leaves
// nothing at all.
func TestRunGCSLock(t *testing.T) {
	t.Parallel()
	srv, host := startFakeGCS(t)
	dir := t.TempDir()
	mark, release := filepath.Join(dir, "reading"), filepath.Join(dir, "go-on")
	env := []string{"STORAGE_EMULATOR_HOST=" + host, "GOOGLE_APPLICATION_CREDENTIALS=", "NEARDUP_TEST_FAIL_ONCE="}
	input := sampleFile(t, "sample-0.jsonl")

	local := filepath.Join(dir, "local")
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", input, "--output", local); code != 0 {
		t.Fatalf("local run: exit code %d: %s", code, stderr)
	}
	want := snapshot(t, local)
	delete(want, "report.html") // not written for remote outputs
	delete(want, summary.FileName)

	objects := func(prefix string) map[string]string { return gcsObjects(t, srv, "out", prefix) }
	locks := func(prefix string) []string {
		var names []string
		for name := range objects(prefix) {
			if strings.Contains(name, lockName) {
				names = append(names, name)
			}
		}
		return names
	}
	var stderrA bytes.Buffer
	a := neardupCmd(append(env, "TMPDIR="+dir, "NEARDUP_TEST_SLOW_UNTIL="+release, "NEARDUP_TEST_SLOW_MARK="+mark), &stderrA,
		"run", "--quiet", "--input", "slow://"+input, "--output", "gs://out/locked")
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, mark)
	held := locks("locked/")
	if len(held) != 1 {
		t.Fatalf("lock objects %q while the first run reads", held)
	}
	before := objects("locked/")
	code, stderr := neardupEnv(t, env, "run", "--quiet", "--input", input, "--output", "gs://out/locked", "--overwrite")
	wantErr := fmt.Sprintf("neardup run: --output gs://out/locked is in use by another neardup run (pid %d on ", a.Process.Pid)
	if code != 1 || !strings.HasPrefix(stderr, wantErr) || !strings.Contains(stderr, "lock object gs://out/"+held[0]+")") {
		t.Errorf("second run: exit code %d, stderr %q; want 1 and %q… naming the lock object", code, stderr, wantErr)
	}
	checkOneLine(t, stderr)
	if after := objects("locked/"); !sameSnapshot(before, after) {
		t.Errorf("the second run changed gs://out/locked: %q, was %q", keys(after), keys(before))
	}
	copyBytes(t, release, "")
	if code := exitCode(t, a.Wait()); code != 0 {
		t.Fatalf("first run: exit code %d; stderr:\n%.2000s", code, stderrA.String())
	}
	got := objects("locked/")
	for name, b := range want {
		if got["locked/"+name] != b {
			t.Errorf("locked/%s differs from the local run's %s (%d bytes, want %d)", name, name, len(got["locked/"+name]), len(b))
		}
	}
	if len(got) != len(want)+1 || got["locked/"+summary.FileName] == "" {
		t.Errorf("gs://out/locked holds %q, want the local run's %q and summary.json", keys(got), keys(want))
	}

	// Interrupted while it reads: no lock, no staging object left.
	mark = filepath.Join(dir, "reading-2")
	var stderrB bytes.Buffer
	b := neardupCmd(append(env, "TMPDIR="+dir, "NEARDUP_TEST_SLOW_UNTIL="+filepath.Join(dir, "never"), "NEARDUP_TEST_SLOW_MARK="+mark), &stderrB,
		"run", "--quiet", "--input", "slow://"+input, "--output", "gs://out/interrupted")
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, mark)
	if held := locks("interrupted/"); len(held) != 1 {
		t.Errorf("lock objects %q while the run reads", held)
	}
	if err := b.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, b.Wait()); code != 130 {
		t.Errorf("interrupted run: exit code %d, stderr %q", code, stderrB.String())
	}
	if left := objects("interrupted/"); len(left) > 0 {
		t.Errorf("left in gs://out/interrupted: %q", keys(left))
	}
}

// TestGCSNoCredentials: the command's log drops the GCS filesystem's
// warning that it found no credentials (a gs:// path then fails, if it
// does, on the command's one line), and errors; other warnings still show.
func TestGCSNoCredentials(t *testing.T) {
	var b bytes.Buffer
	log := slog.New(quietlog.Handler{Handler: slog.NewTextHandler(&b, nil)})
	log.Warn(quietlog.NoGCSCredentials + ": dialing: credentials: could not find default credentials")
	log.Error("a failed bundle")
	log.Warn("another warning")
	if got := b.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "another warning") {
		t.Errorf("logged %q; want only the other warning", got)
	}
}
