// Package faults holds the tests that break a real cluster on purpose: nodes
// killed with SIGKILL under load and restarted; gray failures under a mixed
// load, a node frozen with SIGSTOP and a node slowed by a SIGSTOP/SIGCONT
// duty cycle, and a node cut off in both directions by iptables rules on the
// loopback (TestPartitionedNode), each asserting that no acknowledged write
// is lost, which errors are allowed and how soon reads and hints recover
// (RELIABILITY.md has the figures); permissions revoked on one view, wrong
// credentials and certificates. They need local Cassandra JVMs they can kill
// and reconfigure (internal/localcluster), so they live apart from package
// integration, whose shared node holds the machine-wide cluster lock for its
// whole test binary. Each test here starts the cluster it needs (three nodes,
// or one node with PasswordAuthenticator and client TLS) and the previous one
// is stopped first; consecutive tests with the same needs share one cluster.
//
// Every test starts from a cluster it has verified healthy
// (localcluster.Cluster.WaitHealthy): every node up as every node's failure
// detector sees it (nodetool status), one schema version in every node's
// system.local and system.peers_v2, and no undelivered hint file. A shared
// cluster that is not healthy again within a minute of the previous
// scenario is logged with each node's account of it (nodetool
// describecluster and gossipinfo, fault rules still in place) and replaced
// by a new one; a cluster that is not healthy within two minutes of its
// start fails the test with "cluster not healthy before the scenario" and
// the findings, never with an unrelated error later. Each gray scenario
// also reports how long after its fault the cluster was healthy again.
// RELIABILITY.md has what each scenario leaves behind.
//
// With TSBUCKET_REQUIRE_DB=1 (CI) a cluster that cannot start fails the run;
// otherwise the tests skip with the reason. They skip under -short, and when
// TSBUCKET_HOSTS names an external cluster, whose nodes are not ours to kill.
// The partition test needs root and iptables (it installs the package with
// apt-get when missing; a missing one fails under TSBUCKET_REQUIRE_DB=1):
// as root the three nodes run with group IDs of their own
// (localcluster.Config.OwnGroups), which its rules match. Run it in a
// network namespace of its own (unshare -n) to keep its rules off the
// machine's. A run killed mid-partition leaves its rules behind; the next
// run removes them before its first scenario, when no local cluster is
// running (localcluster.IfNoCluster), and says so on stderr.
package faults
