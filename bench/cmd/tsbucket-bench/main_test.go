package main

import (
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/tsbucket/tsbucket/internal/provision"
)

// TestNodePIDs: the process listening at an external loopback host is the
// node to measure; a container's published port is its engine's proxy, and
// a host elsewhere is not this machine's.
func TestNodePIDs(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	host := "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)

	external := &provision.Cluster{Hosts: []string{host}, Source: provision.SourceExternal}
	if pids := nodePIDs(external, 1, io.Discard); !slices.Contains(pids, os.Getpid()) {
		t.Errorf("external loopback node: %v, want this process %d (listening at %s)", pids, os.Getpid(), host)
	}
	container := &provision.Cluster{Hosts: []string{host}, Source: provision.SourceScylla}
	if pids := nodePIDs(container, 1, io.Discard); pids != nil {
		t.Errorf("container: %v, want none", pids)
	}
	elsewhere := &provision.Cluster{Hosts: []string{"10.0.0.7"}, Source: provision.SourceExternal}
	if pids := nodePIDs(elsewhere, 1, io.Discard); pids != nil {
		t.Errorf("a host elsewhere: %v, want none", pids)
	}
}
