package outdir

import (
	"os"
	"os/exec"
	"testing"
)

// TestProcessAlive: a process is alive if its PID runs with the identity
// recorded, or, with none recorded, runs neardup; a PID that is free, or
// reused by another program, is gone.
func TestProcessAlive(t *testing.T) {
	if identity(os.Getpid()) == "" {
		t.Skip("no /proc")
	}
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { sleep.Process.Kill(); sleep.Wait() }()
	self, other := os.Getpid(), sleep.Process.Pid
	for _, tt := range []struct {
		name string
		pid  int
		id   string
		want bool
	}{
		{"this process", self, identity(self), true},
		{"this process, no identity recorded", self, "", true},
		{"this PID, another identity", self, bootID() + " 1", false},
		{"this PID, another boot", self, "another-boot " + identity(self)[len(bootID())+1:], false},
		{"no such process", 1 << 30, "", false},
		{"another program, no identity recorded", other, "", false},
		{"another program with its identity", other, identity(other), true},
	} {
		if got := processAlive(tt.pid, tt.id); got != tt.want {
			t.Errorf("%s: processAlive(%d, %q) = %v, want %v", tt.name, tt.pid, tt.id, got, tt.want)
		}
	}
}
