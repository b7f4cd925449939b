package localcluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"strconv"
	"time"

	"github.com/gocql/gocql"
)

// clientSettings is what a CQL client needs to talk to the cluster.
type clientSettings struct {
	auth      bool
	caPEM     []byte
	clientPEM []byte // client certificate, when the server requires one
	clientKey []byte
}

// tlsConfig returns nil without TLS.
func (s clientSettings) tlsConfig() (*tls.Config, error) {
	if s.caPEM == nil {
		return nil, nil
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(s.caPEM) {
		return nil, fmt.Errorf("localcluster: bad CA PEM")
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if s.clientPEM != nil {
		pair, err := tls.X509KeyPair(s.clientPEM, s.clientKey)
		if err != nil {
			return nil, fmt.Errorf("localcluster: client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// clusterConfig is a gocql configuration for hosts with credentials and TLS
// filled in, protocol v4 (gocql's highest) so no version probing happens.
func (s clientSettings) clusterConfig(hosts ...string) (*gocql.ClusterConfig, error) {
	cc := gocql.NewCluster(hosts...)
	cc.Port = CQLPort
	cc.ProtoVersion = 4
	cc.Timeout = 10 * time.Second
	cc.ConnectTimeout = 10 * time.Second
	if s.auth {
		cc.Authenticator = gocql.PasswordAuthenticator{Username: Superuser, Password: SuperuserPassword}
	}
	tc, err := s.tlsConfig()
	if err != nil {
		return nil, err
	}
	if tc != nil {
		cc.SslOpts = &gocql.SslOptions{Config: tc, EnableHostVerification: true}
	}
	return cc, nil
}

// probe connects to host alone and reads release_version: the real proof
// that the node serves CQL (and, with Auth, that the superuser can log in).
func (s clientSettings) probe(ctx context.Context, host string) (string, error) {
	d := net.Dialer{Timeout: 2 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(CQLPort)))
	if err != nil {
		return "", err
	}
	conn.Close()
	sess, err := s.singleHostSession(host, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer sess.Close()
	var v string
	err = sess.Query("SELECT release_version FROM system.local").WithContext(ctx).Consistency(gocql.One).Scan(&v)
	return v, err
}

// singleHostSession talks to host only: no peer discovery, no other pools,
// and gocql's chatter discarded.
func (s clientSettings) singleHostSession(host string, timeout time.Duration) (*gocql.Session, error) {
	cc, err := s.clusterConfig(host)
	if err != nil {
		return nil, err
	}
	cc.Timeout, cc.ConnectTimeout = timeout, timeout
	cc.DisableInitialHostLookup = true
	cc.HostFilter = gocql.WhiteListHostFilter(host)
	cc.NumConns = 1
	cc.Logger = log.New(io.Discard, "", 0)
	return cc.CreateSession()
}

// waitReady polls node n until probe succeeds, the JVM exits, ctx ends or
// timeout passes; failures are *StartError with the log tail.
func (s clientSettings) waitReady(ctx context.Context, n nodeSpec, p *proc, timeout time.Duration) (string, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	fail := func(err error) (string, error) {
		return "", &StartError{Node: n.index, Err: err, LogTail: logTail(n)}
	}
	var last error
	for {
		if p.exited() {
			return fail(fmt.Errorf("%w: %w: %v", ErrNotReady, ErrExited, p.err))
		}
		v, err := s.probe(ctx, n.host)
		if err == nil {
			return v, nil
		}
		last = err
		select {
		case <-p.done:
		case <-ctx.Done():
			return fail(fmt.Errorf("%w: %w (last probe: %v)", ErrNotReady, ctx.Err(), last))
		case <-deadline.C:
			return fail(fmt.Errorf("%w: no CQL after %s (last probe: %v)", ErrNotReady, timeout, last))
		case <-time.After(500 * time.Millisecond):
		}
	}
}
