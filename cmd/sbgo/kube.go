package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"sbgo/engine"
	"sbgo/kube"
	"sbgo/results"
)

const kubeUsage = `Usage: sbgo kube SCRIPT [options] --clients=N [--image=IMAGE] [--namespace=NS]

Prints the Kubernetes manifests of a run of SCRIPT from N clients at once:
an Indexed Job of N pods that each run sbgo SCRIPT [options] run, lined up
by one --start-at and numbered by --client-id, the script and its modules
in a ConfigMap when it is a local file, the passwords in a Secret. Each
client writes its results to its log, which sbgo merge reads:

  sbgo kube oltp_read_only --mysql-host=db.example --mysql-password=pw \
    --threads=64 --time=300 --clients=8 | kubectl apply -f -

docs/distributed.md has the whole flow. The run's options are checked as
sbgo SCRIPT [options] run would check them.

Options:
  --clients=N        the number of clients (pods); required
  --image=IMAGE      the sbgo image (sbgo:VERSION)
  --namespace=NS     the objects' namespace (kubectl's current one)
  --job-name=NAME    the Job's name (sbgo-SCRIPT)
  --cpu=QUANTITY     the CPU each pod requests (1)
  --memory=QUANTITY  the memory each pod requests and may use (512Mi)
  --start-delay=SEC  the clients start SEC seconds from now, time for the pods
                     to be scheduled and the image pulled (60); or --start-at
  --secret=NAME      read the --db-driver's password from this existing Secret
                     (key mysql-password or pgsql-password) rather than from a
                     Secret made of the command line's
`

// kubeFlags are sbgo kube's own options; every other argument is the
// run's.
type kubeFlags struct {
	clients             int
	image, namespace    string
	jobName, cpu, mem   string
	startDelay          float64
	secret              string
	hasClients, hasHelp bool
}

// jobDeadlineMargin is how long the Job lets its pods run past the end
// the options give the run (thread_init, done, the results, a slow
// database) before it ends them.
const jobDeadlineMargin = 2 * time.Minute

// kubeCommand is `sbgo kube`: the manifests on stdout, notes on stderr.
func kubeCommand(args []string, stdout, stderr io.Writer) int {
	fail := failer("kube", stderr)
	kf, rest, err := splitKubeFlags(args)
	switch {
	case kf.hasHelp:
		io.WriteString(stdout, kubeUsage)
		return 0
	case err != nil:
		return fail(err)
	case !kf.hasClients:
		return fail(errors.New("--clients=N is required: how many clients (pods) run the script"))
	}
	inv, code := checkRun(rest, stderr)
	if inv == nil {
		return code
	}
	defer inv.script.Close()
	spec, err := inv.kubeSpec(kf, rest)
	if err != nil {
		return fail(err)
	}
	var b bytes.Buffer
	if err := kube.Write(&b, spec); err != nil {
		return fail(err)
	}
	if w := localHostWarning(inv); w != "" {
		fmt.Fprintf(stderr, "sbgo kube: warning: %s\n", w)
	}
	if _, err := stdout.Write(b.Bytes()); err != nil {
		return fail(err)
	}
	fmt.Fprintf(stderr, "sbgo kube: %d clients start at %s; docs/distributed.md says how to collect and merge their results\n",
		spec.Clients, spec.StartAt.UTC().Format(time.RFC3339))
	return 0
}

// splitKubeFlags takes sbgo kube's own options (--name=value, as the
// run's options are written) out of args.
func splitKubeFlags(args []string) (kubeFlags, []string, error) {
	kf := kubeFlags{image: "sbgo:" + Version, cpu: "1", mem: "512Mi", startDelay: 60}
	text := map[string]*string{"image": &kf.image, "namespace": &kf.namespace, "job-name": &kf.jobName,
		"cpu": &kf.cpu, "memory": &kf.mem, "secret": &kf.secret}
	var rest []string
	for _, a := range args {
		name, value, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		var err error
		switch {
		case a == "--help" || a == "-h" || a == "-help":
			kf.hasHelp = true
		case !strings.HasPrefix(a, "--"):
			rest = append(rest, a)
		case name == "clients":
			kf.clients, err = strconv.Atoi(value)
			kf.hasClients = true
			if err != nil || kf.clients < 1 {
				err = fmt.Errorf("--clients=%s: a number of clients, 1 or more", value)
			}
		case text[name] != nil:
			*text[name] = value
		case name == "start-delay":
			kf.startDelay, err = strconv.ParseFloat(value, 64)
			if err != nil || kf.startDelay < 0 {
				err = fmt.Errorf("--start-delay=%s: a number of seconds", value)
			}
		default:
			rest = append(rest, a)
		}
		if err != nil {
			return kf, nil, err
		}
	}
	return kf, rest, nil
}

// checkRun checks the run's arguments as `sbgo ARGS run` would: the
// options, the script and the options it declares. What that prints goes
// to stderr only when it fails. It returns the loaded invocation, or nil
// and the exit code.
func checkRun(args []string, stderr io.Writer) (*invocation, int) {
	for _, a := range args {
		for _, own := range []string{"client-id", "results-file"} {
			if isOption(a, own) {
				fmt.Fprintf(stderr, "sbgo kube: --%s is the Job's to set: each client gets its own id and writes its results to its log\n", own)
				return nil, 1
			}
		}
	}
	var out, errs bytes.Buffer
	inv := &invocation{argv: append([]string{"sbgo"}, args...), stdin: strings.NewReader(""),
		stdout: &syncWriter{w: &out}, stderr: &errs, began: time.Now()}
	failed := func(code int) (*invocation, int) {
		stderr.Write(errs.Bytes())
		stderr.Write(out.Bytes())
		return nil, max(code, 1)
	}
	if code, stop := inv.parseArgs(); stop {
		return failed(code)
	}
	if inv.cl.ReadsStdin() {
		fmt.Fprintln(stderr, "sbgo kube: no script: give the test name or the script's file")
		return nil, 1
	}
	if c := inv.cl.Commands; len(c) > 1 || (len(c) == 1 && c[0] != "run") {
		fmt.Fprintf(stderr, "sbgo kube: the clients run the run command only; give %q to sbgo itself, once\n", strings.Join(c, " "))
		return nil, 1
	}
	// The script is loaded as the clients load it: for the run command.
	inv.cl.Command, inv.cl.HasCommand = "run", true
	inv.log = engine.NewLogger(inv.stdout, inv.general.Verbosity)
	if err := inv.loadScript(); err != nil {
		inv.log.Logf(engine.LevelFatal, "%s", err)
		return failed(1)
	}
	if code, stop := inv.resolveOptions(); stop {
		inv.script.Close()
		return failed(code)
	}
	return inv, 0
}

// kubeSpec is the manifests' spec: the run's options as given, less the
// test, the command and the secrets, which the pods read from a Secret.
func (inv *invocation) kubeSpec(kf kubeFlags, args []string) (kube.Spec, error) {
	s := kube.Spec{
		Name: kf.jobName, Namespace: kf.namespace, Image: kf.image, Clients: kf.clients,
		CPU: kf.cpu, Memory: kf.mem, SecretName: kf.secret, StartAt: inv.startAt,
	}
	if s.Name == "" {
		s.Name = defaultJobName(inv.test)
	}
	if s.StartAt.IsZero() {
		s.StartAt = inv.began.Add(time.Duration(kf.startDelay * float64(time.Second))).Truncate(time.Second)
	}
	if err := lateStart(s.StartAt, time.Now()); err != nil {
		return s, err
	}
	var err error
	if s.Script, s.Files, err = inv.scriptFiles(); err != nil {
		return s, err
	}
	if s.Args, s.Secrets, err = inv.podArgs(args, kf.secret); err != nil {
		return s, err
	}
	if d := inv.runLength(); d > 0 {
		s.Deadline = time.Until(s.StartAt).Truncate(time.Second) + d + jobDeadlineMargin
	}
	return s, nil
}

// podArgs are the options the clients run with: the arguments less the
// test, the commands and --start-at (which the Job sets), and the secret
// options, which come from the Secret. With an existing Secret the
// command line holds no secret; the --db-driver's password comes from it.
func (inv *invocation) podArgs(args []string, existing string) ([]string, []kube.Secret, error) {
	var out []string
	var secrets []kube.Secret
	for _, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		name = strings.ReplaceAll(name, "_", "-")
		switch {
		case !strings.HasPrefix(a, "--") || isOption(a, "start-at"):
		case hasValue && results.IsSecret(name):
			if existing != "" {
				return nil, nil, fmt.Errorf("--%s: with --secret=%s the password comes from that Secret; leave it off the command line", name, existing)
			}
			secrets = append(secrets, kube.Secret{Option: name, Value: value})
		default:
			out = append(out, a)
		}
	}
	if existing != "" {
		switch d := inv.general.DBDriver; d {
		case "mysql", "pgsql":
			secrets = append(secrets, kube.Secret{Option: d + "-password"})
		default:
			return nil, nil, fmt.Errorf("--secret=%s: --db-driver=%s takes no password", existing, d)
		}
	}
	return out, secrets, nil
}

// scriptFiles are the test as the pods name it and the files they need:
// a local script goes into the ConfigMap under its base name, with every
// module it required from the disk under the path require() finds it at
// in the pods' working directory. A bundled script needs none.
func (inv *invocation) scriptFiles() (string, []kube.File, error) {
	script := inv.test
	var files []kube.File
	if st, err := os.Stat(inv.test); err == nil && st.Mode().IsRegular() {
		data, err := os.ReadFile(inv.test)
		if err != nil {
			return "", nil, err
		}
		script = filepath.Base(inv.test)
		files = append(files, kube.File{Path: script, Data: string(data)})
	}
	for name, p := range inv.script.DiskModules() {
		data, err := os.ReadFile(p)
		if err != nil {
			return "", nil, err
		}
		files = append(files, kube.File{Path: modulePath(name, p), Data: string(data)})
	}
	return script, kube.SortedFiles(files), nil
}

// modulePath is where require(name) finds a module in the working
// directory: ./a/b.lua for "a.b", or ./a/b/init.lua when it was an
// init.lua.
func modulePath(name, found string) string {
	p := strings.ReplaceAll(name, ".", "/")
	if filepath.Base(found) == "init.lua" && filepath.Base(p) != "init" {
		return p + "/init.lua"
	}
	return p + ".lua"
}

// runLength is how long the options make the run phase last, all steps
// of a sweep with their warm-ups; 0 when --time does not bound it.
func (inv *invocation) runLength() time.Duration {
	g := inv.general
	if g.Time <= 0 {
		return 0
	}
	return time.Duration(inv.stepCount()*(g.Time+g.WarmupTime)) * time.Second
}

// defaultJobName is sbgo-WORKLOAD, in the letters a Kubernetes name
// allows.
func defaultJobName(test string) string {
	w := strings.ToLower(strings.TrimSuffix(filepath.Base(test), ".lua"))
	w = strings.Map(func(r rune) rune {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, w)
	name := strings.Trim("sbgo-"+w, "-")
	return strings.TrimRight(name[:min(len(name), 50)], "-")
}

// localHostWarning warns when the clients would connect to their own
// loopback: a pod's localhost is the pod itself, not the database.
func localHostWarning(inv *invocation) string {
	d := inv.general.DBDriver
	if d != "mysql" && d != "pgsql" {
		return ""
	}
	host := firstItem(optionText(inv.opts, d+"-host"))
	ip := net.ParseIP(host)
	if host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return fmt.Sprintf("--%s-host=%s: in a pod that is the pod itself; give the database's address as the pods reach it", d, host)
	}
	return ""
}
