package localcluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// certs is the generated PKI of one cluster: a CA, one server certificate
// valid for 127.0.0.1..3 and localhost, and a client certificate.
type certs struct {
	caPEM         []byte
	serverPEM     []byte // PKCS#8 key then certificate, as PEMBasedSslContextFactory reads it
	clientCertPEM []byte
	clientKeyPEM  []byte
}

// newCerts generates the PKI; now is injected so tests control validity.
func newCerts(now time.Time) (*certs, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	ca := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "tsbucket localcluster CA"},
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := signCert(ca, ca, &caKey.PublicKey, caKey, now)
	if err != nil {
		return nil, err
	}
	ca, err = x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	server := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "localhost"},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv4(127, 0, 0, 2), net.IPv4(127, 0, 0, 3)},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	serverCert, serverKey, err := leaf(server, ca, caKey, now)
	if err != nil {
		return nil, err
	}
	client := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "tsbucket-client"},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	clientCert, clientKey, err := leaf(client, ca, caKey, now)
	if err != nil {
		return nil, err
	}
	return &certs{
		caPEM:         pemBlock("CERTIFICATE", caDER),
		serverPEM:     append(serverKey, serverCert...),
		clientCertPEM: clientCert,
		clientKeyPEM:  clientKey,
	}, nil
}

// leaf makes a key and a certificate from tmpl signed by the CA, both PEM.
func leaf(tmpl, ca *x509.Certificate, caKey *ecdsa.PrivateKey, now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	der, err := signCert(tmpl, ca, &key.PublicKey, caKey, now)
	if err != nil {
		return nil, nil, err
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pemBlock("CERTIFICATE", der), pemBlock("PRIVATE KEY", pkcs8), nil
}

func signCert(tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, signer *ecdsa.PrivateKey, now time.Time) ([]byte, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore = now.Add(-time.Hour) // tolerate clock skew between Go and the JVM
	tmpl.NotAfter = now.Add(10 * 365 * 24 * time.Hour)
	return x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// write stores the PEM files in dir and returns what cassandra.yaml needs.
func (c *certs) write(dir string) (tlsPaths, error) {
	p := tlsPaths{keystore: filepath.Join(dir, "server.pem"), truststore: filepath.Join(dir, "ca.pem")}
	files := map[string][]byte{
		p.keystore:                           c.serverPEM,
		p.truststore:                         c.caPEM,
		filepath.Join(dir, "client.pem"):     c.clientCertPEM,
		filepath.Join(dir, "client-key.pem"): c.clientKeyPEM,
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return p, fmt.Errorf("localcluster: write certificates: %w", err)
	}
	for path, data := range files {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return p, fmt.Errorf("localcluster: write certificates: %w", err)
		}
	}
	return p, nil
}
