package localcluster

import (
	"bufio"
	"crypto/tls"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// startCluster starts cfg for the test and stops it when the test ends.
func startCluster(t *testing.T, cfg Config) *Cluster {
	t.Helper()
	if cfg.Log == nil {
		cfg.Log = tlog{t}
	}
	start := time.Now()
	c, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("%d node(s) ready in %.1fs", len(c.Hosts()), time.Since(start).Seconds())
	t.Cleanup(func() {
		if t.Failed() {
			for i := range c.Hosts() {
				t.Logf("node%d log tail:\n%s", i+1, logTail(c.specs[i]))
			}
		}
		if err := c.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return c
}

// connect opens a session to the given hosts only.
func connect(t *testing.T, cc *gocql.ClusterConfig, hosts ...string) *gocql.Session {
	t.Helper()
	if len(hosts) > 0 {
		cc.Hosts = hosts
		cc.HostFilter = gocql.WhiteListHostFilter(hosts...)
	}
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatalf("connect %v: %v", cc.Hosts, err)
	}
	t.Cleanup(s.Close)
	return s
}

func scanString(t *testing.T, s *gocql.Session, stmt string, args ...any) string {
	t.Helper()
	var v string
	if err := s.Query(stmt, args...).Consistency(gocql.One).Scan(&v); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return v
}

func TestSingleNode(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Cassandra JVM")
	}
	c := startCluster(t, Config{TombstoneWarnThreshold: 10, ReadThresholds: true, SizeRecorderInterval: 5 * time.Second})
	if got, want := c.Version(), "5.0.8"; got != want {
		t.Errorf("Version = %q, want %q", got, want)
	}
	if got, want := strings.Join(c.Hosts(), ","), "127.0.0.1"; got != want {
		t.Errorf("Hosts = %s, want %s", got, want)
	}
	s := connect(t, c.ClusterConfig())
	if got, want := scanString(t, s, "SELECT data_center FROM system.local"), c.Datacenter(0); got != want || want != "dc1" {
		t.Errorf("data_center = %q, Datacenter(0) = %q, want dc1", got, want)
	}
	settings := map[string]string{"tombstone_warn_threshold": "10", "read_thresholds_enabled": "true", "authenticator": "AllowAllAuthenticator"}
	for name, want := range settings {
		if got := scanString(t, s, "SELECT value FROM system_views.settings WHERE name = ?", name); got != want {
			t.Errorf("setting %s = %q, want %q", name, got, want)
		}
	}
	if _, err := os.Stat(c.LogPath(0)); err != nil {
		t.Errorf("LogPath: %v", err)
	}
	if c.CACertPEM() != nil || c.TLSConfig() != nil {
		t.Error("TLS material without TLS")
	}

	s.Close()

	// Restart of a running node stops it cleanly first.
	before := c.PID(0)
	if err := c.Restart(t.Context(), 0); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	if after := c.PID(0); after == 0 || after == before || syscall.Kill(before, 0) == nil {
		t.Errorf("pid %d before Restart, %d after; old one must be gone", before, after)
	}
	s = connect(t, c.ClusterConfig())
	if got := scanString(t, s, "SELECT release_version FROM system.local"); got != Version {
		t.Errorf("release_version after Restart = %q", got)
	}
	s.Close()

	checkFreezeThaw(t, c)

	dir := c.DataDir()
	if len(pidsMentioning(t, dir)) != 1 {
		t.Errorf("want exactly one JVM for %s, got %v", dir, pidsMentioning(t, dir))
	}
	// A frozen node still stops cleanly, without waiting out StopTimeout.
	if err := c.Freeze(0); err != nil {
		t.Fatalf("Freeze: %v", err)
	}
	stopStart := time.Now()
	if err := c.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if took := time.Since(stopStart); took > DefaultStopTimeout/2 {
		t.Errorf("Stop of a frozen node took %v", took)
	}
	assertNoProcesses(t, dir)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temporary data dir %s still there (%v)", dir, err)
	}
	if err := c.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if err := c.Kill(0); !errors.Is(err, ErrStopped) {
		t.Errorf("Kill after Stop = %v, want ErrStopped", err)
	}
	if err := c.Freeze(0); !errors.Is(err, ErrStopped) {
		t.Errorf("Freeze after Stop = %v, want ErrStopped", err)
	}
}

// checkFreezeThaw: a frozen node is in state T and does not answer; thawed,
// it runs and answers again.
func checkFreezeThaw(t *testing.T, c *Cluster) {
	t.Helper()
	cc := c.ClusterConfig()
	cc.Timeout = time.Second
	s := connect(t, cc) // before the freeze: a frozen node accepts no session
	pid := c.PID(0)
	if err := c.Freeze(0); err != nil {
		t.Fatalf("Freeze: %v", err)
	}
	waitState(t, pid, true)
	if err := s.Query("SELECT release_version FROM system.local").Consistency(gocql.One).Exec(); err == nil {
		t.Error("a frozen node answered")
	}
	if err := c.Thaw(0); err != nil {
		t.Fatalf("Thaw: %v", err)
	}
	waitState(t, pid, false)
	if got := scanString(t, s, "SELECT release_version FROM system.local"); got != Version {
		t.Errorf("release_version after Thaw = %q", got)
	}
	s.Close()
	if err := c.Freeze(7); !errors.Is(err, ErrNoNode) {
		t.Errorf("Freeze(7) = %v, want ErrNoNode", err)
	}
}

// waitState waits until process pid is stopped (state T) or running again.
func waitState(t *testing.T, pid int, stopped bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		// pid (comm) state ...: comm may hold spaces, the state follows its ')'.
		rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
		if (rest[0] == 'T') == stopped {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d in state %c, want stopped=%t", pid, rest[0], stopped)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestThreeNodesKillRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three Cassandra JVMs")
	}
	dcs := []string{"dc1", "dc1", "dc2"}
	c := startCluster(t, Config{Nodes: 3, DataDir: t.TempDir(), Datacenters: dcs})
	for i, h := range c.Hosts() {
		s := connect(t, c.ClusterConfig(), h)
		if got := scanString(t, s, "SELECT data_center FROM system.local"); got != dcs[i] || c.Datacenter(i) != dcs[i] {
			t.Errorf("node%d data_center = %q, Datacenter = %q, want %q", i+1, got, c.Datacenter(i), dcs[i])
		}
		s.Close()
	}

	all := connect(t, c.ClusterConfig())
	for _, stmt := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 2, 'dc2': 1}",
		"CREATE TABLE ks.t (k text PRIMARY KEY, v text)",
	} {
		if err := all.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := all.Query("INSERT INTO ks.t (k, v) VALUES ('a', 'b')").Consistency(gocql.All).Exec(); err != nil {
		t.Fatalf("insert at ALL: %v", err)
	}
	all.Close()

	node2 := c.PID(1)
	if err := c.Kill(1); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if c.PID(1) != 0 || syscall.Kill(node2, 0) == nil {
		t.Fatalf("node2 (pid %d) still running after Kill", node2)
	}
	s1 := connect(t, c.ClusterConfig(), "127.0.0.1")
	if got := scanString(t, s1, "SELECT v FROM ks.t WHERE k = 'a'"); got != "b" {
		t.Errorf("read at ONE with node2 down = %q, want b", got)
	}

	if err := c.Restart(t.Context(), 1); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	s2 := connect(t, c.ClusterConfig(), "127.0.0.2")
	if got := scanString(t, s2, "SELECT rpc_address FROM system.local"); got != "127.0.0.2" {
		t.Errorf("restarted node answers as %q, want 127.0.0.2", got)
	}
	// QUORUM, not ONE: SIGKILL loses what node2 had not yet synced to its
	// commit log (periodic, 10 s), as a real crash would.
	var v string
	if err := s2.Query("SELECT v FROM ks.t WHERE k = 'a'").Consistency(gocql.Quorum).Scan(&v); err != nil || v != "b" {
		t.Errorf("read at QUORUM via restarted node2 = %q, %v; want b", v, err)
	}
	s1.Close()
	s2.Close()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	assertNoProcesses(t, c.DataDir())
}

func TestAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Cassandra JVM")
	}
	c := startCluster(t, Config{Auth: true})
	s := connect(t, c.ClusterConfig())
	if got := scanString(t, s, "SELECT role FROM system_auth.roles WHERE role = 'cassandra'"); got != "cassandra" {
		t.Errorf("role = %q", got)
	}

	bad := c.ClusterConfig()
	bad.Authenticator = gocql.PasswordAuthenticator{Username: Superuser, Password: "wrong"}
	if s, err := bad.CreateSession(); err == nil {
		s.Close()
		t.Error("wrong password accepted")
	} else if !strings.Contains(err.Error(), "password are incorrect") {
		t.Errorf("wrong password: err = %v, want an authentication error", err)
	}
	none := c.ClusterConfig()
	none.Authenticator = nil
	if s, err := none.CreateSession(); err == nil {
		s.Close()
		t.Error("no credentials accepted")
	}
}

func TestTLSWithClientCert(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Cassandra JVM")
	}
	c := startCluster(t, Config{TLS: true, RequireClientCert: true})
	s := connect(t, c.ClusterConfig())
	if got := scanString(t, s, "SELECT release_version FROM system.local"); got != Version {
		t.Errorf("release_version over TLS = %q", got)
	}
	if b, err := os.ReadFile(c.CACertPath()); err != nil || string(b) != string(c.CACertPEM()) {
		t.Errorf("CACertPath content differs from CACertPEM (%v)", err)
	}
	cert, key := c.ClientCert()
	if _, err := tls.X509KeyPair(cert, key); err != nil {
		t.Errorf("ClientCert: %v", err)
	}

	tests := []struct {
		name   string
		adjust func(*gocql.ClusterConfig)
	}{
		{"plain text", func(cc *gocql.ClusterConfig) { cc.SslOpts = nil }},
		{"no client certificate", func(cc *gocql.ClusterConfig) { cc.SslOpts.Config.Certificates = nil }},
		{"untrusted server", func(cc *gocql.ClusterConfig) { cc.SslOpts.Config.RootCAs = nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc := c.ClusterConfig()
			cc.ConnectTimeout, cc.Timeout = 3*time.Second, 3*time.Second
			tt.adjust(cc)
			if s, err := cc.CreateSession(); err == nil {
				s.Close()
				t.Error("session created, want a refusal")
			}
		})
	}
}

// TestStartFailureCarriesLogTail starts a node whose yaml Cassandra rejects.
func TestStartFailureCarriesLogTail(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Cassandra JVM")
	}
	dir := t.TempDir()
	_, err := Start(t.Context(), Config{DataDir: dir, ExtraYAML: "no_such_setting_here: 1", Log: tlog{t}})
	var se *StartError
	if !errors.As(err, &se) || !errors.Is(err, ErrNotReady) || !errors.Is(err, ErrExited) {
		t.Fatalf("err = %v, want a *StartError wrapping ErrNotReady and ErrExited", err)
	}
	if se.Node != 0 || !strings.Contains(se.LogTail, "no_such_setting_here") {
		t.Errorf("node %d, log tail does not name the bad setting:\n%s", se.Node, se.LogTail)
	}
	assertNoProcesses(t, dir)
}

// TestStartTimeoutStopsNode gives a node too little time: Start must fail
// with ErrNotReady (the JVM did not exit by itself) and leave nothing running.
func TestStartTimeoutStopsNode(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Cassandra JVM")
	}
	dir := t.TempDir()
	_, err := Start(t.Context(), Config{DataDir: dir, StartTimeout: time.Second, Log: tlog{t}})
	var se *StartError
	if !errors.As(err, &se) || !errors.Is(err, ErrNotReady) || errors.Is(err, ErrExited) {
		t.Fatalf("err = %v, want a *StartError wrapping ErrNotReady only", err)
	}
	assertNoProcesses(t, dir)
}

// TestJVMDiesWithParent kills a process that started a node with SIGKILL:
// Pdeathsig must take the JVM down too.
func TestJVMDiesWithParent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Cassandra JVM")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid, lines := scanPID(bufio.NewScanner(out))
	if pid == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child never reported a JVM pid; output:\n%s", strings.Join(lines, "\n"))
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("JVM %d not running before the parent dies: %v", pid, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	assertNoProcesses(t, dir)
}
