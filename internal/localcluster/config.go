package localcluster

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"time"
)

// Version is the Cassandra release this package runs.
const Version = "5.0.8"

// Fixed network facts of every node; hosts differ, ports do not.
const (
	CQLPort     = 9042
	StoragePort = 7000
	// Superuser and SuperuserPassword are Cassandra's default superuser,
	// which exists when Config.Auth is on.
	Superuser         = "cassandra"
	SuperuserPassword = "cassandra"
	// DefaultDatacenter names every node's datacenter unless Config.Datacenters
	// says otherwise.
	DefaultDatacenter = "dc1"
)

// Defaults applied by Start to zero Config fields.
const (
	DefaultHeapMB       = 768
	DefaultStartTimeout = 120 * time.Second
	DefaultStopTimeout  = 30 * time.Second
)

// Config describes a local cluster. The zero value is one node in dc1 with
// default settings, data in a temporary directory.
type Config struct {
	Nodes                  int           // 1 or 3 (0 means 1)
	DataDir                string        // node directories go here; "" -> temp dir removed by Stop
	CacheDir               string        // jar cache; "" -> see EnsureJars
	HeapMB                 int           // -Xms and -Xmx per node; 0 -> 768
	Datacenters            []string      // one name per node; nil -> all "dc1"
	Auth                   bool          // PasswordAuthenticator + CassandraAuthorizer, superuser cassandra/cassandra
	TLS                    bool          // client_encryption_options on (not optional), certificates generated
	RequireClientCert      bool          // clients must present a certificate signed by the generated CA; needs TLS
	TombstoneWarnThreshold int           // tombstone_warn_threshold; 0 -> Cassandra default (1000)
	ReadThresholds         bool          // read_thresholds_enabled: warnings reach clients through any coordinator
	SizeRecorderInterval   time.Duration // -Dcassandra.size_recorder_interval (whole seconds); 0 -> default 300s
	UnsafeSystem           bool          // -Dcassandra.unsafesystem=true: faster DDL, but see the package doc before Kill
	ExtraYAML              string        // appended verbatim to every cassandra.yaml
	// CommitLogGroupWindow, when positive, turns on commitlog_sync: group
	// with this window: a write is acknowledged only once its commit log
	// segment is synced. The default (periodic, synced every 10 s, sync
	// markers every 100 ms) acknowledges before that, so a node killed
	// with SIGKILL loses the mutations of its last ~100 ms, and two of
	// three replicas killed together can lose a write acknowledged at
	// QUORUM. Whole milliseconds.
	CommitLogGroupWindow time.Duration
	// OwnGroups runs node i's JVM with group ID NodeGroupBase+i+1 (node1
	// 47001), which needs root. On loopback every node's outbound
	// connections leave from 127.0.0.1 whichever node opens them (Cassandra
	// 5.0 does not bind them to listen_address), so only the socket's owner
	// tells them apart: iptables -m owner --gid-owner Cluster.GroupID(i).
	OwnGroups    bool
	StartTimeout time.Duration // per node start; 0 -> 120s
	StopTimeout  time.Duration // grace between SIGTERM and SIGKILL; 0 -> 30s
	Log          io.Writer     // progress lines, written from several goroutines; nil -> discarded
}

// NodeGroupBase is the group ID below node 1's when Config.OwnGroups is on.
const NodeGroupBase = 47000

var dcName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,48}$`)

// withDefaults returns a validated copy of c with every zero field defaulted;
// the caller's Config is never modified.
func (c Config) withDefaults() (Config, error) {
	if c.Nodes == 0 {
		c.Nodes = 1
	}
	if c.HeapMB == 0 {
		c.HeapMB = DefaultHeapMB
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = DefaultStartTimeout
	}
	if c.StopTimeout == 0 {
		c.StopTimeout = DefaultStopTimeout
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Datacenters == nil && c.Nodes > 0 {
		c.Datacenters = make([]string, c.Nodes)
		for i := range c.Datacenters {
			c.Datacenters[i] = DefaultDatacenter
		}
	} else {
		c.Datacenters = append([]string(nil), c.Datacenters...)
	}
	return c, c.validate()
}

func (c Config) validate() error {
	switch {
	case c.Nodes != 1 && c.Nodes != 3:
		return fmt.Errorf("%w: Nodes must be 1 or 3, got %d", ErrBadConfig, c.Nodes)
	case c.HeapMB < 256:
		return fmt.Errorf("%w: HeapMB must be at least 256, got %d", ErrBadConfig, c.HeapMB)
	case len(c.Datacenters) != c.Nodes:
		return fmt.Errorf("%w: %d Datacenters for %d nodes", ErrBadConfig, len(c.Datacenters), c.Nodes)
	case c.RequireClientCert && !c.TLS:
		return fmt.Errorf("%w: RequireClientCert needs TLS", ErrBadConfig)
	case c.TombstoneWarnThreshold < 0:
		return fmt.Errorf("%w: negative TombstoneWarnThreshold", ErrBadConfig)
	case c.SizeRecorderInterval < 0 || c.SizeRecorderInterval%time.Second != 0:
		return fmt.Errorf("%w: SizeRecorderInterval must be whole non-negative seconds, got %s", ErrBadConfig, c.SizeRecorderInterval)
	case c.StartTimeout < 0 || c.StopTimeout < 0:
		return fmt.Errorf("%w: negative timeout", ErrBadConfig)
	case c.CommitLogGroupWindow < 0 || c.CommitLogGroupWindow%time.Millisecond != 0:
		return fmt.Errorf("%w: CommitLogGroupWindow must be whole non-negative milliseconds, got %s", ErrBadConfig, c.CommitLogGroupWindow)
	case c.OwnGroups && os.Geteuid() != 0:
		return fmt.Errorf("%w: OwnGroups needs root (it sets each JVM's group ID)", ErrBadConfig)
	}
	for _, dc := range c.Datacenters {
		if !dcName.MatchString(dc) {
			return fmt.Errorf("%w: datacenter name %q", ErrBadConfig, dc)
		}
	}
	return nil
}
