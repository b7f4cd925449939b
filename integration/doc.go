// Package integration holds the tests that run against a real cluster. They are
// ordinary `go test` tests: TestMain provisions one cluster per test binary (see
// internal/provision: TSBUCKET_HOSTS, else ScyllaDB in Docker, else local Cassandra
// 5.0.8 JVMs) and every test gets a fresh keyspace of its own.
//
// With TSBUCKET_REQUIRE_DB=1 (CI sets it) a cluster that cannot be provisioned fails
// the run; otherwise the database tests skip with the reason.
package integration
