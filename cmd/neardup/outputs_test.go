package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sameOutputs compares the outputs of two runs, named as in dir want: every
// shard byte for byte and summary.json's counts (its times and settings
// differ from run to run; report.html names the directory and the times).
// It reports differences as "<name> differs <what>" and returns how many
// files it compared.
func sameOutputs(t *testing.T, got, want, what string) int {
	t.Helper()
	compared := 0
	for _, name := range listDir(t, want) {
		if !strings.HasSuffix(name, ".jsonl") && name != "summary.json" {
			continue
		}
		a, errA := os.ReadFile(filepath.Join(got, name))
		b, errB := os.ReadFile(filepath.Join(want, name))
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if name == "summary.json" {
			a, b = summaryCounts(t, a), summaryCounts(t, b)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs %s", name, what)
		}
		compared++
	}
	return compared
}
