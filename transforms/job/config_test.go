package job

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/neardup/neardup/transforms/format/rank"
	"github.com/neardup/neardup/transforms/format/record"
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

// TestConfigValidate: the job's own check refuses what the flags refuse
// where a caller of the Beam layer skips them: NaN, no permutations,
// negative sizes.
func TestConfigValidate(t *testing.T) {
	for name, change := range map[string]func(*Config){
		"threshold NaN":     func(c *Config) { c.Threshold = math.NaN() },
		"confidence NaN":    func(c *Config) { c.Confidence = math.NaN() },
		"perms 0":           func(c *Config) { c.Perms = 0 },
		"max doc bytes -1":  func(c *Config) { c.MaxDocBytes = -1 },
		"bands overflowing": func(c *Config) { c.Bands, c.Rows = 1<<40, 1<<40 },
	} {
		c := DefaultConfig()
		change(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// TestValidateChoices: a setting that names no choice of its type is
// refused, naming the type and the value; every named one is taken.
func TestValidateChoices(t *testing.T) {
	for _, tc := range []struct {
		change func(*Config)
		want   string
	}{
		{func(c *Config) { c.Format = 9 }, "format Format(9) has no name"},
		{func(c *Config) { c.Method = 9 }, "method Blocking(9) has no name"},
		{func(c *Config) { c.Verify = 9 }, "verify mode Mode(9) has no name"},
		{func(c *Config) { c.MinHash = 9 }, "minhash mode Mode(9) has no name"},
		{func(c *Config) { c.Tokens = 9 }, "token mode Mode(9) has no name"},
		{func(c *Config) { c.Keep = Keep{Order: 5} }, "keep order Keep(5) has no name"},
		{func(c *Config) { c.Keep = Keep{Order: KeepField, Field: "date"} }, "keep order field:date: the field's type is not set (rank.Detect)"},
		{func(c *Config) { c.Keep, c.Format = Keep{Order: KeepField, Field: "date", Type: rank.Time}, record.TSV }, "keep order field:date: a TSV record has no such field; want url or title"},
		{func(c *Config) {
			c.Keep, c.Format = Keep{Order: KeepField, Field: "url", Desc: true, Type: rank.String}, record.TSV
		}, ""},
		{func(c *Config) { c.Clusters = 5 }, "cluster rule ClusterRule(5) has no name"},
		{func(c *Config) { c.Dictionary = "en" }, "dictionary en has no name"},
		{func(c *Config) { c.Keep, c.Clusters, c.Dictionary = Keep{Order: KeepFirst}, ClustersComponents, "zh_t" }, ""},
	} {
		c := DefaultConfig()
		tc.change(&c)
		err := c.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want) {
			t.Errorf("Validate() = %v; want %q", err, tc.want)
		}
	}
}

func ExampleKeep_UnmarshalText() {
	var k Keep
	fmt.Println(k.UnmarshalText([]byte("First")), k)
	fmt.Println(k.UnmarshalText([]byte("field:-published")), k.Field, k.Desc)
	fmt.Println(k.UnmarshalText([]byte("shortest")))
	fmt.Println(k.UnmarshalText([]byte("field:")))
	// Output:
	// <nil> first
	// <nil> published true
	// want longest, first, field:NAME or field:-NAME
	// want a field name after field: (field:NAME, or field:-NAME for the largest first)
}
