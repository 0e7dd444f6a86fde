package jobfiles

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/neardup/neardup/transforms/format/output"
)

// InputsManifest is the file manifest of a job's inputs in its work
// directory (see workfiles.WriteManifest), and CheckManifest an audit's
// manifest of the files its exact checks read: the new files and the
// indexed documents' sources.
const (
	InputsManifest = "inputs.tsv"
	CheckManifest  = "check-inputs.tsv"
)

// IsWorkFile reports whether name is a file the job writes in its work
// directory: an info shard, a document shard (see DocShardName), a spill
// file (see spilled.To), the first pass's
// reading of an input (SeenName), a spool copy (SpoolName), or the
// temporary name of one being written.
func IsWorkFile(name string) bool {
	if rest, ok := strings.CutPrefix(name, ".tmp-"); ok {
		name = rest[:max(strings.LastIndexByte(rest, '-'), 0)]
	}
	if name == InputsManifest || name == CheckManifest || IsSpillName(name) || IsDocShardName(name) || IsPartName(name) {
		return true
	}
	if rest, ok := strings.CutPrefix(name, "info-"); ok {
		f, seg, ok := strings.Cut(rest, "-")
		file, err := strconv.Atoi(f)
		index, err2 := strconv.Atoi(strings.TrimSuffix(seg, ".bin"))
		if ok && err == nil && err2 == nil && file >= 0 && index >= 0 && name == InfoShardName(file, index) {
			return true
		}
	}
	for _, kind := range []struct {
		prefix, suffix string
		name           func(int) string
	}{{"info-", ".bin", OldInfoShardName}, {"seen-", ".json", SeenName}, {"input-", "", SpoolName}} {
		digits, ok := strings.CutPrefix(name, kind.prefix)
		digits, ok2 := strings.CutSuffix(digits, kind.suffix)
		if n, err := strconv.Atoi(digits); ok && ok2 && err == nil && n >= 0 && name == kind.name(n) {
			return true
		}
	}
	return false
}

// InfoShardName is the name of the info shard of segment index (within
// the file) of input file index file: names sort by file, then segment.
func InfoShardName(file, index int) string { return fmt.Sprintf("info-%05d-%06d.bin", file, index) }

// DocShardName is the name of the document shard of segment index (within
// the file) of input file index file: names sort by file, then segment.
func DocShardName(file, index int) string { return fmt.Sprintf("docs-%05d-%06d.bin", file, index) }

// IsDocShardName reports whether name is a document shard's.
func IsDocShardName(name string) bool {
	rest, ok := strings.CutPrefix(name, "docs-")
	f, seg, ok2 := strings.Cut(rest, "-")
	file, err := strconv.Atoi(f)
	index, err2 := strconv.Atoi(strings.TrimSuffix(seg, ".bin"))
	return ok && ok2 && err == nil && err2 == nil && file >= 0 && index >= 0 && name == DocShardName(file, index)
}

// SeenName is the name of the first pass's InputFile of input file index
// file in the work directory.
func SeenName(file int) string { return fmt.Sprintf("seen-%05d.json", file) }

// SpillPattern matches the names of spill files: spill-KIND-PID-TAG-N.bin
// (spilled.Name).
const SpillPattern = "spill-*.bin"

// IsSpillName reports whether name is a spill file's.
func IsSpillName(name string) bool {
	ok, _ := filepath.Match(SpillPattern, name)
	return ok && !strings.ContainsAny(name, `/\`)
}

// SpoolName is the name of the spool copy of input file index file (see
// package spool) in the spool directory, which is the work directory.
func SpoolName(file int) string { return fmt.Sprintf("input-%05d", file) }

// OldInfoShardName is the name of a whole file's info shard in neardup
// before segments: a failed run's work directory may still hold one.
func OldInfoShardName(file int) string { return fmt.Sprintf("info-%05d.bin", file) }

// PartName is the name of the part of index (within the file) of input
// file index file's shard of kind.
func PartName(kind string, file, index int) string {
	return fmt.Sprintf("part-%s-%05d-%06d.jsonl", kind, file, index)
}

// IsPartName reports whether name is a part's.
func IsPartName(name string) bool {
	for _, kind := range []string{output.KindPairs, output.KindClusters, output.KindRejects} {
		var file, index int
		if _, err := fmt.Sscanf(name, "part-"+kind+"-%05d-%06d.jsonl", &file, &index); err == nil && name == PartName(kind, file, index) {
			return true
		}
	}
	return false
}
