package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/neardup/neardup/cmd/neardup/internal/inputs"
	"github.com/neardup/neardup/cmd/neardup/internal/outdir"
	"github.com/neardup/neardup/pipeline/plan"
	"github.com/neardup/neardup/transforms/job"
	"github.com/neardup/neardup/transforms/jobstate"
)

// A job is what 'neardup run' and 'neardup audit' do their own way; doJob
// does what they do alike: parse the flags, plan the job, stage its
// outputs, run it, commit the outputs and print what it did.
type jobCommand interface {
	// register registers the job's flags on fs and returns the shared ones.
	register(fs *flag.FlagSet) *runFlags
	// usage prints the help.
	usage()
	// check checks what plan.Check does not: the flags required, and
	// those that must differ.
	check() error
	// dirs are the directories the job names, for outdir.CheckOverlap and
	// outdir.CheckInputs.
	dirs() []outdir.Path
	// options returns the options to plan the job with, once Beam is up.
	options(ctx context.Context) (plan.Options, error)
	// stage opens, with open, the directories the job writes into and
	// returns the output directory (--output); it sets cfg's other
	// directories.
	stage(ctx context.Context, open opener, cfg *job.Config, files []string) (*outdir.Dir, error)
	// build adds the job to the pipeline.
	build(ctx context.Context, s beam.Scope, cfg job.Config, files []string) error
	// finish checks and commits the outputs of a job that ran, and prints
	// what it did.
	finish(ctx context.Context, d doneJob) error
}

// An opener opens a directory of kind k for the job (outdir.Dir.Open),
// aborted when the job does not end well.
type opener func(k outdir.Kind, dir string) (*outdir.Dir, error)

// doneJob is a job that ran.
type doneJob struct {
	engine         plan.Engine
	res            beam.PipelineResult
	start          time.Time
	took           time.Duration
	cfg            job.Config
	files          []string
	out            *outdir.Dir
	maxRejectRatio float64
}

// doJob runs the command of j with the arguments args.
func doJob(j jobCommand, args []string) error {
	f, err := parseJob(j, args)
	if err != nil {
		return err
	}
	initBeam(f.verbose)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	jobDone := make(chan struct{})
	handleSignals(cancel, jobDone)

	stdin, removeStdin, err := copyStdin(j, f)
	defer removeStdin()
	if err != nil {
		return err
	}
	p, files, err := planJob(ctx, j, f)
	if err != nil {
		return err
	}
	if err := outdir.CheckInputs(j.dirs(), files); err != nil {
		return usageError{err}
	}
	cfg := p.Config
	cfg.Stdin = stdin
	var aborts []func()
	defer func() {
		for i := len(aborts) - 1; i >= 0; i-- {
			aborts[i]()
		}
	}()
	open := func(k outdir.Kind, dir string) (*outdir.Dir, error) {
		d, abort, err := openDir(k, dir, f.overwrite, files)
		if err == nil {
			aborts = append(aborts, abort)
		}
		return d, err
	}
	out, err := j.stage(ctx, open, &cfg, files)
	if err != nil {
		return err
	}
	if err := inputs.CheckFields(ctx, &cfg, f.opts.Given, files); err != nil {
		return usageError{err}
	}
	setInterruptOutput(f.output, out.Committed)
	cfg.Output = out.Stage()
	stop, err := startLocal(f, p.Budget, &cfg, files)
	if err != nil {
		return err
	}
	defer stop()
	jobstate.ResetWork() // building the job writes the file manifest
	pipe, s := beam.NewPipelineWithRoot()
	if err := j.build(ctx, s, cfg, files); err != nil {
		return err
	}
	start := time.Now()
	res, err := runPipeline(ctx, f.engine, pipe, jobDone)
	if err != nil {
		return err
	}
	return j.finish(ctx, doneJob{engine: f.engine, res: res, start: start, took: time.Since(start), cfg: cfg, files: files, out: out, maxRejectRatio: f.opts.MaxRejectRatio})
}

// parseJob parses and checks the flags of j.
func parseJob(j jobCommand, args []string) (*runFlags, error) {
	f := j.register(flag.CommandLine)
	paths, err := parseArgs(flag.CommandLine, args, j.usage)
	if err != nil {
		return nil, err
	}
	f.input = inputs.Join(f.input, paths)
	if f.engine, err = runnerEngine(); err != nil {
		return nil, usageError{err}
	}
	if err := j.check(); err != nil {
		return nil, err
	}
	if err := outdir.CheckOverlap(j.dirs()); err != nil {
		return nil, usageError{err}
	}
	if err := plan.Check(&f.opts, f.runner()); err != nil {
		return nil, usageError{err}
	}
	f.opts.Given = flagSet(flag.CommandLine)
	return f, nil
}

// planJob lists the inputs of j and plans it.
func planJob(ctx context.Context, j jobCommand, f *runFlags) (plan.Plan, []string, error) {
	o, err := j.options(ctx)
	if err != nil {
		return plan.Plan{}, nil, err
	}
	files, stored, err := inputs.Expand(ctx, f.input)
	if err != nil {
		return plan.Plan{}, nil, err
	}
	p, err := plan.New(o, f.runner(), files, stored)
	if err != nil {
		return plan.Plan{}, nil, usageError{err}
	}
	if p.Note != "" {
		fmt.Fprintf(os.Stderr, "neardup: %s\n", p.Note)
	}
	return p, files, nil
}

// runner is where the job runs, as plan sees it.
func (f *runFlags) runner() plan.Runner {
	return plan.Runner{Engine: f.engine, Spill: f.spill, MachineMemory: plan.MachineMemory()}
}

// copyStdin copies standard input to a temporary file when f's inputs
// name it ("-"), and replaces it there by the file's path, which it
// returns ("" when they do not), with how to remove the file.
func copyStdin(j jobCommand, f *runFlags) (path string, remove func(), err error) {
	remove = func() {}
	if !inputs.NamesStdin(f.input) {
		return "", remove, nil
	}
	for _, d := range j.dirs() {
		if d.Name == "--index-out" && d.Path != "" || d.Name == "--update-index" && d.Path != "" {
			return "", remove, usagef("%s: an index names the files it was made from, and standard input is none; save it to a file and name that", d.Name)
		}
	}
	var dir string
	remove, err = makeAtExit(func() (func(), error) {
		var err error
		dir, err = os.MkdirTemp("", "neardup-stdin-")
		return func() { os.RemoveAll(dir) }, err
	})
	if err != nil {
		return "", func() {}, fmt.Errorf("--input -: %w", err)
	}
	f.input, path, err = inputs.CopyStdin(f.input, os.Stdin, dir)
	if err != nil {
		return "", remove, usageError{err}
	}
	return path, remove, nil
}
