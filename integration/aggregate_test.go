package integration

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // calendar days of a named zone

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/aggregate"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

// TestAggregateEqualsTheModel writes random readings of one site's sensors
// over three weeks (out of order, then edits and deletes of some), and
// compares every aggregate read (per sensor across daily buckets, per site
// across hourly buckets; fixed and calendar intervals; both directions;
// random ranges; struct items and Records) with the aggregates computed
// from the model of what is stored.
func TestAggregateEqualsTheModel(t *testing.T) {
	ks, s := refKeyspace(t)
	r, err := repo.Open[refmodel.Reading](t.Context(), s, ks, refmodel.IoTViews(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(29, 1))
	stored := writeRandomReadings(t, r, rng)
	records, err := repo.Open[repo.Record](t.Context(), s, ks, refmodel.IoTViews(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	steps := []aggregate.Step{{Every: time.Hour}, {Every: 6 * time.Hour}, {Every: 24 * time.Hour},
		{Every: 24 * time.Hour, Calendar: true, Location: ny}, {Every: 7 * 24 * time.Hour}}
	aggs, err := aggregate.Parse("count(*),count(value),sum(value),min(value),max(value),avg(value),first(value),last(value)")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var requests, rows int
	for round := range 24 {
		view, key := "readings_by_sensor", repo.Key{"sensor-" + fmt.Sprint(rng.IntN(3))}
		if round%2 == 1 {
			view, key = "readings_by_site", repo.Key{"site-agg"}
		}
		from, to := now.Add(-time.Duration(rng.Int64N(int64(22*24*time.Hour)))), now.Add(-time.Duration(rng.Int64N(int64(24*time.Hour))))
		if round%5 == 0 {
			from, to = time.Time{}, time.Time{}
		}
		if !from.IsZero() && !from.Before(to) {
			from, to = to, from
		}
		var st aggregate.Stats
		q := aggregate.Query{View: view, Key: key, From: from, To: to, Direction: repo.Direction(rng.IntN(2)),
			Step: steps[rng.IntN(len(steps))], Aggs: aggs, PageSize: 50 + rng.IntN(500), Stats: &st}
		want := modelAggregates(stored, view, key[0].(string), q)
		got, err := aggregate.Collect(t.Context(), r, q)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if err := sameAggregates(got, want); err != nil {
			t.Fatalf("round %d (%s %v, %v, %v, %v..%v): %v", round, view, key, q.Step, q.Direction, from, to, err)
		}
		q.Stats = nil
		gotRec, err := aggregate.Collect(t.Context(), records, q)
		if err != nil {
			t.Fatalf("round %d, records: %v", round, err)
		}
		if err := sameAggregates(gotRec, want); err != nil {
			t.Fatalf("round %d, records: %v", round, err)
		}
		requests += st.Requests
		rows += st.Rows
	}
	t.Logf("24 aggregate reads: %d requests, %d rows", requests, rows)
}

// writeRandomReadings writes 3 sensors' readings in random order, then
// edits and deletes some; it returns what is stored.
func writeRandomReadings(t *testing.T, r *repo.Repo[refmodel.Reading], rng *rand.Rand) map[gocql.UUID]refmodel.Reading {
	stored := map[gocql.UUID]refmodel.Reading{}
	now := time.Now()
	var all []refmodel.Reading
	for range 1500 {
		at := now.Add(-time.Duration(rng.Int64N(int64(21 * 24 * time.Hour))))
		rd := refmodel.Reading{SensorID: "sensor-" + fmt.Sprint(rng.IntN(3)), SiteID: "site-agg",
			ReadingID: gocql.UUIDFromTime(at), Value: math.Round(rng.NormFloat64()*1e4) / 100, Unit: "C"}
		all = append(all, rd)
	}
	for _, rd := range all { // random order: late and out-of-order writes
		if err := r.Put(t.Context(), &rd); err != nil {
			t.Fatal(err)
		}
		stored[rd.ReadingID] = rd
	}
	for i, rd := range all {
		switch i % 10 {
		case 0:
			rd.Value += 1000 // an edit of the same reading
			if err := r.Put(t.Context(), &rd); err != nil {
				t.Fatal(err)
			}
			stored[rd.ReadingID] = rd
		case 1:
			if err := r.Delete(t.Context(), &rd); err != nil {
				t.Fatal(err)
			}
			delete(stored, rd.ReadingID)
		}
	}
	return stored
}

// modelAggregates computes q's rows from the stored readings of the key.
func modelAggregates(stored map[gocql.UUID]refmodel.Reading, view, key string, q aggregate.Query) []aggregate.Row {
	var in []refmodel.Reading
	for _, rd := range slices.Collect(maps.Values(stored)) {
		k := rd.SensorID
		if view == "readings_by_site" {
			k = rd.SiteID
		}
		at := rd.ReadingID.Time()
		if k == key && (q.From.IsZero() || !at.Before(q.From)) && (q.To.IsZero() || at.Before(q.To)) {
			in = append(in, rd)
		}
	}
	slices.SortFunc(in, func(a, b refmodel.Reading) int { return a.ReadingID.Time().Compare(b.ReadingID.Time()) })
	var rows []aggregate.Row
	for i := 0; i < len(in); {
		start := q.Step.Start(in[i].ReadingID.Time())
		j := i
		for j < len(in) && q.Step.Start(in[j].ReadingID.Time()).Equal(start) {
			j++
		}
		rows = append(rows, modelRow(in[i:j], start, q))
		i = j
	}
	if q.Direction == repo.NewestFirst {
		slices.Reverse(rows)
	}
	return rows
}

func modelRow(in []refmodel.Reading, start time.Time, q aggregate.Query) aggregate.Row {
	end := q.Step.End(start)
	exact := new(big.Float).SetPrec(2000)
	vals := make([]float64, len(in))
	for i, rd := range in {
		vals[i] = rd.Value
		exact.Add(exact, big.NewFloat(rd.Value))
	}
	sum, _ := exact.Float64()
	n := int64(len(in))
	return aggregate.Row{Start: start, End: end, Items: n,
		Partial: (!q.From.IsZero() && q.From.After(start)) || (!q.To.IsZero() && q.To.Before(end)),
		Values: []aggregate.Value{aggregate.Int(n), aggregate.Int(n), aggregate.Float(sum),
			aggregate.Float(slices.Min(vals)), aggregate.Float(slices.Max(vals)), aggregate.Float(sum / float64(n)),
			aggregate.Float(vals[0]), aggregate.Float(vals[len(vals)-1])}}
}

// sameAggregates compares rows exactly: float sums are the exact sum
// correctly rounded, as the model's.
func sameAggregates(got, want []aggregate.Row) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d rows, want %d", len(got), len(want))
	}
	for i, g := range got {
		w := want[i]
		if !g.Start.Equal(w.Start) || !g.End.Equal(w.End) || g.Items != w.Items || g.Partial != w.Partial {
			return fmt.Errorf("row %d: %v..%v items %d partial %v, want %v..%v items %d partial %v",
				i, g.Start, g.End, g.Items, g.Partial, w.Start, w.End, w.Items, w.Partial)
		}
		for k, gv := range g.Values {
			wv := w.Values[k]
			if gv != wv {
				return fmt.Errorf("row %d (%v): value %d = %v, want %v", i, g.Start, k, gv, wv)
			}
		}
	}
	return nil
}

// TestAggregateCLI reads aggregates with tsbucket read --every --agg in each
// output form, wants the JSON to equal aggregate.Collect's rows exactly, and
// refuses bad input with a usage error naming the flag.
func TestAggregateCLI(t *testing.T) {
	c := cluster(t)
	ks, s := refKeyspace(t)
	r, err := repo.Open[refmodel.Reading](t.Context(), s, ks, refmodel.IoTViews(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	writeRandomReadings(t, r, rand.New(rand.NewPCG(29, 2)))
	bin := buildCLI(t)
	conn := []string{"--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter, "--keyspace", ks}
	read := func(args ...string) (int, string, string) {
		return tsbucket(t, bin, append(append([]string{"read", "--view", "readings_by_site", "--key", "site-agg"}, args...), conn...)...)
	}
	from := time.Now().Add(-10 * 24 * time.Hour).UTC().Truncate(time.Second)
	code, out, errOut := read("--every", "6h", "--agg", "count(*),avg(value),min(value),max(value),sum(value),last(value)",
		"--from", from.Format(time.RFC3339), "--json")
	if code != 0 {
		t.Fatalf("read --every --json: exit %d\n%s%s", code, out, errOut)
	}
	var got struct {
		Aggregates []string
		Rows       []struct {
			Start, End time.Time
			Partial    bool
			Items      int64
			Values     []json.Number
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	aggs, _ := aggregate.Parse("count(*),avg(value),min(value),max(value),sum(value),last(value)")
	want, err := aggregate.Collect(t.Context(), r, aggregate.Query{View: "readings_by_site", Key: repo.Key{"site-agg"},
		From: from, Step: aggregate.Step{Every: 6 * time.Hour}, Aggs: aggs})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rows) != len(want) || len(want) < 30 {
		t.Fatalf("CLI printed %d rows, the API %d (want about 40)", len(got.Rows), len(want))
	}
	for i, g := range got.Rows {
		w := want[i]
		if !g.Start.Equal(w.Start) || g.Partial != w.Partial || g.Items != w.Items {
			t.Fatalf("row %d: %v partial %v items %d, want %v %v %d", i, g.Start, g.Partial, g.Items, w.Start, w.Partial, w.Items)
		}
		for k, n := range g.Values {
			if f, err := n.Float64(); err != nil || f != w.Values[k].Float64() {
				t.Fatalf("row %d %s = %s, want %v", i, got.Aggregates[k], n, w.Values[k])
			}
		}
	}
	code, out, _ = read("--every", "1d", "--agg", "max(value)", "--calendar-days", "Europe/Paris", "--csv", "--oldest-first")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || lines[0] != "start,end,items,partial,max(value)" || len(lines) < 20 {
		t.Fatalf("read --csv: exit %d\n%s", code, out)
	}
	code, out, _ = read("--every", "1d", "--agg", "count(*)")
	if code != 0 || !strings.Contains(out, "count(*)") || !strings.Contains(out, " intervals") {
		t.Fatalf("read --every (table): exit %d\n%s", code, out)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--every", "1h", "--agg", "avg(unit)"}, "--agg: avg(unit): column unit is text, not a number"},
		{[]string{"--every", "1h", "--agg", "avg(humidity)"}, `has no value column "humidity"`},
		{[]string{"--every", "1h", "--agg", "median(value)"}, `unknown function "median"`},
		{[]string{"--every", "90ms", "--agg", "avg(value)"}, "--every: 90ms is shorter than a second"},
		{[]string{"--every", "1h", "--agg", "avg(value)", "--calendar-days", "UTC"}, "--every: 1h0m0s is not whole days"},
		{[]string{"--every", "1h"}, "needs both --every and --agg"},
		{[]string{"--every", "1h", "--agg", "avg(value)", "--limit", "5"}, "--limit and --cursor read pages of items"},
		{[]string{"--every", "1h", "--agg", "avg(value)", "--json", "--csv"}, "choose one"},
	} {
		code, out, errOut := read(bad.args...)
		if code != 2 || !strings.Contains(errOut, bad.want) {
			t.Errorf("read %v: exit %d, stderr %q, want exit 2 and %q\n%s", bad.args, code, errOut, bad.want, out)
		}
	}
}
