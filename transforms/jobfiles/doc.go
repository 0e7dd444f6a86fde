// Package jobfiles is what the stages share of a job's files: the work
// directory (WorkDir: info shards, document shards, spool copies of the
// inputs, index pre-shards, and the first pass's reading of each input,
// which later readers check the files against), and the names of every
// work file (IsWorkFile). Below it, package filelist is the input file list and its
// branches, package input the reading of an input file, package spool the
// local copies of compressed inputs, package docshards the document
// shards, and package spilled the spilled shuffles. It holds no stage and no job configuration: every stage
// package imports it, and job.Config.WorkDir gives the handle on a job's
// work directory.
package jobfiles
