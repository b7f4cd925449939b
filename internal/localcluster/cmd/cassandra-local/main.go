package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/tsbucket/tsbucket/internal/localcluster"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "cassandra-local:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("cassandra-local", flag.ContinueOnError)
	var cfg localcluster.Config
	fs.IntVar(&cfg.Nodes, "nodes", 1, "number of nodes: 1 or 3")
	fs.StringVar(&cfg.DataDir, "dir", "", "data directory (kept); empty: a temporary one, removed on exit")
	fs.BoolVar(&cfg.Auth, "auth", false, "PasswordAuthenticator with superuser cassandra/cassandra")
	fs.BoolVar(&cfg.TLS, "tls", false, "client TLS; the CA certificate path is printed")
	fs.IntVar(&cfg.HeapMB, "heap", localcluster.DefaultHeapMB, "heap per node in MiB")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg.Log = os.Stderr
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	c, err := localcluster.Start(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Printf("Cassandra %s ready: hosts %s, port %d\n", c.Version(), strings.Join(c.Hosts(), ","), localcluster.CQLPort)
	if cfg.TLS {
		fmt.Printf("CA certificate: %s\n", c.CACertPath())
	}
	for i := range c.Hosts() {
		fmt.Printf("node%d log: %s\n", i+1, c.LogPath(i))
	}
	<-ctx.Done()
	fmt.Fprintln(os.Stderr, "stopping")
	return c.Stop()
}
