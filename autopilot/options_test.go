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

// stepClock is a clock a test moves.
type stepClock struct{ t time.Time }

func (c *stepClock) Now() time.Time { return c.t }

// A round's actions are applied one after another, after the decision: a
// promotion decided at the lead must still be recorded at least the lead
// ahead of the real clock (its From moves), and a width change is checked
// against the real clock, not the frozen decision instant.
func TestActionsStayALeadAhead(t *testing.T) {
	lead := schema.Fleet{}.MinLead()
	clk := &stepClock{t: t0}
	o := Options{Lead: lead, Now: clk.Now}
	decided := Action{Kind: KindPromote, View: "v", Key: "k", From: promotionFrom(t0, lead), Shards: 8}
	if got := o.timely(decided); !got.From.Equal(decided.From) {
		t.Fatalf("on time: From moved from %v to %v", decided.From, got.From)
	}
	clk.t = t0.Add(3 * time.Second) // the actions before it took 3 s
	got := o.timely(decided)
	if got.From.Before(clk.t.Add(lead)) {
		t.Fatalf("promotion From %v is under the lead %v ahead of %v", got.From, lead, clk.t)
	}
	if got.Key != decided.Key || got.Shards != decided.Shards {
		t.Fatalf("timely changed more than From: %+v", got)
	}
	if w := (Action{Kind: KindWidth, From: t0.Add(time.Hour)}); !o.timely(w).From.Equal(w.From) {
		t.Fatal("timely moved a width change's From")
	}
	ro := o.rebucketOptions()
	clk.t = t0.Add(time.Minute)
	if ro.Now == nil || !ro.Now().Equal(clk.t) || ro.Lead != lead {
		t.Fatalf("Rebucket's options: lead %v, clock not the real one", ro.Lead)
	}
}
