package main

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/parquet-go/parquet-go"

	"github.com/neardup/neardup/transforms/format/record"
	"github.com/neardup/neardup/transforms/format/summary"
)

// TestRunS3Parquet runs the command on Parquet inputs in an S3 emulator
// (gofakes3 in this process; the command, a child process, reaches it
// through the AWS SDK's AWS_ENDPOINT_URL, an IP address, so path-style):
// Beam's s3 filesystem lists the inputs, package objects reads them in
// ranges, and the outputs are the local run's byte for byte.
func TestRunS3Parquet(t *testing.T) {
	t.Parallel()
	backend := s3mem.New()
	ts := httptest.NewServer(gofakes3.New(backend).Server())
	defer ts.Close()
	env := []string{"AWS_ENDPOINT_URL=" + ts.URL, "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test",
		"AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "NEARDUP_TEST_FAIL_ONCE="}
	if err := backend.CreateBucket("corpus"); err != nil {
		t.Fatal(err)
	}
	in := t.TempDir()
	type row struct {
		ID   string `parquet:"id"`
		Text string `parquet:"text"`
	}
	for i, name := range []string{"sample-0.jsonl", "sample-1.jsonl.gz"} {
		f, err := os.Open(sampleFile(t, name))
		if err != nil {
			t.Fatal(err)
		}
		var rows []row
		err = record.Read(record.NewReader(name, f, record.Unknown), name, record.Options{}, func(d record.Doc) error {
			rows = append(rows, row{d.ID, d.Text})
			return nil
		}, func(r record.Reject) error { return fmt.Errorf("sample reject %+v", r) })
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		w := parquet.NewGenericWriter[row](&buf)
		for k := 0; k < len(rows); k += 100 { // row groups of 100 rows
			if _, err := w.Write(rows[k:min(k+100, len(rows))]); err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		file := fmt.Sprintf("sample-%d.parquet", i)
		if err := os.WriteFile(filepath.Join(in, file), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := backend.PutObject("corpus", "in/"+file, nil, bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil); err != nil {
			t.Fatal(err)
		}
	}
	local := filepath.Join(t.TempDir(), "local")
	if code, stderr := neardup(t, "", "run", "--quiet", "--input", filepath.Join(in, "sample-*.parquet"), "--output", local); code != 0 {
		t.Fatalf("local run: exit code %d: %s", code, stderr)
	}
	remote := filepath.Join(t.TempDir(), "s3")
	if code, stderr := neardupEnv(t, env, "run", "--quiet", "--input", "s3://corpus/in/sample-*.parquet", "--output", remote); code != 0 {
		t.Fatalf("s3:// run: exit code %d: %s", code, stderr)
	}
	want, got := snapshot(t, local), snapshot(t, remote)
	sumJSON := got[summary.FileName]
	if !strings.Contains(sumJSON, "s3://corpus/in/sample-1.parquet") {
		t.Fatalf("summary.json does not name the s3:// inputs:\n%s", sumJSON)
	}
	for name, b := range want {
		if name == summary.FileName || name == "report.html" {
			continue
		}
		if got[name] != b {
			t.Errorf("%s differs from the local run's (%d bytes, want %d)", name, len(got[name]), len(b))
		}
	}
	t.Logf("%d outputs, the same as the local run's but summary.json and report.html", len(got))
	if len(got) != len(want) {
		t.Errorf("%d outputs, want the local run's %d", len(got), len(want))
	}
}
