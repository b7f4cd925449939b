package autopilot

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/schema"
)

// Bad options are refused before anything is sent.
func TestOptionsRefused(t *testing.T) {
	ctx := context.Background()
	if _, err := Run(ctx, Options{Keyspace: "ks"}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("Run without a session: %v", err)
	}
	s := new(gocql.Session) // never used: the checks come first
	if _, err := Run(ctx, Options{Session: s, Keyspace: "ks", Lead: time.Second}); !errors.Is(err, schema.ErrBadRebucket) {
		t.Errorf("Run with a lead below the fleet's least: %v", err)
	}
	if _, err := NewWorker(WorkerOptions{Options: Options{Session: s, Keyspace: "ks"}}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("NewWorker without an instance: %v", err)
	}
	if _, err := NewWorker(WorkerOptions{Instance: "a", Options: Options{Session: s, Keyspace: "ks", Lead: time.Minute}}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("NewWorker with a short lead: %v", err)
	}
	// Lead left 0 is DefaultLead (2h): under the 3h1m10s this fleet needs.
	skewed := schema.Fleet{MaxFutureSkew: 3 * time.Hour}
	if _, err := NewWorker(WorkerOptions{Instance: "a", Options: Options{Session: s, Keyspace: "ks", Fleet: skewed}}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("NewWorker with the default lead under the fleet's least: %v", err)
	}
	if _, err := NewWorker(WorkerOptions{Instance: "a", Interval: time.Minute, LeaseTTL: 30 * time.Second,
		Options: Options{Session: s, Keyspace: "ks"}}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("NewWorker with a lease shorter than its interval: %v", err)
	}
	if _, err := NewWorker(WorkerOptions{Instance: "a", Interval: time.Minute, LeaseTTL: time.Minute,
		Options: Options{Session: s, Keyspace: "ks"}}); err != nil {
		t.Errorf("NewWorker with a lease of one interval: %v", err)
	}
	if _, err := NewFlusher(FlusherOptions{Session: s, Keyspace: "ks"}); !errors.Is(err, ErrBadOptions) {
		t.Errorf("NewFlusher without an instance and metrics: %v", err)
	}
	if err := Apply(ctx, nil, "ks"); !errors.Is(err, ErrBadOptions) {
		t.Errorf("Apply without a session: %v", err)
	}
}
