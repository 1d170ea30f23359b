package engine

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
)

// Level is a message priority, with sysbench's numbering: a message is
// printed when its level is at most the --verbosity value (spec §6.1).
type Level int

const (
	LevelFatal Level = iota
	LevelAlert
	LevelWarning
	LevelNotice
	LevelInfo
	LevelDebug
)

// prefix is what sysbench puts in front of a message of this level.
// NOTICE and INFO messages have none, which is why the banner and the
// reports read as plain text.
func (lv Level) prefix() string {
	switch lv {
	case LevelFatal:
		return "FATAL: "
	case LevelAlert:
		return "ALERT: "
	case LevelWarning:
		return "WARNING: "
	case LevelDebug:
		return "DEBUG: "
	}
	return ""
}

// maxMessageLen is the most sysbench prints of one message: it formats the
// text and its newline into a 4096-byte C buffer, so only the first 4095
// bytes of text+"\n" survive. A text of 4095 bytes or more thus loses its
// newline and the next message continues the line (observed with long Lua
// errors).
const maxMessageLen = 4095

// messageText is what sysbench keeps of a message: the text, its newline,
// cut to the buffer size.
func messageText(text string) string {
	msg := text + "\n"
	if len(msg) > maxMessageLen {
		msg = msg[:maxMessageLen]
	}
	return msg
}

// Logger writes sysbench's text log: level filtering, level prefixes, a
// newline after every message and the suppression of repeated messages.
//
// Repeat suppression is part of the visible output, so it is reproduced
// exactly: the logger remembers the text of the last plain message (the
// formatted text, without its prefix). An identical plain message is not
// printed but counted; the next different one is preceded by
// "(last message repeated N times)". Timestamped messages skip the check
// and leave the remembered text alone; messages filtered out by verbosity
// never reach it. This is what makes the blank line that starts a report
// disappear after a checkpoint report that ended with a blank line.
//
// A Logger is safe for concurrent use. One mutex orders all writes, so
// lines from the reporter and from workers never interleave mid-line;
// nothing logs per event, so the lock is never hot.
type Logger struct {
	verbosity atomic.Int32

	mu       sync.Mutex
	w        io.Writer
	last     string // messageText of the last plain message printed
	repeated uint   // how many copies of last were swallowed since
	buf      []byte
}

// NewLogger returns a Logger that writes to w (sysbench writes everything
// to stdout) and prints messages of level <= verbosity.
func NewLogger(w io.Writer, verbosity int) *Logger {
	l := &Logger{w: w}
	l.verbosity.Store(int32(verbosity))
	return l
}

// Verbosity returns the current --verbosity value.
func (l *Logger) Verbosity() int { return int(l.verbosity.Load()) }

// SetVerbosity changes the --verbosity value; options are parsed after the
// first messages may already have been printed.
func (l *Logger) SetVerbosity(v int) { l.verbosity.Store(int32(v)) }

// Enabled reports whether a message of the given level would be printed,
// so callers can skip building expensive debug text.
func (l *Logger) Enabled(level Level) bool { return int(level) <= l.Verbosity() }

// Logf prints a message (Go fmt verbs) at the given level, with the
// level's prefix and a newline, subject to repeat suppression.
func (l *Logger) Logf(level Level, format string, args ...any) {
	if !l.Enabled(level) {
		return
	}
	// Compared after the cut, as sysbench compares its buffers. Every
	// message is non-empty (it has at least its newline), so the initial
	// empty remembered text matches nothing.
	text := messageText(fmt.Sprintf(format, args...))
	l.mu.Lock()
	defer l.mu.Unlock()
	if text == l.last {
		l.repeated++
		return
	}
	b := l.buf[:0]
	if l.repeated > 0 {
		b = append(b, "(last message repeated "...)
		b = strconv.AppendUint(b, uint64(l.repeated), 10)
		b = append(b, " times)\n"...)
		l.repeated = 0
	}
	l.last = text
	b = append(b, level.prefix()...)
	l.flush(append(b, text...))
}

// Timestamped prints a NOTICE message that skips repeat suppression and
// leaves the remembered text alone, as sysbench's log_timestamp does for
// intermediate reports and "Checkpoint report:". The format carries the
// "[ Ns ] " prefix itself (see timestampPrefix), so callers decide how the
// elapsed time is written.
func (l *Logger) Timestamped(format string, args ...any) {
	if !l.Enabled(LevelNotice) {
		return
	}
	text := messageText(fmt.Sprintf(format, args...))
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flush(append(l.buf[:0], text...))
}

// timestampPrefix is sysbench's "[ %.0fs ] ": the elapsed seconds rounded
// to a whole number.
func timestampPrefix(seconds float64) string {
	return "[ " + cFixed(seconds, 0, 0) + "s ] "
}

// Raw writes s as it is: no level, no newline, no repeat check. It stands
// for sysbench's direct printf calls, such as the histogram rows, which
// ignore --verbosity, and it keeps them ordered with the log lines.
func (l *Logger) Raw(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flush(append(l.buf[:0], s...))
}

// Write makes the Logger an io.Writer for printf-style output; it behaves
// like Raw.
func (l *Logger) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// flush writes b and keeps it as the scratch buffer for the next message.
// Write errors are ignored, as printf's are: a closed stdout must not stop
// the benchmark. The caller holds l.mu.
func (l *Logger) flush(b []byte) {
	_, _ = l.w.Write(b)
	l.buf = b
}
