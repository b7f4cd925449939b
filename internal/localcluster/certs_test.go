package localcluster

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestNewCerts(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	c, err := newCerts(now)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(c.caPEM) {
		t.Fatal("CA PEM does not parse")
	}
	server := parseCert(t, c.serverPEM)
	for _, name := range []string{"127.0.0.1", "127.0.0.2", "127.0.0.3", "localhost"} {
		t.Run("server/"+name, func(t *testing.T) {
			_, err := server.Verify(x509.VerifyOptions{Roots: roots, DNSName: name, CurrentTime: now,
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
			if err != nil {
				t.Error(err)
			}
		})
	}
	if _, err := server.Verify(x509.VerifyOptions{Roots: roots, DNSName: "127.0.0.4", CurrentTime: now}); err == nil {
		t.Error("server certificate valid for 127.0.0.4")
	}
	client := parseCert(t, c.clientCertPEM)
	if _, err := client.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("client certificate: %v", err)
	}
	if _, err := tls.X509KeyPair(c.clientCertPEM, c.clientKeyPEM); err != nil {
		t.Errorf("client key pair: %v", err)
	}
	if _, err := tls.X509KeyPair(c.serverPEM, c.serverPEM); err != nil {
		t.Errorf("server keystore is not key + certificate: %v", err)
	}
	if got, want := server.NotBefore, now.Add(-time.Hour); !got.Equal(want) {
		t.Errorf("NotBefore = %s, want %s", got, want)
	}
}

func TestCertsWrite(t *testing.T) {
	c, err := newCerts(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tls")
	p, err := c.write(dir)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]byte{p.keystore: c.serverPEM, p.truststore: c.caPEM} {
		got, err := os.ReadFile(path)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: got %d bytes (%v), want %d", path, len(got), err, len(want))
		}
	}
}

// parseCert returns the first CERTIFICATE block of pemData.
func parseCert(t *testing.T, pemData []byte) *x509.Certificate {
	t.Helper()
	for {
		var b *pem.Block
		b, pemData = pem.Decode(pemData)
		if b == nil {
			t.Fatal("no CERTIFICATE block")
		}
		if b.Type == "CERTIFICATE" {
			cert, err := x509.ParseCertificate(b.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			return cert
		}
	}
}
