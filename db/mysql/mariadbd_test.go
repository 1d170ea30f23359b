package mysql

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// mariadbdPath is the server binary the TLS tests start.
const mariadbdPath = "/usr/sbin/mariadbd"

// startMariaDB starts a throwaway MariaDB server of the test's own and
// returns its port; it is stopped when the test ends. It listens on
// 127.0.0.1 and 127.0.0.2, so that a test can reach it under an address
// its certificate does not name. extra are further server options (the
// TLS files).
//
// The data directory starts empty and the server runs with
// --skip-grant-tables: there are no system tables to create, which keeps
// the start short, and root (or anyone) logs in without a password. It
// reads no option file. Without the binary the test is skipped, except
// under CI=true, where it fails.
func startMariaDB(t *testing.T, extra ...string) int {
	t.Helper()
	if _, err := os.Stat(mariadbdPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no MariaDB server binary: %v", err)
		}
		t.Skipf("no MariaDB server binary: %v", err)
	}
	dir := t.TempDir()
	port := freePort(t)
	errLog := filepath.Join(dir, "error.log")
	args := []string{
		"--no-defaults",
		"--datadir=" + filepath.Join(dir, "data"),
		"--port=" + strconv.Itoa(port),
		"--bind-address=127.0.0.1,127.0.0.2",
		"--socket=" + filepath.Join(dir, "mysqld.sock"),
		"--pid-file=" + filepath.Join(dir, "mysqld.pid"),
		"--log-error=" + errLog,
		"--skip-grant-tables", "--skip-name-resolve",
		"--innodb-buffer-pool-size=8M", "--innodb-log-file-size=4M",
		"--innodb-data-file-path=ibdata1:4M:autoextend",
	}
	if os.Geteuid() == 0 {
		// mariadbd refuses to run as root unless told to.
		args = append(args, "--user=root")
	}
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(mariadbdPath, append(args, extra...)...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", mariadbdPath, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { stopMariaDB(t, cmd, exited) })
	waitReady(t, errLog, exited)
	return port
}

// waitReady waits for the server to log that it accepts connections.
func waitReady(t *testing.T, errLog string, exited <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		text, _ := os.ReadFile(errLog)
		if bytes.Contains(text, []byte("ready for connections")) {
			return
		}
		select {
		case <-exited:
			t.Fatalf("mariadbd exited before it was ready:\n%s", text)
		case <-time.After(50 * time.Millisecond):
		}
	}
	text, _ := os.ReadFile(errLog)
	t.Fatalf("mariadbd was not ready within a minute:\n%s", text)
}

// stopMariaDB shuts the server down, and kills it if it does not end.
func stopMariaDB(t *testing.T, cmd *exec.Cmd, exited <-chan struct{}) {
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		t.Errorf("mariadbd did not stop within a minute; killed")
		cmd.Process.Kill()
		<-exited
	}
}

// freePort is a TCP port nothing listens on at the moment.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
