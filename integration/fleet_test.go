package integration

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// fleetBounds are small fleet bounds, so changes take effect within seconds:
// MinLead is 300 ms + 1 s + 2 x 200 ms.
var fleetBounds = schema.Fleet{SchemeRefresh: 300 * time.Millisecond, MaxFutureSkew: time.Second, ClockSkew: 200 * time.Millisecond}

const fleetLead = 3 * time.Second

// failOnce is an Executor that fails the next write while armed (a write
// timeout for a RetryOf retry to complete), and the metadata reloads while
// metaDown is set.
type failOnce struct {
	repo.Executor
	armed    atomic.Bool
	metaDown atomic.Bool
}

func (f *failOnce) Exec(ctx context.Context, s repo.Statement) error {
	if f.armed.CompareAndSwap(true, false) {
		return errors.New("injected write timeout")
	}
	return f.Executor.Exec(ctx, s)
}

// Query fails the reads of the views' registry while metaDown is set: an
// instance whose metadata reloads fail.
func (f *failOnce) Query(ctx context.Context, s repo.Statement) repo.Rows {
	if f.metaDown.Load() && s.Table == schema.MetadataTable {
		return errRows{errors.New("injected: registry unavailable")}
	}
	return f.Executor.Query(ctx, s)
}

// errRows are the Rows of a failed select.
type errRows struct{ err error }

func (errRows) Scan(...any) bool            { return false }
func (errRows) StructScan(any) bool         { return false }
func (errRows) MapScan(map[string]any) bool { return false }
func (errRows) Warnings() []string          { return nil }
func (e errRows) Close() error              { return e.err }

// fleetNode is one instance of TestFleetOnANode.
type fleetNode struct {
	name   string
	offset time.Duration
	r      *repo.Repo[Tick]
	fault  *failOnce
}

// TestFleetOnANode (issue 23) runs the fleet rule on a real node: three
// repositories with clocks up to ClockSkew apart write, edit, delete and
// retry ticks of a per-key sharded view while scheme changes (schema.Rebucket)
// and a promotion are recorded; one of them sits idle across the changes
// (a paused instance) and resumes with a copy it can no longer trust, and
// another's reloads fail for 3.5 s across the first change. Every page every
// instance reads, both directions, in random page sizes, equals the model;
// the instance whose reloads fail gets *StaleError, never a wrong page.
func TestFleetOnANode(t *testing.T) {
	ctx := t.Context()
	ks := testKeyspace(t)
	s := connect(t, "")
	v := ticksView(t)
	v.Shards, v.PerKeyShards = 4, true
	if err := schema.Apply(ctx, s, ks, []schema.View{v}); err != nil {
		t.Fatal(err)
	}
	var nodes []*fleetNode
	for i, off := range []time.Duration{-100 * time.Millisecond, 0, 100 * time.Millisecond} {
		n := &fleetNode{name: fmt.Sprint("i", i), offset: off, fault: &failOnce{}}
		r, err := repo.Open[Tick](ctx, s, ks.Name, []schema.View{v}, repo.Options{
			Now:          func() time.Time { return time.Now().Add(off) },
			WrapExecutor: func(e repo.Executor) repo.Executor { n.fault.Executor = e; return n.fault },
			Schemes:      repo.SchemeOptions{Refresh: fleetBounds.SchemeRefresh, MaxFutureSkew: fleetBounds.MaxFutureSkew, ClockSkew: fleetBounds.ClockSkew, Lead: fleetLead, NoAutoPromote: true},
		})
		if err != nil {
			t.Fatal(err)
		}
		n.r = r
		nodes = append(nodes, n)
	}
	run := &fleetModel{t: t, rng: rand.New(rand.NewPCG(23, 1)), v: v, model: map[gocql.UUID]Tick{}, ts: map[gocql.UUID]int64{}}
	start := time.Now()
	changes := 0
	for step := 0; time.Since(start) < 9*time.Second; step++ {
		el := time.Since(start)
		active := nodes
		if el > time.Second && el < 7*time.Second {
			active = nodes[:2] // i2 sits idle across the changes
		}
		nodes[1].fault.metaDown.Store(el > 2*time.Second && el < 5500*time.Millisecond) // i1's reloads fail across the first change
		n := active[run.rng.IntN(len(active))]
		switch {
		case changes == 0 && el > time.Second, changes == 1 && el > 3*time.Second:
			run.rebucket(ctx, s, ks.Name, changes)
			changes++
		case step == 40:
			if _, err := n.r.PromoteKey(ctx, v.Name, repo.Key{"s1"}, "fleet test"); err != nil {
				t.Fatal(err)
			}
		default:
			run.op(ctx, n)
		}
		if step%25 == 0 {
			run.check(active)
		}
		time.Sleep(10 * time.Millisecond)
	}
	run.check(nodes)
	sc, _ := nodes[2].r.Scheme(v.Name)
	t.Logf("%d live ticks, %d stale refusals, %d changes; the paused instance's scheme: %v", len(run.model), run.stale, changes, sc)
	if changes != 2 || !sc.HasChanges() {
		t.Fatalf("%d changes recorded, the paused instance has %v", changes, sc)
	}
	if run.stale == 0 {
		t.Fatal("no call of the instance whose reloads failed was refused: it went on with a copy it could not prove current")
	}
}

// fleetModel is the live ticks of TestFleetOnANode.
type fleetModel struct {
	t     *testing.T
	rng   *rand.Rand
	v     schema.View
	model map[gocql.UUID]Tick
	ts    map[gocql.UUID]int64 // write timestamp of each live tick
	seq   int64
	stale int
}

// stamp is n's write timestamp now, passed explicitly so the model knows it:
// last write wins by it, and clocks up to ClockSkew apart can order an edit
// or a delete before the write it follows.
func stamp(n *fleetNode) int64 { return time.Now().Add(n.offset).UnixMicro() }

// rebucket records a change to 1-second (then 2-second) buckets from the
// first boundary at least the lead ahead.
func (m *fleetModel) rebucket(ctx context.Context, s *gocql.Session, ks string, i int) {
	stored, err := schema.LoadSchemes(ctx, s, ks, []string{m.v.Name})
	if err != nil {
		m.t.Fatal(err)
	}
	h := stored[m.v.Name]
	earliest := time.Now().Add(fleetLead + 100*time.Millisecond)
	if last := h.Changes()[len(h.Changes())-1].From; last.After(earliest) {
		earliest = last.Add(time.Second) // after the change still ahead
	}
	from, err := h.Latest().StartAtOrAfter(earliest)
	if err != nil {
		m.t.Fatal(err)
	}
	next, err := bucket.Fixed(time.Duration(i+1)*time.Second, from)
	if err != nil {
		m.t.Fatal(err)
	}
	if _, err := schema.Rebucket(ctx, s, ks, m.v.Name, from, next, schema.RebucketOptions{Lead: fleetLead, Fleet: fleetBounds}); err != nil {
		m.t.Fatalf("rebucket %d: %v", i, err)
	}
}

// op is one write of n: a Put, a PutMany, an edit, a Delete, or a Put that
// fails once and is retried with RetryOf.
func (m *fleetModel) op(ctx context.Context, n *fleetNode) {
	switch k := m.rng.IntN(10); {
	case k < 4:
		m.write(ctx, n, m.newTicks(n, 1), false)
	case k < 6:
		m.write(ctx, n, m.newTicks(n, 1+m.rng.IntN(8)), false)
	case k < 7:
		m.write(ctx, n, m.newTicks(n, 1), true)
	case k < 9 && len(m.model) > 0:
		tk := m.pick()
		m.seq++
		tk.N = m.seq
		m.write(ctx, n, []Tick{tk}, false)
	case len(m.model) > 0:
		tk := m.pick()
		ts := stamp(n)
		if err := n.r.Delete(ctx, &tk, repo.WithTimestamp(ts)); m.applied(n, "delete", err) && ts >= m.ts[tk.TickID] {
			delete(m.model, tk.TickID) // a tombstone wins a tie
			delete(m.ts, tk.TickID)
		}
	}
}

func (m *fleetModel) pick() Tick {
	keys := make([]gocql.UUID, 0, len(m.model))
	for k := range m.model {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b gocql.UUID) int { return bucket.UUIDv7{}.Compare(bucket.ID(a), bucket.ID(b)) })
	return m.model[keys[m.rng.IntN(len(keys))]]
}

// newTicks stamps ticks around n's clock: late by up to 3 s, or ahead by up
// to MaxFutureSkew less ClockSkew and a margin, so that every instance (an
// edit or a retry may go through another, whose clock is up to ClockSkew
// behind) accepts them. An item stamped MaxFutureSkew ahead of its writer is
// rightly refused by an instance whose clock is behind (seen in CI: 1.018 s
// ahead of i0, over the 1 s bound).
func (m *fleetModel) newTicks(n *fleetNode, k int) []Tick {
	ahead := fleetBounds.MaxFutureSkew - fleetBounds.ClockSkew - 100*time.Millisecond
	var out []Tick
	for range k {
		at := time.Now().Add(n.offset).Add(time.Duration(m.rng.Int64N(int64(3*time.Second+ahead))) - 3*time.Second)
		m.seq++
		out = append(out, tickAt(m.t, "s1", at, m.seq))
	}
	return out
}

func (m *fleetModel) write(ctx context.Context, n *fleetNode, ticks []Tick, failFirst bool) {
	n.fault.armed.Store(failFirst)
	ts := stamp(n)
	var err error
	if len(ticks) == 1 {
		err = n.r.Put(ctx, &ticks[0], repo.WithTimestamp(ts))
	} else {
		err = n.r.PutMany(ctx, ticks, repo.WithTimestamp(ts))
	}
	n.fault.armed.Store(false)
	var pe *repo.PutError
	if failFirst && errors.As(err, &pe) {
		err = n.r.Put(ctx, &ticks[0], repo.RetryOf(err))
	}
	if m.applied(n, "write", err) {
		for _, tk := range ticks {
			if old, ok := m.ts[tk.TickID]; !ok || ts > old {
				m.model[tk.TickID], m.ts[tk.TickID] = tk, ts
			}
		}
	}
}

// applied reports whether a write succeeded; a *StaleError means nothing was
// sent, anything else fails the test.
func (m *fleetModel) applied(n *fleetNode, what string, err error) bool {
	switch {
	case err == nil:
		return true
	case errors.Is(err, repo.ErrStaleMetadata):
		m.stale++
		return false
	}
	m.t.Fatalf("%s %s: %v", n.name, what, err)
	return false
}

// check reads every page of s1 through each node, both directions, in
// random page sizes, and compares with the model.
func (m *fleetModel) check(nodes []*fleetNode) {
	want := make([]Tick, 0, len(m.model))
	for _, tk := range m.model {
		want = append(want, tk)
	}
	slices.SortFunc(want, func(a, b Tick) int { return bucket.UUIDv7{}.Compare(bucket.ID(a.TickID), bucket.ID(b.TickID)) })
	for _, n := range nodes {
		for _, dir := range []repo.Direction{repo.OldestFirst, repo.NewestFirst} {
			got, err := m.readAll(n, dir)
			if errors.Is(err, repo.ErrStaleMetadata) {
				m.stale++
				continue
			}
			if err != nil {
				m.t.Fatalf("%s reads %v: %v", n.name, dir, err)
			}
			exp := slices.Clone(want)
			if dir == repo.NewestFirst {
				slices.Reverse(exp)
			}
			if !slices.Equal(got, exp) {
				m.t.Fatalf("%s reads %v: %d ticks, want %d (first difference at %d)", n.name, dir, len(got), len(exp),
					firstDiff(tickIDs(got), tickIDs(exp)))
			}
		}
	}
}

// readAll reads every page, bounded: a tick seen twice or a read outlasting
// a minute fails.
func (m *fleetModel) readAll(n *fleetNode, dir repo.Direction) ([]Tick, error) {
	ctx, cancel := context.WithTimeout(m.t.Context(), time.Minute)
	defer cancel()
	q := repo.Query{View: m.v.Name, Key: repo.Key{"s1"}, Direction: dir}
	var out []Tick
	seen := map[gocql.UUID]bool{}
	for {
		q.Limit = 1 + m.rng.IntN(30)
		p, err := n.r.Read(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, tk := range p.Items {
			if seen[tk.TickID] {
				return nil, fmt.Errorf("tick %v returned twice after %d ticks", tk.TickID, len(out))
			}
			seen[tk.TickID] = true
		}
		out = append(out, p.Items...)
		if p.Cursor == "" {
			return out, nil
		}
		q.Cursor = p.Cursor
	}
}
