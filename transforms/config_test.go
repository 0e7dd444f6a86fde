package transforms

import (
	"strings"
	"testing"
)

func TestShuffleRounds(t *testing.T) {
	tests := []struct{ rounds, branches, want int }{
		{0, 3, 3},
		{0, 0, 1},
		{5, 2, 5},
		{1, 4, 1},
	}
	for _, tt := range tests {
		c := Config{Rounds: tt.rounds, Branches: tt.branches}
		if got := c.ShuffleRounds(); got != tt.want {
			t.Errorf("Config{Rounds: %d, Branches: %d}.ShuffleRounds() = %d, want %d", tt.rounds, tt.branches, got, tt.want)
		}
	}
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	c.Rounds = -1
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "rounds -1") {
		t.Errorf("Validate with rounds -1: %v, want a rounds error", err)
	}
}
