// Command tsbucket runs the tsbucket demo and helps size, create, check and
// inspect time-bucketed tables.
//
//	tsbucket demo     run the chat and IoT workloads against a cluster (or one it starts)
//	tsbucket plan     size the buckets of a view from its busiest key
//	tsbucket schema   print, apply or check the reference schema
//	tsbucket inspect  buckets and rows of a key, or a table's partition size estimates
//	tsbucket repair   re-derive the other views of a key's time range from a base view
//	tsbucket help     usage of a command
//
// Exit status: 0 on success, 1 when the command failed (or found schema
// drift, or no bucket width fits), 2 on a usage error.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first Ctrl-C asks for a clean stop (the demo prints its summary and
	// stops the cluster it started); restoring the default handling then lets
	// a second Ctrl-C end the process at once.
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], newEnv(os.Stdout, os.Stderr))
	stop()
	os.Exit(code)
}
