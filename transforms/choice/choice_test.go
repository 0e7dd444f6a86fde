package choice_test

import (
	"fmt"
	"testing"

	"github.com/neardup/neardup/transforms/choice"
)

type color int

const (
	red color = iota
	green
	blue
)

var colors = choice.Names[color]{{red, "red"}, {green, "green"}, {blue, "blue"}}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    color
		wantErr string
	}{
		{"red", red, ""},
		{" Blue ", blue, ""},
		{"GREEN", green, ""},
		{"purple", 0, "want red, green or blue"},
		{"", 0, "want red, green or blue"},
		{"re", 0, "want red, green or blue"},
	} {
		got, err := colors.Parse(tc.in)
		switch {
		case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
			t.Errorf("Parse(%q) error %v; want %q", tc.in, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestNameRoundTrip(t *testing.T) {
	for _, e := range colors {
		name, ok := colors.Name(e.Value)
		if !ok || name != e.Name {
			t.Errorf("Name(%v) = %q, %v; want %q", e.Value, name, ok, e.Name)
		}
		if back, err := colors.Parse(name); err != nil || back != e.Value {
			t.Errorf("Parse(Name(%v)) = %v, %v", e.Value, back, err)
		}
		if b, err := colors.Marshal("color", e.Value); err != nil || string(b) != e.Name {
			t.Errorf("Marshal(%v) = %q, %v", e.Value, b, err)
		}
	}
	aliased := append(colors, choice.Named[color]{Value: blue, Name: "navy"})
	if v, err := aliased.Parse("Navy"); err != nil || v != blue {
		t.Errorf("Parse(Navy) = %v, %v; want blue", v, err)
	}
	if name, _ := aliased.Name(blue); name != "blue" {
		t.Errorf("Name(blue) = %q with an alias; want blue", name)
	}
	if _, ok := colors.Name(7); ok || colors.Has(7) {
		t.Error("color 7 has a name")
	}
	if _, err := colors.Marshal("color", 7); err == nil || err.Error() != "color 7 has no name" {
		t.Errorf("Marshal(7) error %v", err)
	}
}

func TestList(t *testing.T) {
	for _, tc := range []struct {
		n    choice.Names[color]
		want string
	}{
		{nil, ""},
		{colors[:1], "red"},
		{colors[:2], "red or green"},
		{colors, "red, green or blue"},
		{append(colors, choice.Named[color]{Value: red, Name: "crimson"}), "red, green or blue"},
	} {
		if got := tc.n.List(); got != tc.want {
			t.Errorf("List() = %q; want %q", got, tc.want)
		}
	}
}

func ExampleNames() {
	type mode int
	modes := choice.Names[mode]{{0, "fast"}, {1, "exact"}}
	m, err := modes.Parse("Exact")
	fmt.Println(m, err)
	_, err = modes.Parse("slow")
	fmt.Println(err)
	// Output:
	// 1 <nil>
	// want fast or exact
}
