package integration

import (
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// version is one write of a row as the database resolves it: the write with
// the highest timestamp wins, a tombstone wins a tie.
type version[T comparable] struct {
	ts   int64
	del  bool
	item T
	// The row expires between expLo and expHi: its TTL counted from the
	// server's clock at the write, which lies between the call's start and
	// end. Zero: it never expires.
	expLo, expHi time.Time
}

// wins reports whether v shadows old.
func (v version[T]) wins(old version[T]) bool {
	return v.ts > old.ts || v.ts == old.ts && v.del
}

// presenceKey is one entry of a view's presence index.
type presenceKey struct {
	view   string
	key    any
	bucket int64
}

// rowState is what a read at some moment may see of one row.
type rowState int

const (
	absent   rowState = iota // deleted, expired or never written
	live                     // must be returned
	dontCare                 // expiring around the read, or its bucket not (yet) indexed
)

// truth is the model the reads are checked against, kept per view so that
// partial writes are represented: a view that missed a write does not have it.
type truth[T comparable] struct {
	f        *flavor[T]
	rows     map[string]map[bucket.ID]version[T] // view -> ID -> winning write
	presence map[presenceKey]bool                // entries known to be written
}

func newTruth[T comparable](f *flavor[T]) *truth[T] {
	m := &truth[T]{f: f, rows: map[string]map[bucket.ID]version[T]{}, presence: map[presenceKey]bool{}}
	for _, v := range f.views {
		m.rows[v.Name] = map[bucket.ID]version[T]{}
	}
	return m
}

// apply folds one write that reached view into the model.
func (m *truth[T]) apply(view string, id bucket.ID, v version[T]) {
	if old, ok := m.rows[view][id]; ok && !v.wins(old) {
		return
	}
	m.rows[view][id] = v
}

// state is what a read between from and to (wall clock) may see of the row
// id of view: expiry within expiryMargin of the read is anyone's guess (the
// server's clock decides), and so is a live row whose bucket the presence
// index does not list (a failed index write, until a retry writes it).
func (m *truth[T]) state(view schema.View, id bucket.ID, from, to time.Time) (rowState, T) {
	v, ok := m.rows[view.Name][id]
	if !ok || v.del {
		return absent, v.item
	}
	if !v.expLo.IsZero() {
		switch {
		case v.expHi.Add(expiryMargin).Before(from):
			return absent, v.item
		case !v.expLo.Add(-expiryMargin).After(to):
			return dontCare, v.item
		}
	}
	if view.Bucketed() && !m.presence[m.presenceOf(view, v.item)] {
		return dontCare, v.item
	}
	return live, v.item
}

// expiryMargin is how far apart the client's and the server's clocks may
// put a row's expiry.
const expiryMargin = 2 * time.Second

func (m *truth[T]) presenceOf(view schema.View, it T) presenceKey {
	id := m.f.id(it)
	b, err := view.Scheme.OfID(m.f.kind, id)
	if err != nil {
		panic(fmt.Sprintf("bucket of %v: %v", id, err)) // IDs are made in range
	}
	return presenceKey{view: view.Name, key: m.f.key(view.Name, it), bucket: int64(b)}
}

// want returns the items a read of key in view with from <= time < to must
// return, in the order of dir, and the IDs it may or may not return.
func (m *truth[T]) want(view schema.View, key any, rg timeRange, newestFirst bool, readFrom, readTo time.Time) ([]T, map[bucket.ID]bool) {
	var items []T
	maybe := map[bucket.ID]bool{}
	for id, v := range m.rows[view.Name] {
		if m.f.key(view.Name, v.item) != key || !rg.holds(m.f.at(id)) {
			continue
		}
		switch st, it := m.state(view, id, readFrom, readTo); st {
		case live:
			items = append(items, it)
		case dontCare:
			maybe[id] = true
		}
	}
	slices.SortFunc(items, func(a, b T) int { return m.f.kind.Compare(m.f.id(a), m.f.id(b)) })
	if newestFirst {
		slices.Reverse(items)
	}
	return items, maybe
}

// expired counts the rows of key in view that expired before at.
func (m *truth[T]) expired(view schema.View, key any, at time.Time) int {
	n := 0
	for _, v := range m.rows[view.Name] {
		if !v.del && !v.expHi.IsZero() && v.expHi.Add(expiryMargin).Before(at) && m.f.key(view.Name, v.item) == key {
			n++
		}
	}
	return n
}

// lastExpiry is the latest expiry of a row that expires within a minute.
func (m *truth[T]) lastExpiry() time.Time {
	var last time.Time
	for _, rows := range m.rows {
		for _, v := range rows {
			if v.expHi.After(last) && time.Until(v.expHi) < time.Minute {
				last = v.expHi
			}
		}
	}
	return last
}

// buckets counts the buckets holding rows of key in view, dead or alive.
func (m *truth[T]) buckets(view schema.View, key any) int {
	seen := map[int64]bool{}
	for _, v := range m.rows[view.Name] {
		if m.f.key(view.Name, v.item) == key {
			seen[m.presenceOf(view, v.item).bucket] = true
		}
	}
	return len(seen)
}

// times returns the times of every row of key in view, dead or alive: the
// candidates for range edges.
func (m *truth[T]) times(view string, key any) []time.Time {
	var ts []time.Time
	for id, v := range m.rows[view] {
		if m.f.key(view, v.item) == key {
			ts = append(ts, m.f.at(id))
		}
	}
	slices.SortFunc(ts, time.Time.Compare)
	return ts
}

// timeRange is a read's From <= time < To; a zero side is open.
type timeRange struct{ from, to time.Time }

func (r timeRange) holds(at time.Time) bool {
	return (r.from.IsZero() || !at.Before(r.from)) && (r.to.IsZero() || at.Before(r.to))
}

func (r timeRange) String() string {
	f := func(t time.Time) string {
		if t.IsZero() {
			return "open"
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	return "[" + f(r.from) + ", " + f(r.to) + ")"
}

// idOfValue converts an ID as bound in a statement to a bucket.ID.
func idOfValue(v any) (bucket.ID, error) {
	var id bucket.ID
	switch x := v.(type) {
	case int64:
		binary.BigEndian.PutUint64(id[8:], uint64(x))
	case gocql.UUID:
		id = bucket.ID(x)
	default:
		return id, fmt.Errorf("unexpected ID value %T %v", v, v)
	}
	return id, nil
}
