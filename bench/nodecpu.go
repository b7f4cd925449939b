package bench

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tsbucket/tsbucket/internal/provision"
)

// The server's side of a variant's cost. Throughput in these scenarios is
// bound by the node, which shares the machine with the client: a variant
// that made the node work more per operation would lose throughput for
// that reason, not for its client's. When the node's processes run on this
// machine (Config.NodePIDs), every measured block also reads their CPU
// time, and a variant reports it per operation next to the client's.

// nodeCPU is the CPU time the node processes pids have used so far (0
// without any).
func nodeCPU(pids []int) time.Duration {
	var sum time.Duration
	for _, pid := range pids {
		sum += procCPU(pid)
	}
	return sum
}

// CQLPort is the native protocol's port, which hosts use unless they name
// another.
const CQLPort = 9042

// ClusterNodePIDs are the processes of cl's nodes (nodes of them when it
// started them) when they run on this machine: the ones it started, or
// those listening at its hosts when these are loopback addresses
// (TSBUCKET_HOSTS=127.0.0.1 and a node started apart). None for a cluster
// elsewhere or in a container: the process listening at a container's
// published port is the engine's proxy, not the node.
func ClusterNodePIDs(cl *provision.Cluster, nodes int) ([]int, error) {
	if cl.Source == provision.SourceScylla {
		return nil, nil
	}
	if cl.Local != nil {
		var pids []int
		for i := range nodes {
			if pid := cl.Local.PID(i); pid > 0 {
				pids = append(pids, pid)
			}
		}
		return pids, nil
	}
	return LoopbackServerPIDs(cl.Hosts, CQLPort)
}

// LoopbackServerPIDs returns the processes of this machine listening for
// TCP connections at hosts (host or host:port; port defaultPort when
// absent), or nil when a host is neither a loopback address nor
// "localhost": a server elsewhere is not this machine's to measure. It
// reads /proc (Linux), and finds only the processes whose sockets it may
// look at (every one, as root).
func LoopbackServerPIDs(hosts []string, defaultPort int) ([]int, error) {
	want := map[string]bool{} // "ip:port"; "*:port" for a server listening on every address
	for _, h := range hosts {
		host, port := h, strconv.Itoa(defaultPort)
		if hh, pp, err := net.SplitHostPort(h); err == nil {
			host, port = hh, pp
		}
		ips := []net.IP{net.ParseIP(host)}
		if strings.EqualFold(host, "localhost") {
			ips = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback} // the name a driver resolves to either
		}
		p, err := strconv.Atoi(port)
		if err != nil {
			return nil, fmt.Errorf("bench: host %q: bad port: %w", h, err)
		}
		for _, ip := range ips {
			if ip == nil || !ip.IsLoopback() {
				return nil, nil
			}
			want[net.JoinHostPort(ip.String(), strconv.Itoa(p))] = true
		}
		want[net.JoinHostPort("*", strconv.Itoa(p))] = true
	}
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if err := listeningInodes(table, want, inodes); err != nil {
			return nil, err
		}
	}
	if len(inodes) == 0 {
		return nil, nil
	}
	return socketOwners(inodes)
}

// listeningInodes adds to inodes the socket inodes of the listening sockets
// in table (/proc/net/tcp or tcp6) bound to an address of want.
func listeningInodes(table string, want, inodes map[string]bool) error {
	f, err := os.Open(table)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != "0A" { // 0A: TCP_LISTEN
			continue
		}
		if addr, ok := procNetAddr(fields[1]); ok && want[addr] {
			inodes[fields[9]] = true
		}
	}
	return sc.Err()
}

// procNetAddr decodes an address of /proc/net/tcp{,6}: the IP in hex, in
// the kernel's byte order (each 32-bit word little-endian), a colon and
// the port in hex. An unspecified IP (listening on every address) is "*".
func procNetAddr(s string) (string, bool) {
	ipHex, portHex, ok := strings.Cut(s, ":")
	if !ok {
		return "", false
	}
	raw, err := hex.DecodeString(ipHex)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return "", false
	}
	for w := 0; w < len(raw); w += 4 {
		raw[w], raw[w+1], raw[w+2], raw[w+3] = raw[w+3], raw[w+2], raw[w+1], raw[w]
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	if err != nil {
		return "", false
	}
	host := net.IP(raw).String()
	if net.IP(raw).IsUnspecified() {
		host = "*" // 0.0.0.0 or ::, every address of the machine
	}
	return net.JoinHostPort(host, strconv.FormatUint(port, 10)), true
}

// socketOwners returns the processes holding a socket of inodes open.
func socketOwners(inodes map[string]bool) ([]int, error) {
	procs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil {
			continue
		}
		fds, err := os.ReadDir(p + "/fd")
		if err != nil {
			continue // gone, or not ours to read
		}
		for _, fd := range fds {
			target, err := os.Readlink(p + "/fd/" + fd.Name())
			if err != nil {
				continue
			}
			if inode, ok := strings.CutPrefix(target, "socket:["); ok && inodes[strings.TrimSuffix(inode, "]")] {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids, nil
}
