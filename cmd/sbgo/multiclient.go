package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"sbgo/engine"
	"sbgo/luabind"
)

// clientOptions line up the clients of a multi-client run (sbgo kube,
// docs/distributed.md): a shared start instant and a number per client.
var clientOptions = engine.Group{Title: "Multi-client options", Options: []engine.Option{
	{Name: "start-at", Desc: "start the run phase (after thread_init) at this instant: RFC 3339 (2026-12-02T10:00:00Z) or +SECONDS from now; a client ready only after it fails", Type: engine.ArgString},
	{Name: "client-id", Desc: "this client's number in a multi-client run, recorded in the results file; with --rand-seed, each client's seed differs [default: $JOB_COMPLETION_INDEX]", Type: engine.ArgString},
}}

// clientEnv is the variable an Indexed Job of Kubernetes sets to the
// pod's index, the default of --client-id.
const clientEnv = "JOB_COMPLETION_INDEX"

// readClientOptions reads --start-at (relative to now) and --client-id
// (or its variable), which it writes back into the options so that the
// script and the results file see it; with a client id, --rand-seed
// becomes the client's own seed. A bad value is one FATAL line.
func (inv *invocation) readClientOptions(now time.Time) error {
	at, err := parseStartAt(optionText(inv.opts, "start-at"), now)
	if err != nil {
		return err
	}
	inv.startAt = at
	text, fromEnv := optionText(inv.opts, "client-id"), false
	if text == "" {
		text, fromEnv = os.Getenv(clientEnv), true
	}
	if text == "" {
		return nil
	}
	id, err := strconv.Atoi(text)
	if err != nil || id < 0 {
		if fromEnv {
			return fmt.Errorf("%s=%q is not a client number (0, 1, 2, ...)", clientEnv, text)
		}
		return fmt.Errorf("--client-id=%s is not a client number (0, 1, 2, ...)", text)
	}
	inv.clientID = &id
	if err := inv.opts.Set("client-id", &text); err != nil {
		return err
	}
	if seed := inv.general.RandSeed; seed != 0 {
		inv.general.RandSeed = int(luabind.ClientSeed(uint64(seed), id))
	}
	return nil
}

// parseStartAt reads --start-at: RFC 3339, or +SECONDS from now; "" is
// no start time.
func parseStartAt(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if rel, ok := strings.CutPrefix(s, "+"); ok {
		sec, err := strconv.ParseFloat(rel, 64)
		if err != nil || sec < 0 || sec > 365*24*3600 {
			return time.Time{}, fmt.Errorf("--start-at=%s: +SECONDS wants a number of seconds from now, such as +30", s)
		}
		return now.Add(time.Duration(sec * float64(time.Second))), nil
	}
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--start-at=%s is neither an RFC 3339 time (2026-12-02T10:00:00Z) nor +SECONDS", s)
	}
	return at, nil
}

// lateStart is the run command's answer to a --start-at already past when
// the command starts: such a client cannot measure the others' window.
func lateStart(at, now time.Time) error {
	if at.IsZero() || !now.After(at) {
		return nil
	}
	return errors.New("--start-at=" + at.Format(time.RFC3339Nano) + " passed " +
		strconv.FormatFloat(now.Sub(at).Seconds(), 'f', 3, 64) + " s ago: this client would not measure the same window as the others")
}
