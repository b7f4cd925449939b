package integration

import (
	"slices"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/repo"
)

// writeStep runs one random write. The weights favour plain writes, with
// enough faults, edits, deletes and expiring rows that every seed has some.
func (s *sim[T]) writeStep(r *runner) {
	switch x := r.rng.IntN(100); {
	case x < 22:
		s.do(r, call[T]{op: "put", items: []T{s.newItem(r)}})
	case x < 27:
		s.do(r, call[T]{op: "putmany", items: s.batch(r)})
	case x < 32:
		// A burst of recent items: the busy key becomes dense, and its
		// newest pages are read from its newest buckets without the index.
		s.do(r, call[T]{op: "putmany", items: s.burst(r)})
	case x < 44 && len(s.ids) > 0:
		s.do(r, call[T]{op: "put", items: []T{s.edited(s.pick(r))}})
	case x < 54 && len(s.ids) > 0:
		s.do(r, call[T]{op: "delete", items: []T{s.items[s.pick(r)]}})
	case x < 57 && len(s.ids) > 0:
		// A tombstone with the timestamp of the newest write wins the tie.
		id := s.pick(r)
		s.do(r, call[T]{op: "delete", items: []T{s.items[id]}, ts: s.lastTS[id]})
	case x < 73:
		s.faulty(r)
	case x < 83:
		s.expiring(r)
	case x < 90 && r.rng.IntN(3) == 0:
		// Further ahead than MaxFutureSkew (1 h): refused, nothing written.
		c := call[T]{op: "put", items: []T{s.itemAt(r, time.Now().Add(time.Hour+time.Minute+r.duration(23*time.Hour)))}}
		s.refused(r, c, repo.ErrBadID)
		s.ids = s.ids[:len(s.ids)-1]
		delete(s.items, s.f.id(c.items[0]))
	case x < 90:
		// Up to 50 minutes ahead: read first newest-first, by every reader.
		ahead := time.Minute + r.duration(49*time.Minute)
		s.do(r, call[T]{op: "put", items: []T{s.itemAt(r, time.Now().Add(ahead))}})
	case x < 95:
		s.refusedStep(r)
	default:
		s.do(r, call[T]{op: "put", items: []T{s.newItem(r)}})
	}
}

// faulty runs a write with an injected fault and schedules its retry, with
// RetryOf, a few steps later: edits and deletes of its items in between
// must still win.
func (s *sim[T]) faulty(r *runner) {
	c := call[T]{op: "put"}
	switch x := r.rng.IntN(4); {
	case x == 0:
		c.op, c.items = "putmany", s.batch(r)
	case x == 1 && len(s.ids) > 0:
		c.op, c.items = "delete", []T{s.items[s.pick(r)]}
	case x == 2 && len(s.ids) > 0:
		c.items = []T{s.edited(s.pick(r))}
	default:
		c.items = []T{s.newItem(r)}
	}
	c.rule = s.fault(r, c)
	err := s.do(r, c)
	if err == nil {
		return // the rule matched nothing (an index entry this process wrote already)
	}
	ids := make([]bucket.ID, len(c.items))
	for i, it := range c.items {
		ids[i] = s.f.id(it)
	}
	if r.rng.IntN(2) == 0 {
		// Before the retry, the views that missed the write must not show it.
		s.checkKeysOf(r, c.items)
	}
	s.hot = append(s.hot, ids...)
	retry := call[T]{op: c.op, items: c.items, ttl: c.ttl, retryOf: err}
	r.later(1+r.rng.IntN(6), func() {
		s.do(r, retry)
		s.hot = slices.DeleteFunc(s.hot, func(id bucket.ID) bool { return slices.Contains(ids, id) })
	})
}

// fault picks a table the call writes (a view, or for puts a presence
// index) and a mode; for PutMany sometimes only one item's statements fail.
func (s *sim[T]) fault(r *runner, c call[T]) *faultRule {
	var tables []string
	for _, v := range s.f.views {
		tables = append(tables, v.Name)
		if v.Bucketed() && c.op != "delete" {
			tables = append(tables, v.PresenceTable())
		}
	}
	rule := &faultRule{Table: tables[r.rng.IntN(len(tables))], Mode: failBefore}
	if r.rng.IntN(2) == 0 {
		rule.Mode = failAfter
	}
	if c.op == "putmany" && r.rng.IntN(2) == 0 {
		rule.OnlyID = s.f.idArg(c.items[r.rng.IntN(len(c.items))])
	}
	return rule
}

// expiring writes a row with a TTL of 2 to 5 s, new or an edit, so rows
// expire while the run goes on.
func (s *sim[T]) expiring(r *runner) {
	c := call[T]{op: "put", ttl: time.Duration(2+r.rng.IntN(4)) * time.Second}
	if len(s.ids) > 0 && r.rng.IntN(3) == 0 {
		c.items = []T{s.edited(s.pick(r))}
	} else {
		c.items = []T{s.newItem(r)}
	}
	s.do(r, c)
}

// refusedStep tries a write the repository must refuse before sending
// anything: a TTL the views forbid. (Items stamped beyond MaxFutureSkew are
// refused in the future step.)
func (s *sim[T]) refusedStep(r *runner) {
	bad := []time.Duration{1500 * time.Millisecond}
	if s.hasTTLView() {
		// A view with a TTL refuses longer rows, and 0 means no expiry.
		bad = append(bad, 0, 31*24*time.Hour)
	}
	ttl := bad[r.rng.IntN(len(bad))]
	c := call[T]{op: "put", items: []T{s.newItem(r)}, ttl: ttl}
	if ttl == 0 {
		// call.options leaves a zero TTL out: ask for it explicitly.
		c.extra = []repo.WriteOption{repo.WithTTL(0)}
	}
	s.refused(r, c, repo.ErrBadTTL)
	s.ids = s.ids[:len(s.ids)-1]
	delete(s.items, s.f.id(c.items[0]))
}

func (s *sim[T]) hasTTLView() bool {
	for _, v := range s.f.views {
		if v.TTL > 0 {
			return true
		}
	}
	return false
}

// newItem makes an item at a random time: mostly in the past (up to the
// flavor's spread), sometimes on a bucket edge of an existing item.
func (s *sim[T]) newItem(r *runner) T {
	now := time.Now()
	at := now.Add(-r.duration(s.f.spread))
	if len(s.ids) > 0 && r.rng.IntN(5) == 0 {
		at = s.edgeNear(r, s.f.at(s.ids[r.rng.IntN(len(s.ids))]))
	}
	if changes := s.changeInstants(); len(changes) > 0 && r.rng.IntN(6) == 0 {
		// Exactly at a scheme change, or one ID precision either side.
		p := s.f.kind.Precision()
		at = changes[r.rng.IntN(len(changes))].Add(time.Duration(r.rng.IntN(3)-1) * p)
	}
	return s.itemAt(r, at)
}

// changeInstants are the instants the flavor's views changed bucket scheme.
func (s *sim[T]) changeInstants() []time.Time {
	var out []time.Time
	for _, v := range s.f.views {
		if v.Bucketed() {
			for _, c := range v.Scheme.Changes()[1:] {
				out = append(out, c.From)
			}
		}
	}
	return out
}

// edgeNear returns the start of the bucket of at in a random view, or one
// ID precision before or after it: items that straddle bucket boundaries.
func (s *sim[T]) edgeNear(r *runner, at time.Time) time.Time {
	names := s.f.bucketed()
	v := s.f.view(names[r.rng.IntN(len(names))])
	b, err := v.Scheme.Of(at)
	if err != nil {
		r.fatalf("bucket of %v: %v", at, err)
	}
	p := s.f.kind.Precision()
	return v.Scheme.Start(b).Add(time.Duration(r.rng.IntN(3)-1) * p)
}

func (s *sim[T]) itemAt(r *runner, at time.Time) T {
	s.seq++
	it := s.f.make(r.rng, at, s.seq)
	id := s.f.id(it)
	s.items[id] = it
	s.ids = append(s.ids, id)
	return it
}

// burst is 6 to 12 new items stamped within the last ten minutes.
func (s *sim[T]) burst(r *runner) []T {
	items := make([]T, 6+r.rng.IntN(7))
	for i := range items {
		items[i] = s.itemAt(r, time.Now().Add(-r.duration(10*time.Minute)))
	}
	return items
}

// batch is 2 to 5 items for PutMany: new ones, and sometimes an edit; never
// one ID twice (two values with one timestamp: the database keeps the greater).
func (s *sim[T]) batch(r *runner) []T {
	n := 2 + r.rng.IntN(4)
	items := make([]T, 0, n)
	seen := map[bucket.ID]bool{}
	for range n {
		if len(s.ids) > 0 && r.rng.IntN(4) == 0 {
			if id := s.pick(r); !seen[id] {
				seen[id] = true
				items = append(items, s.edited(id))
				continue
			}
		}
		it := s.newItem(r)
		seen[s.f.id(it)] = true
		items = append(items, it)
	}
	return items
}

// pick returns an existing item, half the time one with a retry pending.
func (s *sim[T]) pick(r *runner) bucket.ID {
	if len(s.hot) > 0 && r.rng.IntN(2) == 0 {
		return s.hot[r.rng.IntN(len(s.hot))]
	}
	return s.ids[r.rng.IntN(len(s.ids))]
}

// edited returns item id with a new value: same ID and keys.
func (s *sim[T]) edited(id bucket.ID) T {
	s.edits++
	it := s.f.edit(s.items[id], s.edits)
	s.items[id] = it
	return it
}
