package integration

import (
	"fmt"
	"slices"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// checkStep reads one random key of one random bucketed view, in both
// directions, sometimes over a random range, each direction through a random
// reader (the writer, or a repository with a shifted clock); for chat it
// also reads a few items by ID.
func (s *sim[T]) checkStep(r *runner) {
	names := s.f.bucketed()
	v := s.f.view(names[r.rng.IntN(len(names))])
	keys := s.f.keys[v.Name]
	key := keys[r.rng.IntN(len(keys))]
	var rg timeRange
	if r.rng.IntN(5) < 3 {
		rg = s.randomRange(r, v.Name, key)
	}
	for _, dir := range []repo.Direction{repo.NewestFirst, repo.OldestFirst} {
		s.checkRead(r, s.readers[r.rng.IntN(len(s.readers))], v, key, rg, dir)
	}
	for range 3 {
		if len(s.ids) > 0 {
			s.checkByID(r, s.readers[r.rng.IntN(len(s.readers))], s.ids[r.rng.IntN(len(s.ids))])
		}
	}
}

// checkKeysOf reads, in both directions, the keys items have in every
// bucketed view, and the items by ID.
func (s *sim[T]) checkKeysOf(r *runner, items []T) {
	for _, name := range s.f.bucketed() {
		v := s.f.view(name)
		done := map[any]bool{}
		for _, it := range items {
			key := s.f.key(name, it)
			if done[key] {
				continue
			}
			done[key] = true
			for _, dir := range []repo.Direction{repo.NewestFirst, repo.OldestFirst} {
				s.checkRead(r, s.readers[r.rng.IntN(len(s.readers))], v, key, timeRange{}, dir)
			}
		}
	}
	for _, it := range items {
		s.checkByID(r, s.readers[r.rng.IntN(len(s.readers))], s.f.id(it))
	}
}

// finalCheck reads every key of every view, in both directions, through
// every reader, and every item by ID.
func (s *sim[T]) finalCheck(r *runner) {
	for _, name := range s.f.bucketed() {
		v := s.f.view(name)
		for _, key := range s.f.keys[name] {
			n := s.truth.buckets(v, key)
			r.counts["most buckets of a "+s.f.name+" key"] = max(r.counts["most buckets of a "+s.f.name+" key"], n)
			for _, rd := range s.readers {
				for _, dir := range []repo.Direction{repo.NewestFirst, repo.OldestFirst} {
					s.checkRead(r, rd, v, key, timeRange{}, dir)
				}
			}
		}
	}
	for _, id := range s.ids {
		s.checkByID(r, s.readers[0], id)
	}
}

// randomRange makes From/To edges that sit exactly on an item's time, one
// nanosecond or a fraction of a millisecond off it, between two items, or
// on a bucket edge; one side is sometimes open.
func (s *sim[T]) randomRange(r *runner, view string, key any) timeRange {
	times := s.truth.times(view, key)
	if len(times) == 0 {
		return timeRange{}
	}
	edge := func() time.Time {
		i := r.rng.IntN(len(times))
		at := times[i]
		switch r.rng.IntN(6) {
		case 0:
			return at
		case 1:
			return at.Add(time.Duration(r.rng.IntN(3)-1) * time.Nanosecond)
		case 2:
			return at.Add(time.Duration(r.rng.IntN(2000)-1000) * time.Microsecond)
		case 3:
			if i+1 < len(times) {
				return at.Add(times[i+1].Sub(at) / 2)
			}
			return at.Add(time.Hour)
		case 4:
			return s.edgeNear(r, at)
		}
		return at.Add(-r.duration(30 * 24 * time.Hour))
	}
	var rg timeRange
	switch r.rng.IntN(4) {
	case 0:
		rg.from = edge()
	case 1:
		rg.to = edge()
	default:
		rg.from, rg.to = edge(), edge()
		if rg.to.Before(rg.from) {
			rg.from, rg.to = rg.to, rg.from
		}
		if !rg.from.Before(rg.to) {
			rg.to = rg.from.Add(time.Millisecond)
		}
	}
	return rg
}

// checkRead follows every page of one read to its end and compares the
// items with the model: no gap, no duplicate, the model's order, each
// item's newest value in that view.
func (s *sim[T]) checkRead(r *runner, rd reader[T], v schema.View, key any, rg timeRange, dir repo.Direction) {
	what := fmt.Sprintf("read %s key %v %s %v via %s", v.Name, key, dir, rg, rd.name)
	q := repo.Query{View: v.Name, Key: repo.Key{key}, Direction: dir, From: rg.from, To: rg.to}
	start := time.Now()
	before, _ := s.truth.want(v, key, rg, dir == repo.NewestFirst, start, start)
	var got []T
	seen := map[bucket.ID]bool{}
	idle := 0
	for pages := 0; ; pages++ {
		q.Limit = 1 + r.rng.IntN(7)
		p, err := rd.r.Read(r.t.Context(), q)
		if err != nil {
			r.fatalf("%s: page %d: %v", what, pages, err)
		}
		checkPage(r, what, pages, q.Limit, len(p.Items), p.Cursor, p.Stats)
		r.count("pages", 1)
		if p.Stats.Stop == repo.StopBudget || p.Stats.Stop == repo.StopLookback {
			r.count("pages stopped early", 1)
		}
		for _, it := range p.Items {
			id := s.f.id(it)
			if seen[id] {
				r.fatalf("%s: %s returned twice", what, s.idString(id))
			}
			seen[id] = true
		}
		got = append(got, p.Items...)
		if p.Cursor == "" {
			break
		}
		if idle++; len(p.Items) > 0 {
			idle = 0
		}
		// A key none of whose buckets is indexed (its index writes all
		// failed) is probed bucket by bucket back to the scheme's start;
		// stop following once the model expects nothing more.
		if idle >= 5 && len(got) >= len(before) {
			r.logf("  %s: stopped following empty %v pages", what, p.Stats.Stop)
			break
		}
		q.Cursor = p.Cursor
	}
	want, maybe := s.truth.want(v, key, rg, dir == repo.NewestFirst, start, time.Now())
	r.count("reads", 1)
	r.count("rows expired", s.truth.expired(v, key, start))
	r.count("rows don't care", len(maybe))
	got = slices.DeleteFunc(got, func(it T) bool { return maybe[s.f.id(it)] })
	if !slices.Equal(got, want) {
		r.fatalf("%s:\n got %d items %s\nwant %d items %s\n(%d rows don't care)\n%s", what,
			len(got), s.itemList(got), len(want), s.itemList(want), len(maybe), s.diff(got, want))
	}
}

// checkPage checks one page's own promises: at most Limit items; a cursor
// exactly when the read is not over; StopFull exactly for a full page.
func checkPage(r *runner, what string, page, limit, n int, cursor string, st repo.ReadStats) {
	switch {
	case n > limit:
		r.fatalf("%s: page %d has %d items for limit %d", what, page, n, limit)
	case (cursor == "") != (st.Stop == repo.StopEnd):
		r.fatalf("%s: page %d: cursor %q with stop %v", what, page, cursor, st.Stop)
	case (n == limit) != (st.Stop == repo.StopFull):
		r.fatalf("%s: page %d: %d items of %d with stop %v", what, page, n, limit, st.Stop)
	}
}

// checkByID reads one item from each view keyed by the ID alone.
func (s *sim[T]) checkByID(r *runner, rd reader[T], id bucket.ID) {
	for _, v := range s.f.views {
		if v.Bucketed() {
			continue
		}
		start := time.Now()
		p, err := rd.r.Latest(r.t.Context(), v.Name, repo.Key{s.f.key(v.Name, s.items[id])}, 1)
		if err != nil {
			r.fatalf("read %s %s via %s: %v", v.Name, s.idString(id), rd.name, err)
		}
		st, it := s.truth.state(v, id, start, time.Now())
		var want []T
		if st == live {
			want = []T{it}
		}
		if st != dontCare && !slices.Equal(p.Items, want) {
			r.fatalf("read %s %s via %s: got %v, want %v", v.Name, s.idString(id), rd.name, p.Items, want)
		}
	}
}

func (s *sim[T]) itemList(items []T) string {
	ids := make([]bucket.ID, len(items))
	for i, it := range items {
		ids[i] = s.f.id(it)
	}
	return s.idStrings(ids)
}

func (s *sim[T]) idStrings(ids []bucket.ID) string {
	out := "["
	for i, id := range ids {
		if i > 0 {
			out += " "
		}
		out += s.idString(id)
	}
	return out + "]"
}

// diff names the items missing from a read, the ones it should not have
// returned, and those returned with another value than the model's.
func (s *sim[T]) diff(got, want []T) string {
	index := func(items []T) map[bucket.ID]T {
		m := map[bucket.ID]T{}
		for _, it := range items {
			m[s.f.id(it)] = it
		}
		return m
	}
	g, w := index(got), index(want)
	out := ""
	for id, it := range w {
		if x, ok := g[id]; !ok {
			out += fmt.Sprintf("missing %s %+v %s\n", s.idString(id), it, s.history(id))
		} else if x != it {
			out += fmt.Sprintf("stale %s: got %+v, want %+v %s\n", s.idString(id), x, it, s.history(id))
		}
	}
	for id, it := range g {
		if _, ok := w[id]; !ok {
			out += fmt.Sprintf("unexpected %s %+v %s\n", s.idString(id), it, s.history(id))
		}
	}
	return out
}

// history is the model's state of an item in every view.
func (s *sim[T]) history(id bucket.ID) string {
	out := "{"
	for _, v := range s.f.views {
		ver, ok := s.truth.rows[v.Name][id]
		switch {
		case !ok:
			out += " " + v.Name + ": never"
		case ver.del:
			out += fmt.Sprintf(" %s: deleted@%d", v.Name, ver.ts)
		default:
			out += fmt.Sprintf(" %s: %+v@%d", v.Name, ver.item, ver.ts)
			if !ver.expLo.IsZero() {
				out += " expires " + ver.expLo.Format(time.TimeOnly)
			}
			if v.Bucketed() && !s.truth.presence[s.truth.presenceOf(v, ver.item)] {
				out += " (bucket not indexed)"
			}
		}
	}
	return out + " }"
}
