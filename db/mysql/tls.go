package mysql

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	gomysql "github.com/go-sql-driver/mysql"

	"sbgo/engine"
)

// sslMode is --mysql-ssl.
type sslMode int

const (
	sslDisabled       sslMode = iota
	sslPreferred              // TLS if the server has it, unverified
	sslRequired               // TLS or fail, unverified
	sslVerifyCA               // TLS, certificate chain checked
	sslVerifyIdentity         // TLS, chain and host name checked
)

// parseSSLMode reads --mysql-ssl: 1.0.20's boolean (on is REQUIRED) or a
// later version's mode name, in any case. A bare --mysql-ssl means on.
func parseSSLMode(opts *engine.Options) (sslMode, error) {
	v, ok := opts.Lookup("mysql-ssl")
	if !ok {
		return sslDisabled, nil
	}
	switch text := v.String(); strings.ToLower(text) {
	case "", "on", "true", "1", "required":
		return sslRequired, nil
	case "off", "false", "0", "disabled":
		return sslDisabled, nil
	case "preferred":
		return sslPreferred, nil
	case "verify_ca":
		return sslVerifyCA, nil
	case "verify_identity":
		return sslVerifyIdentity, nil
	default:
		return sslDisabled, fmt.Errorf("Invalid value for --mysql-ssl: '%s'", text)
	}
}

// tlsFileNames are the key, certificate and CA files.
type tlsFileNames struct{ key, cert, ca string }

// tlsFiles are the files named by --mysql-ssl-key, -cert and -ca. With
// 1.0.20's --mysql-ssl=on and none of them given, sysbench uses
// client-key.pem, client-cert.pem and cacert.pem from the current
// directory; sbgo does too, for those that exist.
func tlsFiles(opts *engine.Options, mode sslMode) tlsFileNames {
	f := tlsFileNames{
		key:  stringOption(opts, "mysql-ssl-key"),
		cert: stringOption(opts, "mysql-ssl-cert"),
		ca:   stringOption(opts, "mysql-ssl-ca"),
	}
	if mode == sslDisabled || f != (tlsFileNames{}) {
		return f
	}
	if v, _ := opts.Lookup("mysql-ssl"); !isOn(v.String()) {
		return f
	}
	exists := func(name string) string {
		if _, err := os.Stat(name); err == nil {
			return name
		}
		return ""
	}
	f.key, f.cert, f.ca = exists("client-key.pem"), exists("client-cert.pem"), exists("cacert.pem")
	if f.key == "" || f.cert == "" {
		f.key, f.cert = "", ""
	}
	return f
}

func isOn(s string) bool {
	switch strings.ToLower(s) {
	case "", "on", "true", "1":
		return true
	}
	return false
}

// tlsConfig builds the TLS configuration of mode, nil for no TLS.
// REQUIRED (and PREFERRED) encrypt without checking the server's
// certificate, as libmysqlclient does; VERIFY_CA checks the chain against
// the CA file (or the system roots) but not the host name; VERIFY_IDENTITY
// checks both. A requested TLS is never dropped: a server without TLS
// fails the connection (only PREFERRED falls back to plain text).
func tlsConfig(mode sslMode, files tlsFileNames, cipher string) (*tls.Config, error) {
	if mode == sslDisabled {
		return nil, nil
	}
	cfg := &tls.Config{InsecureSkipVerify: mode < sslVerifyIdentity}
	var roots *x509.CertPool
	if files.ca != "" {
		pem, err := os.ReadFile(files.ca)
		if err != nil {
			return nil, fmt.Errorf("cannot read --mysql-ssl-ca file: %v", err)
		}
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("no certificate found in --mysql-ssl-ca file '%s'", files.ca)
		}
	}
	switch mode {
	case sslVerifyCA:
		cfg.VerifyPeerCertificate = verifyChain(roots)
	case sslVerifyIdentity:
		cfg.RootCAs = roots
	}
	if (files.cert == "") != (files.key == "") {
		return nil, errors.New("--mysql-ssl-cert and --mysql-ssl-key must be given together")
	}
	if files.cert != "" {
		pair, err := tls.LoadX509KeyPair(files.cert, files.key)
		if err != nil {
			return nil, fmt.Errorf("cannot load the client certificate: %v", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	if cipher != "" {
		suites, err := cipherSuites(cipher)
		if err != nil {
			return nil, err
		}
		// A cipher list only constrains TLS 1.2 and older, as with
		// libmysqlclient's --ssl-cipher.
		cfg.CipherSuites = suites
		cfg.MaxVersion = tls.VersionTLS12
	}
	return cfg, nil
}

// verifyChain checks the server's certificate chain against roots (the
// system's when nil), without looking at the host name.
func verifyChain(roots *x509.CertPool) func([][]byte, [][]*x509.Certificate) error {
	return func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) == 0 {
			return errors.New("tls: the server sent no certificate")
		}
		certs := make([]*x509.Certificate, len(raw))
		for i, der := range raw {
			c, err := x509.ParseCertificate(der)
			if err != nil {
				return err
			}
			certs[i] = c
		}
		inter := x509.NewCertPool()
		for _, c := range certs[1:] {
			inter.AddCert(c)
		}
		if _, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter}); err != nil {
			// Worded as crypto/tls words its own checks (VERIFY_IDENTITY).
			return &tls.CertificateVerificationError{UnverifiedCertificates: certs, Err: err}
		}
		return nil
	}
}

// opensslCiphers maps OpenSSL's names of the TLS 1.2 suites Go implements
// to their IANA names.
var opensslCiphers = map[string]string{
	"ECDHE-ECDSA-AES128-GCM-SHA256": "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
	"ECDHE-RSA-AES128-GCM-SHA256":   "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
	"ECDHE-ECDSA-AES256-GCM-SHA384": "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
	"ECDHE-RSA-AES256-GCM-SHA384":   "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
	"ECDHE-ECDSA-CHACHA20-POLY1305": "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
	"ECDHE-RSA-CHACHA20-POLY1305":   "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
	"ECDHE-ECDSA-AES128-SHA":        "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
	"ECDHE-RSA-AES128-SHA":          "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
	"ECDHE-ECDSA-AES256-SHA":        "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
	"ECDHE-RSA-AES256-SHA":          "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
	"ECDHE-ECDSA-AES128-SHA256":     "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
	"ECDHE-RSA-AES128-SHA256":       "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
	"AES128-GCM-SHA256":             "TLS_RSA_WITH_AES_128_GCM_SHA256",
	"AES256-GCM-SHA384":             "TLS_RSA_WITH_AES_256_GCM_SHA384",
	"AES128-SHA":                    "TLS_RSA_WITH_AES_128_CBC_SHA",
	"AES256-SHA":                    "TLS_RSA_WITH_AES_256_CBC_SHA",
	"AES128-SHA256":                 "TLS_RSA_WITH_AES_128_CBC_SHA256",
	"DES-CBC3-SHA":                  "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
	"ECDHE-RSA-DES-CBC3-SHA":        "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
}

// cipherSuites reads --mysql-ssl-cipher: a ':'-separated list of OpenSSL
// or IANA suite names.
func cipherSuites(list string) ([]uint16, error) {
	ids := map[string]uint16{}
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		ids[s.Name] = s.ID
	}
	var out []uint16
	for _, name := range strings.Split(list, ":") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if iana, ok := opensslCiphers[strings.ToUpper(name)]; ok {
			name = iana
		}
		id, ok := ids[strings.ToUpper(name)]
		if !ok {
			return nil, fmt.Errorf("Invalid value for --mysql-ssl-cipher: '%s'", name)
		}
		out = append(out, id)
	}
	return out, nil
}

// tlsProbe watches the connection attempts of one dial for the TLS
// failures that go-sql-driver only logs. Under TLS 1.3 a server checks the
// client's certificate after the client has finished its side of the
// handshake, so a refusal reaches the client as an alert on its next read,
// or as a reset on its next write; go-sql-driver logs that error and
// returns "invalid connection" or "bad connection", which would read as a
// network fault and be retried.
type tlsProbe struct {
	debugLogger
	clientCert bool // a client certificate is configured

	mu       sync.Mutex
	verified bool  // the server's certificate arrived and was accepted
	tlsErr   error // the first TLS error logged
	netErr   error // the first other error logged
}

// watchTLS installs a probe as cfg's logger and, with TLS, as the hook
// that sees the server's certificate accepted.
func watchTLS(cfg *gomysql.Config, log *engine.Logger) *tlsProbe {
	p := &tlsProbe{debugLogger: debugLogger{log}}
	cfg.Logger = p
	if cfg.TLS != nil {
		p.clientCert = len(cfg.TLS.Certificates) > 0
		cfg.TLS.VerifyConnection = p.verifyConnection
	}
	return p
}

// Print logs go-sql-driver's message and keeps the errors in it.
func (p *tlsProbe) Print(v ...any) {
	p.debugLogger.Print(v...)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, x := range v {
		err, ok := x.(error)
		switch {
		case !ok:
		case isTLSError(err) && p.tlsErr == nil:
			p.tlsErr = err
		case p.netErr == nil:
			p.netErr = err
		}
	}
}

// verifyConnection runs when the server's certificate passed the mode's
// checks; it accepts the connection.
func (p *tlsProbe) verifyConnection(tls.ConnectionState) error {
	p.mu.Lock()
	p.verified = true
	p.mu.Unlock()
	return nil
}

// reset forgets the previous attempt.
func (p *tlsProbe) reset() {
	p.mu.Lock()
	p.verified, p.tlsErr, p.netErr = false, nil, nil
	p.mu.Unlock()
}

// explain is the TLS failure behind err, the failure of an attempt, or
// nil: never for a server's error or the caller's cancellation. When the
// server's certificate was accepted and the client had one to send, the
// failure is the server refusing that certificate: a *clientCertError
// with the TLS error go-sql-driver logged (the alert), else the network
// error it logged, else err. Otherwise it is the TLS error logged, if any.
func (p *tlsProbe) explain(err error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var me *gomysql.MySQLError
	if errors.As(err, &me) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	if !p.verified || !p.clientCert {
		return p.tlsErr
	}
	for _, cause := range []error{p.tlsErr, p.netErr, err} {
		if cause != nil {
			return &clientCertError{cause}
		}
	}
	return nil
}

// clientCertError is a server that ended the TLS session once it had the
// client's certificate: it does not accept that certificate.
type clientCertError struct{ cause error }

func (e *clientCertError) Error() string {
	return "the server refused the client certificate (" + e.cause.Error() + ")"
}

func (e *clientCertError) Unwrap() error { return e.cause }
