// Command cassandra-local starts a local Apache Cassandra 5.0.8 cluster (1 or
// 3 JVM nodes on 127.0.0.1..3, port 9042), prints its hosts and runs until
// SIGINT or SIGTERM, then stops it. It is for developers and the demo:
//
//	go run ./internal/localcluster/cmd/cassandra-local -nodes 3 -auth
package main
