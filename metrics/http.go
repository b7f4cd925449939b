package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// shutdownGrace bounds how long Serve waits for scrapes in flight once its
// context is done.
const shutdownGrace = 5 * time.Second

// Handler serves the metrics gathered from g in the Prometheus text format.
// A failing collector turns the scrape into an HTTP 500 rather than a page
// silently missing series.
func Handler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError})
}

// Serve listens on addr (":0" picks a free port) and serves Handler(g) at
// /metrics until ctx is done, then shuts down gracefully. It returns the
// address actually bound and a channel that yields the server's final error
// (nil after a clean shutdown) and is then closed.
func Serve(ctx context.Context, addr string, g prometheus.Gatherer) (string, <-chan error, error) {
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("metrics: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", Handler(g))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() {
		defer close(done)
		done <- serveUntil(ctx, srv, ln)
	}()
	return ln.Addr().String(), done, nil
}

func serveUntil(ctx context.Context, srv *http.Server, ln net.Listener) error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served: // failed on its own
		return err
	case <-ctx.Done():
	}
	// ctx is already done: shut down under a fresh, bounded context.
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if serveErr := <-served; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	return err
}
