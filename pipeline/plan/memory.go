package plan

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/klauspost/compress/zstd"

	"github.com/neardup/neardup/transforms/format/record"
)

// The memory budget of a local run (--memory): its shuffle rounds and a
// refusal before the run when the input cannot fit.

// DefaultMemory is the memory budget's default: half of the machine's
// memory. The other half is the page cache's, through which the job reads
// its inputs and its spool (about twice the decompressed input) again and
// again, and the other programs'. By the model below, the largest corpus
// measured (docs/BENCHMARKS.md) fits the default on a 24 GiB machine with
// room to spare.
const DefaultMemory = "50%"

// A Memory is a memory budget (--memory): a size in bytes, or a share of
// the machine's memory.
type Memory struct {
	bytes int64   // a size; 0 when share is set
	share float64 // a share of the machine's memory, in (0, 1]
}

// ParseMemory reads a memory budget (--memory): a size with a unit as
// go-humanize reads it (8GiB, 512MiB, 1.5TiB in powers of 1024; 8G, 8GB,
// 500MB in powers of 1000; the unit in any case, a space allowed) or a
// share of the machine's memory in percent (50%). A bare number is refused: 8 bytes is never
// meant, and 0.5 is better written 50%.
func ParseMemory(s string) (Memory, error) {
	t := strings.TrimSpace(s)
	bad := func(why string) (Memory, error) {
		return Memory{}, fmt.Errorf("--memory %q: %s", s, why)
	}
	const want = "want a size such as 8GiB, 512MiB or 8G, or a share of the machine's memory such as 50%"
	if p, ok := strings.CutSuffix(t, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(v > 0 && v <= 100) {
			return bad("want a share from 0% (excluded) to 100%")
		}
		return Memory{share: v / 100}, nil
	}
	if t == "" || strings.IndexFunc(t, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) < 0 {
		return bad(want)
	}
	n, err := humanize.ParseBytes(t)
	if err != nil {
		return bad(want)
	}
	if n == 0 || n > 1<<62 {
		return bad("want more than 0 bytes and at most 4 EiB")
	}
	return Memory{bytes: int64(n)}, nil
}

// Of is the budget in bytes on a machine of total bytes (0 if unknown, when
// a share gives 0: no budget).
func (m Memory) Of(total int64) int64 {
	if m.bytes > 0 {
		return m.bytes
	}
	return int64(m.share * float64(total))
}

// MachineMemory returns the memory this process may use: the machine's
// (MemTotal of /proc/meminfo), or its control group's limit if lower (a
// container's), in bytes; 0 if unknown.
func MachineMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	total := memTotal(string(b))
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if b, err := os.ReadFile(path); err == nil {
			if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
				total = n // "max" (no limit) does not parse
			}
		}
	}
	return total
}

// memTotal is MemTotal of the text of /proc/meminfo, in bytes; 0 if absent.
func memTotal(meminfo string) int64 {
	for _, line := range strings.Split(meminfo, "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// The memory model: the peak resident memory of a local run, from the
// decompressed input U (bytes) and the shuffle rounds R, fitted to the
// measurements of docs/BENCHMARKS.md (the tiled SCALE corpus; JSONL of
// about 900 bytes a document), above each of them:
//
//	direct runner, spilled shuffles (the default):  650 MB + 0.05 U
//	direct runner, --spill=false:  300 MB + 0.50 U + 0.59 U / min(R, 8)
//	Prism:          1 GB + 1.03 U    (rounds do not bound what Prism holds)
//
// Rounds beyond MaxRounds are not counted: they were not
// measured to help. With --containment (model.contain) the shuffles are 8 to 16 times larger, and:
//
//	direct runner, spilled:  0.64 GB + 0.34 U
//	Prism, or the direct runner unspilled:  1 GB + 8 U
//
// The first is what a run needs: given a budget about that size, its soft
// limit keeps the heap near what is in use, and the clusters stage, with
// DecideBytes an eighth of it, decides its largest partition on disk.
// Under a larger budget the heap grows further, for the same outputs.
//
// The second from one measurement of Prism and the shuffled bytes of
// SCALE x1 (docs/BENCHMARKS.md): both runners hold every shuffled byte.
// TestEstimatePeak holds the model to the measurements.
const (
	peakFixed       = 300e6
	peakPerByte     = 0.50
	peakRoundBytes  = 0.59
	spillFixed      = 650e6
	spillPerByte    = 0.05
	prismFixed      = 1e9
	prismPerByte    = 1.03
	compressedRatio = 4 // assumed decompressed/stored of a compressed file whose size is not known

	spillContainFixed   = 0.64e9
	spillContainPerByte = 0.34
	heldContainPerByte  = 8
)

// model is a memory model of a local run: the runner's shape, with or
// without containment.
type model struct {
	shape   shape
	contain bool
}

// shape is what a local runner holds of the shuffles.
type shape int

const (
	held    shape = iota // the direct runner with --spill=false: every shuffled byte, in rounds
	spilled              // the direct runner with the large shuffles spilled (--spill, the default): what it holds grows little with the input
	prism                // Prism: every shuffled byte, whatever the rounds
)

// model is the memory model of a local run on r, with or without
// containment.
func (r Runner) model(contain bool) model {
	switch {
	case r.Engine == Prism:
		return model{prism, contain}
	case r.Engine == Direct && r.Spill:
		return model{spilled, contain}
	}
	return model{held, contain}
}

// String names m in tests.
func (m model) String() string {
	name := [...]string{held: "direct", spilled: "direct+spill", prism: "prism"}[m.shape]
	if m.contain {
		name += "+containment"
	}
	return name
}

// Peak is the model's peak resident memory, in bytes, of a local run on r
// over input bytes (decompressed) in rounds shuffle rounds, with or
// without containment.
func (r Runner) Peak(input int64, rounds int, contain bool) int64 {
	return r.model(contain).peak(input, rounds)
}

// peak is the model's peak resident memory, in bytes, of a local run over
// input bytes (decompressed) in rounds shuffle rounds.
func (m model) peak(input int64, rounds int) int64 {
	u := float64(input)
	switch {
	case m.contain && m.shape == spilled:
		return int64(spillContainFixed + spillContainPerByte*u)
	case m.contain:
		return int64(prismFixed + heldContainPerByte*u)
	case m.shape == prism:
		return int64(prismFixed + prismPerByte*u)
	case m.shape == spilled:
		return int64(spillFixed + spillPerByte*u)
	}
	return int64(peakFixed + peakPerByte*u + peakRoundBytes*u/float64(min(max(rounds, 1), MaxRounds)))
}

// DecideBytes is the memory the clusters stage may hold to decide one
// partition of components (job.Config.DecideBytes) on a local run with a
// budget of budget bytes: an eighth of it, from 64 MiB to 1 GiB. It is the
// one budget of external.Partition, whose one cost model counts
// external.MemberBytes a member and external.LinkBytes a link besides
// their IDs: a partition that costs more is decided spilled to disk, and
// that decision holds within the same bytes (its sorts buffer an eighth
// of them each, at most four at a time). The peak model above is fitted to
// runs that include it. With --fates, the write stage sorts each file's
// fates within the same bytes (job.OutDir.SortBytes).
func DecideBytes(budget int64) int64 { return min(max(budget/8, 64<<20), 1<<30) }

// chooseRounds returns the shuffle rounds of a local run over input files
// of stored bytes as stored and input bytes decompressed, and the model's
// peak with them: rounds if the user gave them (non-zero), else the fewest
// from AutoRounds (which follows the stored size) up to
// MaxRounds that keep the peak within budget (more rounds when
// the budget is small). fits is false if even those do not.
func chooseRounds(m model, stored, input, budget int64, branches, rounds int) (n int, peak int64, fits bool) {
	if rounds > 0 {
		peak = m.peak(input, rounds)
		return rounds, peak, peak <= budget
	}
	base := AutoRounds(stored, branches, m.shape != spilled)
	top := max(base, MaxRounds)
	if m.contain || m.shape != held {
		top = base // more rounds do not help
	}
	for n = base; ; n++ {
		peak = m.peak(input, n)
		if peak <= budget || n >= top {
			return n, peak, peak <= budget
		}
	}
}

// rounds returns the shuffle rounds of a job over input files of stored
// bytes as stored and input bytes decompressed: given (non-zero) or
// chosen, on a local run with a budget so that the model's peak fits it.
// An input that cannot fit is an error naming the estimate, the budget
// and what to do.
func rounds(o Options, r Runner, stored, input int64) (int, error) {
	c := o.Config
	mem, err := ParseMemory(o.Memory)
	if err != nil {
		return 0, err
	}
	budget := mem.Of(r.MachineMemory)
	if !r.Engine.Local() || budget <= 0 {
		if c.Rounds > 0 {
			return c.Rounds, nil
		}
		return AutoRounds(stored, c.Branches, r.Engine.Local() && r.model(false).shape != spilled), nil
	}
	m := r.model(c.Containment > 0)
	n, peak, fits := chooseRounds(m, stored, input, budget, c.Branches, c.Rounds)
	if fits {
		return n, nil
	}
	with, raise := fmt.Sprintf("even with %d shuffle rounds", n), "raise --memory"
	if c.Rounds > 0 {
		with = fmt.Sprintf("with --rounds %d", n)
		if _, _, ok := chooseRounds(m, stored, input, budget, c.Branches, max(n, MaxRounds)); ok {
			raise = "raise --rounds (or leave it out) or --memory"
		}
	}
	switch m.shape {
	case prism:
		with = "on Prism, which holds every shuffled byte (the direct runner needs less)"
	case spilled:
		with = "with the large shuffles spilled to disk"
	}
	if c.Containment > 0 {
		with += " and --containment"
	}
	given := o.Memory
	if mem.share > 0 {
		given += " of " + gib(r.MachineMemory)
	}
	return 0, fmt.Errorf("the input (%s as stored, about %s decompressed) needs about %s of memory %s, more than --memory %s (%s): %s, or run on a cluster (see 'neardup help runners')",
		gib(stored), gib(input), gib(peak), with, given, gib(budget), raise)
}

// gib formats n bytes in GiB (MiB below one GiB, TiB from one TiB).
func gib(n int64) string {
	switch {
	case n < 1<<30:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	case n >= 1<<40:
		return fmt.Sprintf("%.1f TiB", float64(n)/(1<<40))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// DecompressedBytes estimates the decompressed size of the input files,
// of stored bytes as stored, cheaply, without decompressing: a local gzip
// file's size is the one its last 4 bytes give (ISIZE: exact for a file of
// one gzip member under 4 GiB, the usual case; when it says less than the
// file's size, a file of several members or of 4 GiB or more, the file's
// size times compressedRatio), a local zstd file's the content size its
// first frame's header gives, when it does and it is at least the file's
// size (else times compressedRatio); a Parquet file (compressed inside)
// counts its size times compressedRatio, any other local file its size.
// Remote files count what is left of stored, times compressedRatio if one
// of them is compressed (by its name) or Parquet. Local files that are not
// regular files count 0 (the job rejects them).
func DecompressedBytes(files []string, format record.Format, stored int64) int64 {
	return scanInputs(files, format, stored).input
}

// inputScan is what the plan learns of the input files before the job.
type inputScan struct {
	input int64 // DecompressedBytes
	// window is the largest window of the first frames of the local zstd
	// files (the history each of their readers holds), windowFile the
	// first file with it; 0 and "" without a zstd file.
	window     int64
	windowFile string
}

// scanInputs returns DecompressedBytes of the files and their largest
// zstd window.
func scanInputs(files []string, f record.Format, stored int64) inputScan {
	var sc inputScan
	var local int64
	remote, compressed := false, false
	for _, path := range files {
		if strings.Contains(path, "://") {
			remote = true
			compressed = compressed || record.ByName(path) != record.Unknown || record.FormatFor(path, f) == record.Parquet
			continue
		}
		size, n, window := fileInputBytes(path, f)
		local += size
		sc.input += n
		if window > sc.window {
			sc.window, sc.windowFile = window, path
		}
	}
	if rest := stored - local; remote && rest > 0 {
		if compressed {
			rest *= compressedRatio
		}
		sc.input += rest
	}
	return sc
}

// fileInputBytes returns the size of a local file, DecompressedBytes of
// it and, for a zstd file, the window of its first frame.
func fileInputBytes(path string, format record.Format) (size, input, window int64) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return 0, 0, 0
	}
	size = fi.Size()
	if record.FormatFor(path, format) == record.Parquet {
		return size, size * compressedRatio, 0
	}
	fh, err := os.Open(path)
	if err != nil {
		return size, size, 0
	}
	defer fh.Close()
	head := make([]byte, zstd.HeaderMaxSize)
	n, _ := io.ReadFull(fh, head)
	head = head[:n]
	switch record.Sniff(head) {
	case record.Gzip:
		var tail [4]byte
		if _, err := fh.ReadAt(tail[:], size-4); err == nil {
			if isize := int64(binary.LittleEndian.Uint32(tail[:])); isize >= size {
				return size, isize, 0
			}
		}
		return size, size * compressedRatio, 0
	case record.Zstd:
		var h zstd.Header
		if err := h.Decode(head); err != nil {
			return size, size * compressedRatio, 0
		}
		window = int64(h.WindowSize)
		if h.SingleSegment || window == 0 {
			window = int64(h.FrameContentSize) // the decoder's window is then the content
		}
		if h.HasFCS && int64(h.FrameContentSize) >= size {
			return size, int64(h.FrameContentSize), window
		}
		return size, size * compressedRatio, window
	}
	return size, size, 0
}
