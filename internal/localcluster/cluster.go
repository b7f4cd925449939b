package localcluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/gocql/gocql"
)

// Cluster is a running local cluster. Its methods are safe for concurrent use.
type Cluster struct {
	cfg     Config
	java    string
	lib     string
	dataDir string
	ownDir  bool // Start created dataDir, Stop removes it
	certs   *certs
	client  clientSettings
	specs   []nodeSpec
	version string
	unlock  func() // releases the machine-wide cluster lock

	mu      sync.Mutex
	procs   []*proc // nil where a node is not running
	stopped bool
}

// Start launches the cluster described by cfg and returns once every node
// answers CQL and, with 3 nodes, every node sees the others. On error
// everything it started is stopped again.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Cluster{cfg: cfg}
	if err := c.prepare(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	if err := c.launch(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// prepare finds java and the jars, takes the cluster lock and writes every
// node's configuration.
func (c *Cluster) prepare(ctx context.Context) error {
	var err error
	if c.java, err = FindJava(ctx); err != nil {
		return err
	}
	if c.lib, err = EnsureJars(ctx, c.cfg.CacheDir, c.cfg.Log); err != nil {
		return err
	}
	if c.unlock, err = lockCluster(ctx, c.cfg.Log); err != nil {
		return err
	}
	if err := c.makeDataDir(); err != nil {
		return err
	}
	for i, dc := range c.cfg.Datacenters {
		c.specs = append(c.specs, newNodeSpec(i, dc, c.dataDir))
	}
	c.procs = make([]*proc, len(c.specs))
	tp, err := c.makeCerts()
	if err != nil {
		return err
	}
	for _, n := range c.specs {
		if err := c.writeNodeFiles(n, tp); err != nil {
			return err
		}
		if err := checkPorts(n); err != nil {
			return err
		}
	}
	return nil
}

func clusterLockPath() string { return filepath.Join(os.TempDir(), "tsbucket-localcluster.lock") }

// IfNoCluster runs fn holding the machine-wide cluster lock if no local
// cluster holds it now, and reports whether fn ran. What a cluster's test
// changes on the machine for the cluster's sake (the fault suite's iptables
// rules) is then known to be left over from a process that died without
// undoing it: no live cluster depends on it, and none starts while fn runs.
func IfNoCluster(fn func()) (bool, error) {
	unlock, err := tryLock(clusterLockPath())
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer unlock()
	fn()
	return true, nil
}

// lockCluster serializes local clusters machine-wide: they all need the same
// addresses and ports, so a second test binary waits for the first to Stop
// instead of colliding with it. flock dies with the process.
func lockCluster(ctx context.Context, log io.Writer) (func(), error) {
	path := clusterLockPath()
	unlock, err := tryLock(path)
	if err == nil {
		return unlock, nil
	}
	fmt.Fprintf(log, "waiting for another local cluster to stop (lock %s)\n", path)
	start := time.Now()
	unlock, err = lockFile(ctx, path)
	if err == nil {
		fmt.Fprintf(log, "got the cluster lock after %.1fs\n", time.Since(start).Seconds())
	}
	return unlock, err
}

func (c *Cluster) makeDataDir() error {
	if c.cfg.DataDir == "" {
		d, err := os.MkdirTemp("", "tsbucket-cassandra-")
		if err != nil {
			return fmt.Errorf("localcluster: create data dir: %w", err)
		}
		c.dataDir, c.ownDir = d, true
		return nil
	}
	d, err := filepath.Abs(c.cfg.DataDir)
	if err != nil {
		return fmt.Errorf("localcluster: data dir: %w", err)
	}
	c.dataDir = d
	return os.MkdirAll(d, 0o755)
}

// makeCerts sets up the client side and, with TLS, generates and writes the
// certificates; the paths are nil without TLS.
func (c *Cluster) makeCerts() (*tlsPaths, error) {
	c.client.auth = c.cfg.Auth
	if !c.cfg.TLS {
		return nil, nil
	}
	certs, err := newCerts(time.Now())
	if err != nil {
		return nil, fmt.Errorf("localcluster: generate certificates: %w", err)
	}
	c.certs = certs
	c.client.caPEM = certs.caPEM
	if c.cfg.RequireClientCert {
		c.client.clientPEM, c.client.clientKey = certs.clientCertPEM, certs.clientKeyPEM
	}
	p, err := certs.write(c.tlsDir())
	return &p, err
}

// writeNodeFiles creates the node's directories and configuration files.
func (c *Cluster) writeNodeFiles(n nodeSpec, tp *tlsPaths) error {
	for _, d := range []string{n.confDir(), n.triggersDir(), n.storageDir(), n.logDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("localcluster: %s: %w", n.name(), err)
		}
	}
	files := map[string]string{
		n.yamlPath():    cassandraYAML(c.cfg, n, tp),
		n.rackdcPath():  rackdcProperties(n),
		n.logbackPath(): logbackXML(n),
	}
	for path, body := range files {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			return fmt.Errorf("localcluster: %s: write config: %w", n.name(), err)
		}
	}
	return nil
}

func (c *Cluster) tlsDir() string { return filepath.Join(c.dataDir, "tls") }

// launch starts the seed, then the other nodes together, then waits for the
// ring to form.
func (c *Cluster) launch(ctx context.Context) error {
	sizes := c.logSizes() // a reused DataDir holds logs of earlier runs
	v, err := c.startNode(ctx, 0)
	if err != nil {
		return err
	}
	c.version = v
	errs := make([]error, len(c.specs))
	var wg sync.WaitGroup
	for i := 1; i < len(c.specs); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.startNode(ctx, i)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i := range c.specs {
		if err := c.waitAlive(ctx, i, sizes); err != nil {
			return err
		}
	}
	return c.waitRing(ctx)
}

// startNode launches node i and waits for CQL; it returns release_version.
func (c *Cluster) startNode(ctx context.Context, i int) (string, error) {
	n := c.specs[i]
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return "", ErrStopped
	}
	p, err := startProc(c.java, jvmArgs(c.cfg, n, c.lib), n, c.GroupID(i))
	if err != nil {
		c.mu.Unlock()
		return "", err
	}
	c.procs[i] = p
	c.mu.Unlock()
	fmt.Fprintf(c.cfg.Log, "%s starting on %s (pid %d, dc %s)\n", n.name(), n.host, p.pid(), n.dc)
	start := time.Now()
	v, err := c.client.waitReady(ctx, n, p, c.cfg.StartTimeout)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(c.cfg.Log, "%s ready in %.1fs (Cassandra %s)\n", n.name(), time.Since(start).Seconds(), v)
	return v, nil
}

// GroupID returns the group ID node i's JVM runs with under
// Config.OwnGroups (NodeGroupBase+i+1), else 0.
func (c *Cluster) GroupID(i int) int {
	if !c.cfg.OwnGroups {
		return 0
	}
	return NodeGroupBase + i + 1
}

// Hosts returns the nodes' addresses, node 1 first; all serve CQL on CQLPort.
func (c *Cluster) Hosts() []string {
	hosts := make([]string, len(c.specs))
	for i, n := range c.specs {
		hosts[i] = n.host
	}
	return hosts
}

// Datacenter returns node i's datacenter name. Like LogPath, it panics when
// i is not a node index, as a slice index would.
func (c *Cluster) Datacenter(i int) string { return c.specs[i].dc }

// Version returns release_version as reported by node 1 ("5.0.8").
func (c *Cluster) Version() string { return c.version }

// DataDir returns the directory holding node1/, node2/, ... and tls/.
func (c *Cluster) DataDir() string { return c.dataDir }

// HintsDir is node i's hints directory: one file per target node and
// writer, <target host ID>-<timestamp>-<version>.hints, deleted once every
// hint in it has been delivered.
func (c *Cluster) HintsDir(i int) string { return filepath.Join(c.specs[i].storageDir(), "hints") }

// LogPath returns node i's system.log.
func (c *Cluster) LogPath(i int) string { return c.specs[i].systemLog() }

// CACertPEM returns the CA certificate clients must trust; nil without TLS.
func (c *Cluster) CACertPEM() []byte {
	if c.certs == nil {
		return nil
	}
	return append([]byte(nil), c.certs.caPEM...)
}

// CACertPath returns the file holding CACertPEM; "" without TLS.
func (c *Cluster) CACertPath() string {
	if c.certs == nil {
		return ""
	}
	return filepath.Join(c.tlsDir(), "ca.pem")
}

// ClientCert returns a client certificate and its PKCS#8 key signed by the
// cluster's CA; nil unless RequireClientCert.
func (c *Cluster) ClientCert() (certPEM, keyPEM []byte) {
	if c.certs == nil || !c.cfg.RequireClientCert {
		return nil, nil
	}
	return append([]byte(nil), c.certs.clientCertPEM...), append([]byte(nil), c.certs.clientKeyPEM...)
}

// TLSConfig returns a client TLS configuration trusting the cluster's CA and
// presenting the client certificate when one is required; nil without TLS.
func (c *Cluster) TLSConfig() *tls.Config {
	tc, _ := c.client.tlsConfig() // the PEM was generated by us and parses
	return tc
}

// ClusterConfig returns a gocql configuration for all nodes with the
// credentials and TLS settings the cluster needs; callers adjust and own it.
func (c *Cluster) ClusterConfig() *gocql.ClusterConfig {
	cc, _ := c.client.clusterConfig(c.Hosts()...) // see TLSConfig
	return cc
}
