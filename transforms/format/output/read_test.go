package output

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/record"
)

// writeShard writes lines as JSONL to dir/name, compressed with c.
func writeShard[T Line](t *testing.T, dir, name string, c record.Compression, lines ...T) {
	t.Helper()
	var buf bytes.Buffer
	w, err := record.NewWriter(&buf, c)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(w)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEach: the shards of a kind are read in name order, compressed or
// not, and other files are left alone.
func TestEach(t *testing.T) {
	dir := t.TempDir()
	p := func(a, b string) PairLine { return PairLine{A: a, B: b, Jaccard: 0.9, Hamming: 3, Method: "minhash"} }
	writeShard(t, dir, ShardName(KindPairs, 2), record.Zstd, p("e", "f"))
	writeShard(t, dir, ShardName(KindPairs, 0), record.None, p("a", "b"), p("c", "d"))
	writeShard(t, dir, ShardName(KindPairs, 1)+".gz", record.Gzip,
		PairLine{A: "x", B: "y", Method: "exact", Jaccard: 1, ALocation: &Location{File: 1, Line: 2}, BLocation: &Location{File: 1, Line: 5}})
	writeShard(t, dir, ShardName(KindPairs, 3)+".bak", record.None, p("no", "no"))
	writeShard(t, dir, ShardName(KindClusters, 0), record.None, ClusterLine{Cluster: "a", Size: 2, Representative: "a", Members: []string{"a", "b"}})

	files, err := Shards(dir, KindPairs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"pairs-00000.jsonl", "pairs-00001.jsonl.gz", "pairs-00002.jsonl"}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("Shards = %v, want %v", names, want)
	}

	var got []string
	err = Each(dir, KindPairs, func(l *PairLine) bool {
		got = append(got, l.A+"-"+l.B)
		return true
	})
	if want := []string{"a-b", "c-d", "x-y", "e-f"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Each = %v, %v; want %v", got, err, want)
	}
	got = nil
	err = Each(dir, KindPairs, func(l *PairLine) bool {
		got = append(got, l.A)
		return len(got) < 2
	})
	if want := []string{"a", "c"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Each stopped after two = %v, %v; want %v", got, err, want)
	}
}

func TestEachInError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ShardName(KindClusters, 0))
	if err := os.WriteFile(path, []byte(`{"cluster":"k","members":["x"]}`+"\n"+`{"members":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	_, err := EachIn(path, func(*ClusterLine) bool { n++; return true })
	if err == nil || !strings.Contains(err.Error(), "clusters-00000.jsonl: record 2") || n != 1 {
		t.Errorf("EachIn: %d lines, error %v; want 1 line, an error naming record 2", n, err)
	}
	if _, err := EachIn(filepath.Join(dir, "absent.jsonl"), func(*ClusterLine) bool { return true }); !os.IsNotExist(err) {
		t.Errorf("EachIn of a missing file: %v, want a not-exist error", err)
	}
}
