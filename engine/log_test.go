package engine

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestLoggerLevels checks the verbosity filter and the level prefixes.
func TestLoggerLevels(t *testing.T) {
	tests := []struct {
		verbosity int
		level     Level
		want      string
	}{
		{0, LevelFatal, "FATAL: msg\n"},     // FATAL shows even at verbosity 0
		{0, LevelAlert, ""},                 // ALERT needs verbosity 1
		{1, LevelAlert, "ALERT: msg\n"},     // ALERT prefix
		{2, LevelWarning, "WARNING: msg\n"}, // WARNING prefix
		{3, LevelNotice, "msg\n"},           // NOTICE: no prefix (the default verbosity)
		{3, LevelInfo, ""},                  // INFO is hidden by default
		{4, LevelInfo, "msg\n"},             // INFO: no prefix
		{4, LevelDebug, ""},                 // DEBUG needs verbosity 5
		{5, LevelDebug, "DEBUG: msg\n"},     // DEBUG prefix
	}
	for _, tt := range tests {
		var out bytes.Buffer
		l := NewLogger(&out, tt.verbosity)
		l.Logf(tt.level, "%s", "msg")
		if out.String() != tt.want {
			t.Errorf("verbosity %d, level %d: got %q, want %q", tt.verbosity, tt.level, out.String(), tt.want)
		}
	}
}

// logStep is one call in a logger scenario.
type logStep struct {
	kind  string // "log", "ts" (timestamped), "raw"
	level Level
	text  string
}

func plain(level Level, text string) logStep { return logStep{"log", level, text} }
func stamped(text string) logStep            { return logStep{kind: "ts", text: text} }
func raw(text string) logStep                { return logStep{kind: "raw", text: text} }

// TestLoggerRepeats checks the suppression of repeated messages (spec §6.1).
func TestLoggerRepeats(t *testing.T) {
	tests := []struct {
		name  string
		steps []logStep
		want  string
	}{
		{
			name:  "repeats counted, reported before the next message",
			steps: []logStep{plain(LevelNotice, "a"), plain(LevelNotice, "a"), plain(LevelNotice, "a"), plain(LevelNotice, "b")},
			want:  "a\n(last message repeated 2 times)\nb\n",
		},
		{
			name:  "pending repeats are never reported without a next message",
			steps: []logStep{plain(LevelNotice, "a"), plain(LevelNotice, "a")},
			want:  "a\n",
		},
		{
			name:  "blank messages are messages too",
			steps: []logStep{plain(LevelNotice, ""), plain(LevelNotice, ""), plain(LevelNotice, "x")},
			want:  "\n(last message repeated 1 times)\nx\n",
		},
		{
			name:  "timestamped messages pass and leave the remembered text",
			steps: []logStep{plain(LevelNotice, "a"), stamped("[ 1s ] t"), stamped("[ 1s ] t"), plain(LevelNotice, "a"), plain(LevelNotice, "b")},
			want:  "a\n[ 1s ] t\n[ 1s ] t\n(last message repeated 1 times)\nb\n",
		},
		{
			name:  "the comparison ignores the level",
			steps: []logStep{plain(LevelAlert, "x"), plain(LevelWarning, "x"), plain(LevelAlert, "y")},
			want:  "ALERT: x\n(last message repeated 1 times)\nALERT: y\n",
		},
		{
			name:  "filtered messages take no part",
			steps: []logStep{plain(LevelNotice, "a"), plain(LevelDebug, "d"), plain(LevelNotice, "a"), plain(LevelDebug, "a"), plain(LevelNotice, "b")},
			want:  "a\n(last message repeated 1 times)\nb\n",
		},
		{
			name:  "raw output takes no part",
			steps: []logStep{plain(LevelNotice, "a"), raw("row\n"), plain(LevelNotice, "a"), raw("row\n")},
			want:  "a\nrow\nrow\n",
		},
		{
			name:  "an embedded newline makes a blank line",
			steps: []logStep{plain(LevelNotice, "Threads started!\n"), plain(LevelNotice, "")},
			want:  "Threads started!\n\n\n",
		},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		l := NewLogger(&out, 3)
		for _, s := range tt.steps {
			switch s.kind {
			case "log":
				l.Logf(s.level, "%s", s.text)
			case "ts":
				l.Timestamped("%s", s.text)
			case "raw":
				l.Raw(s.text)
			}
		}
		if out.String() != tt.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.name, out.String(), tt.want)
		}
	}
}

// TestLoggerTimestampedVerbosity: timestamped messages are NOTICE level.
func TestLoggerTimestampedVerbosity(t *testing.T) {
	var out bytes.Buffer
	l := NewLogger(&out, 2)
	l.Timestamped("[ 1s ] x")
	l.Raw("r\n") // printf output ignores the verbosity
	if out.String() != "r\n" {
		t.Errorf("got %q", out.String())
	}
	l.SetVerbosity(3)
	l.Timestamped("%sx", timestampPrefix(2.5))
	if l.Verbosity() != 3 || out.String() != "r\n[ 2s ] x\n" {
		t.Errorf("after SetVerbosity(3): verbosity %d, output %q", l.Verbosity(), out.String())
	}
}

// TestTimestampPrefix checks the "[ %.0fs ] " prefix: C rounding, ties to
// even.
func TestTimestampPrefix(t *testing.T) {
	tests := []struct {
		seconds float64
		want    string
	}{
		{1.0001, "[ 1s ] "},  // just after a tick
		{0.9999, "[ 1s ] "},  // just before: rounds up
		{1.4999, "[ 1s ] "},  // below the half
		{2.5, "[ 2s ] "},     // exact tie: to even, as glibc
		{3.5, "[ 4s ] "},     // exact tie: to even
		{0, "[ 0s ] "},       // start
		{3600, "[ 3600s ] "}, // no width
	}
	for _, tt := range tests {
		if got := timestampPrefix(tt.seconds); got != tt.want {
			t.Errorf("timestampPrefix(%v) = %q, want %q", tt.seconds, got, tt.want)
		}
	}
}

// TestLoggerLongMessage: sysbench formats a message and its newline into
// a 4096-byte buffer, so it prints at most 4095 bytes of text+"\n": a text
// of 4095 bytes or more loses its newline. Observed with Lua errors whose
// message text was 5000, 4095 and 4094 bytes long.
func TestLoggerLongMessage(t *testing.T) {
	long := strings.Repeat("x", 5000)
	tests := []struct {
		name string
		text string
		want string
	}{
		{"longer than the buffer: cut, no newline", long, "FATAL: " + long[:4095]},
		{"4095 bytes: no room for the newline", long[:4095], "FATAL: " + long[:4095]},
		{"4094 bytes: fits with its newline", long[:4094], "FATAL: " + long[:4094] + "\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		NewLogger(&out, 3).Logf(LevelFatal, "%s", tt.text)
		if out.String() != tt.want {
			t.Errorf("%s: got %d bytes, want %d", tt.name, out.Len(), len(tt.want))
		}
	}
	// The cut text is what is remembered: a message differing only past
	// the cut counts as a repeat.
	var out bytes.Buffer
	l := NewLogger(&out, 3)
	l.Logf(LevelFatal, "%s", long)
	out.Reset()
	l.Logf(LevelFatal, "%s", long+"y")
	l.Logf(LevelNotice, "next")
	if want := "(last message repeated 1 times)\nnext\n"; out.String() != want {
		t.Errorf("after a repeat of the cut text: got %q, want %q", out.String(), want)
	}
}

// TestLoggerConcurrent logs from several goroutines and checks that every
// line comes out whole. Run with -race.
func TestLoggerConcurrent(t *testing.T) {
	var out bytes.Buffer
	l := NewLogger(&out, 3)
	const goroutines, lines = 8, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range lines {
				switch i % 3 {
				case 0:
					l.Logf(LevelNotice, "g%d line %d", g, i)
				case 1:
					l.Timestamped("[ 1s ] g%d line %d", g, i)
				default:
					l.Raw(fmt.Sprintf("g%d line %d\n", g, i))
				}
			}
		})
	}
	wg.Wait()
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != goroutines*lines {
		t.Fatalf("got %d lines, want %d", len(got), goroutines*lines)
	}
	for _, line := range got {
		var g, i int
		if _, err := fmt.Sscanf(strings.TrimPrefix(line, "[ 1s ] "), "g%d line %d", &g, &i); err != nil {
			t.Errorf("mangled line %q", line)
		}
	}
}
