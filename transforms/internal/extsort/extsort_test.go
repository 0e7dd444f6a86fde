package extsort

import (
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

var u64 = &Codec[uint64]{
	Size: 8,
	Put:  func(b []byte, v *uint64) { binary.LittleEndian.PutUint64(b, *v) },
	Get:  func(b []byte, v *uint64) { *v = binary.LittleEndian.Uint64(b) },
	Cmp:  cmp.Compare[uint64],
}

// compactU64 sorts like u64 and drops repeats within a run.
var compactU64 = &Codec[uint64]{Size: 8, Put: u64.Put, Get: u64.Get, Cmp: u64.Cmp,
	Sort: func(run []uint64) []uint64 { slices.Sort(run); return slices.Compact(run) }}

func drain(t *testing.T, src Source[uint64]) []uint64 {
	t.Helper()
	defer src.Close()
	var out []uint64
	var v uint64
	for {
		ok, err := src.Next(&v)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		out = append(out, v)
	}
}

// TestSorter: the sorted records of any budget are the in-memory sort's:
// one run (in memory), several merged at once, and more runs than the
// fan-in (merged into longer runs first); a Sort that drops repeats
// leaves only repeats of different runs, next to each other. The runs are
// removed as they are read.
func TestSorter(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	recs := make([]uint64, 20_000)
	for i := range recs {
		recs[i] = r.Uint64N(5_000)
	}
	want := slices.Sorted(slices.Values(recs))
	tests := []struct {
		budget   int64
		codec    *Codec[uint64]
		wantRuns int // at least
	}{
		{1 << 30, u64, 0},
		{1 << 17, u64, 2}, // 4,096 records a run, fan-in 2
		{64, u64, 1000},   // 2 records a run
		{1 << 30, compactU64, 0},
		{1 << 14, compactU64, 10},
	}
	for _, tc := range tests {
		d, err := NewDir(t.TempDir(), "test-", tc.budget, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := NewSorter(d, tc.codec)
		for _, v := range recs {
			if err := s.Add(v); err != nil {
				t.Fatal(err)
			}
		}
		if s.Runs() < tc.wantRuns {
			t.Errorf("budget %d: %d runs, want at least %d", tc.budget, s.Runs(), tc.wantRuns)
		}
		src, err := s.Sorted()
		if err != nil {
			t.Fatal(err)
		}
		got := drain(t, src)
		if tc.codec.Sort != nil {
			got, want := slices.Compact(got), slices.Compact(slices.Clone(want))
			if !slices.Equal(got, want) {
				t.Errorf("budget %d, compacted: %d records, want %d", tc.budget, len(got), len(want))
			}
		} else if !slices.Equal(got, want) {
			t.Errorf("budget %d: %d records not in order or not the same", tc.budget, len(got))
		}
		if left, _ := os.ReadDir(d.Path()); len(left) > 0 {
			t.Errorf("budget %d: %d files left", tc.budget, len(left))
		}
		if err := d.Remove(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWriterCount: count is given the bytes of each file written, and
// ToFile's file reads back its source.
func TestWriterCount(t *testing.T) {
	var n int64
	d, err := NewDir(t.TempDir(), "test-", 1<<20, func(b int64) { n += b })
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	name, err := ToFile(d, u64, Source[uint64](&memSource[uint64]{recs: []uint64{3, 1, 2}}))
	if err != nil {
		t.Fatal(err)
	}
	if n != 24 {
		t.Errorf("counted %d bytes, want 24", n)
	}
	r, err := Open(d, u64, name, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := drain(t, r); !slices.Equal(got, []uint64{3, 1, 2}) {
		t.Errorf("read back %v", got)
	}
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("owned file %s not removed: %v", name, err)
	}
}

// TestErrors: a directory that cannot be made and a truncated run fail,
// naming the path.
func TestErrors(t *testing.T) {
	file := t.TempDir() + "/file"
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewDir(file, "test-", 1<<20, nil); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("NewDir in a file: %v, want an error naming %s", err, file)
	}
	d, err := NewDir(t.TempDir(), "test-", 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	bad := d.Path() + "/bad.run"
	if err := os.WriteFile(bad, make([]byte, 12), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(d, u64, bad, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var v uint64
	if _, err := r.Next(&v); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(&v); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("truncated run: %v, want an error naming %s", err, bad)
	}
}
