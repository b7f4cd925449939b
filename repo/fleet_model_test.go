package repo

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

// fleetSeeds is how many seeds TestFleetModel runs (make model raises it).
var fleetSeeds = flag.Int("fleet-seeds", 3, "seeds of TestFleetModel")

// fleetOpts are small fleet bounds, so changes take effect within a run:
// MinLead is 1 m + 10 m + 10 s.
func fleetOpts() Options {
	return Options{
		Read:    ReadOptions{MaxLimit: 5000},
		Schemes: SchemeOptions{Refresh: time.Minute, MaxFutureSkew: 10 * time.Minute, ClockSkew: 5 * time.Second, Lead: 15 * time.Minute, PromoteAfter: 12},
	}
}

// fleetRun is one seed of the fleet model: three instances with clocks
// within ClockSkew of each other, writing, editing, deleting and retrying
// while one of them records scheme changes and promotions, and reloads fail
// or hang for a while; the model is the set of live items.
type fleetRun struct {
	t     *testing.T
	rng   *rand.Rand
	w     *world
	fake  *fakeCluster
	meta  *fakeMeta
	views []schema.View
	ins   []*instance
	model map[int64]refmodel.Message
	ts    map[int64]int64 // write timestamp of each live item: last write wins by it
	seq   int64
	stale int // calls refused with a *StaleError
}

// TestFleetModel (issue 23): every page every instance reads (both
// directions, ranges, cursors, every view) equals the model; an instance
// whose metadata cannot be proven current gets a *StaleError, never a wrong
// page; once faults clear, every instance reads the same.
func TestFleetModel(t *testing.T) {
	for seed := range uint64(*fleetSeeds) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			run := newFleetRun(t, seed)
			start := run.w.clock()
			run.rebucket(run.ins[0], 0)
			run.rebucket(run.ins[0], 1)
			for step := range 250 {
				run.step(step)
			}
			run.heal()
			run.checkAll("after the faults cleared", false)
			t.Logf("%d live items, %d stale refusals, %s of world time, schemes %v and %v, promotions %d", len(run.model), run.stale,
				run.w.clock().Sub(start).Round(time.Minute), run.meta.schemes["messages_by_channel"], run.meta.schemes["messages_by_author"],
				len(run.meta.promos["messages_by_channel"]))
		})
	}
}

func newFleetRun(t *testing.T, seed uint64) *fleetRun {
	views := refmodel.ChatViews()
	views[0].Shards, views[0].PerKeyShards = 4, true
	// The world starts 20 minutes before a chat bucket boundary, so the
	// first scheme change can take effect a lead later, within the run.
	cs := refmodel.ChatScheme()
	w := &world{now: cs.End(clampedBucket(cs, fixedNow)).Add(-20 * time.Minute)}
	run := &fleetRun{t: t, rng: rand.New(rand.NewPCG(seed, 23)), w: w, views: views, model: map[int64]refmodel.Message{}, ts: map[int64]int64{}}
	run.fake = newFakeCluster(t, "ks", views, w.clock)
	run.meta = newFakeMeta(views)
	for i, off := range []time.Duration{-2 * time.Second, 0, 2500 * time.Millisecond} {
		run.ins = append(run.ins, newInstance(t, fmt.Sprint("i", i), w, run.fake, run.meta, views, off, fleetOpts()))
	}
	return run
}

// step moves the world on and does one random thing.
func (run *fleetRun) step(n int) {
	switch d := run.rng.IntN(100); {
	case d < 80:
		run.w.advance(time.Duration(run.rng.IntN(40)) * time.Second)
	case d < 95:
		run.w.advance(time.Duration(run.rng.IntN(5)) * time.Minute)
	default: // a long pause of the whole fleet
		run.w.advance(time.Duration(10+run.rng.IntN(30)) * time.Minute)
	}
	in := run.ins[run.rng.IntN(len(run.ins))]
	switch op := run.rng.IntN(100); {
	case op < 30:
		run.put(in, run.newItems(in, 1)...)
	case op < 45:
		run.put(in, run.newItems(in, 1+run.rng.IntN(12))...)
	case op < 55:
		run.edit(in)
	case op < 63:
		run.delete(in)
	case op < 70:
		run.retry(in)
	case op < 74:
		run.rebucket(in, run.rng.IntN(2))
	case op < 77:
		run.promote(in)
	case op < 85:
		run.fault(in)
	default:
		run.checkAll(fmt.Sprint("step ", n), true)
	}
}

// newItems makes items stamped around in's clock: mostly now, some late
// (up to two days), some ahead (up to MaxFutureSkew).
func (run *fleetRun) newItems(in *instance, n int) []refmodel.Message {
	var out []refmodel.Message
	for range n {
		at := in.clock()
		switch k := run.rng.IntN(10); {
		case k < 2:
			at = at.Add(-time.Duration(run.rng.Int64N(int64(48 * time.Hour))))
		case k < 4:
			at = at.Add(time.Duration(run.rng.Int64N(int64(in.r.opts.Schemes.MaxFutureSkew))))
		}
		run.seq++
		ch := int64(1 + run.rng.IntN(3))
		out = append(out, refmodel.Message{ChannelID: ch, MessageID: snowflakeFor(run.t, at) + run.seq,
			AuthorID: int64(100 + run.rng.IntN(2)), Body: fmt.Sprint("b", run.seq)})
	}
	return out
}

// outcome checks a write's error: nil applies it to the model, a
// *StaleError leaves the model as it was (nothing was sent); anything else
// fails the run.
func (run *fleetRun) outcome(what string, err error, apply func()) {
	run.t.Helper()
	switch {
	case err == nil:
		apply()
	case isStale(err):
		run.stale++
	default:
		run.t.Fatalf("%s: %v", what, err)
	}
}

// call is the context of a call of in. A hanging reload of the model gives
// up on its own (instanceMeta.slow): the wait bounded by the caller's
// context has a test of its own (TestReloadWaitsForTheOneInFlight).
func (run *fleetRun) call(*instance) (context.Context, context.CancelFunc) {
	return context.WithCancel(run.t.Context())
}

func (run *fleetRun) put(in *instance, ms ...refmodel.Message) {
	ctx, cancel := run.call(in)
	defer cancel()
	var err error
	if len(ms) == 1 {
		err = in.r.Put(ctx, &ms[0])
	} else {
		err = in.r.PutMany(ctx, ms)
	}
	run.outcome(in.name+" put", err, func() { run.wrote(in, ms) })
}

// pick returns a live item of the model, if any.
func (run *fleetRun) pick() (refmodel.Message, bool) {
	if len(run.model) == 0 {
		return refmodel.Message{}, false
	}
	keys := slices.Sorted(maps.Keys(run.model))
	return run.model[keys[run.rng.IntN(len(keys))]], true
}

func (run *fleetRun) edit(in *instance) {
	m, ok := run.pick()
	if !ok {
		return
	}
	run.seq++
	m.Body = fmt.Sprint("edit", run.seq)
	run.put(in, m)
}

func (run *fleetRun) delete(in *instance) {
	m, ok := run.pick()
	if !ok {
		return
	}
	arg := m
	if run.rng.IntN(2) == 0 {
		arg = refmodel.Message{MessageID: m.MessageID} // by ID alone
	}
	ctx, cancel := run.call(in)
	defer cancel()
	run.outcome(in.name+" delete", in.r.Delete(ctx, &arg), func() {
		if in.clock().UnixMicro() >= run.ts[m.MessageID] { // a tombstone wins a tie
			delete(run.model, m.MessageID)
			delete(run.ts, m.MessageID)
		}
	})
}

// wrote applies a write of in, stamped with its clock (the world does not
// move during a call), to the model: clocks ClockSkew apart can order an
// edit before the write it follows.
func (run *fleetRun) wrote(in *instance, ms []refmodel.Message) {
	ts := in.clock().UnixMicro()
	for _, m := range ms {
		if old, ok := run.ts[m.MessageID]; !ok || ts > old {
			run.model[m.MessageID], run.ts[m.MessageID] = m, ts
		}
	}
}

// retry fails one view of a write, then retries it with RetryOf.
func (run *fleetRun) retry(in *instance) {
	views := []string{"messages_by_channel", "messages_by_author", "message_by_id"}
	failing := views[run.rng.IntN(len(views))]
	run.fake.fail = func(s Statement) error {
		if s.Table == failing {
			return errors.New("write timeout")
		}
		return nil
	}
	ms := run.newItems(in, 1+run.rng.IntN(3))
	ctx, cancel := run.call(in)
	defer cancel()
	err := in.r.PutMany(ctx, ms)
	run.fake.fail = nil
	if isStale(err) {
		run.stale++
		return
	}
	if !errors.Is(err, ErrPartialWrite) {
		run.t.Fatalf("%s: a write failing in %s: %v, want a partial write", in.name, failing, err)
	}
	run.outcome(in.name+" retry", in.r.PutMany(ctx, ms, RetryOf(err)), func() { run.wrote(in, ms) })
}

// rebucket records a change of a bucketed view's width from the first
// boundary at least the lead after the recorder's clock (and after its last
// change).
func (run *fleetRun) rebucket(in *instance, view int) {
	v := run.views[view].WithDefaults() // messages_by_channel or messages_by_author
	run.meta.mu.Lock()
	s := run.meta.schemes[v.Name]
	run.meta.mu.Unlock()
	changes := s.Changes()
	earliest := in.clock().Add(in.r.opts.Schemes.Lead)
	if last := changes[len(changes)-1].From; !earliest.After(last) {
		return
	}
	from, err := s.Latest().StartAtOrAfter(earliest)
	if err != nil {
		run.t.Fatal(err)
	}
	widths := []time.Duration{30 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}
	next, err := bucket.Fixed(widths[run.rng.IntN(len(widths))], from)
	if err != nil {
		run.t.Fatal(err)
	}
	run.meta.rebucket(run.t, v, from, next, in.clock(), in.r.opts.Schemes.Lead)
}

func (run *fleetRun) promote(in *instance) {
	ctx, cancel := run.call(in)
	defer cancel()
	_, err := in.r.PromoteKey(ctx, "messages_by_channel", Key{int64(1 + run.rng.IntN(3))}, "model")
	if err != nil && !errors.Is(err, errMetaFault) {
		run.t.Fatalf("promote: %v", err)
	}
}

// errMetaFault is the injected failure of a metadata reload.
var errMetaFault = errors.New("metadata unavailable")

// fault turns an instance's reload failures or hangs on or off.
func (run *fleetRun) fault(in *instance) {
	switch run.rng.IntN(3) {
	case 0:
		in.meta.setFail(errMetaFault)
	case 1:
		in.meta.setSlow(true)
	default:
		in.meta.setFail(nil)
		in.meta.setSlow(false)
	}
}

// heal clears every fault and lets the backoff pass.
func (run *fleetRun) heal() {
	for _, in := range run.ins {
		in.meta.setFail(nil)
		in.meta.setSlow(false)
	}
	run.w.advance(reloadBackoff)
}

// checkAll reads every key of every view through every instance and
// compares with the model; staleOK allows a *StaleError instead of a page.
func (run *fleetRun) checkAll(when string, staleOK bool) {
	run.t.Helper()
	for _, in := range run.ins {
		for _, q := range run.queries() {
			got, err := run.readAll(in, q)
			if err != nil {
				if staleOK && isStale(err) {
					run.stale++
					continue
				}
				run.t.Fatalf("%s: %s reads %s %v: %v", when, in.name, q.View, q.Key, err)
			}
			if want := run.expect(q); !slices.Equal(got, want) {
				run.t.Fatalf("%s: %s reads %s %v %v [%v, %v) limit %d:\n got %v\nwant %v", when, in.name, q.View, q.Key, q.Direction,
					q.From.Format(time.RFC3339), q.To.Format(time.RFC3339), q.Limit, got, want)
			}
		}
	}
}

// queries are the reads of a check: each channel and author, newest- and
// oldest-first, whole or a random range, in small pages.
func (run *fleetRun) queries() []Query {
	var qs []Query
	keys := map[string][]int64{"messages_by_channel": {1, 2, 3}, "messages_by_author": {100, 101}}
	for _, view := range []string{"messages_by_channel", "messages_by_author"} {
		for _, k := range keys[view] {
			q := Query{View: view, Key: Key{k}, Limit: 1 + run.rng.IntN(7), Direction: Direction(run.rng.IntN(2))}
			if q.Direction == OldestFirst || run.rng.IntN(3) == 0 {
				now := run.w.clock()
				q.From = now.Add(-time.Duration(run.rng.Int64N(int64(72 * time.Hour))))
				q.To = now.Add(time.Duration(run.rng.Int64N(int64(time.Hour))) - 30*time.Minute)
				if !q.To.After(q.From) {
					q.To = q.From.Add(time.Hour)
				}
			}
			qs = append(qs, q)
		}
	}
	return qs
}

// readAll reads every page of q through in (bounded), and every item by ID
// through the ID-keyed view.
func (run *fleetRun) readAll(in *instance, q Query) ([]int64, error) {
	ctx, cancel := run.call(in)
	defer cancel()
	ids, err := boundedAll(ctx, in.r, q, func(m refmodel.Message) int64 { return m.MessageID })
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		got, err := in.r.Get(ctx, &refmodel.Message{MessageID: id})
		if err != nil {
			return nil, err
		}
		if want := run.model[id]; got != want {
			return nil, fmt.Errorf("get %d: %+v, want %+v", id, got, want)
		}
	}
	return ids, nil
}

// expect is what q returns by the model.
func (run *fleetRun) expect(q Query) []int64 {
	var ids []int64
	for id, m := range run.model {
		key := m.ChannelID
		if q.View == "messages_by_author" {
			key = m.AuthorID
		}
		if key != q.Key[0].(int64) {
			continue
		}
		at := snowflakeTime(run.t, id)
		if (!q.From.IsZero() && at.Before(q.From)) || (!q.To.IsZero() && !at.Before(q.To)) {
			continue
		}
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b int64) int {
		if q.Direction == OldestFirst {
			return cmp.Compare(a, b)
		}
		return cmp.Compare(b, a)
	})
	return ids
}

// snowflakeTime is the instant of a Discord snowflake.
func snowflakeTime(t *testing.T, id int64) time.Time {
	t.Helper()
	var b bucket.ID
	for i := range 8 {
		b[8+i] = byte(id >> (56 - 8*i))
	}
	at, err := bucket.DiscordSnowflake().Time(b)
	if err != nil {
		t.Fatal(err)
	}
	return at
}
