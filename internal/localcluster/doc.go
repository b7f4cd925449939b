// Package localcluster starts real Apache Cassandra 5.0.8 nodes as local JVMs,
// without Docker, for integration tests, the demo and CI.
//
// Contract:
//
//   - EnsureJars fetches org.apache.cassandra:cassandra-all:5.0.8 and its
//     runtime dependencies with Maven, once, into a cache directory
//     ($TSBUCKET_CACHE, else $XDG_CACHE_HOME/tsbucket, else ~/.cache/tsbucket;
//     jars in cassandra-5.0.8/lib). A marker file written after success makes a
//     half-finished download start over; a flock(2) lock file keeps concurrent
//     test binaries from filling the cache at the same time.
//   - Start runs 1 or 3 nodes on OpenJDK 17 at 127.0.0.1, 127.0.0.2 and
//     127.0.0.3, all on ports 9042 (CQL) and 7000 (storage), with JMX on
//     7100, 7200 and 7300 as ccm does. Node 1 is the seed and starts first; the
//     others start together once it answers CQL. A node is ready when a gocql
//     session (with the superuser's credentials when Auth is on, over TLS when
//     TLS is on) reads release_version from system.local.
//   - Every node uses GossipingPropertyFileSnitch, so its datacenter name is
//     always known and stable: "dc1" unless Config.Datacenters names it. The rack
//     is "rack1".
//   - Tokens are fixed and balanced (num_tokens 1, ccm's tokens), auto_bootstrap
//     is off, gossip settling is skipped and the ring delay is 1 s: this is a
//     test cluster, never a production one.
//   - cassandra.unsafesystem (no flush of system tables) is off unless
//     Config.UnsafeSystem: with it, a node killed with Kill and restarted
//     replays its schema changes into the tables but not into its in-memory
//     schema, and then reports keyspaces created before the kill as missing
//     while claiming schema agreement (seen on 5.0.8). Leave it off for fault
//     tests; it only makes DDL a little faster.
//   - Kill is a crash: the node loses writes it had not yet synced to its
//     commit log (commitlog_sync periodic, 10 s), so read through a restarted
//     node at QUORUM, or expect hints and read repair to fill the gap.
//   - Start returns when every node answers CQL and, with 3 nodes, every pair
//     of nodes has logged the other "is now UP" (ccm's test), every node lists
//     the others with their tokens in system.peers_v2 and all report the same
//     schema_version. Restart waits for the same about the restarted node, so
//     a QUORUM query through it works at once.
//   - Local clusters need fixed addresses and ports, so only one runs per
//     machine: Start holds an flock on $TMPDIR/tsbucket-localcluster.lock
//     until Stop (waiting for it, within ctx, if another process has it) and
//     fails with ErrPortBusy if a port is taken by anything else.
//   - JVMs run in their own process group and get SIGKILL when the thread that
//     started them dies (Pdeathsig), so a crashed test binary leaves no
//     Cassandra behind. Stop sends SIGTERM, waits, then SIGKILL; it is
//     idempotent and removes the data directory when Start created it. Nodes
//     announce shutdown for 0.1 s and skip draining internode messaging, which
//     makes a 3-node stop take seconds instead of 10+ and may log a harmless
//     RejectedExecutionException at shutdown.
//   - Freeze sends SIGSTOP to a node's process group and Thaw sends SIGCONT:
//     a node that is up for its peers and clients (sockets open) but does not
//     answer, as in a long GC pause. Kill, Restart and Stop work on a frozen
//     node (Stop resumes it so that it handles SIGTERM).
//   - Any failure in Start stops whatever was started. A node that does not
//     become ready yields a *StartError carrying the tail of its log; it wraps
//     ErrNotReady (and ErrExited when the JVM died).
package localcluster
