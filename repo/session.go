package repo

import (
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// SessionConfig describes a well-configured gocql session: token-aware routing over
// a datacenter-aware policy, LOCAL_QUORUM, bounded timeouts, and retries and
// speculative executions that only ever apply to idempotent statements (every
// statement the repository sends is one). RELIABILITY.md has the measurements
// behind the defaults.
type SessionConfig struct {
	Hosts      []string // host or host:port; required
	Datacenter string   // local datacenter; required, so routing never crosses DCs by accident
	Keyspace   string   // optional session keyspace

	Username string // optional PasswordAuthenticator credentials
	Password string // never printed: see String
	TLS      *tls.Config

	Consistency    gocql.Consistency // default LOCAL_QUORUM
	Timeout        time.Duration     // per request, default DefaultTimeout
	ConnectTimeout time.Duration     // default 5s
	NumConns       int               // connections per host, default 2
	Retries        int               // retries of idempotent statements, SELECTs and IF [NOT] EXISTS DDL, default 2 (others are never retried)
	// SpeculativeAttempts is how many extra executions of an idempotent
	// statement start, one every SpeculativeDelay, on the next host of the
	// query plan while the first is unanswered; the first answer wins. It is
	// what keeps a frozen or slow coordinator from costing a full Timeout.
	// A statement never speculates more often than there are other hosts
	// up (none on a single node). Default 1; -1 turns speculative execution
	// off. It overrides a policy
	// set on a query with SetSpeculativeExecutionPolicy: turn it off here to
	// choose per query.
	SpeculativeAttempts int
	// SpeculativeDelay is the wait before each speculative execution,
	// default DefaultSpeculativeDelay.
	SpeculativeDelay time.Duration
	ProtoVersion     int // 0 lets gocql negotiate
	// Logger receives the driver's own log lines; nil keeps gocql's default
	// (the standard logger), which a service usually wants to redirect.
	Logger gocql.StdLogger

	// AddressMap rewrites the addresses the cluster reports for its nodes
	// (system.local and system.peers, and node events) before the driver
	// dials them: "ip:port" as the node reports it -> "ip:port" this client
	// can reach. A node the map does not name is dialed as reported. It is
	// what a cluster behind NAT needs, such as a container under Docker
	// Desktop or a remote engine, which reports its internal address
	// (172.17.0.2:9042) while the client can only reach a published port
	// (127.0.0.1:32768). Both sides must be IP literals with a port.
	AddressMap map[string]string
	// DisableInitialHostLookup makes the driver connect only to Hosts and
	// skip the discovery of peers when it starts. Token-aware routing then
	// knows only those hosts; use it for a single node, or a proxy, whose
	// reported address is unreachable and not known in advance.
	DisableInitialHostLookup bool
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
	case c.SpeculativeAttempts < -1 || c.SpeculativeDelay < 0:
		return fmt.Errorf("%w: speculative attempts below -1 or negative delay", ErrBadSessionConfig)
	case c.Password != "" && c.Username == "":
		return fmt.Errorf("%w: password without username", ErrBadSessionConfig)
	}
	if _, err := parseAddressMap(c.AddressMap); err != nil {
		return fmt.Errorf("%w: %w", ErrBadSessionConfig, err)
	}
	return nil
}

// String describes c without its password.
func (c SessionConfig) String() string {
	auth := "none"
	if c.Username != "" {
		auth = "user " + c.Username
	}
	out := fmt.Sprintf("hosts=%v dc=%s keyspace=%q auth=%s tls=%t", c.Hosts, c.Datacenter, c.Keyspace, auth, c.TLS != nil)
	if len(c.AddressMap) > 0 {
		var pairs []string
		for _, from := range slices.Sorted(maps.Keys(c.AddressMap)) {
			pairs = append(pairs, from+"->"+c.AddressMap[from])
		}
		out += " addresses=" + strings.Join(pairs, ",")
	}
	if c.DisableInitialHostLookup {
		out += " host-lookup=off"
	}
	return out
}

// GoString keeps %#v from printing the password.
func (c SessionConfig) GoString() string { return "repo.SessionConfig{" + c.String() + "}" }

// DefaultTimeout is SessionConfig.Timeout's default: longer than the
// server's read_request_timeout (5 s) and write_request_timeout (2 s), so
// that a coordinator that cannot reach a quorum answers with its typed
// ReadTimeout or WriteTimeout before the client gives up on it.
const DefaultTimeout = 7 * time.Second

// DefaultSpeculativeDelay is SessionConfig.SpeculativeDelay's default.
const DefaultSpeculativeDelay = 50 * time.Millisecond

func (c SessionConfig) withDefaults() SessionConfig {
	if c.Consistency == 0 {
		c.Consistency = gocql.LocalQuorum
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
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
	if c.SpeculativeAttempts == 0 {
		c.SpeculativeAttempts = 1
	}
	if c.SpeculativeDelay == 0 {
		c.SpeculativeDelay = DefaultSpeculativeDelay
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
	cc.PoolConfig.HostSelectionPolicy = speculating(gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy(c.Datacenter)), c)
	cc.RetryPolicy = retryingIdempotent{&gocql.ExponentialBackoffRetryPolicy{NumRetries: c.Retries, Min: 50 * time.Millisecond, Max: time.Second}} // session_retry.go
	// Without a filter the driver would open pools to remote DCs too.
	cc.HostFilter = gocql.DataCentreHostFilter(c.Datacenter)
	if c.Username != "" {
		cc.Authenticator = gocql.PasswordAuthenticator{Username: c.Username, Password: c.Password}
	}
	if c.TLS != nil {
		cc.SslOpts = &gocql.SslOptions{Config: c.TLS.Clone(), EnableHostVerification: !c.TLS.InsecureSkipVerify}
	}
	cc.DisableInitialHostLookup = c.DisableInitialHostLookup
	if len(c.AddressMap) > 0 {
		m, _ := parseAddressMap(c.AddressMap) // checked by Validate
		cc.AddressTranslator = gocql.AddressTranslatorFunc(m.translate)
	}
	return cc, nil
}

// addressMap is a parsed SessionConfig.AddressMap.
type addressMap map[netip.AddrPort]netip.AddrPort

// parseAddressMap checks and parses m: IP literals with ports on both sides.
func parseAddressMap(m map[string]string) (addressMap, error) {
	out := make(addressMap, len(m))
	for from, to := range m {
		f, err := netip.ParseAddrPort(from)
		if err != nil {
			return nil, fmt.Errorf("address map key %q: want ip:port: %w", from, err)
		}
		t, err := netip.ParseAddrPort(to)
		if err != nil {
			return nil, fmt.Errorf("address map value %q for %s: want ip:port: %w", to, from, err)
		}
		out[netip.AddrPortFrom(f.Addr().Unmap(), f.Port())] = netip.AddrPortFrom(t.Addr().Unmap(), t.Port())
	}
	return out, nil
}

// translate is the driver's AddressTranslator: the mapped address of a node
// the map names, the reported one otherwise.
func (m addressMap) translate(ip net.IP, port int) (net.IP, int) {
	a, ok := netip.AddrFromSlice(ip)
	if !ok || port < 0 || port > 65535 {
		return ip, port
	}
	to, ok := m[netip.AddrPortFrom(a.Unmap(), uint16(port))]
	if !ok {
		return ip, port
	}
	return net.IP(to.Addr().AsSlice()), int(to.Port())
}

// NewSession creates a session from c. Errors never include the password.
func NewSession(c SessionConfig) (*gocql.Session, error) {
	cc, err := c.ClusterConfig()
	if err != nil {
		return nil, err
	}
	s, err := cc.CreateSession()
	if err != nil {
		if strings.Contains(err.Error(), "host was filtered") {
			return nil, unknownDatacenter(c, err)
		}
		return nil, fmt.Errorf("repo: connect to %s: %w", c, err)
	}
	return s, nil
}

// ErrUnknownDatacenter: no node of the cluster is in SessionConfig.Datacenter.
var ErrUnknownDatacenter = errors.New("repo: unknown datacenter")

// unknownDatacenter explains a session that found no node in its datacenter:
// the driver filtered every host out. It asks the cluster, through a short
// unfiltered session, which datacenters exist, so the error names them.
func unknownDatacenter(c SessionConfig, cause error) error {
	cc, err := c.ClusterConfig()
	if err != nil {
		return err
	}
	cc.HostFilter = nil
	cc.PoolConfig.HostSelectionPolicy = gocql.RoundRobinHostPolicy()
	cc.NumConns = 1
	probe, err := cc.CreateSession()
	if err != nil {
		return fmt.Errorf("repo: connect to %s: %w: %q (%v)", c, ErrUnknownDatacenter, c.Datacenter, cause)
	}
	defer probe.Close()
	seen := map[string]bool{}
	for _, table := range []string{"system.local", "system.peers"} {
		it := probe.Query("SELECT data_center FROM " + table).Iter()
		var dc string
		for it.Scan(&dc) {
			seen[dc] = true
		}
		_ = it.Close() // a datacenter list is a courtesy; the error stands without it
	}
	dcs := make([]string, 0, len(seen))
	for dc := range seen {
		dcs = append(dcs, dc)
	}
	sort.Strings(dcs)
	return fmt.Errorf("repo: connect to %s: %w: no node in %q; the cluster's datacenters: %s",
		c, ErrUnknownDatacenter, c.Datacenter, strings.Join(dcs, ", "))
}
