package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/wire"
)

// TestShardAt: every choice of records read by ranged reads is what the
// sequential reader reads, and the bytes read follow the records asked.
func TestShardAt(t *testing.T) {
	for _, n := range []int{1, 15, 16, 17, 1000} {
		rs := sampleRecords(n)
		b, s := writeShard(t, "src", rs)
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		for trial := range 20 {
			var ords []int64
			for k := range int64(n) {
				if trial == 0 || rng.IntN(10) == 0 {
					ords = append(ords, k)
				}
			}
			sa, err := NewShardAt(bytes.NewReader(b), "shard", s)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			err = sa.Records(ords, func(k int64, r *Record) error {
				want := rs[k]
				if r.Line != want.Line || r.ID != want.ID || r.Exact != want.Exact || !slices.Equal(r.Bands, want.Bands) {
					t.Fatalf("n=%d record %d: got %+v, want %+v", n, k, *r, want)
				}
				got = append(got, k)
				return nil
			})
			if err != nil || !slices.Equal(got, ords) {
				t.Fatalf("n=%d: %v, read %v of %v", n, err, got, ords)
			}
			if len(ords) == 1 && sa.Read > 12+footerLen+2*dirEntry+8+BlockRecords*200 {
				t.Fatalf("n=%d: one record cost %d bytes", n, sa.Read)
			}
		}
	}
}

// TestShardAtDamage: a damaged directory entry, block or header read by
// ranges is one error naming the shard.
func TestShardAtDamage(t *testing.T) {
	good, s := writeShard(t, "/data/a.jsonl", sampleRecords(100))
	dir := len(good) - footerLen - dirEntry*int(numBlocks(100)+1)
	mod := func(f func(b []byte)) []byte { b := slices.Clone(good); f(b); return b }
	cases := []struct {
		name string
		b    []byte
		s    Shard
		msg  string
	}{
		{"directory entry", mod(func(b []byte) { b[dir+dirEntry*10] ^= 1 }), s, "block directory entry 10 is damaged"},
		{"block", mod(func(b []byte) { b[70] ^= 1 }), s, "block 0: checksum mismatch"},
		{"magic", mod(func(b []byte) { b[0] = 'X' }), s, "bad magic"},
		{"truncated", good[:len(good)-5], s, "truncated in the footer"},
		{"fewer records", good, Shard{Records: 99, Bytes: s.Bytes, CRC32C: s.CRC32C}, "block 24 holds more than 3 records"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sa, err := NewShardAt(bytes.NewReader(c.b), "idx/index-00000.bin", c.s)
			if err == nil {
				err = sa.Records([]int64{0, 40, 98}, func(int64, *Record) error { return nil })
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "idx/index-00000.bin") {
				t.Fatalf("got %v, want an ErrCorrupt containing %q", err, c.msg)
			}
		})
	}
}

// TestShardAtForeign: a shard whose footer is not the CRC-32C its manifest
// entry records (a shard of another index of the same size), or one
// without a footer where the entry says its generation's files have one,
// is refused when it is opened, with ErrForeign naming it; a shard of
// version 5 where none is expected reads.
func TestShardAtForeign(t *testing.T) {
	rs := sampleRecords(100)
	good, s := writeShard(t, "/data/a.jsonl", rs)
	rs[3].ID = strings.Replace(rs[3].ID, "doc", "DOC", 1)
	other, o := writeShard(t, "/data/a.jsonl", rs)
	if len(other) != len(good) || o.CRC32C == s.CRC32C {
		t.Fatalf("the shard of another id: %d bytes, CRC-32C %08x; want %d and not %08x", len(other), o.CRC32C, len(good), s.CRC32C)
	}
	old, oldS := olderShard(good, s)
	withFooter := oldS
	withFooter.Footer = true
	for _, c := range []struct {
		name string
		b    []byte
		s    Shard
		msg  string
	}{
		{"same size, other content", other, s, fmt.Sprintf("its footer gives CRC-32C %08x, the manifest %08x", o.CRC32C, s.CRC32C)},
		{"version 5 where a footer is listed", old, withFooter, "a shard of version 5, without the footer the files of its generation have"},
		{"version 5", old, oldS, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			sa, err := NewShardAt(bytes.NewReader(c.b), "idx/index-00000.bin", c.s)
			if c.msg == "" {
				if err == nil {
					err = sa.Records([]int64{0, 3, 99}, func(int64, *Record) error { return nil })
				}
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "index shard idx/index-00000.bin: ") {
				t.Fatalf("got %v, want an ErrForeign naming the shard and %q", err, c.msg)
			}
			if sa != nil {
				t.Fatal("a reader of the foreign shard")
			}
		})
	}
}

// randomEntries returns n entries of each kind of partition part (of
// 1<<pbits), keys drawn from few values so that keys repeat.
func randomEntries(rng *rand.Rand, n, part, pbits int) [Kinds][]KeyEntry {
	var es [Kinds][]KeyEntry
	for kind := range Kinds {
		w := KeyWidth(kind)
		for range n {
			low := rng.Uint64() >> (64 - (w - pbits)) & ^uint64(0xff) // keys repeat in their low byte
			low |= uint64(rng.IntN(3))
			key := uint64(part)<<(w-pbits) | low
			if w-pbits == 64 {
				key = low
			}
			e := KeyEntry{Key: key, Shard: uint32(rng.IntN(5)), Ord: uint32(rng.IntN(1 << 20))}
			switch kind {
			case KindSim:
				e.FP = rng.Uint64()
			case KindContain:
				e.FP = ContainFP(rng.Int64N(1<<40), uint8(rng.IntN(256)))
			}
			es[kind] = append(es[kind], e)
		}
	}
	return es
}

// TestKeyFileLookup: lookups (by bucket or by a scan of the section) find
// exactly the entries a brute-force search of the entries finds.
func TestKeyFileLookup(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ n, part, pbits, keys int }{{0, 0, 0, 5}, {1, 0, 0, 1}, {200, 1, 2, 3}, {5000, 5, 3, 40}, {5000, 0, 0, 4000}} {
		es := randomEntries(rng, c.n, c.part, c.pbits)
		want := es
		for k := range Kinds {
			want[k] = slices.Clone(es[k])
		}
		var buf bytes.Buffer
		f, err := WriteKeyFile(&buf, c.part, c.pbits, &es)
		if err != nil || f.Bytes != int64(buf.Len()) {
			t.Fatal(err, f.Bytes, buf.Len())
		}
		if err := f.check(c.pbits); err != nil {
			t.Fatal(err)
		}
		if (f.Contain != nil) != (c.n > 0) {
			t.Errorf("%d entries a kind: containment section %v", c.n, f.Contain)
		}
		for kind := range Kinds {
			keys := map[uint64]bool{}
			for range c.keys { // half present, half random
				if len(want[kind]) > 0 && rng.IntN(2) == 0 {
					keys[want[kind][rng.IntN(len(want[kind]))].Key] = true
				} else if kind == KindExact && c.pbits == 0 {
					keys[rng.Uint64()] = true
				} else {
					keys[uint64(c.part)<<(KeyWidth(kind)-c.pbits)|rng.Uint64()>>(64-KeyWidth(kind)+c.pbits)] = true
				}
			}
			sorted := slices.Sorted(func(yield func(uint64) bool) {
				for k := range keys {
					if !yield(k) {
						return
					}
				}
			})
			var brute []KeyEntry
			for _, e := range want[kind] {
				if keys[e.Key] {
					brute = append(brute, e)
				}
			}
			slices.SortFunc(brute, cmpEntry)
			ka := NewKeyFileAt(bytes.NewReader(buf.Bytes()), "keys", f, c.pbits)
			var got []KeyEntry
			err := ka.Lookup(kind, sorted, func(i int, e *KeyEntry) error {
				if sorted[i] != e.Key {
					t.Fatalf("entry of key %x handed with key %d (%x)", e.Key, i, sorted[i])
				}
				got = append(got, *e)
				return nil
			})
			if err != nil || !reflect.DeepEqual(got, brute) && len(got)+len(brute) > 0 {
				t.Fatalf("%+v kind %d: %v: got %d entries, want %d", c, kind, err, len(got), len(brute))
			}
			if c.n > 0 && c.keys < 10 && ka.Read > 4096 {
				t.Fatalf("%+v kind %d: %d keys read %d bytes", c, kind, c.keys, ka.Read)
			}
		}
	}
}

// TestKeyFileDamage: a damaged header, directory entry or bucket is one
// error naming the file, whether read by bucket or by section.
func TestKeyFileDamage(t *testing.T) {
	es := randomEntries(rand.New(rand.NewPCG(5, 6)), 3000, 0, 0)
	key := es[KindBand][17].Key
	var buf bytes.Buffer
	f, err := WriteKeyFile(&buf, 0, 0, &es)
	if err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	s := f.Sections[KindBand]
	b := bucketOf(KindBand, key, 0, s.Bits)
	d := int(s.Dir) + dirEntry*b
	bucket := int(binary.LittleEndian.Uint64(good[d:]))
	mod := func(f func(b []byte)) []byte { c := slices.Clone(good); f(c); return c }
	cases := []struct {
		name string
		b    []byte
		msg  string
	}{
		{"header", mod(func(b []byte) { b[3] ^= 1 }), "bad magic"},
		{"header checksum", mod(func(b []byte) { b[13] ^= 1 }), "header checksum"},
		{"directory offset", mod(func(b []byte) { b[d] ^= 2 }), "checksum mismatch"},
		{"directory checksum", mod(func(b []byte) { b[d+9] ^= 2 }), "checksum mismatch"},
		{"bucket", mod(func(b []byte) { b[bucket] ^= 0x40 }), "checksum mismatch"},
		{"truncated", good[:s.Dir+5], "truncated"},
		{"no footer", good[:len(good)-footerLen], "truncated in the footer"},
	}
	for _, c := range cases {
		for _, keys := range [][]uint64{{key}, allBuckets(s.Bits)} {
			t.Run(c.name, func(t *testing.T) {
				ka := NewKeyFileAt(bytes.NewReader(c.b), "idx/keys-00000.bin", f, 0)
				err := ka.Lookup(KindBand, keys, func(int, *KeyEntry) error { return nil })
				if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "idx/keys-00000.bin") {
					t.Fatalf("%d keys: got %v, want an ErrCorrupt containing %q", len(keys), err, c.msg)
				}
			})
		}
	}
}

// TestKeyFileForeign: a key file whose footer is not the CRC-32C its
// manifest entry records (another partition file of the same size), or
// one of version 3 (no footer) where the entry says its generation's
// files have one, is refused at its first lookup with ErrForeign naming
// it; a version 3 key file where none is expected looks up as before.
func TestKeyFileForeign(t *testing.T) {
	es := randomEntries(rand.New(rand.NewPCG(5, 6)), 3000, 0, 0)
	key := es[KindBand][17].Key
	write := func(es [Kinds][]KeyEntry) ([]byte, KeyFile) {
		var buf bytes.Buffer
		f, err := WriteKeyFile(&buf, 0, 0, &es)
		if err != nil {
			t.Fatal(err)
		}
		return buf.Bytes(), f
	}
	good, f := write(es)
	es[KindExact][0].Ord ^= 1 // same size: a record number of one bit less or more
	other, o := write(es)
	if len(other) != len(good) || o.CRC32C == f.CRC32C {
		t.Fatalf("the other key file: %d bytes, CRC-32C %08x; want %d and not %08x", len(other), o.CRC32C, len(good), f.CRC32C)
	}
	// Version 3: no footer, the header's version and checksum.
	old := slices.Clone(good[:len(good)-footerLen])
	binary.LittleEndian.PutUint32(old[8:], 3)
	binary.LittleEndian.PutUint32(old[20:], crc32.Checksum(old[:20], castagnoli))
	oldF := f
	oldF.Bytes, oldF.CRC32C, oldF.Footer = int64(len(old)), crc32.Checksum(old, castagnoli), false
	if err := oldF.check(0); err != nil {
		t.Fatal(err)
	}
	withFooter := oldF
	withFooter.Footer = true
	for _, c := range []struct {
		name string
		b    []byte
		f    KeyFile
		msg  string
	}{
		{"same size, other content", other, f, fmt.Sprintf("its footer gives CRC-32C %08x, the manifest %08x", o.CRC32C, f.CRC32C)},
		{"version 3 where a footer is listed", old, withFooter, "a key file of version 3, without the footer the files of its generation have"},
		{"version 3", old, oldF, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ka := NewKeyFileAt(bytes.NewReader(c.b), "idx/keys-00000.bin", c.f, 0)
			found := 0
			err := ka.Lookup(KindBand, []uint64{key}, func(int, *KeyEntry) error { found++; return nil })
			if c.msg == "" {
				if err != nil || found == 0 {
					t.Fatalf("%v, %d entries found", err, found)
				}
				return
			}
			if !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "index key file idx/keys-00000.bin: ") {
				t.Fatalf("got %v, want an ErrForeign naming the file and %q", err, c.msg)
			}
			if found > 0 || ka.Read > keyHeaderLen+footerLen {
				t.Fatalf("a foreign key file: %d entries found, %d bytes read", found, ka.Read)
			}
		})
	}
}

// allBuckets returns a band key in each bucket of bits bucket bits, for a
// lookup that reads the whole section.
func allBuckets(bits int) []uint64 {
	var keys []uint64
	for b := range 1 << bits {
		keys = append(keys, uint64(b)<<(wire.KeyBits-bits))
	}
	return keys
}

// FuzzKeyFile: any bytes in place of a key file either look up or fail
// with an error wrapping ErrCorrupt, ErrVersion or ErrForeign; never a
// panic.
func FuzzKeyFile(f *testing.F) {
	es := randomEntries(rand.New(rand.NewPCG(7, 8)), 100, 0, 0)
	var buf bytes.Buffer
	kf, err := WriteKeyFile(&buf, 0, 0, &es)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	keys := [Kinds][]uint64{}
	for kind := range Kinds {
		for _, e := range es[kind][:10] {
			keys[kind] = append(keys[kind], e.Key)
		}
		slices.Sort(keys[kind])
		keys[kind] = slices.Compact(keys[kind])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ka := NewKeyFileAt(bytes.NewReader(b), "fuzz", kf, 0)
		for kind := range Kinds {
			err := ka.Lookup(kind, keys[kind], func(int, *KeyEntry) error { return nil })
			if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) && !errors.Is(err, ErrForeign) {
				t.Fatalf("error %v wraps none of ErrCorrupt, ErrVersion and ErrForeign", err)
			}
		}
	})
}
