// Package release knows the platforms sbgo is released for and builds
// sbgo for any of them, for the tests that check a release: that every
// target cross-compiles to a static binary of the right kind and that
// goreleaser's snapshot holds the archives, checksums and packages
// (release_test.go), and that the linux/arm64 binary runs the workloads
// under qemu (cmd/sbgo/crossarch_test.go).
//
// Platform-specific code sits behind build tags, each with its fallback:
// blocking sockets (db/sockconn) on Linux, macOS and FreeBSD, Go's poller
// on Windows; os.clock()'s CPU time (luabind/cputime_*.go) from
// getrusage(2) on Unix, GetProcessTimes on Windows, -1 elsewhere; terminal
// detection through golang.org/x/term.
package release

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Target is a platform sbgo is released for.
type Target struct{ OS, Arch string }

// Targets are the platforms of a release, the builds' targets in
// .goreleaser.yaml.
var Targets = []Target{
	{"linux", "amd64"}, {"linux", "arm64"}, {"linux", "ppc64le"}, {"linux", "s390x"}, {"linux", "riscv64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
	{"freebsd", "amd64"},
}

func (t Target) String() string { return t.OS + "/" + t.Arch }

// Binary is the name of sbgo's executable on t.
func (t Target) Binary() string {
	if t.OS == "windows" {
		return "sbgo.exe"
	}
	return "sbgo"
}

// Build compiles sbgo for t into a directory of dir named after t and
// returns the binary's path. It uses the release's settings
// (CGO_ENABLED=0, -trimpath, as .goreleaser.yaml), so that the builds of
// the release and of the tests share Go's build cache; it must run inside
// sbgo's module.
func Build(t Target, dir string) (string, error) {
	out := filepath.Join(dir, t.OS+"_"+t.Arch, t.Binary())
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "sbgo/cmd/sbgo")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.OS, "GOARCH="+t.Arch)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build for %s: %v\n%s", t, err, strings.TrimSpace(string(msg)))
	}
	return out, nil
}

// QEMUArm64 is the path of qemu-aarch64-static, which runs linux/arm64
// binaries here. Under CI=true a missing emulator fails the test (.ci/run
// installs qemu-user-static); elsewhere the test is skipped.
func QEMUArm64(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("qemu-aarch64-static")
	if err == nil {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("no qemu-aarch64-static for the linux/arm64 test: %v", err)
	}
	t.Skipf("no qemu-aarch64-static (apt-get install qemu-user-static): %v", err)
	return ""
}
