package idgen_test

import (
	"errors"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/idgen"
)

// At stamps an ID with the given instant, whatever the clock says; IDs of
// one instant increase strictly, IDs of different instants order by them.
func TestAt(t *testing.T) {
	clock := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) // the generator's clock: ignored by At
	for _, kind := range []bucket.Kind{bucket.UUIDv7{}, bucket.ULID{}, bucket.Timestamp{}} {
		t.Run(kind.Name(), func(t *testing.T) {
			g, err := idgen.New(kind, idgen.WithClock(func() time.Time { return clock }))
			if err != nil {
				t.Fatal(err)
			}
			t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
			instants := []time.Time{t0, t0, t0.Add(-time.Hour), t0, t0.Add(-time.Hour), t0.Add(time.Millisecond)}
			last := map[time.Time]bucket.ID{}
			seen := map[bucket.ID]bool{}
			for _, at := range instants {
				id, err := g.At(at)
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := kind.Time(id); !got.Equal(at) {
					t.Errorf("Time(At(%v)) = %v", at, got)
				}
				if prev, ok := last[at]; ok && kind.Compare(prev, id) >= 0 {
					t.Errorf("At(%v) not after the previous ID of that instant", at)
				}
				if seen[id] {
					t.Errorf("At(%v) repeated an ID", at)
				}
				last[at], seen[id] = id, true
			}
			if kind.Compare(last[t0.Add(-time.Hour)], last[t0]) >= 0 || kind.Compare(last[t0], last[t0.Add(time.Millisecond)]) >= 0 {
				t.Error("IDs of different instants do not order by instant")
			}
		})
	}
}

func TestAtRefuses(t *testing.T) {
	tests := []struct {
		name string
		kind bucket.Kind
		at   time.Time
		want error
	}{
		{"snowflake", bucket.TwitterSnowflake(), time.Now(), idgen.ErrUnsupportedKind},
		{"timeuuid", bucket.TimeUUID{}, time.Now(), idgen.ErrUnsupportedKind},
		{"before the epoch", bucket.UUIDv7{}, time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC), bucket.ErrBeforeEpoch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := idgen.New(tt.kind)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := g.At(tt.at); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

// At remembers MaxAtInstants instants and no more: memory stays bounded.
func TestAtBounded(t *testing.T) {
	g, err := idgen.New(bucket.UUIDv7{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range idgen.MaxAtInstants + 10 {
		if _, err := g.At(t0.Add(time.Duration(i) * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
}

func BenchmarkAt(b *testing.B) {
	g, err := idgen.New(bucket.UUIDv7{})
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := g.At(t0.Add(time.Duration(i%10000) * time.Millisecond)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAtRemembersAsDocumented: At forgets an instant only once more than
// MaxAtInstants other instants were asked since it was last asked. It
// forgot it after exactly MaxAtInstants others (with a constant random
// source the same ID came back), and counted from the first ask, not the
// last: an instant asked again was forgotten one other instant later, and
// its next ID sorted before the previous one about half the time.
func TestAtRemembersAsDocumented(t *testing.T) {
	kind := bucket.ULID{}
	a := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	other := func(i int) time.Time { return a.Add(time.Duration(i+1) * time.Second) }
	after := func(t *testing.T, g *idgen.Generator, prev bucket.ID, since string) bucket.ID {
		t.Helper()
		id, err := g.At(a)
		if err != nil {
			t.Fatal(err)
		}
		if kind.Compare(prev, id) >= 0 {
			t.Errorf("At(a) = %s after %s, not after the previous %s", kind.Format(id), since, kind.Format(prev))
		}
		return id
	}
	t.Run("MaxAtInstants others", func(t *testing.T) {
		g := newGen(t, kind, idgen.WithRand(zeros{}))
		first, _ := g.At(a)
		for i := range idgen.MaxAtInstants {
			g.At(other(i))
		}
		after(t, g, first, "MaxAtInstants other instants")
	})
	t.Run("asked again", func(t *testing.T) {
		for seed := range byte(20) {
			g := newGen(t, kind, idgen.WithRand(seeded(seed)))
			g.At(a)
			for i := range idgen.MaxAtInstants - 1 {
				g.At(other(i))
			}
			prev, _ := g.At(a) // remembered, and now the most recent
			for i := range idgen.MaxAtInstants {
				g.At(other(idgen.MaxAtInstants + i))
			}
			after(t, g, prev, "MaxAtInstants others since it was asked again")
		}
	})
	t.Run("forgotten past the bound", func(t *testing.T) {
		g := newGen(t, kind, idgen.WithRand(zeros{}))
		first, _ := g.At(a)
		for i := range idgen.MaxAtInstants + 1 {
			g.At(other(i))
		}
		// Forgotten: the counter starts again from the (constant) random bits.
		if id, _ := g.At(a); id != first {
			t.Errorf("At(a) after MaxAtInstants+1 others = %s, want %s again from the same random bits", kind.Format(id), kind.Format(first))
		}
	})
}
