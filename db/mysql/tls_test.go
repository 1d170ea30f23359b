package mysql

import (
	"context"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"sbgo/db"
	"sbgo/engine"
	"sbgo/internal/testcert"
)

// With 1.0.20's --mysql-ssl=on and no file options, the client
// certificate, key and CA come from the current directory when there.
func TestSSLOnUsesFilesInCurrentDirectory(t *testing.T) {
	dir := t.TempDir()
	testcert.NewCA(t, "client issuer").Issue(t, filepath.Join(dir, "client-cert.pem"), filepath.Join(dir, "client-key.pem"))
	testcert.NewCA(t, "sbgo test CA").WriteCert(t, filepath.Join(dir, "cacert.pem"))
	t.Chdir(dir)

	tests := []struct {
		name      string
		kv        []string
		certs     int
		verifyRef bool // a chain check is installed (VERIFY_CA)
	}{
		{"on: files from the directory", []string{"mysql-ssl", "on"}, 1, false},
		{"REQUIRED: only named files", []string{"mysql-ssl", "REQUIRED"}, 0, false},
		{"VERIFY_CA with a CA file", []string{"mysql-ssl", "VERIFY_CA", "mysql-ssl-ca", "cacert.pem"}, 0, true},
		{"named key and cert", []string{"mysql-ssl", "REQUIRED", "mysql-ssl-cert", "client-cert.pem", "mysql-ssl-key", "client-key.pem"}, 1, false},
	}
	for _, tt := range tests {
		d, _ := newDriver(t, tt.kv...)
		cfg := d.set.tls
		if cfg == nil {
			t.Errorf("%s: no TLS configuration", tt.name)
			continue
		}
		if len(cfg.Certificates) != tt.certs || (cfg.VerifyPeerCertificate != nil) != tt.verifyRef {
			t.Errorf("%s: %d client certificates, chain check %v", tt.name, len(cfg.Certificates), cfg.VerifyPeerCertificate != nil)
		}
	}

	// VERIFY_CA accepts a chain from its CA and refuses another.
	d, _ := newDriver(t, "mysql-ssl", "VERIFY_CA", "mysql-ssl-ca", "cacert.pem")
	other, err := tls.LoadX509KeyPair("client-cert.pem", "client-key.pem") // another CA's
	if err != nil {
		t.Fatal(err)
	}
	if err := d.set.tls.VerifyPeerCertificate(other.Certificate, nil); err == nil {
		t.Error("VERIFY_CA accepted a certificate its CA did not sign")
	}
	block, _ := pem.Decode(mustRead(t, "cacert.pem"))
	if err := d.set.tls.VerifyPeerCertificate([][]byte{block.Bytes}, nil); err != nil {
		t.Errorf("VERIFY_CA refused the CA's own certificate: %v", err)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tlsFixture is a CA, an unrelated CA and a server certificate for
// 127.0.0.1 signed by the first, the certificates as files in a
// directory of the test's.
type tlsFixture struct {
	ca, other                     *testcert.CA
	caFile, otherFile             string // the CAs' certificates
	serverCertFile, serverKeyFile string
}

func newTLSFixture(t *testing.T) tlsFixture {
	t.Helper()
	dir := t.TempDir()
	f := tlsFixture{
		ca:             testcert.NewCA(t, "sbgo test CA"),
		other:          testcert.NewCA(t, "unrelated CA"),
		caFile:         filepath.Join(dir, "ca.pem"),
		otherFile:      filepath.Join(dir, "other-ca.pem"),
		serverCertFile: filepath.Join(dir, "server-cert.pem"),
		serverKeyFile:  filepath.Join(dir, "server-key.pem"),
	}
	f.ca.WriteCert(t, f.caFile)
	f.other.WriteCert(t, f.otherFile)
	f.ca.Issue(t, f.serverCertFile, f.serverKeyFile, "127.0.0.1")
	return f
}

// serverArgs are mariadbd's options to serve TLS with the fixture.
func (f tlsFixture) serverArgs() []string {
	return []string{"--ssl-cert=" + f.serverCertFile, "--ssl-key=" + f.serverKeyFile, "--ssl-ca=" + f.caFile}
}

// connectTLS opens a root session to the throwaway server at host:port
// with the options kv.
func connectTLS(t *testing.T, host string, port int, kv ...string) (db.Conn, error) {
	t.Helper()
	args := append([]string{"mysql-host", host, "mysql-port", strconv.Itoa(port), "mysql-user", "root", "mysql-db", ""}, kv...)
	d, _ := newDriver(t, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := d.Connect(ctx)
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

// sessionCipher is the TLS cipher of c's session as the server reports
// it, "" for a plain-text session.
func sessionCipher(t *testing.T, c db.Conn) string {
	t.Helper()
	rows := queryRows(t, c, "SHOW STATUS LIKE 'Ssl_cipher'")
	if len(rows) != 1 {
		t.Fatalf("SHOW STATUS LIKE 'Ssl_cipher': %v", rows)
	}
	return rows[0][1]
}

// checkTLSRefusal checks that err is a failed connection with error
// 2026 whose one-line message contains want.
func checkTLSRefusal(t *testing.T, name string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: connected, want error 2026 (%s)", name, want)
		return
	}
	e := asDBError(t, err)
	if e.Errno != crSSLConnectionError || !strings.HasPrefix(e.Msg, "SSL connection error: ") ||
		!strings.Contains(e.Msg, want) || strings.Contains(e.Msg, "\n") {
		t.Errorf("%s: error %d %q, want 2026 with %q on one line", name, e.Errno, e.Msg, want)
	}
	if lines := (&Driver{}).ConnectErrorText(err); len(lines) != 2 || !strings.HasPrefix(lines[1], "error 2026: SSL connection error: ") {
		t.Errorf("%s: logged as %q", name, lines)
	}
}

// Every --mysql-ssl mode against a server with TLS: the modes that ask
// for TLS get an encrypted session (the server says so) or fail with
// 2026 naming the certificate problem; the others stay in plain text.
func TestTLSModesWithServerTLS(t *testing.T) {
	f := newTLSFixture(t)
	port := startMariaDB(t, f.serverArgs()...)
	tests := []struct {
		name    string
		host    string // 127.0.0.2 is not in the server's certificate
		kv      []string
		plain   bool   // a session without TLS is expected
		wantErr string // the refusal's message names this
	}{
		// The defaults: no TLS.
		{"off", "127.0.0.1", []string{"mysql-ssl", "off"}, true, ""},
		{"DISABLED", "127.0.0.1", []string{"mysql-ssl", "DISABLED"}, true, ""},
		// TLS when the server has it.
		{"PREFERRED", "127.0.0.1", []string{"mysql-ssl", "PREFERRED"}, false, ""},
		// Encrypted, certificate unchecked: any name, no CA.
		{"on", "127.0.0.2", []string{"mysql-ssl", "on"}, false, ""},
		{"REQUIRED", "127.0.0.2", []string{"mysql-ssl", "REQUIRED"}, false, ""},
		{"REQUIRED ignores a wrong CA", "127.0.0.1", []string{"mysql-ssl", "REQUIRED", "mysql-ssl-ca", f.otherFile}, false, ""},
		// The chain is checked, the name is not.
		{"VERIFY_CA", "127.0.0.1", []string{"mysql-ssl", "VERIFY_CA", "mysql-ssl-ca", f.caFile}, false, ""},
		{"VERIFY_CA, name not in the certificate", "127.0.0.2", []string{"mysql-ssl", "VERIFY_CA", "mysql-ssl-ca", f.caFile}, false, ""},
		{"VERIFY_CA, wrong CA", "127.0.0.1", []string{"mysql-ssl", "VERIFY_CA", "mysql-ssl-ca", f.otherFile}, false, "certificate signed by unknown authority"},
		{"VERIFY_CA, system roots", "127.0.0.1", []string{"mysql-ssl", "VERIFY_CA"}, false, "certificate signed by unknown authority"},
		// Chain and name are checked.
		{"VERIFY_IDENTITY", "127.0.0.1", []string{"mysql-ssl", "VERIFY_IDENTITY", "mysql-ssl-ca", f.caFile}, false, ""},
		{"VERIFY_IDENTITY, name mismatch", "127.0.0.2", []string{"mysql-ssl", "VERIFY_IDENTITY", "mysql-ssl-ca", f.caFile}, false, "certificate is valid for 127.0.0.1, not 127.0.0.2"},
		{"VERIFY_IDENTITY, wrong CA", "127.0.0.1", []string{"mysql-ssl", "VERIFY_IDENTITY", "mysql-ssl-ca", f.otherFile}, false, "certificate signed by unknown authority"},
	}
	for _, tt := range tests {
		c, err := connectTLS(t, tt.host, port, tt.kv...)
		if tt.wantErr != "" {
			checkTLSRefusal(t, tt.name, err, tt.wantErr)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if cipher := sessionCipher(t, c); (cipher == "") != tt.plain {
			t.Errorf("%s: session cipher %q, want plain text %v", tt.name, cipher, tt.plain)
		}
	}

	// 1.0.20's on takes the client certificate from the current directory:
	// one the server's CA signed is accepted, another CA's is refused.
	t.Run("on with files in the directory", func(t *testing.T) {
		t.Chdir(t.TempDir())
		f.ca.Issue(t, "client-cert.pem", "client-key.pem")
		f.ca.WriteCert(t, "cacert.pem")
		c, err := connectTLS(t, "127.0.0.1", port, "mysql-ssl", "on")
		if err != nil {
			t.Fatalf("on, client certificate from the server's CA: %v", err)
		}
		if sessionCipher(t, c) == "" {
			t.Error("on: plain-text session")
		}
		// The refusal reaches the client as an alert on its next read or
		// a reset on its next write, whichever the socket meets first.
		f.other.Issue(t, "client-cert.pem", "client-key.pem")
		for _, mode := range []string{"blocking", "go-sql-driver"} {
			_, err = connectTLS(t, "127.0.0.1", port, "mysql-ssl", "on", "mysql-io-mode", mode)
			checkTLSRefusal(t, "on, client certificate from another CA, "+mode, err, "the server refused the client certificate (")
		}
	})
}

// Against a server without TLS, every mode that asks for TLS fails with
// 2026 rather than continuing in plain text; only PREFERRED (by its
// definition) and the plain modes connect.
func TestTLSModesWithoutServerTLS(t *testing.T) {
	f := newTLSFixture(t)
	port := startMariaDB(t, "--skip-ssl")
	const noTLS = "SSL is required but the server doesn't support it"
	tests := []struct {
		name    string
		kv      []string
		wantErr string
	}{
		// No TLS asked for.
		{"off", []string{"mysql-ssl", "off"}, ""},
		{"DISABLED", []string{"mysql-ssl", "DISABLED"}, ""},
		// TLS if the server has it: the one mode that falls back.
		{"PREFERRED falls back", []string{"mysql-ssl", "PREFERRED"}, ""},
		// 1.0.20's on is REQUIRED (sysbench on libmariadb falls back here).
		{"on", []string{"mysql-ssl", "on"}, noTLS},
		// TLS or nothing, whether the certificate is checked or not.
		{"REQUIRED", []string{"mysql-ssl", "REQUIRED"}, noTLS},
		{"VERIFY_CA", []string{"mysql-ssl", "VERIFY_CA", "mysql-ssl-ca", f.caFile}, noTLS},
		{"VERIFY_IDENTITY", []string{"mysql-ssl", "VERIFY_IDENTITY", "mysql-ssl-ca", f.caFile}, noTLS},
	}
	for _, tt := range tests {
		c, err := connectTLS(t, "127.0.0.1", port, tt.kv...)
		if tt.wantErr != "" {
			checkTLSRefusal(t, tt.name, err, tt.wantErr)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if cipher := sessionCipher(t, c); cipher != "" {
			t.Errorf("%s: session cipher %q on a server without TLS", tt.name, cipher)
		}
	}
}

// The probe turns what go-sql-driver logged during a failed attempt into
// the TLS error the attempt is reported with.
func TestTLSProbeExplains(t *testing.T) {
	alert := &net.OpError{Op: "remote error", Err: errors.New("tls: unknown certificate authority")}
	pipe := &net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}
	badConn := errors.New("bad connection") // go-sql-driver's for a first write that failed
	tests := []struct {
		name       string
		clientCert bool
		verified   bool    // the server's certificate was accepted
		logged     []error // what go-sql-driver logged
		err        error   // what Connect returned
		want       string  // the 2026 message, "" for no TLS failure
	}{
		// A drop before TLS is a network fault (and may be retried).
		{"drop before the handshake", true, false, []error{io.EOF}, gomysql.ErrInvalidConn, ""},
		// A server alert read after the handshake, without a client certificate.
		{"alert, no client certificate", false, true, []error{alert}, gomysql.ErrInvalidConn, "SSL connection error: remote error: tls: unknown certificate authority"},
		// The same with a certificate sent: the server refused it.
		{"alert after the client certificate", true, true, []error{alert}, gomysql.ErrInvalidConn,
			"SSL connection error: the server refused the client certificate (remote error: tls: unknown certificate authority)"},
		// The server's reset beat its alert to the client's next write.
		{"reset after the client certificate", true, true, []error{pipe}, badConn,
			"SSL connection error: the server refused the client certificate (write tcp: broken pipe)"},
		// Nothing logged: the returned error is the cause.
		{"nothing logged", true, true, nil, io.ErrUnexpectedEOF,
			"SSL connection error: the server refused the client certificate (unexpected EOF)"},
		// A server's error is its own, whatever was logged.
		{"server error", true, true, []error{alert}, &gomysql.MySQLError{Number: 1045, Message: "Access denied"}, ""},
		// So is the caller's cancellation.
		{"cancelled", true, true, []error{pipe}, context.Canceled, ""},
	}
	for _, tt := range tests {
		cfg := gomysql.NewConfig()
		cfg.TLS = &tls.Config{}
		if tt.clientCert {
			cfg.TLS.Certificates = []tls.Certificate{{}}
		}
		p := watchTLS(cfg, engine.NewLogger(io.Discard, 0))
		p.Print("packets.go:1 ", errors.New("stale, from an earlier attempt"))
		p.reset()
		if tt.verified {
			cfg.TLS.VerifyConnection(tls.ConnectionState{})
		}
		for _, e := range tt.logged {
			p.Print("packets.go:58 ", e)
		}
		msg := ""
		if got := p.explain(tt.err); got != nil {
			e := connectDBError(got, endpoint{host: "db1", port: 3306})
			if e.Errno != crSSLConnectionError {
				t.Errorf("%s: error %d, want 2026", tt.name, e.Errno)
			}
			msg = e.Msg
		}
		if msg != tt.want {
			t.Errorf("%s: explained as %q, want %q", tt.name, msg, tt.want)
		}
	}
}
