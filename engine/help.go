package engine

import (
	"fmt"
	"io"
	"strings"
)

// helpFormat is how help shows the value an option takes.
func (t ArgType) helpFormat() string {
	switch t {
	case ArgBool:
		return "[=on|off]"
	case ArgInt, ArgDouble:
		return "=N"
	case ArgSize:
		return "=SIZE"
	case ArgString:
		return "=STRING"
	case ArgList:
		return "=[LIST,...]"
	case ArgFile:
		return "=FILENAME"
	}
	return "=UNKNOWN"
}

// WriteOptionLines writes one help line per option, aligned as sysbench
// aligns a group (spec §1.3): "  --<name><format> <description>", the
// format padded so that descriptions start in one column, one space after
// the longest name and format; then " [<default>]" unless the default is
// NULL. It writes no title and no blank line after the options.
func WriteOptionLines(w io.Writer, opts []Option) error {
	var b strings.Builder
	appendOptionLines(&b, opts)
	_, err := io.WriteString(w, b.String())
	return err
}

func appendOptionLines(b *strings.Builder, opts []Option) {
	width := 0
	for _, opt := range opts {
		width = max(width, len(opt.Name)+len(opt.Type.helpFormat()))
	}
	for _, opt := range opts {
		format := opt.Type.helpFormat()
		b.WriteString("  --")
		b.WriteString(opt.Name)
		b.WriteString(format)
		b.WriteString(strings.Repeat(" ", width-len(opt.Name)-len(format)+1))
		b.WriteString(opt.Desc)
		if opt.Default != nil {
			fmt.Fprintf(b, " [%s]", *opt.Default)
		}
		b.WriteByte('\n')
	}
}

// DriverHelp is a database driver as --help lists it.
type DriverHelp struct {
	Name        string // "mysql"
	Description string // "MySQL driver"
	Options     []Option
}

// TestHelp is a built-in test as --help lists it.
type TestHelp struct {
	Name        string
	Description string
}

// WriteGeneralHelp writes the --help text in sysbench 1.0.20's layout
// (spec §1.15), with prog where sysbench prints its own name: the usage,
// the option groups, the drivers and their options, the built-in tests
// and the pointer to per-test help. sbgo has no built-in tests (sysbench's
// fileio, cpu, memory, threads and mutex are C code it does not carry), so
// with no tests the "Compiled-in tests:" block is left out rather than
// printed empty.
func WriteGeneralHelp(w io.Writer, prog string, groups []Group, drivers []DriverHelp, tests []TestHelp) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage:\n  %s [options]... [testname] [command]\n\n", prog)
	b.WriteString("Commands implemented by most tests: prepare run cleanup help\n\n")
	for _, g := range groups {
		if g.Title != "" {
			b.WriteString(g.Title + ":\n")
		}
		if g.BlankAfterTitle {
			b.WriteByte('\n')
		}
		appendOptionLines(&b, g.Options)
		b.WriteByte('\n')
	}
	b.WriteString("\nCompiled-in database drivers:\n")
	for _, d := range drivers {
		fmt.Fprintf(&b, "  %s - %s\n", d.Name, d.Description)
	}
	b.WriteByte('\n')
	for _, d := range drivers {
		b.WriteString(d.Name + " options:\n")
		appendOptionLines(&b, d.Options)
		b.WriteByte('\n')
	}
	if len(tests) > 0 {
		b.WriteString("Compiled-in tests:\n")
		for _, t := range tests {
			fmt.Fprintf(&b, "  %s - %s\n", t.Name, t.Description)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "See '%s <testname> help' for a list of options for each test.\n\n", prog)
	_, err := io.WriteString(w, b.String())
	return err
}
