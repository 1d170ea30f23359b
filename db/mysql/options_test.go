package mysql

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"sbgo/db"
	"sbgo/engine"
)

// newOptions returns the driver's options and --db-ps-mode with their
// defaults, then sets name/value pairs.
func newOptions(t testing.TB, kv ...string) *engine.Options {
	t.Helper()
	o := engine.NewOptions()
	if err := o.Register(Factory{}.Options()...); err != nil {
		t.Fatal(err)
	}
	if err := o.Register(engine.Option{Name: "db-ps-mode", Type: engine.ArgString, Default: engine.Default("auto")}); err != nil {
		t.Fatal(err)
	}
	// --threads, a general option, chooses the sessions' I/O mode.
	if err := o.Register(engine.Option{Name: "threads", Type: engine.ArgInt, Default: engine.Default("1")}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		v := kv[i+1]
		if err := o.Set(kv[i], &v); err != nil {
			t.Fatalf("--%s=%s: %v", kv[i], v, err)
		}
	}
	return o
}

// newDriver makes a driver from options, logging into the returned
// buffer at DEBUG verbosity.
func newDriver(t testing.TB, kv ...string) (*Driver, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	d, err := Factory{}.New(newOptions(t, kv...), engine.NewLogger(&buf, int(engine.LevelDebug)))
	if err != nil {
		t.Fatalf("New(%q): %v", kv, err)
	}
	return d.(*Driver), &buf
}

func TestRegistered(t *testing.T) {
	f, ok := db.Lookup("mysql")
	if !ok {
		t.Fatal("mysql is not registered")
	}
	if f.Name() != "mysql" || f.Description() != "MySQL driver" {
		t.Errorf("Name, Description = %q, %q", f.Name(), f.Description())
	}
}

func TestOptionsTable(t *testing.T) {
	want := []struct{ name, def string }{
		{"mysql-host", "localhost"},
		{"mysql-port", "3306"},
		{"mysql-socket", "<nil>"},
		{"mysql-user", "sbtest"},
		{"mysql-password", ""},
		{"mysql-db", "sbtest"},
		{"mysql-ssl", "off"},
		{"mysql-ssl-key", "<nil>"},
		{"mysql-ssl-ca", "<nil>"},
		{"mysql-ssl-cert", "<nil>"},
		{"mysql-ssl-cipher", ""},
		{"mysql-compression", "off"},
		{"mysql-debug", "off"},
		{"mysql-ignore-errors", "1213,1020,1205"},
		{"mysql-dry-run", "off"},
		{"mysql-io-mode", "auto"},
	}
	opts := Factory{}.Options()
	if len(opts) != len(want) {
		t.Fatalf("%d options, want %d", len(opts), len(want))
	}
	for i, o := range opts {
		def := "<nil>"
		if o.Default != nil {
			def = *o.Default
		}
		if o.Name != want[i].name || def != want[i].def {
			t.Errorf("option %d = %s [%s], want %s [%s]", i, o.Name, def, want[i].name, want[i].def)
		}
	}
}

func TestNewValidation(t *testing.T) {
	tests := []struct {
		name    string
		kv      []string
		wantErr string
	}{
		{"defaults", nil, ""},
		{"no hosts", []string{"mysql-host", ","}, "No MySQL hosts specified, aborting"},
		{"no ports", []string{"mysql-port", ","}, "No MySQL ports specified, aborting"},
		{"junk port", []string{"mysql-port", "33x"}, "Invalid value for --mysql-port: '33x'"},
		{"port too big", []string{"mysql-port", "70000"}, "Invalid value for --mysql-port: '70000'"},
		{"junk ignore item", []string{"mysql-ignore-errors", "1213,deadlock"}, "Invalid value for --mysql-ignore-errors: 'deadlock'"},
		{"ps mode disable", []string{"db-ps-mode", "disable"}, ""},
		{"junk ps mode", []string{"db-ps-mode", "sometimes"}, "Invalid value for db-ps-mode: sometimes"},
		{"ssl on", []string{"mysql-ssl", "on"}, ""},
		{"ssl bare", []string{"mysql-ssl", ""}, ""},
		{"ssl mode any case", []string{"mysql-ssl", "Verify_Identity"}, ""},
		{"ssl preferred", []string{"mysql-ssl", "PREFERRED"}, ""},
		{"junk ssl", []string{"mysql-ssl", "maybe"}, "Invalid value for --mysql-ssl: 'maybe'"},
		{"cipher OpenSSL name", []string{"mysql-ssl", "REQUIRED", "mysql-ssl-cipher", "ECDHE-RSA-AES128-GCM-SHA256"}, ""},
		{"cipher IANA name", []string{"mysql-ssl", "REQUIRED", "mysql-ssl-cipher", "TLS_RSA_WITH_AES_128_CBC_SHA"}, ""},
		{"unknown cipher", []string{"mysql-ssl", "REQUIRED", "mysql-ssl-cipher", "RC4-MD5"}, "Invalid value for --mysql-ssl-cipher: 'RC4-MD5'"},
		{"cipher ignored without TLS", []string{"mysql-ssl-cipher", "RC4-MD5"}, ""},
		{"missing CA file", []string{"mysql-ssl", "VERIFY_CA", "mysql-ssl-ca", "/nonexistent/ca.pem"}, "cannot read --mysql-ssl-ca file"},
		{"key without cert", []string{"mysql-ssl", "REQUIRED", "mysql-ssl-key", "k.pem"}, "--mysql-ssl-cert and --mysql-ssl-key must be given together"},
	}
	for _, tt := range tests {
		_, err := Factory{}.New(newOptions(t, tt.kv...), engine.NewLogger(&bytes.Buffer{}, 3))
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: New: %v", tt.name, err)
		case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
			t.Errorf("%s: New error = %v, want %q", tt.name, err, tt.wantErr)
		}
	}
}

func TestSSLModes(t *testing.T) {
	tests := []struct {
		value      string
		tls        bool // a TLS configuration is built
		verify     bool // the server certificate is checked by crypto/tls
		verifyHook bool // the chain is checked by our own hook (VERIFY_CA)
		fallback   bool
	}{
		{"off", false, false, false, false},           // 1.0.20 default
		{"DISABLED", false, false, false, false},      // mode name
		{"on", true, false, false, false},             // 1.0.20 on: REQUIRED
		{"required", true, false, false, false},       // encrypted, unchecked
		{"PREFERRED", true, false, false, true},       // may fall back to plain text
		{"VERIFY_CA", true, false, true, false},       // chain checked, not the name
		{"VERIFY_IDENTITY", true, true, false, false}, // chain and name checked
	}
	for _, tt := range tests {
		d, _ := newDriver(t, "mysql-ssl", tt.value)
		cfg := d.config(endpoint{host: "db1", port: 3306})
		if (cfg.TLS != nil) != tt.tls {
			t.Errorf("--mysql-ssl=%s: TLS = %v, want %v", tt.value, cfg.TLS != nil, tt.tls)
			continue
		}
		if cfg.TLS == nil {
			continue
		}
		if !cfg.TLS.InsecureSkipVerify != tt.verify || (cfg.TLS.VerifyPeerCertificate != nil) != tt.verifyHook ||
			cfg.AllowFallbackToPlaintext != tt.fallback {
			t.Errorf("--mysql-ssl=%s: skip verify %v, hook %v, fallback %v", tt.value,
				cfg.TLS.InsecureSkipVerify, cfg.TLS.VerifyPeerCertificate != nil, cfg.AllowFallbackToPlaintext)
		}
		if tt.verify && cfg.TLS.ServerName != "db1" {
			t.Errorf("--mysql-ssl=%s: server name %q, want db1", tt.value, cfg.TLS.ServerName)
		}
	}
}

func TestPasswordFromEnvironment(t *testing.T) {
	t.Setenv("MYSQL_PWD", "from-env")
	d, _ := newDriver(t)
	if d.set.password != "from-env" {
		t.Errorf("empty --mysql-password: password %q, want MYSQL_PWD's", d.set.password)
	}
	d, _ = newDriver(t, "mysql-password", "given")
	if d.set.password != "given" {
		t.Errorf("--mysql-password=given: password %q", d.set.password)
	}
}

// The round robin needs no server: every port refuses, and the error
// says which endpoint each attempt used.
func TestRoundRobin(t *testing.T) {
	d, _ := newDriver(t, "mysql-host", "127.0.0.1,127.0.0.2", "mysql-port", "1,2")
	want := []string{
		"host '127.0.0.1', port 1",
		"host '127.0.0.1', port 2",
		"host '127.0.0.2', port 1",
		"host '127.0.0.2', port 2",
		"host '127.0.0.1', port 1", // wraps
	}
	for i, w := range want {
		_, err := d.Connect(context.Background())
		var ce *ConnectError
		if !errors.As(err, &ce) {
			t.Fatalf("connect %d: %v, want a ConnectError", i, err)
		}
		if ce.Endpoint != w {
			t.Errorf("connect %d went to %s, want %s", i, ce.Endpoint, w)
		}
		if ce.Err.Errno != 2003 {
			t.Errorf("connect %d: errno %d, want 2003", i, ce.Err.Errno)
		}
	}

	// Sockets replace hosts and ports.
	d, _ = newDriver(t, "mysql-host", "127.0.0.1", "mysql-socket", "/nonexistent/a.sock,/nonexistent/b.sock")
	for i, w := range []string{"socket '/nonexistent/a.sock'", "socket '/nonexistent/b.sock'", "socket '/nonexistent/a.sock'"} {
		_, err := d.Connect(context.Background())
		var ce *ConnectError
		if !errors.As(err, &ce) || ce.Endpoint != w || ce.Err.Errno != 2002 {
			t.Errorf("socket connect %d: %v, want 2002 at %s", i, err, w)
		}
	}
}

func TestDryRun(t *testing.T) {
	d, _ := newDriver(t, "mysql-dry-run", "on", "mysql-host", "127.0.0.1", "mysql-port", "1")
	ctx := context.Background()
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	for _, q := range []string{"SELECT 1", "UPDATE t SET a=1", "BEGIN"} {
		res, err := c.Query(ctx, q)
		if err != nil || res.Rows != nil || res.Affected != 0 {
			t.Errorf("Query(%q) = %+v, %v; want no result set, 0 rows", q, res, err)
		}
	}
	st, err := c.Prepare(ctx, "SELECT ? FROM t WHERE id=?", nil)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	if n := st.(db.ParamCounter).NumParams(); n != 2 {
		t.Errorf("NumParams = %d, want 2", n)
	}
	res, err := st.Execute(ctx, []db.Value{{I: 1}, {I: 2}})
	if err != nil || res.Rows != nil || res.Affected != 0 {
		t.Errorf("Execute = %+v, %v", res, err)
	}
	if err := c.Reconnect(ctx); err != nil {
		t.Errorf("Reconnect: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
