package transforms

import (
	"fmt"
	"os"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

// TestMain runs the stage tests on Prism, in this process, with TMPDIR a
// directory of their own, removed at the end: Beam's universal runner,
// which Prism runs through, leaves an empty beamloopbackworker-* file in
// the TMPDIR of each job.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "neardup-test-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", dir)
	code := ptest.MainRet(m)
	os.RemoveAll(dir)
	os.Exit(code)
}
