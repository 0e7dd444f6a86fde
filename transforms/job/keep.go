package job

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/neardup/neardup/transforms/choice"
	"github.com/neardup/neardup/transforms/format/rank"
	"github.com/neardup/neardup/transforms/format/record"
)

// Keep says which documents have the priority to be kept: the documents of
// a group of exact duplicates, and the order in which near-duplicates are
// decided (see ClustersKept). Its text form is longest, first,
// field:NAME (the smallest value of the field first) or field:-NAME (the
// largest first).
type Keep struct {
	Order KeepOrder
	// For KeepField: the field (named as IDField names one), whether the
	// largest value comes first, and the type of its values (rank.Detect,
	// set before the job runs).
	Field string
	Desc  bool
	Type  rank.Type
}

// KeepOrder is the rule of a Keep.
type KeepOrder int

const (
	// KeepLongest gives the priority to the longest text (in bytes), then
	// to the first document.
	KeepLongest KeepOrder = iota
	// KeepFirst gives the priority to the first document (input file
	// order, then line).
	KeepFirst
	// KeepField gives the priority by a field's value (Keep.Field), then
	// as KeepLongest: a document whose value is missing or does not parse
	// as the field's type comes after every other.
	KeepField
)

// keepNames are the names of the keep orders without a field.
var keepNames = choice.Names[KeepOrder]{{Value: KeepLongest, Name: "longest"}, {Value: KeepFirst, Name: "first"}}

// fieldPrefix starts the text of a KeepField order.
const fieldPrefix = "field:"

// String returns the text form of k.
func (k Keep) String() string {
	if k.Order == KeepField {
		if k.Desc {
			return fieldPrefix + "-" + k.Field
		}
		return fieldPrefix + k.Field
	}
	if name, ok := keepNames.Name(k.Order); ok {
		return name
	}
	return fmt.Sprintf("Keep(%d)", int(k.Order))
}

// MarshalText returns the text form of k.
func (k Keep) MarshalText() ([]byte, error) {
	if k.Order == KeepField && k.Field == "" || k.Order != KeepField && !keepNames.Has(k.Order) {
		return nil, fmt.Errorf("keep order %v has no name", k)
	}
	return []byte(k.String()), nil
}

// UnmarshalText sets k to the keep order text names: longest, first,
// field:NAME or field:-NAME.
func (k *Keep) UnmarshalText(text []byte) error {
	s := strings.TrimSpace(string(text))
	if name, ok := strings.CutPrefix(s, fieldPrefix); ok {
		desc := strings.HasPrefix(name, "-")
		name = strings.TrimPrefix(name, "-")
		if strings.TrimSpace(name) == "" {
			return fmt.Errorf("want a field name after %s (field:NAME, or field:-NAME for the largest first)", fieldPrefix)
		}
		*k = Keep{Order: KeepField, Field: name, Desc: desc}
		return nil
	}
	o, err := keepNames.Parse(s)
	if err != nil {
		return errors.New("want longest, first, field:NAME or field:-NAME")
	}
	*k = Keep{Order: o}
	return nil
}

// ParseKeep returns the keep order s names (Keep.UnmarshalText); its error quotes s.
func ParseKeep(s string) (Keep, error) {
	var k Keep
	if err := k.UnmarshalText([]byte(s)); err != nil {
		return k, fmt.Errorf("keep order %q: %w", s, err)
	}
	return k, nil
}

// rankField is the field that ranks documents under k: none but for
// KeepField.
func (k Keep) rankField() rank.Field {
	if k.Order != KeepField {
		return rank.Field{}
	}
	return rank.Field{Name: k.Field, Type: k.Type, Desc: k.Desc}
}

// typeName is the name of the field's type under KeepField, else "".
func (k Keep) typeName() string {
	if k.Order != KeepField {
		return ""
	}
	return k.Type.String()
}

// checkKeep reports a field order without a field type, or that names a
// field a TSV record does not have.
func (c Config) checkKeep() error {
	if c.Keep.Order != KeepField {
		return nil
	}
	if c.Keep.Type == rank.Unset {
		return fmt.Errorf("keep order %v: the field's type is not set (rank.Detect)", c.Keep)
	}
	if c.Format == record.TSV && !slices.Contains(record.TSVKeepFields, c.Keep.Field) {
		return fmt.Errorf("keep order %v: a TSV record has no such field; want url or title", c.Keep)
	}
	return nil
}
