package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/neardup/neardup/transforms/format/summary"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobstate"
	"github.com/neardup/neardup/transforms/objects/objectstest"
)

// objectStore is a storage emulator in this process holding the bucket
// "corpus", which the job reaches as prefix ("gs://corpus/",
// "s3://corpus/"). Every object it holds has the modification time
// objectstest.Time: a replaced object differs by its version only.
type objectStore struct {
	prefix string
	put    func(t *testing.T, name string, data []byte)
}

// fakeGCS starts fake-gcs-server (objectstest.GCS).
func fakeGCS(t *testing.T) objectStore {
	st := objectstest.GCS(t, "corpus", nil)
	return objectStore{prefix: st.Prefix, put: func(t *testing.T, name string, data []byte) { st.Put(t, name, data) }}
}

// fakeS3 starts gofakes3 (objectstest.S3), which Beam's s3 filesystem
// reaches through the AWS SDK's default configuration.
func fakeS3(t *testing.T) objectStore {
	st := objectstest.S3(t, "corpus", nil)
	return objectStore{prefix: st.Prefix, put: func(t *testing.T, name string, data []byte) { st.Put(t, name, data) }}
}

// upload puts the local files in st under in/ and returns their paths
// there.
func (st objectStore) upload(t *testing.T, files []string) []string {
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		st.put(t, "in/"+filepath.Base(f), b)
		out = append(out, st.prefix+"in/"+filepath.Base(f))
	}
	return out
}

// fingerprints matches the fingerprints of summary.json's inputs, whose
// modification times are the filesystem's.
var fingerprints = regexp.MustCompile(`"fingerprint":"[^"]*"`)

// asLocal returns outs with the remote paths of the inputs (prefix+"in/")
// written as the local ones (dir+"/") and the fingerprints left out.
func asLocal(outs map[string][]byte, prefix, dir string) map[string][]byte {
	m := map[string][]byte{}
	for n, b := range outs {
		if prefix != "" {
			b = bytes.ReplaceAll(b, []byte(prefix+"in/"), []byte(dir+"/"))
		}
		m[n] = fingerprints.ReplaceAll(b, []byte(`"fingerprint":""`))
	}
	return m
}

// TestRemoteParquetSplit: the sample as Parquet objects in a GCS emulator
// and in an S3 emulator, read by the first pass in units of 16 rows,
// gives byte for byte the outputs of reading each object whole, and,
// but for the inputs' paths and modification times, those of the same
// files read locally; read_units says the objects were split.
func TestRemoteParquetSplit(t *testing.T) {
	dir := t.TempDir()
	files, _ := sampleParquet(t, dir, 7, false) // ids FILE:ROW: the paths are in the pairs too
	run := func(t *testing.T, in []string, split int) (map[string][]byte, int64) {
		cfg := job.DefaultConfig()
		cfg.SegmentBits, cfg.SplitRows, cfg.Branches, cfg.Workers = 4, split, 2, 2
		out := t.TempDir()
		if err := runInto(t, "", cfg, in, out); err != nil {
			t.Fatalf("split %d: %v", split, err)
		}
		got := outputs(t, out)
		return got, takeStat(t, got, summary.StatReadUnits)
	}
	local, units := run(t, files, -1)
	if units != int64(len(files)) {
		t.Fatalf("local reference: %d units", units)
	}
	for name, start := range map[string]func(*testing.T) objectStore{"gs": fakeGCS, "s3": fakeS3} {
		t.Run(name, func(t *testing.T) {
			st := start(t)
			remote := st.upload(t, files)
			whole, wholeUnits := run(t, remote, -1)
			split, splitUnits := run(t, remote, 16)
			t.Logf("%s: %d units whole, %d split", name, wholeUnits, splitUnits)
			if wholeUnits != int64(len(files)) || splitUnits < 2*int64(len(files)) {
				t.Errorf("read_units %d whole, %d split; want %d and more than %d", wholeUnits, splitUnits, len(files), 2*len(files))
			}
			if !bytes.Contains(split[summary.FileName], []byte(st.prefix+"in/")) {
				t.Fatalf("summary.json does not name the inputs %s...", st.prefix)
			}
			sameOutputs(t, name+" split vs whole", whole, split)
			sameOutputs(t, name+" split vs local", asLocal(local, "", ""), asLocal(split, st.prefix, dir))
		})
	}
}

// TestRemoteParquetReplaced: an object replaced between the units that
// read it, by one of the same size and modification time, fails the job
// with one line naming it: the units check its version (GCS generation,
// S3 ETag).
func TestRemoteParquetReplaced(t *testing.T) {
	files, _ := sampleParquet(t, t.TempDir(), 16, true) // row groups of a segment
	for name, start := range map[string]func(*testing.T) objectStore{"gs": fakeGCS, "s3": fakeS3} {
		t.Run(name, func(t *testing.T) {
			st := start(t)
			remote := st.upload(t, files)
			data, err := os.ReadFile(files[1])
			if err != nil {
				t.Fatal(err)
			}
			data[len(data)/2] ^= 1
			var calls atomic.Int64
			jobstate.SetStageHook("Read", func(key string) {
				if key == remote[1] && calls.Add(1) == 1 {
					st.put(t, "in/"+filepath.Base(files[1]), data) // a new version, the same size
				}
			})
			defer jobstate.SetStageHook("", nil)
			cfg := job.DefaultConfig()
			cfg.SegmentBits, cfg.SplitRows, cfg.Branches, cfg.Workers = 4, 64, 1, 1 // the units one after the other
			out := t.TempDir()
			err = runInto(t, "", cfg, remote, out)
			want := "input " + remote[1] + " changed during the run"
			if calls.Load() != 1 || err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("%d units read, job error %v; want 1 and %q", calls.Load(), err, want)
			}
			msg := err.Error()[strings.Index(err.Error(), want):]
			line := msg[:strings.IndexByte(msg+"\n", '\n')]
			t.Logf("the job failed: %s", line)
			if !strings.Contains(line, map[string]string{"gs": "generation=", "s3": "etag="}[name]) {
				t.Errorf("the error does not say the version changed: %s", line)
			}
			if _, err := os.Stat(filepath.Join(out, summary.FileName)); err == nil {
				t.Error("summary.json written by the failed job")
			}
		})
	}
}

// TestRemoteIndex: an index written to a GCS emulator (run --index-out),
// the next index written there by an audit (--update-index, a second
// generation) and audits against both, by ranged reads of the key files
// and shards, give the outputs and read the bytes of the same indexes on
// local disk.
func TestRemoteIndex(t *testing.T) {
	cfg := job.DefaultConfig()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	splitJSONL(t, "../testdata/sample/sample-0.jsonl", a, b, 50)
	files := inputs(t, sampleFiles[1:]...)
	st := fakeGCS(t)
	auditBoth := func(t *testing.T, local, remote string, update bool) (string, string) {
		var nl, nr string
		if update {
			nl, nr = filepath.Join(t.TempDir(), "next"), remote+"-next"
		}
		l := runAudit(t, cfg, local, []string{b}, false, nl)
		r := runAudit(t, cfg, remote, []string{b}, false, nr)
		sameAudit(t, "audit against "+remote, l, r)
		readL, readR := checkAuditAccounting(t, l)[summary.StatIndexBytesRead], checkAuditAccounting(t, r)[summary.StatIndexBytesRead]
		if readL != readR || readR == 0 {
			t.Errorf("audit against %s read %d bytes of the index, locally %d", remote, readR, readL)
		}
		if update {
			sameAudit(t, "audit against the next index "+nr, runAuditOpt(t, cfg, files, AuditOptions{Index: nl}), runAuditOpt(t, cfg, files, AuditOptions{Index: nr}))
		}
		return nl, nr
	}
	_, local := runIndexed(t, cfg, []string{a})
	remoteCfg := cfg
	remoteCfg.IndexOut = st.prefix + "idx"
	runJob(t, "", remoteCfg, []string{a})
	_, nr := auditBoth(t, local, remoteCfg.IndexOut, true)
	if m := readManifest(t, nr); len(m.Generations) != 2 || m.Generations[0].Dir != remoteCfg.IndexOut {
		t.Fatalf("next index on GCS: generations %+v", m.Generations)
	}
}
