package jobservice

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/graphx"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"
	"github.com/neardup/neardup/cmd/internal/workerkey"
	"google.golang.org/protobuf/proto"
)

// environment returns an environment of urn with a Go worker binary
// dependency at path and process payload proc.
func environment(t *testing.T, urn, path string, proc *pipepb.ProcessPayload) *pipepb.Environment {
	t.Helper()
	file, err := proto.Marshal(&pipepb.ArtifactFilePayload{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	payload, err := proto.Marshal(proc)
	if err != nil {
		t.Fatal(err)
	}
	return &pipepb.Environment{Urn: urn, Payload: payload, Dependencies: []*pipepb.ArtifactInformation{
		{TypeUrn: graphx.URNArtifactFileType, TypePayload: file, RoleUrn: graphx.URNArtifactGoWorkerRole},
	}}
}

// TestKeyWorker: a PROCESS environment gets the SHA-256 of its worker
// binary in its environment variables, beside its own, and in the binary's
// artifact; another kind of environment is left as it was; a binary that
// cannot be read fails the job with its path.
func TestKeyWorker(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "neardup")
	if err := os.WriteFile(bin, []byte("a worker binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("a worker binary"))
	want := hex.EncodeToString(sum[:])
	docker := environment(t, graphx.URNEnvDocker, bin, &pipepb.ProcessPayload{})
	dockerBefore := proto.Clone(docker)
	p := &pipepb.Pipeline{Components: &pipepb.Components{Environments: map[string]*pipepb.Environment{
		"go":     environment(t, graphx.URNEnvProcess, bin, &pipepb.ProcessPayload{Command: "boot", Env: map[string]string{"A": "1"}}),
		"docker": docker,
	}}}
	for range 2 { // the second time from the cache of sums, and unchanged
		if err := keyWorker(p); err != nil {
			t.Fatal(err)
		}
		env := p.Components.Environments["go"]
		var proc pipepb.ProcessPayload
		if err := proto.Unmarshal(env.Payload, &proc); err != nil {
			t.Fatal(err)
		}
		if proc.Env[workerkey.Env] != want || proc.Env["A"] != "1" || proc.Command != "boot" {
			t.Errorf("process payload %v; want %s=%s beside A=1 and the command", &proc, workerkey.Env, want)
		}
		var file pipepb.ArtifactFilePayload
		if err := proto.Unmarshal(env.Dependencies[0].TypePayload, &file); err != nil {
			t.Fatal(err)
		}
		if file.Sha256 != want || file.Path != bin {
			t.Errorf("worker artifact %v; want path %s, SHA-256 %s", &file, bin, want)
		}
	}
	if !proto.Equal(docker, dockerBefore) {
		t.Errorf("a DOCKER environment changed: %v", docker)
	}

	gone := filepath.Join(dir, "gone")
	p = &pipepb.Pipeline{Components: &pipepb.Components{Environments: map[string]*pipepb.Environment{
		"go": environment(t, graphx.URNEnvProcess, gone, &pipepb.ProcessPayload{}),
	}}}
	if err := keyWorker(p); err == nil {
		t.Errorf("no error for a worker binary that is not there")
	} else if want := "environment go: worker binary: open " + gone; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q; want it to start %q", err, want)
	}
}
