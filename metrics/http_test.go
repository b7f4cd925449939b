package metrics

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestHandler(t *testing.T) {
	m, reg := newTestMetrics(t, Config{})
	m.Coalesced("messages_by_channel")
	rec := httptest.NewRecorder()
	Handler(reg).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("status = %d, want 200", rec.Code)
	}
	if want := `tsbucket_read_coalesced_total{table="messages_by_channel"} 1`; !strings.Contains(rec.Body.String(), want) {
		t.Errorf("body lacks %q:\n%s", want, rec.Body.String())
	}
}

// failingCollector makes Gather fail, which must reach the scraper.
type failingCollector struct{ desc *prometheus.Desc }

func (c failingCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }
func (c failingCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.NewInvalidMetric(c.desc, errors.New("broken"))
}

func TestHandlerReportsGatherErrors(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(failingCollector{prometheus.NewDesc("tsbucket_broken", "broken", nil, nil)})
	rec := httptest.NewRecorder()
	Handler(reg).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("status = %d, want 500", rec.Code)
	}
}

func TestServe(t *testing.T) {
	m, reg := newTestMetrics(t, Config{})
	m.FanoutFailure("messages_by_author")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, done, err := Serve(ctx, "127.0.0.1:0", reg)
	if err != nil {
		t.Fatal(err)
	}
	if _, port, _ := net.SplitHostPort(addr); port == "0" || port == "" {
		t.Fatalf("bound address %q has no real port", addr)
	}

	body := get(t, "http://"+addr+"/metrics")
	if want := `tsbucket_fanout_failures_total{table="messages_by_author"} 1`; !strings.Contains(body, want) {
		t.Errorf("/metrics lacks %q", want)
	}
	resp, err := http.Get("http://" + addr + "/other")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /other = %d, want 404", resp.StatusCode)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("done yielded %v after cancel, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop after its context was canceled")
	}
	if _, ok := <-done; ok {
		t.Error("done not closed after the final error")
	}
	if _, err := http.Get("http://" + addr + "/metrics"); err == nil {
		t.Error("server still answers after shutdown")
	}
}

func TestServeListenError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, _, err := Serve(context.Background(), ln.Addr().String(), prometheus.NewRegistry()); err == nil {
		t.Error("Serve on a taken address succeeded, want an error")
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d: %s", url, resp.StatusCode, b)
	}
	return string(b)
}
