package repo

import (
	"testing"
	"time"
)

// TestReadOfAViewKeyedByTheIDKeepsToItsRange: a view keyed by the ID
// (message_by_id) holds one row per partition, and its query has no ID
// bound; the read returned that row whatever From and To said (and so did
// `tsbucket read --from` and the aggregates over it).
func TestReadOfAViewKeyedByTheIDKeepsToItsRange(t *testing.T) {
	f := newChat(t, Options{})
	at := f.now.Add(-time.Hour)
	m := f.msg(1, at, 0)
	f.put(m)
	tests := []struct {
		name     string
		from, to time.Time
		dir      Direction
		want     int
	}{
		{"from after it", at.Add(time.Minute), time.Time{}, NewestFirst, 0},
		{"to at it", time.Time{}, at, NewestFirst, 0},
		{"to before it, oldest first", time.Time{}, at.Add(-time.Minute), OldestFirst, 0},
		{"from at it", at, time.Time{}, NewestFirst, 1},
		{"around it", at.Add(-time.Minute), at.Add(time.Millisecond), OldestFirst, 1},
		{"no range", time.Time{}, time.Time{}, NewestFirst, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := f.r.Read(t.Context(), Query{View: "message_by_id", Key: Key{m.MessageID}, Limit: 10,
				From: tc.from, To: tc.to, Direction: tc.dir})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Items) != tc.want || p.Stats.Rows != tc.want || p.Cursor != "" || p.Stats.Stop != StopEnd {
				t.Errorf("read [%v, %v) of the item at %v: %d items, cursor %q, stop %v; want %d, no cursor, StopEnd",
					tc.from, tc.to, at, len(p.Items), p.Cursor, p.Stats.Stop, tc.want)
			}
		})
	}
}
