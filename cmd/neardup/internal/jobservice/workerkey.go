package jobservice

import (
	"fmt"
	"os"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/graphx"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"
	"github.com/neardup/neardup/cmd/internal/workerkey"
	"google.golang.org/protobuf/proto"
)

// keyWorker sets workerkey.Env in every PROCESS environment of p whose
// Go worker binary is a local file, and that SHA-256 in the binary's
// artifact. A boot that keeps worker binaries by that key
// (cmd/neardup-boot, which the local clusters run) starts a worker it
// already has without fetching it from the job server again.
func keyWorker(p *pipepb.Pipeline) error {
	for id, env := range p.GetComponents().GetEnvironments() {
		if env.GetUrn() != graphx.URNEnvProcess {
			continue
		}
		for _, dep := range env.GetDependencies() {
			if dep.GetRoleUrn() != graphx.URNArtifactGoWorkerRole || dep.GetTypeUrn() != graphx.URNArtifactFileType {
				continue
			}
			var file pipepb.ArtifactFilePayload
			if err := proto.Unmarshal(dep.GetTypePayload(), &file); err != nil {
				return fmt.Errorf("environment %s: worker binary artifact: %w", id, err)
			}
			if file.GetPath() == "" {
				continue
			}
			sum, err := fileSHA256(file.GetPath())
			if err != nil {
				return fmt.Errorf("environment %s: worker binary: %w", id, err)
			}
			var proc pipepb.ProcessPayload
			if err := proto.Unmarshal(env.GetPayload(), &proc); err != nil {
				return fmt.Errorf("environment %s: process payload: %w", id, err)
			}
			if proc.Env == nil {
				proc.Env = map[string]string{}
			}
			proc.Env[workerkey.Env] = sum
			file.Sha256 = sum
			if env.Payload, err = proto.Marshal(&proc); err != nil {
				return err
			}
			if dep.TypePayload, err = proto.Marshal(&file); err != nil {
				return err
			}
		}
	}
	return nil
}

// sums caches fileSHA256 by path, size and modification time: a command
// that runs jobs one after another hashes its binary once.
var sums sync.Map

type fileStamp struct {
	path  string
	size  int64
	mtime int64
}

// fileSHA256 returns the SHA-256 (hex) of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	stamp := fileStamp{path, fi.Size(), fi.ModTime().UnixNano()}
	if s, ok := sums.Load(stamp); ok {
		return s.(string), nil
	}
	sum, err := workerkey.Sum(f, path)
	if err != nil {
		return "", err
	}
	sums.Store(stamp, sum)
	return sum, nil
}
