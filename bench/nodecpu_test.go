package bench

import (
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/tsbucket/tsbucket/internal/provision"
)

func TestProcNetAddr(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"0100007F:2352", "127.0.0.1:9042"},
		{"0200007F:2352", "127.0.0.2:9042"},
		{"00000000:2352", "*:9042"},
		{"00000000000000000000000001000000:1F90", "[::1]:8080"},
		{"00000000000000000000000000000000:2352", "*:9042"},
	} {
		got, ok := procNetAddr(c.in)
		if !ok || got != c.want {
			t.Errorf("procNetAddr(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
	for _, bad := range []string{"", "0100007F", "zz00007F:2352", "0100007F:zz", "01007F:2352"} {
		if got, ok := procNetAddr(bad); ok {
			t.Errorf("procNetAddr(%q) = %q, want refused", bad, got)
		}
	}
}

// TestLoopbackServerPIDs finds this process by a socket it listens on, and
// nothing for a host elsewhere or a port nobody listens on.
func TestLoopbackServerPIDs(t *testing.T) {
	port := listenLoopback(t).Port

	pids, err := LoopbackServerPIDs([]string{"127.0.0.1"}, port)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(pids, os.Getpid()) {
		t.Errorf("LoopbackServerPIDs(127.0.0.1, %d) = %v, want this process %d", port, pids, os.Getpid())
	}
	pids, err = LoopbackServerPIDs([]string{"127.0.0.1:" + strconv.Itoa(port)}, 1)
	if err != nil || !slices.Contains(pids, os.Getpid()) {
		t.Errorf("with the port in the host: %v, %v; want this process", pids, err)
	}
	if pids, err := LoopbackServerPIDs([]string{"localhost"}, port); err != nil || !slices.Contains(pids, os.Getpid()) {
		t.Errorf("localhost: %v, %v; want this process", pids, err)
	}
	if pids, err := LoopbackServerPIDs([]string{"127.0.0.1", "10.1.2.3"}, port); err != nil || pids != nil {
		t.Errorf("a host elsewhere: %v, %v; want nothing", pids, err)
	}
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	free := ln2.Addr().(*net.TCPAddr).Port
	ln2.Close()
	if pids, err := LoopbackServerPIDs([]string{"127.0.0.1"}, free); err != nil || pids != nil {
		t.Errorf("a port nobody listens on: %v, %v; want nothing", pids, err)
	}
}

// TestClusterNodePIDs: the process listening at an external loopback host
// is the node to measure; a container's published port is its engine's
// proxy, and a host elsewhere is not this machine's.
func TestClusterNodePIDs(t *testing.T) {
	host := listenLoopback(t).String()
	for _, c := range []struct {
		name string
		cl   provision.Cluster
		want bool // this process
	}{
		{"external loopback", provision.Cluster{Hosts: []string{host}, Source: provision.SourceExternal}, true},
		{"container", provision.Cluster{Hosts: []string{host}, Source: provision.SourceScylla}, false},
		{"elsewhere", provision.Cluster{Hosts: []string{"10.0.0.7"}, Source: provision.SourceExternal}, false},
	} {
		pids, err := ClusterNodePIDs(&c.cl, 1)
		if err != nil || slices.Contains(pids, os.Getpid()) != c.want || !c.want && pids != nil {
			t.Errorf("%s: %v, %v; want this process: %v", c.name, pids, err, c.want)
		}
	}
}

// listenLoopback is a socket this process listens on at 127.0.0.1, closed
// when the test ends, for the tests that find a server's process through
// /proc (Linux only: they skip elsewhere).
func listenLoopback(t *testing.T) *net.TCPAddr {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().(*net.TCPAddr)
}
