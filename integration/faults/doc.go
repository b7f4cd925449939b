// Package faults holds the tests that break a real cluster on purpose: nodes
// killed with SIGKILL under load and restarted, permissions revoked on one
// view, wrong credentials and certificates. They need local Cassandra JVMs
// they can kill and reconfigure (internal/localcluster), so they live apart
// from package integration, whose shared node holds the machine-wide cluster
// lock for its whole test binary. Each test here starts the cluster it needs
// (three nodes, or one node with PasswordAuthenticator and client TLS) and the
// previous one is stopped first; consecutive tests with the same needs share
// one cluster.
//
// With TSBUCKET_REQUIRE_DB=1 (CI) a cluster that cannot start fails the run;
// otherwise the tests skip with the reason. They skip under -short, and when
// TSBUCKET_HOSTS names an external cluster, whose nodes are not ours to kill.
package faults
