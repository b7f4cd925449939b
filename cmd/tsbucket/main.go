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
