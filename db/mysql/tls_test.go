package mysql

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeCertFiles writes a self-signed certificate and its key as PEM
// files into dir.
func writeCertFiles(t *testing.T, dir, certName, keyName string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "sbgo test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, typ string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(certName, "CERTIFICATE", der)
	if keyName != "" {
		write(keyName, "EC PRIVATE KEY", keyDER)
	}
}

// With 1.0.20's --mysql-ssl=on and no file options, the client
// certificate, key and CA come from the current directory when there.
func TestSSLOnUsesFilesInCurrentDirectory(t *testing.T) {
	dir := t.TempDir()
	writeCertFiles(t, dir, "client-cert.pem", "client-key.pem")
	writeCertFiles(t, dir, "cacert.pem", "")
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
	ca, err := tls.LoadX509KeyPair("client-cert.pem", "client-key.pem") // not the CA
	if err != nil {
		t.Fatal(err)
	}
	if err := d.set.tls.VerifyPeerCertificate(ca.Certificate, nil); err == nil {
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
