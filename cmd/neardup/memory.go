package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/klauspost/compress/zstd"

	"github.com/neardup/neardup/transforms"
	"github.com/neardup/neardup/transforms/format/record"
)

// The memory budget of a local run (--memory): the job's soft memory limit,
// its shuffle rounds and a refusal before the run when the input cannot fit.

// defaultMemory is --memory's default: half of the machine's memory. The
// other half is the page cache's, through which the job reads its inputs
// and its spool (about twice the decompressed input) again and again, and
// the other programs'. The SCALE corpus tiled 10 times (13.9M documents,
// 12.5 GB of JSONL) needs about 7.5 GB by the model below, so it fits the
// default on a 24 GiB machine with room to spare.
const defaultMemory = "50%"

// A memoryBudget is the parsed value of --memory: a size in bytes, or a
// share of the machine's memory.
type memoryBudget struct {
	bytes int64   // a size; 0 when share is set
	share float64 // a share of the machine's memory, in (0, 1]
}

// parseMemory reads --memory: a size with a unit as go-humanize reads it
// (8GiB, 512MiB, 1.5TiB in powers of 1024; 8G, 8GB, 500MB in powers of
// 1000; the unit in any case, a space allowed) or a share of the machine's
// memory in percent (50%). A bare number is refused: 8 bytes is never
// meant, and 0.5 is better written 50%.
func parseMemory(s string) (memoryBudget, error) {
	t := strings.TrimSpace(s)
	bad := func(why string) (memoryBudget, error) {
		return memoryBudget{}, usagef("--memory %q: %s", s, why)
	}
	const want = "want a size such as 8GiB, 512MiB or 8G, or a share of the machine's memory such as 50%"
	if p, ok := strings.CutSuffix(t, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(v > 0 && v <= 100) {
			return bad("want a share from 0% (excluded) to 100%")
		}
		return memoryBudget{share: v / 100}, nil
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
	return memoryBudget{bytes: int64(n)}, nil
}

// of is the budget in bytes on a machine of total bytes (0 if unknown, when
// a share gives 0: no budget).
func (m memoryBudget) of(total int64) int64 {
	if m.bytes > 0 {
		return m.bytes
	}
	return int64(m.share * float64(total))
}

// machineMemory returns the memory this process may use: the machine's
// (MemTotal of /proc/meminfo), or its control group's limit if lower (a
// container's), in bytes; 0 if unknown.
func machineMemory() int64 {
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
// about 900 bytes a document):
//
//	direct runner, spilled shuffles (the default):  650 MB + 0.05 U
//	direct runner, --spill=false:  300 MB + 0.50 U + 0.59 U / min(R, 8)
//	Prism:          1 GB + 1.03 U    (rounds do not bound what Prism holds)
//
// Spilled, under the default budget, with every shuffle that grows with
// the input spilled and the partitions scaled (transforms.PartitionScale;
// `COPIES="4 10" BASELINE=0 scripts/bench.sh`, on a shared machine): x1
// (1.25 GB of JSONL) 0.61 GB (model 0.71), x4 (4.98 GB) 0.76-0.79 GB
// (0.90), x10 (12.4 GB) 0.85-1.17 GB (1.27); docs/BENCHMARKS.md has the
// current table.
//
// Direct runner without spilling, measured (U, R: peak RSS) against the model, under the
// soft limit of the default budget (9/10 of half the machine's 24 GiB,
// which lets the heap grow to about twice what is in use): x1 (1.25 GB of
// JSONL) 4 rounds 0.86-0.96 GB (model 1.11); x10 (12.5 GB) 8 rounds
// 6.83-7.32 GB (7.47). Under the former soft limit of 5 GiB: x1 1 round
// 1.35-1.45 GB (1.66); x4 (5.0 GB) 8 rounds 2.14-2.36 GB (3.17), 16 rounds
// 2.30 GB; x10 5.52-5.62 GB. The model lies above every measurement; rounds
// beyond 8 were not measured to help (x4: 2.36 against 2.30 GB, one run
// each), so it counts at most 8. Prism: x1 2.18-2.26 GB (model 2.29), x4
// 5.12 GB (6.15), x10 13.8 GB (13.9).
const (
	peakFixed       = 300e6
	peakPerByte     = 0.50
	peakRoundBytes  = 0.59
	spillFixed      = 650e6
	spillPerByte    = 0.05
	prismFixed      = 1e9
	prismPerByte    = 1.03
	compressedRatio = 4 // assumed decompressed/stored of a compressed file whose size is not known
)

// spilledModel is the model name estimatePeak and chooseRounds take for the
// direct runner with the shuffles spilled (--spill, the default): what it
// holds does not depend on the rounds, and grows little with the input.
const spilledModel = "direct+spill"

// memoryModel is the model of a local run on runner: spilledModel for the
// direct runner with --spill, else the runner's own.
func memoryModel(runner string, spill bool) string {
	if runner == "direct" && spill {
		return spilledModel
	}
	return runner
}

// estimatePeak is the model's peak resident memory, in bytes, of a local run
// on the runner (or spilledModel) over input bytes (decompressed) in rounds
// shuffle rounds.
func estimatePeak(runner string, input int64, rounds int) int64 {
	u := float64(input)
	switch runner {
	case "prism":
		return int64(prismFixed + prismPerByte*u)
	case spilledModel:
		return int64(spillFixed + spillPerByte*u)
	}
	return int64(peakFixed + peakPerByte*u + peakRoundBytes*u/float64(min(max(rounds, 1), transforms.MaxRounds)))
}

// chooseRounds returns the shuffle rounds of a local run over input files
// of stored bytes as stored and input bytes decompressed, and the model's
// peak with them: rounds if the user gave them (non-zero), else the fewest
// from transforms.AutoRounds (which follows the stored size) up to
// transforms.MaxRounds that keep the peak within budget (more rounds when
// the budget is small). fits is false if even those do not.
func chooseRounds(runner string, stored, input, budget int64, branches, rounds int) (n int, peak int64, fits bool) {
	if rounds > 0 {
		peak = estimatePeak(runner, input, rounds)
		return rounds, peak, peak <= budget
	}
	base := transforms.AutoRounds(stored, branches, runner != spilledModel)
	top := max(base, transforms.MaxRounds)
	if runner == "prism" || runner == spilledModel {
		top = base // more rounds do not help
	}
	for n = base; ; n++ {
		peak = estimatePeak(runner, input, n)
		if peak <= budget || n >= top {
			return n, peak, peak <= budget
		}
	}
}

// planMemory sets cfg.Rounds when it is 0 (automatic) and, on a local run,
// checks the model's peak against the budget of --memory: an input that
// cannot fit is a usageError before any work, naming the estimate, the
// budget and what to do. stored is the input files' size as stored.
func planMemory(f *runFlags, cfg *transforms.Config, files []string, stored int64) error {
	total := machineMemory()
	budget := f.memory.of(total)
	if !localRunner() || budget <= 0 {
		if cfg.Rounds == 0 {
			cfg.Rounds = transforms.AutoRounds(stored, cfg.Branches, localRunner() && memoryModel(runnerName(), f.spill) != spilledModel)
		}
		return nil
	}
	input := decompressedBytes(files, cfg.Format, stored)
	model := memoryModel(runnerName(), f.spill)
	rounds, peak, fits := chooseRounds(model, stored, input, budget, cfg.Branches, cfg.Rounds)
	if !fits {
		with, raise := fmt.Sprintf("even with %d shuffle rounds", rounds), "raise --memory"
		if cfg.Rounds > 0 {
			with = fmt.Sprintf("with --rounds %d", rounds)
			if _, _, ok := chooseRounds(model, stored, input, budget, cfg.Branches, max(rounds, transforms.MaxRounds)); ok {
				raise = "raise --rounds (or leave it out) or --memory"
			}
		}
		switch model {
		case "prism":
			with = "on Prism, which holds every shuffled byte (the direct runner needs less)"
		case spilledModel:
			with = "with the large shuffles spilled to disk"
		}
		given := f.memoryFlag
		if f.memory.share > 0 {
			given += " of " + gib(total)
		}
		return usagef("the input (%s as stored, about %s decompressed) needs about %s of memory %s, more than --memory %s (%s): %s, or run on a cluster (see 'neardup help runners')",
			gib(stored), gib(input), gib(peak), with, given, gib(budget), raise)
	}
	cfg.Rounds = rounds
	return nil
}

// scalePartitions multiplies the partitions and the components partitions
// that were not given (--partitions, --cc-partitions) by
// transforms.PartitionScale of input bytes (decompressed): on the direct
// runner with the shuffles spilled, what a stage holds is the groups it
// works on, so their number grows with the input. It returns the factor.
func scalePartitions(f *runFlags, cfg *transforms.Config, input int64) int {
	k := transforms.PartitionScale(input, memoryModel(runnerName(), f.spill) == spilledModel)
	given := flagSet(flag.CommandLine)
	if !given["partitions"] {
		cfg.Partitions *= k
	}
	if !given["cc-partitions"] {
		cfg.CCPartitions *= k
	}
	return k
}

// gib formats n bytes in GiB (MiB below one GiB).
func gib(n int64) string {
	if n < 1<<30 {
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// decompressedBytes estimates the decompressed size of the input files,
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
func decompressedBytes(files []string, format string, stored int64) int64 {
	f, _ := record.ParseFormat(format)
	var total, local int64
	remote, compressed := false, false
	for _, path := range files {
		if strings.Contains(path, "://") {
			remote = true
			compressed = compressed || record.ByName(path) != record.Unknown || record.FormatFor(path, f) == record.Parquet
			continue
		}
		size, n := fileInputBytes(path, f)
		local += size
		total += n
	}
	if rest := stored - local; remote && rest > 0 {
		if compressed {
			rest *= compressedRatio
		}
		total += rest
	}
	return total
}

// fileInputBytes returns the size of a local file and decompressedBytes of
// it.
func fileInputBytes(path string, format record.Format) (size, input int64) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return 0, 0
	}
	size = fi.Size()
	if record.FormatFor(path, format) == record.Parquet {
		return size, size * compressedRatio
	}
	fh, err := os.Open(path)
	if err != nil {
		return size, size
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
				return size, isize
			}
		}
		return size, size * compressedRatio
	case record.Zstd:
		var h zstd.Header
		if err := h.Decode(head); err == nil && h.HasFCS && int64(h.FrameContentSize) >= size {
			return size, int64(h.FrameContentSize)
		}
		return size, size * compressedRatio
	}
	return size, size
}

// softLimit is the Go runtime's soft memory limit for a budget: nine tenths
// of it. The limit counts only the runtime's own memory, and freed pages
// the kernel has not taken back yet (neardup runs with madvdontneed=0)
// still count in the resident memory, so the collector must start working
// hard a little before the budget is reached.
func softLimit(budget int64) int64 { return budget - budget/10 }

// setMemoryLimit is debug.SetMemoryLimit; a test may watch it.
var setMemoryLimit = debug.SetMemoryLimit
