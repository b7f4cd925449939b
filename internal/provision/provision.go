package provision

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/modules/scylladb"

	"github.com/tsbucket/tsbucket/internal/localcluster"
	"github.com/tsbucket/tsbucket/repo"
)

// Environment variables that steer Provision.
const (
	EnvHosts    = "TSBUCKET_HOSTS"     // existing cluster, comma-separated host[:port]
	EnvDC       = "TSBUCKET_DC"        // local datacenter of that cluster
	EnvNoDocker = "TSBUCKET_NO_DOCKER" // "1": never try a container
)

// ScyllaImage is the pinned ScyllaDB image used where Docker runs; docker-compose.yml
// pins the same one. 2025.1 is a long-term-support release under ScyllaDB's
// source-available licence (free up to 50 vCPUs and 10 TB per organisation;
// docs/operations.md); 6.2, the last AGPL release, is out of support.
const ScyllaImage = "scylladb/scylla:2025.1"

// Source says where a cluster came from.
type Source string

// Sources of a cluster.
const (
	SourceExternal Source = "external"
	SourceScylla   Source = "scylla-container"
	SourceLocal    Source = "local-cassandra"
)

// ErrNoCluster means no source could provide a cluster; it wraps the reason of each.
var ErrNoCluster = errors.New("provision: no cluster reachable")

// Options controls Provision. The zero value reads the environment and starts a
// single local node with the launcher's defaults.
type Options struct {
	// Hosts overrides TSBUCKET_HOSTS when set.
	Hosts []string
	// Datacenter overrides TSBUCKET_DC for an external cluster.
	Datacenter string
	// NoDocker skips the container step even where Docker runs.
	NoDocker bool
	// Local configures the local Cassandra fallback.
	Local localcluster.Config
	// Log receives one line per step; nil discards.
	Log io.Writer
}

// Cluster is a reachable cluster and how to release it.
type Cluster struct {
	Hosts      []string
	Datacenter string
	Source     Source
	// Local is set when the cluster is local JVMs, for tests that kill nodes.
	Local *localcluster.Cluster
	// AddressMap translates the addresses the nodes report to ones this
	// process can reach (repo.SessionConfig.AddressMap). A container reports
	// its internal address, which only a native Linux engine routes; under
	// Docker Desktop or a remote engine the driver must be sent to the
	// published port instead. Nil for local and external clusters.
	AddressMap map[string]string

	closeFn func() error
}

// Close releases what Provision started. It is safe to call more than once.
func (c *Cluster) Close() error {
	if c == nil || c.closeFn == nil {
		return nil
	}
	fn := c.closeFn
	c.closeFn = nil
	return fn()
}

// SessionConfig is the session configuration that reaches c: its hosts,
// datacenter and address map. Callers add the keyspace and the rest.
func (c *Cluster) SessionConfig() repo.SessionConfig {
	return repo.SessionConfig{Hosts: c.Hosts, Datacenter: c.Datacenter, AddressMap: c.AddressMap}
}

// String describes the cluster for logs.
func (c *Cluster) String() string {
	return fmt.Sprintf("%s %s (dc %s)", c.Source, strings.Join(c.Hosts, ","), c.Datacenter)
}

// Provision returns the first cluster available in the documented order.
func Provision(ctx context.Context, opts Options) (*Cluster, error) {
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	if hosts := externalHosts(opts); len(hosts) > 0 {
		dc := firstNonEmpty(opts.Datacenter, os.Getenv(EnvDC), "dc1")
		fmt.Fprintf(logw, "provision: using existing cluster %s (dc %s)\n", strings.Join(hosts, ","), dc)
		return &Cluster{Hosts: hosts, Datacenter: dc, Source: SourceExternal}, nil
	}
	var reasons []error
	if !opts.NoDocker && os.Getenv(EnvNoDocker) != "1" {
		c, err := startScylla(ctx, logw)
		if err == nil {
			return c, nil
		}
		fmt.Fprintf(logw, "provision: no ScyllaDB container: %v\n", err)
		reasons = append(reasons, fmt.Errorf("scylla container: %w", err))
	}
	c, err := startLocal(ctx, opts.Local, logw)
	if err == nil {
		return c, nil
	}
	reasons = append(reasons, fmt.Errorf("local cassandra: %w", err))
	return nil, fmt.Errorf("%w: %w", ErrNoCluster, errors.Join(reasons...))
}

func externalHosts(opts Options) []string {
	if len(opts.Hosts) > 0 {
		return opts.Hosts
	}
	var hosts []string
	for _, h := range strings.Split(os.Getenv(EnvHosts), ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// DockerAvailable reports whether a Docker engine answers, within a short timeout.
// It never panics, even where testcontainers cannot find a Docker host at all.
func DockerAvailable(ctx context.Context) (ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			ok, err = false, fmt.Errorf("docker provider: %v", r)
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	p, err := testcontainers.ProviderDocker.GetProvider()
	if err != nil {
		return false, err
	}
	if err := p.Health(ctx); err != nil {
		return false, err
	}
	return true, nil
}

func startScylla(ctx context.Context, logw io.Writer) (*Cluster, error) {
	if ok, err := DockerAvailable(ctx); !ok {
		return nil, err
	}
	fmt.Fprintf(logw, "provision: starting %s in Docker\n", ScyllaImage)
	c, err := scylladb.Run(ctx, ScyllaImage)
	if err != nil {
		if c != nil {
			_ = c.Terminate(context.Background())
		}
		return nil, err
	}
	host, err := c.NonShardAwareConnectionHost(ctx)
	if err != nil {
		_ = c.Terminate(context.Background())
		return nil, err
	}
	internal, err := c.ContainerIP(ctx)
	if err != nil {
		_ = c.Terminate(context.Background())
		return nil, err
	}
	addrs, err := ContainerAddressMap(ctx, internal, host, net.DefaultResolver)
	if err != nil {
		_ = c.Terminate(context.Background())
		return nil, err
	}
	return &Cluster{
		Hosts:      []string{host},
		Datacenter: "datacenter1", // Scylla's default with SimpleSnitch
		Source:     SourceScylla,
		AddressMap: addrs,
		closeFn:    func() error { return c.Terminate(context.Background()) },
	}, nil
}

// CQLPort is the port a node reports for CQL inside its container.
const CQLPort = 9042

// Resolver looks host names up; *net.Resolver is one.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// ContainerAddressMap maps the address a containerized node reports
// (internalIP:9042) to the published host:port the client reaches it by,
// with the host resolved to an IP (the driver dials IPs). It returns nil
// when the published address is the internal one (a native Linux engine
// publishing nothing, or a client inside the container network).
func ContainerAddressMap(ctx context.Context, internalIP, published string, r Resolver) (map[string]string, error) {
	ip := net.ParseIP(internalIP)
	if ip == nil {
		return nil, fmt.Errorf("provision: container address %q is not an IP", internalIP)
	}
	host, port, err := net.SplitHostPort(published)
	if err != nil {
		return nil, fmt.Errorf("provision: published address %q: %w", published, err)
	}
	to := net.ParseIP(host)
	if to == nil {
		ips, err := r.LookupIPAddr(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("provision: resolve published host %q: %w", host, err)
		}
		if len(ips) == 0 {
			return nil, fmt.Errorf("provision: published host %q has no address", host)
		}
		to = preferIPv4(ips)
	}
	from := net.JoinHostPort(ip.String(), strconv.Itoa(CQLPort))
	dest := net.JoinHostPort(to.String(), port)
	if from == dest {
		return nil, nil
	}
	return map[string]string{from: dest}, nil
}

// preferIPv4 picks the first IPv4 address, else the first: "localhost"
// resolves to ::1 and 127.0.0.1, and Docker publishes on IPv4 first.
func preferIPv4(ips []net.IPAddr) net.IP {
	for _, a := range ips {
		if a.IP.To4() != nil {
			return a.IP
		}
	}
	return ips[0].IP
}

func startLocal(ctx context.Context, cfg localcluster.Config, logw io.Writer) (*Cluster, error) {
	if cfg.Log == nil {
		cfg.Log = logw
	}
	lc, err := localcluster.Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Cluster{
		Hosts:      lc.Hosts(),
		Datacenter: lc.Datacenter(0),
		Source:     SourceLocal,
		Local:      lc,
		closeFn:    lc.Stop,
	}, nil
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// KeyspaceName makes a valid, unique keyspace name for a test from its name,
// a prefix, an identifier of the run and a sequence number: lower-case letters,
// digits and '_', within Cassandra's 48-byte limit for reasonable prefixes.
func KeyspaceName(prefix, test, run string, seq int64) string {
	var b strings.Builder
	for _, r := range strings.ToLower(test) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	base := b.String()
	if len(base) > 24 {
		base = base[:24]
	}
	return fmt.Sprintf("%s_%s_%s_%d", prefix, base, run, seq)
}
