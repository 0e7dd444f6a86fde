package main

import (
	"encoding"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A usageError is a mistake on the command line: main prints it on one
// line and exits with code 2, before any work.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// usagef returns a usageError.
func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// parseFlags parses args into fs and turns every problem into one line:
// -h prints help (usage) and returns errHelp; an unknown flag or a value
// that does not parse is a usageError naming the flag. A flag may be
// spelled with '-' or '_' between words (normalizeFlags).
func parseFlags(fs *flag.FlagSet, args []string, usage func()) error {
	pos, err := parseArgs(fs, args, usage)
	if err == nil && len(pos) > 0 {
		return usagef("unexpected arguments %q", pos)
	}
	return err
}

// parseArgs is parseFlags that returns the arguments, anywhere among flags.
func parseArgs(fs *flag.FlagSet, args []string, usage func()) ([]string, error) {
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		usage()
		return nil, errHelp
	}
	return pos, err
}

// parseQuiet parses args into fs, printing nothing: it returns
// flag.ErrHelp for -h, and any other problem as a one-line usageError
// (flagError).
func parseQuiet(fs *flag.FlagSet, args []string) error {
	fs.Init(fs.Name(), flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the error comes back as one line; -h prints usage
	fs.Usage = func() {}
	defer decimalInts(fs)()
	err := fs.Parse(normalizeFlags(fs, args))
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return flagError(fs, err)
	}
	return err
}

// errHelp: the help was asked for and printed; the command exits 0.
var errHelp = errors.New("help printed")

// flagSet returns the names of the flags given on the command line.
func flagSet(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// checkTuneFlags checks the flags of 'neardup tune'.
func checkTuneFlags(threshold float64, sample int) error {
	switch {
	case !(threshold > 0 && threshold <= 1):
		return usagef("--threshold %v: want a number in (0, 1]", threshold)
	case sample < 1:
		return usagef("--sample %d: want at least 1 document", sample)
	}
	return nil
}

// printGrouped prints the flags of fs under the titles of groups, then any
// flag no group names (under "Other", if there are groups), in the layout
// of flag.PrintDefaults with two dashes.
func printGrouped(w io.Writer, fs *flag.FlagSet, groups []struct {
	title string
	names []string
}) {
	seen := map[string]bool{}
	one := func(f *flag.Flag) {
		seen[f.Name] = true
		name, usage := flag.UnquoteUsage(f)
		if g, ok := f.Value.(flag.Getter); ok {
			if _, named := g.Get().(encoding.TextUnmarshaler); named {
				name = "string" // a choice's name (flag.TextVar)
			}
		}
		fmt.Fprintf(w, "  --%s", f.Name)
		if name != "" {
			fmt.Fprintf(w, " %s", name)
		}
		fmt.Fprintf(w, "\n    \t%s", strings.ReplaceAll(usage, "\n", "\n    \t"))
		switch {
		case f.DefValue == "" || f.DefValue == "0" || f.DefValue == "false":
		case name == "string":
			fmt.Fprintf(w, " (default %q)", f.DefValue)
		default:
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	}
	for _, g := range groups {
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for _, n := range g.names {
			if f := fs.Lookup(n); f != nil {
				one(f)
			}
		}
	}
	var rest []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if !seen[f.Name] {
			rest = append(rest, f)
		}
	})
	if len(rest) > 0 && len(groups) > 0 {
		fmt.Fprintf(w, "\nOther:\n")
	}
	for _, f := range rest {
		one(f)
	}
}

// decimalInts makes every integer flag of fs read its value in decimal
// only, until the function it returns puts the flags back: package flag
// reads a base prefix (010 is 8, 0x10 16, 0b10 2) and underscores
// (1_000), which a count such as --workers 010 should not mean. 010 is
// 10; a value with a base prefix or an underscore does not parse.
func decimalInts(fs *flag.FlagSet) (restore func()) {
	var wrapped []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok {
			return
		}
		switch g.Get().(type) {
		case int, int64, uint, uint64:
			f.Value = decimalValue{g}
			wrapped = append(wrapped, f)
		}
	})
	return func() {
		for _, f := range wrapped {
			f.Value = f.Value.(decimalValue).Getter // flag.UnquoteUsage names the type by it
		}
	}
}

// decimalValue is an integer flag's value read in decimal (decimalInts).
type decimalValue struct{ flag.Getter }

func (v decimalValue) Set(s string) error {
	var n string
	switch v.Get().(type) {
	case uint, uint64:
		u, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return decimalError(err)
		}
		n = strconv.FormatUint(u, 10)
	default:
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return decimalError(err)
		}
		n = strconv.FormatInt(i, 10)
	}
	return v.Getter.Set(n) // in range of the flag's type, or its error
}

// decimalError is the error of a value that does not parse as a decimal
// integer (package flag puts the value and the flag before it).
func decimalError(err error) error {
	if errors.Is(err, strconv.ErrRange) {
		return errors.New("value out of range")
	}
	return errors.New("want a decimal integer")
}
