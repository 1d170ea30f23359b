// Command sbgo is a drop-in replacement for sysbench's database workloads:
// the same command line, Lua API and report text, on Go and gopher-lua.
//
//	sbgo [options]... [testname] [command]
//
// This package is the shell only: urfave/cli supplies the application
// (name, version, exit codes) while sysbench's own argument grammar, which
// allows options anywhere and options declared by the script, is parsed by
// the engine. Everything else lives in engine (the run) and luabind (the
// scripts).
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"sbgo/db"
	_ "sbgo/db/mysql" // registers the "mysql" driver
	_ "sbgo/db/pgsql" // registers the "pgsql" driver
	"sbgo/db/sockconn"
	_ "sbgo/db/sqlite" // registers the "sqlite" driver
	"sbgo/engine"
	"sbgo/luabind"
	"sbgo/scripts"
)

// Version is sbgo's own version; sysbench.version stays the API level.
// Release builds stamp theirs in (-ldflags "-X main.Version=...", see
// .goreleaser.yaml).
var Version = "0.1.0"

// commit is the revision a release build was made from, stamped in as
// Version is; plain builds leave it empty and --version does not show it.
var commit string

func main() {
	app := &cli.App{
		Name:            "sbgo",
		Usage:           "a Lua-scriptable database load generator compatible with sysbench",
		Version:         Version,
		SkipFlagParsing: true,
		HideHelp:        true,
		HideVersion:     true,
		Action: func(c *cli.Context) error {
			argv := append([]string{os.Args[0]}, c.Args().Slice()...)
			if path := os.Getenv("SBGO_CPUPROFILE"); path != "" {
				stop, err := startCPUProfile(path)
				if err != nil {
					return cli.Exit(err.Error(), 1)
				}
				defer stop()
			}
			code := run(argv, os.Stdin, os.Stdout, os.Stderr, interrupts())
			if code != 0 {
				return cli.Exit("", code)
			}
			return nil
		},
	}
	if err := app.Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// startCPUProfile writes a CPU profile of the whole run to path, for
// `go tool pprof`: SBGO_CPUPROFILE=cpu.out sbgo ... run.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// interrupts delivers SIGINT and SIGTERM. The first one stops the run
// gracefully (report marked incomplete); a second one exits at once.
func interrupts() <-chan os.Signal {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	out := make(chan os.Signal, 1)
	go func() {
		first := true
		for sig := range ch {
			if !first {
				fmt.Fprintln(os.Stderr, "interrupted again: exiting now")
				os.Exit(130)
			}
			first = false
			out <- sig
		}
	}()
	return out
}

// syncWriter serialises writes from the workers, the reporter and the
// logger, so that no line is torn.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// banner is the first line of every run, in sysbench's shape: output
// parsers and sysbench's own tests match it with "sysbench *.* *", so it
// names the sysbench version whose behaviour sbgo reproduces, then sbgo's.
func banner() string {
	lua := "gopher-lua"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/yuin/gopher-lua" {
				lua += " " + strings.TrimPrefix(d.Version, "v")
			}
		}
	}
	return fmt.Sprintf("sysbench %s (sbgo %s, using %s)", luabind.APIVersion, Version, lua)
}

// writeVersion prints `--version`'s line in the banner's shape: wrapper
// scripts read its second word to tell sysbench 1.0 from 0.5, so it is
// the sysbench version sbgo reproduces, then sbgo's own and, in a release
// build, its commit. A second line says when the LuaJIT-compatible VM
// handlers are off (luabind.VMPatchNote).
func writeVersion(w io.Writer) {
	own := Version
	if commit != "" {
		own += ", commit " + commit
	}
	fmt.Fprintf(w, "sysbench %s (sbgo %s)\n", luabind.APIVersion, own)
	if note := luabind.VMPatchNote(); note != "" {
		fmt.Fprintln(w, note)
	}
}

// run is the whole program minus the process: it returns the exit code.
// Tests call it directly. A first argument that names one of sbgo's own
// subcommands (compare, report, merge, kube) goes to it, with its own options. Each phase either hands on what it found in inv
// or ends the program with an exit code (stop).
func run(argv []string, stdin io.Reader, stdoutW, stderr io.Writer, sigs <-chan os.Signal) int {
	if len(argv) > 1 {
		if sub, ok := subcommands[argv[1]]; ok {
			return sub(argv[2:], stdoutW, stderr)
		}
	}
	inv := &invocation{argv: argv, stdin: stdin, stdout: &syncWriter{w: stdoutW}, stderr: stderr, sigs: sigs, began: time.Now()}
	if code, stop := inv.parseArgs(); stop {
		return code
	}
	inv.log = engine.NewLogger(inv.stdout, inv.general.Verbosity)
	inv.log.Logf(engine.LevelNotice, "%s\n", banner())
	if err := inv.loadScript(); err != nil {
		inv.log.Logf(engine.LevelFatal, "%s", err)
		return 1
	}
	defer inv.script.Close()
	if inv.test == "" {
		// A script from stdin only runs its body (spec §1.12).
		return 0
	}
	if code, stop := inv.resolveOptions(); stop {
		return code
	}
	if !inv.cl.HasCommand {
		return 0
	}
	return inv.dispatch()
}

// invocation is one command line being carried out: what each phase of
// run finds, for the phases after it.
type invocation struct {
	argv   []string
	stdin  io.Reader
	stdout io.Writer // a syncWriter: workers, reporters and the logger share it
	stderr io.Writer
	sigs   <-chan os.Signal
	began  time.Time // when the command line was read: --start-at=+N counts from here

	opts       *engine.Options
	drivers    []engine.DriverHelp
	cl         *engine.CommandLine
	general    *engine.General
	policy     engine.ThreadPolicy // how the run's workers use OS threads
	log        *engine.Logger
	test       string // the script's name; "" for a script read from stdin
	script     *luabind.Script
	declared   []engine.Option // the script's sysbench.cmdline.options
	hasOptions bool
	startAt    time.Time // --start-at; zero without one
	clientID   *int      // --client-id or $JOB_COMPLETION_INDEX
}

// sbgoGroups are the options of sbgo's own, after sysbench's in --help.
var sbgoGroups = []engine.Group{resultsOptions, clientOptions}

// parseArgs reads the general and driver options and validates them,
// answering --help and --version on the way, as sysbench does before any
// validation. Warnings go out before an error.
func (inv *invocation) parseArgs() (code int, stop bool) {
	inv.opts = engine.NewGeneralOptions()
	// Driver options are known from the start, like sysbench's, so that
	// they may come before the test name.
	for _, f := range db.Factories() {
		if err := inv.opts.Register(f.Options()...); err != nil {
			fmt.Fprintln(inv.stderr, err)
			return 1, true
		}
		inv.drivers = append(inv.drivers, engine.DriverHelp{Name: f.Name(), Description: f.Description(), Options: f.Options()})
	}
	for _, g := range sbgoGroups {
		if err := inv.opts.Register(g.Options...); err != nil {
			fmt.Fprintln(inv.stderr, err)
			return 1, true
		}
	}
	cl, err := engine.ParseCommandLine(inv.argv[1:], inv.opts)
	if cl != nil {
		for _, w := range cl.Warnings {
			fmt.Fprintln(inv.stderr, w)
		}
	}
	if err != nil {
		return printUsageError(err, inv.stdout, inv.stderr), true
	}
	inv.cl = cl
	if inv.opts.Flag("help") {
		engine.WriteGeneralHelp(inv.stdout, "sbgo", append(engine.GeneralGroups(), sbgoGroups...), inv.drivers, nil)
		return 0, true
	}
	if inv.opts.Flag("version") {
		writeVersion(inv.stdout)
		return 0, true
	}
	general, warnings, err := inv.opts.General()
	for _, w := range warnings {
		fmt.Fprintln(inv.stdout, w)
	}
	if err != nil {
		return printUsageError(err, inv.stdout, inv.stderr), true
	}
	inv.opts.ApplyGeneral(general)
	inv.general = general
	inv.policy = decideThreadPolicy(inv.opts, general.Threads, runtime.NumCPU())
	return 0, false
}

// loadScript compiles the test's script (or reads it from stdin) and runs
// its body in the main state.
func (inv *invocation) loadScript() error {
	inv.test = inv.cl.Test
	if inv.cl.ReadsStdin() {
		inv.test = ""
		if f, ok := inv.stdin.(*os.File); ok && isTerminal(f) {
			inv.log.Logf(engine.LevelNotice, "Reading the script from the standard input:\n")
		}
	}
	script, err := luabind.Load(luabind.Config{
		TestName:      inv.test,
		Command:       inv.cl.Command,
		Argv:          inv.argv,
		Stdin:         inv.stdin,
		Out:           inv.stdout,
		Log:           inv.log,
		Options:       inv.opts,
		VersionString: "sbgo " + Version,
		Bundled:       []fs.FS{scripts.FS},
	})
	inv.script = script
	return err
}

// resolveOptions registers the script's options, applies the arguments
// the general pass left for them, and configures the script's random
// numbers and the collector for the run.
func (inv *invocation) resolveOptions() (code int, stop bool) {
	inv.declared, inv.hasOptions = inv.script.DeclaredOptions()
	if err := inv.opts.Register(inv.declared...); err != nil {
		inv.log.Logf(engine.LevelFatal, "%s", err)
		return 1, true
	}
	if _, err := inv.opts.ApplyRest(inv.cl.Rest, !inv.hasOptions); err != nil {
		return printUsageError(err, inv.stdout, inv.stderr), true
	}
	if err := inv.readClientOptions(inv.began); err != nil {
		inv.log.Logf(engine.LevelFatal, "%s", err)
		return 1, true
	}
	g := inv.general
	randOpts := luabind.RandOptions{
		Type:       g.RandType,
		SpecIter:   g.RandSpecIter,
		SpecPct:    g.RandSpecPct,
		SpecRes:    g.RandSpecRes,
		ParetoH:    g.RandParetoH,
		ZipfianExp: g.RandZipfianExp,
	}
	if err := randOpts.Validate(); err != nil {
		inv.log.Logf(engine.LevelFatal, "%s", err)
		return 1, true
	}
	seed := uint64(g.RandSeed)
	if seed == 0 {
		seed = uint64(time.Now().Unix())
	}
	inv.script.Configure(randOpts, seed)
	tuneGC(g.Threads)
	return 0, false
}

// dispatch performs the commands of the command line in order, stopping
// at the first that fails, with its exit code. The first runs in this
// invocation, each next one as the only command of a command line of its
// own (nextArgv), so that it loads the script afresh and prints and
// behaves exactly as it would alone. With several commands, an unknown
// one stops everything before the first runs.
func (inv *invocation) dispatch() int {
	if len(inv.cl.Commands) > 1 {
		for _, cmd := range inv.cl.Commands {
			if !inv.script.HasCommand(cmd) && !slices.Contains(builtinCommands, cmd) {
				fmt.Fprintf(inv.stderr, "Unknown command: %s\n", cmd)
				return 1
			}
		}
	}
	code := inv.perform(inv.cl.Command)
	if len(inv.cl.Commands) > 1 {
		// What the script's state holds (connections, report_json's
		// open array) ends before the next command starts, as it would
		// between two invocations.
		inv.script.Close()
	}
	for i := 1; i < len(inv.cl.Commands) && code == 0; i++ {
		code = run(inv.nextArgv(i), inv.stdin, inv.stdout, inv.stderr, inv.sigs)
	}
	return code
}

// builtinCommands are the commands every script may have.
var builtinCommands = []string{"help", "prepare", "run", "cleanup"}

// nextArgv is the command line of command i alone: the arguments without
// the other commands and, unless it is run, without --results-file,
// whose warning the first command already gave when no command is run.
func (inv *invocation) nextArgv(i int) []string {
	cmd := inv.cl.Commands[i]
	argv := []string{inv.argv[0]}
	for j, arg := range inv.argv[1:] {
		if slices.Contains(inv.cl.CommandArgs, j) {
			continue
		}
		if cmd != "run" && isOption(arg, "results-file") {
			continue
		}
		argv = append(argv, arg)
	}
	return append(argv, cmd)
}

// isOption reports whether arg sets the option name ('-' and '_' alike).
func isOption(arg, name string) bool {
	opt, _, _ := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
	return strings.HasPrefix(arg, "--") && strings.ReplaceAll(opt, "_", "-") == name
}

// perform performs one command: one the script declares, else help,
// prepare, cleanup or run.
func (inv *invocation) perform(cmd string) int {
	if cmd != "run" && !slices.Contains(inv.cl.Commands, "run") && optionText(inv.opts, "results-file") != "" {
		// Custom commands, like sysbench's, run no events: nothing to
		// record, and no file that pretends otherwise.
		fmt.Fprintf(inv.stderr, "WARNING: --results-file is written only by the run command; '%s' runs no events\n", cmd)
	}
	switch {
	case inv.script.HasCommand(cmd):
		if err := inv.script.RunCommand(cmd, inv.general.Threads); err != nil {
			if !luabind.IsSilent(err) {
				inv.log.Logf(engine.LevelFatal, "%s", err)
			}
			return 1
		}
		return 0
	case cmd == "help":
		return inv.help()
	case cmd == "prepare" || cmd == "cleanup":
		if !inv.script.HasFunction(cmd) {
			fmt.Fprintf(inv.stderr, "'%s' test does not implement the '%s' command.\n", shortName(inv.test), cmd)
			return 1
		}
		if err := inv.script.CallFunction(cmd); err != nil {
			inv.log.Logf(engine.LevelFatal, "%s", err)
			return 1
		}
		return 0
	case cmd == "run":
		return inv.run()
	default:
		fmt.Fprintf(inv.stderr, "Unknown command: %s\n", cmd)
		return 1
	}
}

// help is the help command: the script's help(), else its options.
func (inv *invocation) help() int {
	sname := shortName(inv.test)
	switch {
	case inv.script.HasFunction("help"):
		if err := inv.script.CallFunction("help"); err != nil {
			inv.log.Logf(engine.LevelFatal, "%s", err)
			return 1
		}
	case inv.hasOptions:
		inv.log.Logf(engine.LevelNotice, "%s options:", sname)
		engine.WriteOptionLines(inv.stdout, inv.declared)
		fmt.Fprintln(inv.stdout)
	default:
		fmt.Fprintf(inv.stderr, "'%s' test does not implement the 'help' command.\n", sname)
		return 1
	}
	return 0
}

// decideThreadPolicy decides how the workers of a run of threads on cpus
// CPUs use OS threads (engine.DecideThreadPolicy), asking the
// --db-driver driver whether its sessions block, and records it in opts
// for the drivers, which read it when they open sessions. It is called
// once, before the script can open any.
func decideThreadPolicy(opts *engine.Options, threads, cpus int) engine.ThreadPolicy {
	p := engine.DecideThreadPolicy(threads, cpus, func(p engine.ThreadPolicy) bool {
		return db.BlocksThreads(opts, p)
	})
	opts.SetThreadPolicy(p)
	return p
}

// runConfig is the run's configuration from the general options. policy
// is the run's thread policy (decideThreadPolicy); series keeps what a
// results file and the live metrics need (engine.Config.Series).
func runConfig(g *engine.General, policy engine.ThreadPolicy, series bool) engine.Config {
	sec := func(n int) time.Duration { return time.Duration(n) * time.Second }
	cfg := engine.Config{
		Threads:           g.Threads,
		Events:            uint64(g.Events),
		Time:              sec(g.Time),
		Warmup:            sec(g.WarmupTime),
		Rate:              float64(g.Rate),
		ReportInterval:    sec(g.ReportInterval),
		ForcedShutdown:    -1,
		ThreadInitTimeout: sec(g.ThreadInitTimeout),
		Histogram:         g.Histogram,
		Percentile:        g.Percentile,
		Debug:             g.Debug,
		Seed:              uint64(g.RandSeed),
		ThreadPolicy:      policy,
		Series:            series,
	}
	if g.ForcedShutdown >= 0 {
		cfg.ForcedShutdown = sec(g.ForcedShutdown)
	}
	for _, c := range g.ReportCheckpoints {
		cfg.Checkpoints = append(cfg.Checkpoints, sec(c))
	}
	return cfg
}

// runBenchmark performs the run command with r and returns its exit code.
func runBenchmark(r *engine.Run, script *luabind.Script, policy engine.ThreadPolicy, sigs <-chan os.Signal) int {
	if policy.OwnThreads {
		// Every worker has an OS thread and a processor of its own:
		// answers are waited for without the scheduler, as a C client
		// waits.
		sockconn.SetQuickWait(policy.QuickWait, policy.Locked)
		defer sockconn.SetQuickWait(0, false)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-sigs:
			r.Interrupt()
		case <-stop:
		}
	}()
	return r.Execute(script)
}

// printUsageError prints an option error on the stream sysbench uses for
// it and returns its exit code.
func printUsageError(err error, stdout, stderr io.Writer) int {
	var ue *engine.UsageError
	if errors.As(err, &ue) {
		w := stdout
		if ue.Stderr {
			w = stderr
		}
		io.WriteString(w, ue.Text())
		return ue.ExitCode()
	}
	fmt.Fprintln(stderr, err)
	return 1
}

func shortName(test string) string {
	if i := strings.LastIndexByte(test, '/'); i >= 0 {
		return test[i+1:]
	}
	return test
}

// isTerminal reports whether f is a terminal. x/term asks each system its
// own way (the terminal ioctl on Unix, /dev/null being a character device
// too; the console mode on Windows) and answers false where it has none.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
