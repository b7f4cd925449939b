// Package provision finds or starts the cluster that the integration tests and the
// demo talk to, in this order:
//
//  1. an existing cluster named by TSBUCKET_HOSTS (comma-separated host[:port]),
//     with TSBUCKET_DC naming its local datacenter (default "dc1");
//  2. a ScyllaDB container through testcontainers-go, where a Docker engine answers
//     (TSBUCKET_NO_DOCKER=1 skips this step);
//  3. Apache Cassandra 5.0.8 started as local JVMs by internal/localcluster.
//
// The caller owns the returned Cluster and must Close it; Close stops whatever
// Provision started and leaves an external cluster alone.
package provision
