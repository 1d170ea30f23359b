package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// UsageError is a command-line or option error with the stream, prefix
// and exit status sysbench gives it, so the CLI prints it exactly:
// fmt.Fprint(stdout or stderr, err.Text()) and exit with err.Code.
// It satisfies urfave/cli's ExitCoder.
type UsageError struct {
	Msg       string // the message, without prefix or newline
	Fatal     bool   // printed after "FATAL: "
	Stderr    bool   // printed on stderr; otherwise on stdout
	BlankLine bool   // an empty line follows, as sysbench prints for a few messages
	Code      int    // exit status
}

// Error is the message with its prefix, on one line.
func (e *UsageError) Error() string {
	if e.Fatal {
		return "FATAL: " + e.Msg
	}
	return e.Msg
}

// Text is exactly what sysbench prints: the message, its newline and the
// blank line if there is one.
func (e *UsageError) Text() string {
	if e.BlankLine {
		return e.Error() + "\n\n"
	}
	return e.Error() + "\n"
}

// ExitCode is the exit status.
func (e *UsageError) ExitCode() int { return e.Code }

// stderrError is a plain message on stderr with exit status 1, the way
// sysbench reports argument errors.
func stderrError(format string, args ...any) *UsageError {
	return &UsageError{Msg: fmt.Sprintf(format, args...), Stderr: true, Code: 1}
}

// fatalError is a "FATAL: " message on stdout with exit status 1, the way
// sysbench reports invalid general option values.
func fatalError(format string, args ...any) *UsageError {
	return &UsageError{Msg: fmt.Sprintf(format, args...), Fatal: true, Code: 1}
}

// testOptionWarning is printed on stderr for each --test=NAME.
const testOptionWarning = "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options."

// CommandLine is what the general pass finds in the arguments.
type CommandLine struct {
	Test       string // the first positional argument, or the last --test= value
	HasTest    bool
	Command    string // the second positional argument: the first command
	HasCommand bool
	// Commands are the command and those after it, in order: sbgo runs
	// them one after the other (sysbench takes one). CommandArgs are their
	// indexes in the arguments.
	Commands    []string
	CommandArgs []int
	// Rest holds the option arguments the general pass left alone,
	// unknown names and bad booleans, as given, for ApplyRest.
	Rest []string
	// Warnings are lines for stderr, in order, printed whatever happens
	// next (the deprecated --test).
	Warnings []string
}

// ReadsStdin reports whether the script comes from standard input: no
// test name, or "-" (spec §1.12).
func (c *CommandLine) ReadsStdin() bool { return !c.HasTest || c.Test == "-" }

// ParseCommandLine is sysbench's general pass over the arguments (without
// the program name), spec §1.1. Arguments not starting with "--" are the
// test name, then the command; sysbench rejects a third ("Unrecognized
// command line argument"), sbgo takes the third and the ones after it as
// more commands. Each "--name[=value]"
// naming a registered option is applied at once, in order, so a
// --config-file overrides what comes before it and is overridden by what
// follows. Unknown names and bad booleans go to Rest for the test pass.
//
// Where sysbench would only fail later, or not at all, this fails at once:
// a number that does not parse (so "--threads=abc --threads=2" is an
// error), and a config file that cannot be read or has an unclosed quote.
func ParseCommandLine(args []string, o *Options) (*CommandLine, error) {
	cl := &CommandLine{}
	for i, arg := range args {
		if !strings.HasPrefix(arg, "--") {
			if !cl.HasTest {
				cl.Test, cl.HasTest = arg, true
				continue
			}
			if !cl.HasCommand {
				cl.Command, cl.HasCommand = arg, true
			}
			cl.Commands = append(cl.Commands, arg)
			cl.CommandArgs = append(cl.CommandArgs, i)
			continue
		}
		name, value := splitOption(arg[2:])
		if strings.HasPrefix(arg, "--test=") {
			// sysbench registers "test" as a STRING the first time and
			// leaves the argument for the test pass, which sets it again.
			cl.Warnings = append(cl.Warnings, testOptionWarning)
			if _, ok := o.Lookup("test"); !ok {
				o.add(Option{Name: "test", Type: ArgString})
			}
			if err := o.Set(name, value); err != nil && !isLeftForTestPass(err) {
				return nil, err
			}
			v, _ := o.Lookup("test")
			cl.Test, cl.HasTest = v.String(), !v.IsNull()
			cl.Rest = append(cl.Rest, arg)
			continue
		}
		if err := o.Set(name, value); err != nil {
			if !isLeftForTestPass(err) {
				return nil, err
			}
			cl.Rest = append(cl.Rest, arg)
		}
	}
	return cl, nil
}

func isLeftForTestPass(err error) bool {
	return errors.Is(err, ErrUnknownOption) || errors.Is(err, ErrInvalidOption)
}

// splitOption cuts "name=value" at the first '='; with no '=' the value is
// nil.
func splitOption(s string) (name string, value *string) {
	name, v, found := strings.Cut(s, "=")
	if !found {
		return name, nil
	}
	return name, &v
}

// ApplyRest is sysbench's test pass (spec §1.1), run after the test's own
// options are registered: it sets the options the general pass left over.
// A name still unknown, or a bad boolean, fails with
// "invalid option: <argument>"; except that with acceptUnknown (a 1.0.20
// legacy script, which declares no options) an unknown name is registered
// as a STRING with the value given. Those new options are returned, in
// order, so the caller can export them as globals. Arguments that are not
// options are skipped.
func (o *Options) ApplyRest(rest []string, acceptUnknown bool) ([]*Value, error) {
	var added []*Value
	for _, arg := range rest {
		if !strings.HasPrefix(arg, "--") {
			continue
		}
		name, value := splitOption(arg[2:])
		err := o.Set(name, value)
		if errors.Is(err, ErrUnknownOption) && acceptUnknown {
			v := o.add(Option{Name: name, Type: ArgString})
			err = v.assign(value)
			added = append(added, v)
		}
		if isLeftForTestPass(err) {
			return added, stderrError("invalid option: %s", arg)
		}
		if err != nil {
			return added, err
		}
	}
	return added, nil
}

// readConfigFile applies a config file (spec §1.4): one "name=value" per
// line; a line without '=' is skipped, which covers comments. The name is
// everything before the first '=', untrimmed. The value part is cut into
// values at ',' and at white space; '#' starts a comment; '...' and "..."
// quote a value. A name no option has is registered with type NULL (the
// exporter leaves it out of sysbench.opt with a warning), as sysbench
// does. Which of several values counts, and how, is valueFromConfig's
// business.
//
// Stricter than sysbench: a file that cannot be opened, an unclosed quote
// and a bad value are errors rather than a message and carrying on, and a
// long line is one line rather than being cut every 255 bytes.
func (o *Options) readConfigFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		reason := err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			reason = pe.Err
		}
		return stderrError("Cannot open config file '%s': %v", path, reason)
	}
	return o.applyConfig(path, string(data))
}

// applyConfig applies the text of the config file path (named in
// messages only), line by line as readConfigFile describes. It is apart
// from the reading so that the grammar can be tested without files.
func (o *Options) applyConfig(path, text string) error {
	for n, line := range strings.Split(text, "\n") {
		lineNo := n + 1
		name, rest, found := strings.Cut(line, "=")
		if !found {
			continue
		}
		values, ok := splitConfigValues(rest)
		if !ok {
			return stderrError("unexpected EOL on line %d of config file '%s'", lineNo, path)
		}
		v, known := o.Lookup(name)
		if !known {
			v = o.add(Option{Name: name, Type: ArgNull})
		}
		if err := v.valueFromConfig(values); err != nil {
			where := fmt.Sprintf(" (config file '%s', line %d)", path, lineNo)
			var ue *UsageError
			if errors.As(err, &ue) {
				return stderrError("%s%s", ue.Msg, where)
			}
			return stderrError("invalid option: %s%s", strings.TrimRight(line, "\r"), where)
		}
	}
	return nil
}

// splitConfigValues cuts the value part of a config line the way sysbench
// does. A value ends at ',' or white space, which it consumes, so
// "a,b , c" gives a, b, "" and c. A quoted value may hold both; after its
// closing quote everything up to the next ',' is skipped. ok is false for
// a quote that is not closed.
func splitConfigValues(s string) (values []string, ok bool) {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case isCSpace(c):
			i++
		case c == '#':
			return values, true
		case c == '\'' || c == '"':
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				return nil, false
			}
			values = append(values, s[i+1:i+1+end])
			i += end + 2
			if comma := strings.IndexByte(s[i:], ','); comma >= 0 {
				i += comma + 1
			} else {
				i = len(s)
			}
		default:
			end := i
			for end < len(s) && s[end] != ',' && !isCSpace(s[end]) {
				end++
			}
			values = append(values, s[i:end])
			i = end + 1
		}
	}
	return values, true
}

// valueFromConfig sets the option from the values of a config line. As in
// sysbench, a LIST takes them all (empty ones included), a DOUBLE the
// last, other types the first, and a FILE named in a config file is not
// read. Unlike sysbench, a BOOL reads its first value with the usual
// boolean rules ("debug=off" is off; sysbench turns any value on), and no
// values at all means off.
func (v *Value) valueFromConfig(values []string) error {
	switch {
	case v.Opt.Type == ArgNull || v.Opt.Type == ArgFile:
		v.clear()
		if len(values) > 0 {
			v.raw = &values[0]
		}
		return nil
	case v.Opt.Type == ArgList:
		v.clear()
		if len(values) > 0 {
			v.list = values
			joined := strings.Join(values, ",")
			v.raw = &joined
		}
		return nil
	case len(values) == 0 && v.Opt.Type == ArgBool:
		v.clear()
		return nil
	case len(values) == 0:
		return v.assign(nil)
	case v.Opt.Type == ArgDouble:
		return v.assign(&values[len(values)-1])
	}
	return v.assign(&values[0])
}
