package integration

import (
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/aggregate"
	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

type shift struct {
	Day     time.Time  `db:"day"`
	ShiftID gocql.UUID `db:"shift_id"`
	V       float64    `db:"v"`
}

// A view keyed by a timestamp: the same key given as a time.Time in another
// location (or as read back from the cluster, in UTC) must name the same
// dirty-marker partition, or late writes are not seen by reads, nor cleared
// by the worker. The key's text held its location: a key from Europe/Paris
// marked shard 12, the same key in UTC read and cleared shard 14, and the
// rollup-backed read said 5 items where the raw read said 6, round after
// round.
func TestRollupOfAKeyGivenInAnotherLocation(t *testing.T) {
	ctx := t.Context()
	ks := testKeyspace(t)
	s := connect(t, "")
	sch, err := bucket.Fixed(24*time.Hour, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	v := schema.View{Name: "shifts_by_day", Key: []schema.Column{{Name: "day", Type: "timestamp"}}, Scheme: sch,
		ID: schema.Column{Name: "shift_id"}, Kind: bucket.UUIDv7{}, Values: []schema.Column{{Name: "v", Type: "double"}}}
	ru := schema.Rollup{Name: "shifts_hourly", Source: v.Name, Every: time.Hour, Columns: []string{"v"}}
	if err := schema.Apply(ctx, s, ks, []schema.View{v}); err != nil {
		t.Fatal(err)
	}
	if err := schema.ApplyRollups(ctx, s, ks.Name, []schema.View{v}, []schema.Rollup{ru}); err != nil {
		t.Fatal(err)
	}
	opts := repo.Options{}
	opts.Schemes.ClockSkew = time.Second
	r, err := repo.Open[shift](ctx, s, ks.Name, []schema.View{v}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddRollups(ru); err != nil {
		t.Fatal(err)
	}
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	dayUTC := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dayParis := dayUTC.In(paris) // the same instant: the same CQL value
	hour := time.Now().Add(-48 * time.Hour).Truncate(time.Hour)
	put := func(at time.Time, val float64) {
		var node [10]byte
		node[0] = byte(val)
		id, err := bucket.UUIDv7{}.Make(at, node)
		if err != nil {
			t.Fatal(err)
		}
		sh := shift{Day: dayParis, ShiftID: gocql.UUID(id), V: val}
		if err := r.Put(ctx, &sh); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		put(hour.Add(time.Duration(i+1)*time.Minute), float64(i+1))
	}
	w := aggregate.Roller[shift]{Repo: r, Rollup: ru.Name, Keys: []repo.Key{{dayUTC}}, From: hour.Add(-time.Hour)}
	time.Sleep(r.ClockSkew() + time.Second)
	if rep, err := w.RunOnce(ctx); err != nil {
		t.Fatal(err)
	} else {
		t.Logf("first round: %+v", rep)
	}
	put(hour.Add(30*time.Minute), 100) // a late write into the rolled hour
	q := aggregate.Query{View: v.Name, Key: repo.Key{dayUTC}, From: hour, To: hour.Add(time.Hour),
		Step: aggregate.Step{Every: time.Hour}, Aggs: []aggregate.Agg{{Func: aggregate.Count, Column: "*"}, {Func: aggregate.Sum, Column: "v"}}}
	raw, err := aggregate.Collect(ctx, r, q)
	if err != nil {
		t.Fatal(err)
	}
	var st aggregate.Stats
	q.UseRollups, q.Stats = true, &st
	rolled, err := aggregate.Collect(ctx, r, q)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("raw %v %v; rollup-backed %v %v (rollup rows %d)", raw[0].Items, raw[0].Values, rolled[0].Items, rolled[0].Values, st.RollupRows)
	if rolled[0].Items != raw[0].Items || rolled[0].Values[1] != raw[0].Values[1] {
		t.Errorf("after a late write, the rollup-backed read says %d items sum %v, the raw read %d items sum %v",
			rolled[0].Items, rolled[0].Values[1], raw[0].Items, raw[0].Values[1])
	}
	time.Sleep(r.ClockSkew() + time.Second)
	for round := range 3 {
		rep, err := w.RunOnce(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: %+v", round+2, rep)
		if round == 2 && rep.Dirty != 0 {
			t.Errorf("round %d still finds %d dirty markers: the worker's clears miss them", round+2, rep.Dirty)
		}
	}
	t.Logf("DirtyShard(key in Paris) = %d, DirtyShard(same key in UTC) = %d", repo.DirtyShard(repo.Key{dayParis}), repo.DirtyShard(repo.Key{dayUTC}))
}
