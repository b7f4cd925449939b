package repo

import (
	"crypto/tls"
	"errors"
	"fmt"
	"time"

	"github.com/gocql/gocql"
)

// SessionConfig describes a well-configured gocql session: token-aware routing over
// a datacenter-aware policy, LOCAL_QUORUM, bounded timeouts and retries that only
// ever apply to idempotent statements.
type SessionConfig struct {
	Hosts      []string // host or host:port; required
	Datacenter string   // local datacenter; required, so routing never crosses DCs by accident
	Keyspace   string   // optional session keyspace

	Username string // optional PasswordAuthenticator credentials
	Password string // never printed: see String
	TLS      *tls.Config

	Consistency    gocql.Consistency // default LOCAL_QUORUM
	Timeout        time.Duration     // per request, default 5s
	ConnectTimeout time.Duration     // default 5s
	NumConns       int               // connections per host, default 2
	Retries        int               // retries of idempotent statements, default 2
	ProtoVersion   int               // 0 lets gocql negotiate
	// Logger receives the driver's own log lines; nil keeps gocql's default
	// (the standard logger), which a service usually wants to redirect.
	Logger gocql.StdLogger
}

// ErrBadSessionConfig reports an unusable SessionConfig.
var ErrBadSessionConfig = errors.New("repo: bad session config")

// Validate reports the first problem with c.
func (c SessionConfig) Validate() error {
	switch {
	case len(c.Hosts) == 0:
		return fmt.Errorf("%w: no hosts", ErrBadSessionConfig)
	case c.Datacenter == "":
		return fmt.Errorf("%w: no local datacenter", ErrBadSessionConfig)
	case c.Timeout < 0 || c.ConnectTimeout < 0:
		return fmt.Errorf("%w: negative timeout", ErrBadSessionConfig)
	case c.Retries < 0 || c.NumConns < 0:
		return fmt.Errorf("%w: negative retries or connections", ErrBadSessionConfig)
	case c.Password != "" && c.Username == "":
		return fmt.Errorf("%w: password without username", ErrBadSessionConfig)
	}
	return nil
}

// String describes c without its password.
func (c SessionConfig) String() string {
	auth := "none"
	if c.Username != "" {
		auth = "user " + c.Username
	}
	return fmt.Sprintf("hosts=%v dc=%s keyspace=%q auth=%s tls=%t", c.Hosts, c.Datacenter, c.Keyspace, auth, c.TLS != nil)
}

// GoString keeps %#v from printing the password.
func (c SessionConfig) GoString() string { return "repo.SessionConfig{" + c.String() + "}" }

func (c SessionConfig) withDefaults() SessionConfig {
	if c.Consistency == 0 {
		c.Consistency = gocql.LocalQuorum
	}
	if c.Timeout == 0 {
		c.Timeout = 5 * time.Second
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = 5 * time.Second
	}
	if c.NumConns == 0 {
		c.NumConns = 2
	}
	if c.Retries == 0 {
		c.Retries = 2
	}
	return c
}

// ClusterConfig turns c into a gocql.ClusterConfig, for callers that want to adjust
// it further before creating the session.
func (c SessionConfig) ClusterConfig() (*gocql.ClusterConfig, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c = c.withDefaults()
	cc := gocql.NewCluster(c.Hosts...)
	cc.Keyspace = c.Keyspace
	cc.Consistency = c.Consistency
	cc.Timeout = c.Timeout
	cc.ConnectTimeout = c.ConnectTimeout
	cc.NumConns = c.NumConns
	cc.ProtoVersion = c.ProtoVersion
	cc.Logger = c.Logger
	cc.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy(c.Datacenter))
	cc.RetryPolicy = &gocql.ExponentialBackoffRetryPolicy{NumRetries: c.Retries, Min: 50 * time.Millisecond, Max: time.Second}
	// Without a filter the driver would open pools to remote DCs too.
	cc.HostFilter = gocql.DataCentreHostFilter(c.Datacenter)
	if c.Username != "" {
		cc.Authenticator = gocql.PasswordAuthenticator{Username: c.Username, Password: c.Password}
	}
	if c.TLS != nil {
		cc.SslOpts = &gocql.SslOptions{Config: c.TLS.Clone(), EnableHostVerification: !c.TLS.InsecureSkipVerify}
	}
	return cc, nil
}

// NewSession creates a session from c. Errors never include the password.
func NewSession(c SessionConfig) (*gocql.Session, error) {
	cc, err := c.ClusterConfig()
	if err != nil {
		return nil, err
	}
	s, err := cc.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("repo: connect to %s: %w", c, err)
	}
	return s, nil
}
