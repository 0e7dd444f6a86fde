// Package plan decides the settings of a job from the user's options and
// the input's size: the LSH bands and rows, the SimHash blocks, the
// shuffle rounds within the memory budget, the partitions and their
// scaling, the connected-components rounds and the lines of a segment. It
// checks the options once (Check), before any work, takes an audit's
// settings from its index (WithIndex), and refuses an input that cannot
// fit the memory budget before the job starts (New). Its errors name the
// options as neardup's flags (--threshold, --memory).
package plan

import (
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/match/blocking"
	"github.com/neardup/neardup/transforms/match/ensemble"
)

// Options are a job's settings as the user gave them: the command's flags.
type Options struct {
	// Config holds the settings of the job; Bands and Rows, SimBlocks and
	// Rounds 0 and CCRounds -1 are chosen by New.
	Config job.Config
	// Shingle is the shingles as "char:N" or "word:N"; "": Config.Tokens
	// and Config.Shingle as they are.
	Shingle string
	// SegmentLines is the lines of one input file per segment, a power of
	// two; 0: chosen for the runner.
	SegmentLines int
	// Memory is the memory the job may use on a local runner (ParseMemory).
	Memory string
	// MaxRejectRatio is the share of rejected records above which the job
	// fails; 1: never.
	MaxRejectRatio float64
	// Given names the options the user gave, by their flag names
	// (partitions, threshold, ...): New does not scale the partitions
	// given, and an index's settings (WithIndex) must equal those given.
	Given map[string]bool
}

// Runner is where a job runs.
type Runner struct {
	Engine Engine
	Spill  bool // on the direct runner, the large shuffles go through files
	// MachineMemory is the machine's memory in bytes (MachineMemory); 0:
	// unknown.
	MachineMemory int64
}

// A Plan is a job's settings, decided.
type Plan struct {
	Config job.Config
	// Budget is the memory the job may use, in bytes; 0: no budget (a
	// share of a machine whose memory is unknown).
	Budget int64
	// Note, if not "", says on one line that the workers or branches were
	// lowered to fit the budget (see fitWorkers), for the command to print.
	Note string
}

// New decides the settings o leaves open for a job on r over input files
// of stored bytes in all (as stored), o having passed Check. It fails if
// the input cannot fit the memory budget; on a local runner it lowers
// the workers and branches to what fits beside the input (Plan.Note).
func New(o Options, r Runner, files []string, stored int64) (Plan, error) {
	c := o.Config
	if c.Bands == 0 {
		b := blocking.ChooseBands(c.Threshold, c.Perms, blocking.DefaultWeights)
		c.Bands, c.Rows = b.B, b.R
	}
	sc := scanInputs(files, c.Format, stored)
	input := sc.input
	if c.SimBlocks == 0 {
		// About 1 KB of decompressed input per document. Pairs of a
		// table bucket farther than k bits are dropped in the bucket, so
		// a chance collision costs one comparison.
		c.SimBlocks = blocking.ChooseDesign(c.Hamming, max(input/1024, 1)).Blocks
	}
	n, err := rounds(o, r, stored, input)
	if err != nil {
		return Plan{}, err
	}
	c.Rounds = n
	mem, _ := ParseMemory(o.Memory)
	budget := mem.Of(r.MachineMemory)
	var note string
	if r.Engine.Local() && budget > 0 {
		room := max(budget-r.Peak(input, n, c.Containment > 0), 0)
		if note, err = fitWorkers(&c, o, r, budget, room, sc); err != nil {
			return Plan{}, err
		}
		c.DecideBytes = DecideBytes(budget)
	}
	c.IndexKeyBits = KeyBits(input, ensemble.KeysPerDoc(c.ContainOptions()))
	spill := r.model(false).shape == spilled
	scale := PartitionScale(input, spill)
	if !o.Given["partitions"] {
		c.Partitions *= scale
	}
	if !o.Given["cc-partitions"] {
		c.CCPartitions *= scale
	}
	if c.CCRounds == -1 {
		c.CCRounds = AutoCCRounds(r.Engine.Local(), input, spill)
	}
	return Plan{Config: c, Budget: budget, Note: note}, nil
}
