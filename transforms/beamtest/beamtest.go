// Package beamtest runs a package's Beam tests as the project's test
// packages do: on Prism, in the test process (ptest), with a TMPDIR of
// their own.
package beamtest

import (
	"fmt"
	"os"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

// Main is a TestMain: it runs m's tests on Prism (ptest.MainRet) with
// TMPDIR a new directory, removed at the end, and exits with their code.
// Beam's universal runner, which Prism runs through, leaves an empty
// beamloopbackworker-* file in the TMPDIR of each job.
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "neardup-test-*")
	if err != nil {
		fmt.Fprintf(os.Stderr, "beamtest: a TMPDIR for the tests: %v\n", err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", dir)
	code := ptest.MainRet(m)
	os.RemoveAll(dir)
	os.Exit(code)
}
