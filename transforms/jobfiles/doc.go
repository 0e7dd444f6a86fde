// Package jobfiles is what the stages share of a job's files: the input
// file list and its branches (Files, NewFiles, WriteFileManifest), the work
// directory (WorkDir: info shards, document shards, spool copies of the
// inputs, index pre-shards, and the first pass's reading of each input,
// which later readers check the files against), spilled shuffles
// (GroupSpilled, SpillOut, SpillIn), the shuffle rounds of segment-keyed
// collections (SplitSegmentRounds), and the names of every work file
// (IsWorkFile). It holds no stage: every stage package imports it.
package jobfiles
