// Package choice names the values of a setting that has a fixed set of
// them (a format, a mode, a rule): one table per type gives each value its
// one name, parses names back, and lists them in errors and help. A type
// with a table implements fmt.Stringer and encoding.TextMarshaler and
// TextUnmarshaler through it, so that a command's flag.TextVar, a JSON
// field and an error all use the same names.
package choice

import (
	"errors"
	"fmt"
	"strings"
)

// Names is the name table of type T: each value and its name, in the order
// List gives them. A value named again further down has an alias there:
// Parse takes it, Name and List give the first name only.
type Names[T comparable] []Named[T]

// Named is one value of a Names table.
type Named[T comparable] struct {
	Value T
	Name  string
}

// Name returns the name of v, and false if v has none.
func (n Names[T]) Name(v T) (string, bool) {
	for _, e := range n {
		if e.Value == v {
			return e.Name, true
		}
	}
	return "", false
}

// Parse returns the value named s, in any case and with spaces around it
// ignored. The error for a name not in the table lists the names, for the
// caller to put the setting and s before (package flag does): want jsonl,
// tsv, text or parquet.
func (n Names[T]) Parse(s string) (T, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for _, e := range n {
		if e.Name == t {
			return e.Value, nil
		}
	}
	var zero T
	return zero, errors.New("want " + n.List())
}

// Has reports whether v has a name.
func (n Names[T]) Has(v T) bool {
	_, ok := n.Name(v)
	return ok
}

// List returns the names, without aliases, as a phrase: "a", "a or b",
// "a, b or c".
func (n Names[T]) List() string {
	var names []string
	for _, e := range n {
		if first, _ := n.Name(e.Value); first == e.Name {
			names = append(names, e.Name)
		}
	}
	var b strings.Builder
	for i, name := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(name)
	}
	return b.String()
}

// Marshal returns the name of v as text, or an error naming typ if v has
// none: the body of a MarshalText method.
func (n Names[T]) Marshal(typ string, v T) ([]byte, error) {
	if name, ok := n.Name(v); ok {
		return []byte(name), nil
	}
	return nil, fmt.Errorf("%s %v has no name", typ, any(v))
}
