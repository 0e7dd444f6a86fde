package main

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/neardup/neardup/transforms/format/output"
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
	delete(want, output.SummaryName)

	objects := func() map[string]string { return gcsObjects(t, srv, "out", "") }
	args := []string{"run", "--quiet", "--input", "gs://corpus/in/sample-*", "--output", "gs://out/run1"}
	if code, stderr := neardupEnv(t, env, args...); code != 0 {
		t.Fatalf("gs:// run: exit code %d: %s", code, stderr)
	}
	got := objects()
	if got["run1/"+output.SummaryName] == "" {
		t.Fatalf("no summary.json among %q", keys(got))
	}
	for name, b := range want {
		if got["run1/"+name] != b {
			t.Errorf("run1/%s differs from the local run's %s (%d bytes, want %d)", name, name, len(got["run1/"+name]), len(b))
		}
	}
	for name := range got {
		if strings.Contains(name, ".tmp") {
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
	// needs the port before it starts.
	port := freePort(t)
	host := "127.0.0.1:" + strconv.Itoa(port)
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{Scheme: "http", Host: "127.0.0.1", Port: uint16(port), PublicHost: host, Writer: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
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
