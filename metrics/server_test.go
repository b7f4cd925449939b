package metrics

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestNewSizePollerValidates(t *testing.T) {
	session := new(gocql.Session) // never queried: NewSizePoller does no I/O
	tests := []struct {
		name     string
		s        *gocql.Session
		keyspace string
		reg      prometheus.Registerer
		interval time.Duration
		want     error
	}{
		{"nil registerer", session, "chat", nil, time.Second, ErrNilRegisterer},
		{"nil session", nil, "chat", prometheus.NewRegistry(), time.Second, ErrInvalidPoller},
		{"empty keyspace", session, "", prometheus.NewRegistry(), time.Second, ErrInvalidPoller},
		{"zero interval", session, "chat", prometheus.NewRegistry(), 0, ErrInvalidPoller},
		{"valid", session, "chat", prometheus.NewRegistry(), time.Second, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewSizePoller(tt.s, tt.keyspace, tt.reg, tt.interval)
			if !errors.Is(err, tt.want) {
				t.Fatalf("NewSizePoller() = %v, want %v", err, tt.want)
			}
			if (p == nil) != (tt.want != nil) {
				t.Errorf("NewSizePoller() poller = %v with error %v", p, err)
			}
		})
	}
}

func TestNewSizePollerRegistrationConflict(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := NewSizePoller(new(gocql.Session), "chat", reg, time.Second); err != nil {
		t.Fatal(err)
	}
	var already prometheus.AlreadyRegisteredError
	if _, err := NewSizePoller(new(gocql.Session), "iot", reg, time.Second); !errors.As(err, &already) {
		t.Errorf("second NewSizePoller on one registry = %v, want AlreadyRegisteredError", err)
	}
}

func TestIsMissingTable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"unconfigured table", requestError{gocql.ErrCodeInvalid}, true},
		{"wrapped", fmt.Errorf("poll: %w", requestError{gocql.ErrCodeInvalid}), true},
		{"nil", nil, false},
		{"timeout", &gocql.RequestErrReadTimeout{}, false},
		{"unauthorized", requestError{gocql.ErrCodeUnauthorized}, false},
		{"plain", errors.New("unconfigured table top_partitions"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isMissingTable(tt.err); got != tt.want {
				t.Errorf("isMissingTable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// export is the part of Poll that needs no server: gauges for every table of
// the keyspace, zero where the server has no estimate yet, and removal of the
// gauges of dropped tables.
func TestSizePollerExport(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	p, err := NewSizePoller(new(gocql.Session), "chat", reg, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p.export([]string{"a", "b"}, map[string]estimate{"a": {meanBytes: 120, partitions: 40}}, map[string]int{"b": 2})
	p.export([]string{"a"}, map[string]estimate{"a": {meanBytes: 130, partitions: 41}}, nil)

	want := `
# HELP tsbucket_server_partition_mean_bytes Mean partition size the server estimates from its SSTables (system.size_estimates).
# TYPE tsbucket_server_partition_mean_bytes gauge
tsbucket_server_partition_mean_bytes{keyspace="chat",table="a"} 130
# HELP tsbucket_server_partitions_estimate Partitions the server estimates for the whole ring (system.size_estimates, scaled by ring share).
# TYPE tsbucket_server_partitions_estimate gauge
tsbucket_server_partitions_estimate{keyspace="chat",table="a"} 41
# HELP tsbucket_server_large_partitions Large partitions the answering node records (system.top_partitions or system.large_partitions).
# TYPE tsbucket_server_large_partitions gauge
tsbucket_server_large_partitions{keyspace="chat",table="a"} 0
`
	names := []string{"tsbucket_server_partition_mean_bytes", "tsbucket_server_partitions_estimate",
		"tsbucket_server_large_partitions"}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
}
