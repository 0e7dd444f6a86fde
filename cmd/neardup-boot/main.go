// Command neardup-boot starts a Go SDK worker in a PROCESS environment, as Beam's
// own Go boot does (package github.com/apache/beam/sdks/v2/go/container,
// whose flags it takes), with one difference: the worker binary is kept in
// --worker_cache under its SHA-256, so a cluster fetches each build of
// neardup once, not once per job and TaskManager: Beam's boot fetches the
// binary from the job server with every job, seconds of each job's start
// on the local Flink cluster (docs/CLUSTER.md, docs/BENCHMARKS.md).
// scripts/flink-cluster.sh and scripts/spark-cluster.sh build it and run
// it for each Go worker.
//
// A binary is taken from the cache by the SHA-256 that the job's PROCESS
// environment gives in NEARDUP_WORKER_SHA256 (workerkey.Env; neardup's job
// service proxy sets it: cmd/neardup/internal/jobservice); without it, boot fetches the
// job's artifacts as Beam's does and caches nothing. Boot alone writes the
// cache: a directory owned by boot's user, writable by no one else, each
// binary in it a regular file owner-only. A binary enters the cache only
// after its own bytes hash to its name, and is started from it only after
// they hash to its name again: an entry that is a symbolic link, is not a
// regular file of boot's user, or hashes to another value is removed,
// logged in one line, and the job's binary fetched again (hashing it costs
// far less than fetching it: docs/BENCHMARKS.md). It has no worker
// pool mode and no Google Cloud profiling, which a PROCESS worker on these
// clusters does not use.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/container/tools"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/artifact"
	fnpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/fnexecution_v1"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/util/execx"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/util/grpcx"
	"github.com/neardup/neardup/cmd/internal/workerkey"
)

var (
	id                = flag.String("id", "", "Local identifier (required).")
	loggingEndpoint   = flag.String("logging_endpoint", "", "Local logging endpoint for FnHarness (required).")
	artifactEndpoint  = flag.String("artifact_endpoint", "", "Local artifact endpoint for FnHarness (required).")
	provisionEndpoint = flag.String("provision_endpoint", "", "Local provision endpoint for FnHarness (required).")
	controlEndpoint   = flag.String("control_endpoint", "", "Local control endpoint for FnHarness (required).")
	semiPersistDir    = flag.String("semi_persist_dir", "/tmp", "Local semi-persistent directory (optional).")
	workerCache       = flag.String("worker_cache", "", "Directory of worker binaries by SHA-256 (optional: none, fetch each job's).")
)

func main() {
	flag.Parse()
	if *id == "" || *provisionEndpoint == "" {
		log.Fatal("boot: --id and --provision_endpoint are required")
	}
	ctx := grpcx.WriteWorkerID(context.Background(), *id)
	info, err := tools.ProvisionInfo(ctx, *provisionEndpoint)
	if err != nil {
		log.Fatalf("boot: provision info: %v", err)
	}
	if err := setEndpoints(info); err != nil {
		log.Fatalf("boot: %v", err)
	}
	logger := &tools.Logger{Endpoint: *loggingEndpoint}
	log.SetOutput(tools.NewBufferedLoggerWithFlushInterval(ctx, logger, 0))
	options, err := tools.ProtoToJSON(info.GetPipelineOptions())
	if err != nil {
		logger.Fatalf(ctx, "boot: pipeline options: %v", err)
	}
	po := tools.ParseOptionsFromProto(info.GetPipelineOptions(), "go_options")
	ctx = artifact.WithArtifactValidation(ctx, !po.HasExperiment("disable_staged_file_integrity_checks"))
	prog, err := workerBinary(ctx, info, filepath.Join(*semiPersistDir, "staged"), *workerCache)
	if err != nil {
		logger.Fatalf(ctx, "boot: worker binary: %v", err)
	}
	logger.Printf(ctx, "boot: worker binary %s", prog)
	if err := tools.MakePipelineOptionsFileAndEnvVar(options); err != nil {
		logger.Fatalf(ctx, "boot: pipeline options file: %v", err)
	}
	if info.GetStatusEndpoint() != nil {
		os.Setenv("STATUS_ENDPOINT", info.GetStatusEndpoint().GetUrl())
	}
	if len(info.GetRunnerCapabilities()) > 0 {
		os.Setenv("RUNNER_CAPABILITIES", strings.Join(info.GetRunnerCapabilities(), " "))
	}
	err = execx.Execute(prog,
		"--worker=true",
		"--id="+*id,
		"--logging_endpoint="+*loggingEndpoint,
		"--control_endpoint="+*controlEndpoint,
		"--semi_persist_dir="+*semiPersistDir)
	logger.Fatalf(ctx, "User program exited: %v", err)
}

// setEndpoints takes the endpoints the provision info gives over the
// flags', and checks that each is set.
func setEndpoints(info *fnpb.ProvisionInfo) error {
	for _, e := range []struct {
		flag *string
		url  string
		name string
	}{
		{loggingEndpoint, info.GetLoggingEndpoint().GetUrl(), "logging"},
		{artifactEndpoint, info.GetArtifactEndpoint().GetUrl(), "artifact"},
		{controlEndpoint, info.GetControlEndpoint().GetUrl(), "control"},
	} {
		if e.url != "" {
			*e.flag = e.url
		}
		if *e.flag == "" {
			return fmt.Errorf("no %s endpoint", e.name)
		}
	}
	return nil
}

// workerBinary returns the path of the job's worker binary: the cached copy
// in cache of the SHA-256 the job's environment gives (workerkey.Env, set
// by neardup's job service proxy), or else the one fetched into staged
// (and then kept in cache).
func workerBinary(ctx context.Context, info *fnpb.ProvisionInfo, staged, cache string) (string, error) {
	sum := ""
	if cache != "" {
		sum, _ = workerkey.Parse(os.Getenv(workerkey.Env))
	}
	if path, ok := cached(cache, sum); ok {
		return path, nil
	}
	arts, err := artifact.Materialize(ctx, *artifactEndpoint, info.GetDependencies(), info.GetRetrievalToken(), staged)
	if err != nil {
		return "", err
	}
	name, err := workerName(arts)
	if err != nil {
		return "", err
	}
	path := filepath.Join(staged, name)
	if sum == "" {
		return path, nil
	}
	if err := keep(cache, sum, path); err != nil {
		log.Printf("boot: worker binary not cached: %v", err)
		return path, nil
	}
	return filepath.Join(cache, sum), nil
}

// cached returns the path of the binary of SHA-256 sum in cache, if it is
// there and its bytes hash to sum. An entry that fails the check is
// removed with a line in the log, so that the binary is fetched and kept
// again; a cache directory that others can write is not used at all.
func cached(cache, sum string) (string, bool) {
	if cache == "" || sum == "" {
		return "", false
	}
	if err := checkCacheDir(cache); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			log.Printf("boot: worker cache not used: %v", err)
		}
		return "", false
	}
	path := filepath.Join(cache, sum)
	err := checkEntry(path, sum)
	if err == nil {
		return path, true
	}
	if !errors.Is(err, fs.ErrNotExist) {
		rmErr := os.Remove(path)
		log.Printf("boot: worker cache entry removed, fetching the binary again: %v (remove: %v)", err, rmErr)
	}
	return "", false
}

// checkCacheDir returns an error unless cache is a directory (not a
// symbolic link) of this process's user that no one else can write.
func checkCacheDir(cache string) error {
	fi, err := os.Lstat(cache)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (%s)", cache, fi.Mode().Type())
	}
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s belongs to user %d, not %d", cache, uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by others (mode %v)", cache, fi.Mode().Perm())
	}
	return nil
}

// checkEntry returns an error unless path is a regular file of this
// process's user, writable by no one else, whose bytes hash to sum. It
// reads the file it checked the mode of (opened without following a
// symbolic link), so the bytes hashed are that file's.
func checkEntry(path, sum string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return fmt.Errorf("%s is a symbolic link", path)
		}
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	}
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s belongs to user %d, not %d", path, uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by others (mode %v)", path, fi.Mode().Perm())
	}
	got, err := workerkey.Sum(f, path)
	if err != nil {
		return err
	}
	if got != sum {
		return fmt.Errorf("%s hashes to SHA-256 %s", path, got)
	}
	return nil
}

// owner returns the user that owns the file fi describes.
func owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// keep puts the file at path into cache under sum, if its bytes hash to
// sum: a hard link (a copy across file systems) renamed into place, so that
// a reader finds the whole file or none, whoever of several workers keeps
// it first.
func keep(cache, sum, path string) error {
	got, err := workerkey.File(path)
	if err != nil {
		return err
	}
	if got != sum {
		return fmt.Errorf("%s has SHA-256 %s, the job server gave %s", path, got, sum)
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return err
	}
	if err := checkCacheDir(cache); err != nil {
		return err
	}
	tmp := filepath.Join(cache, fmt.Sprintf(".%s.%d", sum, os.Getpid()))
	if err := os.Link(path, tmp); err != nil {
		if err := copyFile(path, tmp); err != nil {
			os.Remove(tmp)
			return err
		}
	}
	if err := os.Chmod(tmp, 0o500); err != nil {
		os.Remove(tmp)
		return err
	}
	err = os.Rename(tmp, filepath.Join(cache, sum))
	os.Remove(tmp) // still there after a rename onto a link of the same file
	return err
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o500)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", from, err)
	}
	return out.Close()
}

// workerName returns the staged name of the Go worker binary among arts,
// as Beam's boot finds it: the only artifact, the one of the Go worker
// role, or the one named "worker".
func workerName(arts []*pipepb.ArtifactInformation) (string, error) {
	if len(arts) == 1 {
		name, _ := artifact.MustExtractFilePayload(arts[0])
		return name, nil
	}
	for _, a := range arts {
		if a.GetRoleUrn() == artifact.URNGoWorkerBinaryRole {
			name, _ := artifact.MustExtractFilePayload(a)
			return name, nil
		}
	}
	for _, a := range arts {
		if name, _ := artifact.MustExtractFilePayload(a); name == "worker" {
			return name, nil
		}
	}
	if len(arts) == 0 {
		return "", errors.New("no artifacts staged")
	}
	return "", errors.New(`no artifact named "worker" among the staged ones`)
}
