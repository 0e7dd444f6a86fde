// Package jobfiles is the job's work directory: the handle every stage's
// DoFns hold on it (WorkDir, which job.Config.WorkDir gives), the name of
// every file a job writes there (IsWorkFile; InfoShardName, DocShardName,
// SeenName, PartName, SpillPattern), and the writing and removing of those
// files (WriteAtomically, WorkFileError, RemoveAll, StopWriters). In: the
// job's settings of its work directory; out: names and errors that every
// file of the job shares. It holds no stage and no job configuration.
//
// The packages under it make the files, each of one kind, and import it
// (none imports another above it):
//
//	filelist   the input file list and its branches, as Beam collections
//	spool      the local copies of compressed inputs
//	input      an input file read as every pass reads it, checked against the first pass
//	docshards  each segment's normalized documents, for the passes that shingle them
//	recshards  the shards in the index format: index pre-shards and info shards
//	spilled    the shuffles carried as spill files' names on one machine
package jobfiles
