package aggregate

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
	_ "time/tzdata" // calendar days of a named zone on machines without zoneinfo

	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

func TestParse(t *testing.T) {
	got, err := Parse(" avg(temp), MAX(temp),count(*) ,first(n)")
	if err != nil {
		t.Fatal(err)
	}
	want := []Agg{{Avg, "temp"}, {Max, "temp"}, {Count, "*"}, {First, "n"}}
	if !slices.Equal(got, want) {
		t.Fatalf("Parse = %v, want %v", got, want)
	}
	for _, bad := range []string{"", "avg", "avg()", "median(temp)", "avg(temp),", "(temp)", "avg(temp"} {
		if _, err := Parse(bad); !errors.Is(err, ErrBadQuery) {
			t.Errorf("Parse(%q) = %v, want ErrBadQuery", bad, err)
		}
	}
}

func TestStepFixedIsAlignedToTheEpochInUTC(t *testing.T) {
	s := Step{Every: 7 * day}
	// 1970-01-01 was a Thursday: weeks of the grid start on Thursdays.
	got := s.Start(time.Date(2026, 12, 1, 13, 0, 0, 0, time.UTC))
	if want := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Fatalf("Start = %v, want %v", got, want)
	}
	before := s.Start(time.Date(1969, 12, 31, 23, 0, 0, 0, time.UTC))
	if want := time.Date(1969, 12, 25, 0, 0, 0, 0, time.UTC); !before.Equal(want) {
		t.Fatalf("Start before the epoch = %v, want %v", before, want)
	}
	h := Step{Every: time.Hour}
	in := time.Date(2026, 3, 8, 7, 59, 59, 999, time.FixedZone("x", 5*3600))
	if got, want := h.Start(in), time.Date(2026, 3, 8, 2, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Fatalf("hour Start = %v, want %v", got, want)
	}
}

func TestStepCalendarDaysFollowDaylightSaving(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	s := Step{Every: day, Calendar: true, Location: ny}
	start := s.Start(time.Date(2026, 3, 8, 12, 0, 0, 0, time.UTC)) // 08:00 in New York, the day clocks go forward
	if want := time.Date(2026, 3, 8, 0, 0, 0, 0, ny); !start.Equal(want) {
		t.Fatalf("Start = %v, want %v", start, want)
	}
	if got := s.End(start).Sub(start); got != 23*time.Hour {
		t.Fatalf("the spring-forward day lasts %v, want 23h", got)
	}
	fall := s.Start(time.Date(2026, 11, 1, 12, 0, 0, 0, ny))
	if got := s.End(fall).Sub(fall); got != 25*time.Hour {
		t.Fatalf("the fall-back day lasts %v, want 25h", got)
	}
}

// TestStepCalendarDayStartsAtItsFirstInstant: where clocks skip midnight
// (Cairo, Sao Paulo) a day begins at the end of the gap, and where they go
// back to midnight (Amman) at the first midnight; a day ends where the next
// begins.
func TestStepCalendarDayStartsAtItsFirstInstant(t *testing.T) {
	for _, c := range []struct {
		zone       string
		at         string // local time of an item, in the zone
		start, end string // the day's bounds, UTC
	}{
		{"Africa/Cairo", "2024-04-26 12:00", "2024-04-25 22:00", "2024-04-26 21:00"},      // midnight skipped: 23h
		{"Africa/Cairo", "2024-04-25 23:30", "2024-04-24 22:00", "2024-04-25 22:00"},      // the day before ends at the gap
		{"America/Sao_Paulo", "2018-11-03 23:30", "2018-11-03 03:00", "2018-11-04 03:00"}, // ends at 01:00 -02
		{"America/Sao_Paulo", "2018-11-04 01:30", "2018-11-04 03:00", "2018-11-05 02:00"},
		{"Asia/Amman", "2021-10-29 00:30", "2021-10-28 21:00", "2021-10-29 22:00"}, // two midnights: 25h
	} {
		loc, err := time.LoadLocation(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		s := Step{Every: day, Calendar: true, Location: loc}
		at := mustParse(t, c.at, loc)
		start, end := s.Start(at), s.End(s.Start(at))
		if !start.Equal(mustParse(t, c.start, time.UTC)) || !end.Equal(mustParse(t, c.end, time.UTC)) {
			t.Errorf("%s %s: day [%v, %v), want [%s, %s) UTC", c.zone, c.at, start.UTC(), end.UTC(), c.start, c.end)
		}
	}
}

// TestStepCalendarDaysTileTime checks around every change of offset of
// zones with odd ones that each instant lies in its interval, which begins
// at the first instant of a date and ends where the next begins: the
// intervals neither overlap nor leave gaps.
func TestStepCalendarDaysTileTime(t *testing.T) {
	for _, zone := range []string{"Africa/Cairo", "America/Sao_Paulo", "America/Havana", "Asia/Amman",
		"America/Santiago", "Asia/Beirut", "Asia/Gaza", "Australia/Lord_Howe", "America/New_York"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []time.Duration{1, 3} {
			s := Step{Every: n * day, Calendar: true, Location: loc}
			for change := range offsetChanges(loc, 2010, 2026) {
				for at := change.Add(-50 * time.Hour); at.Before(change.Add(50 * time.Hour)); at = at.Add(10 * time.Minute) {
					if err := checkCalendarInterval(s, at); err != nil {
						t.Fatalf("%s, %v: %v", zone, s, err)
					}
				}
			}
		}
	}
}

func checkCalendarInterval(s Step, at time.Time) error {
	loc := s.location()
	start := s.Start(at)
	end := s.End(start)
	switch {
	case at.Before(start) || !at.Before(end):
		return fmt.Errorf("%v outside its interval [%v, %v)", at.In(loc), start, end)
	case !s.Start(end).Equal(end):
		return fmt.Errorf("interval [%v, %v): the next starts at %v", start, end, s.Start(end))
	case !dateOf(start.Add(-time.Nanosecond), loc).Before(dateOf(start, loc)):
		return fmt.Errorf("%v: interval start %v is not the first instant of its date", at.In(loc), start)
	case s.Every == day && !dateOf(start, loc).Equal(dateOf(at, loc)):
		return fmt.Errorf("%v: interval starts on another date, %v", at.In(loc), start)
	}
	return nil
}

// offsetChanges yields the instants loc's offset changes in [from, to).
func offsetChanges(loc *time.Location, from, to int) func(func(time.Time) bool) {
	return func(yield func(time.Time) bool) {
		at := time.Date(from, 1, 1, 0, 0, 0, 0, loc)
		for at.Year() < to {
			_, end := at.ZoneBounds()
			if end.IsZero() || !yield(end) {
				return
			}
			at = end
		}
	}
}

// TestCalendarFoldAcrossAMidnightGap: the day after Cairo skipped its
// midnight holds its own items, in either direction.
func TestCalendarFoldAcrossAMidnightGap(t *testing.T) {
	cairo, err := time.LoadLocation("Africa/Cairo")
	if err != nil {
		t.Fatal(err)
	}
	items := []reading{{at: time.Date(2024, 4, 26, 12, 0, 0, 0, cairo)}, {at: time.Date(2024, 4, 27, 0, 30, 0, 0, cairo)}}
	for _, dir := range []repo.Direction{repo.OldestFirst, repo.NewestFirst} {
		q := Query{Step: Step{Every: day, Calendar: true, Location: cairo}, Aggs: []Agg{{Count, AllItems}}, Direction: dir}
		rows, err := foldAll(items, &q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 {
			t.Errorf("%v: %d rows %v, want one a day", dir, len(rows), rows)
		}
	}
}

func mustParse(t *testing.T, s string, loc *time.Location) time.Time {
	t.Helper()
	at, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func TestStepValidate(t *testing.T) {
	for _, s := range []Step{{}, {Every: 500 * time.Millisecond}, {Every: 1500 * time.Millisecond},
		{Every: time.Hour, Calendar: true}, {Every: day, Location: time.Local}} {
		var qe *QueryError
		if err := s.Validate(); !errors.As(err, &qe) || qe.Field[:4] != "Step" {
			t.Errorf("Step %+v: validate = %v, want a QueryError naming a Step field", s, err)
		}
	}
}

// reading is an item of the test view: a time, a float (nullable) and an
// integer.
type reading struct {
	at    time.Time
	temp  *float64
	count int64
}

type readingColumns struct{}

func (readingColumns) TimeOf(r *reading) (time.Time, error) { return r.at, nil }
func (readingColumns) column(col string) (func(*reading) reflect.Value, error) {
	switch col {
	case "temp":
		return func(r *reading) reflect.Value {
			if r.temp == nil {
				return reflect.Value{}
			}
			return reflect.ValueOf(*r.temp)
		}, nil
	case "count":
		return func(r *reading) reflect.Value { return reflect.ValueOf(r.count) }, nil
	}
	return nil, fmt.Errorf("no column %s", col)
}

var testView = schema.View{Name: "readings", Values: []schema.Column{
	{Name: "temp", Type: "double"}, {Name: "count", Type: "bigint"}, {Name: "unit", Type: "text"}}}

var allAggs = []Agg{{Count, "*"}, {Count, "temp"}, {Sum, "temp"}, {Min, "temp"}, {Max, "temp"}, {Avg, "temp"},
	{First, "temp"}, {Last, "temp"}, {Sum, "count"}, {Min, "count"}, {Max, "count"}, {Avg, "count"}, {First, "count"}, {Last, "count"}}

// TestFoldEqualsTheModel folds random readings, in both directions and in
// pages of random sizes, and compares every interval with a brute-force
// computation over the same readings.
func TestFoldEqualsTheModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		items := randomReadings(rng)
		step := Step{Every: time.Duration(1+rng.IntN(7200)) * time.Second}
		for _, dir := range []repo.Direction{repo.OldestFirst, repo.NewestFirst} {
			q := Query{Step: step, Aggs: allAggs, Direction: dir}
			got, err := foldAll(items, &q, 1+rng.IntN(50))
			if err != nil {
				t.Fatal(err)
			}
			want := model(items, step, dir)
			if err := sameRows(got, want); err != nil {
				t.Fatalf("round %d, %v, step %v: %v", round, dir, step, err)
			}
		}
	}
}

// TestMinMaxOfSignedZeros: -0 == +0, yet min is -0 and max +0 (as Go's
// builtin min and max) whatever the order of the items and the direction
// of the read, raw or merged from rollup rows: the answers agree bit for
// bit.
func TestMinMaxOfSignedZeros(t *testing.T) {
	pos, neg := 0.0, math.Copysign(0, -1)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, zeros := range [][]float64{{pos, neg}, {neg, pos}, {pos, neg, pos}, {neg, pos, neg}} {
		items := make([]reading, len(zeros))
		xs := make([]number, len(zeros))
		for i := range zeros {
			items[i] = reading{at: base.Add(time.Duration(i) * time.Second), temp: &zeros[i]}
			xs[i] = number{f: zeros[i], valid: true}
		}
		for _, dir := range []repo.Direction{repo.OldestFirst, repo.NewestFirst} {
			q := Query{Step: Step{Every: time.Hour}, Aggs: []Agg{{Min, "temp"}, {Max, "temp"}}, Direction: dir}
			rows, err := foldAll(items, &q, 10)
			if err != nil {
				t.Fatal(err)
			}
			mn, mx := rows[0].Values[0].Float64(), rows[0].Values[1].Float64()
			if !math.Signbit(mn) || math.Signbit(mx) {
				t.Errorf("%v %v: min %v max %v, want -0 and +0", zeros, dir, mn, mx)
			}
			// Merged from rollup rows of one item each.
			rng := rand.New(rand.NewPCG(0, 0))
			forward := dir == repo.OldestFirst
			if v := foldByRuns(rng, xs, Min, false, forward).Float64(); !math.Signbit(v) {
				t.Errorf("%v %v: merged min %v, want -0", zeros, dir, v)
			}
			if v := foldByRuns(rng, xs, Max, false, forward).Float64(); math.Signbit(v) {
				t.Errorf("%v %v: merged max %v, want +0", zeros, dir, v)
			}
		}
	}
}

func randomReadings(rng *rand.Rand) []reading {
	n := rng.IntN(400)
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	items := make([]reading, n)
	for i := range items {
		items[i].at = base.Add(time.Duration(rng.Int64N(int64(48 * time.Hour))))
		items[i].count = rng.Int64N(1<<40) - 1<<39
		switch rng.IntN(10) {
		case 0: // null
		case 1:
			nan := math.NaN()
			items[i].temp = &nan
		default:
			v := rng.NormFloat64()*1e6 + 1e-3*rng.Float64()
			items[i].temp = &v
		}
	}
	slices.SortFunc(items, func(a, b reading) int { return a.at.Compare(b.at) })
	return items
}

// foldAll folds items (sorted oldest first) in the query's direction, in
// pages of pageSize, as Read does with the repository's pages.
func foldAll(items []reading, q *Query, pageSize int) ([]Row, error) {
	ordered := slices.Clone(items)
	if q.Direction == repo.NewestFirst {
		slices.Reverse(ordered)
	}
	f, err := newFolderOf[reading](readingColumns{}, testView, q)
	if err != nil {
		return nil, err
	}
	var rows []Row
	var ferr error
	yield := func(r Row, err error) bool {
		if err != nil {
			ferr = err
			return false
		}
		rows = append(rows, r)
		return true
	}
	for len(ordered) > 0 {
		n := min(pageSize, len(ordered))
		if !f.fold(ordered[:n], yield) {
			return rows, ferr
		}
		ordered = ordered[n:]
	}
	if f.open {
		row, err := f.row()
		if err != nil {
			return rows, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// model computes the rows by grouping, then exact arithmetic.
func model(items []reading, step Step, dir repo.Direction) []Row {
	var rows []Row
	for i := 0; i < len(items); {
		start := step.Start(items[i].at)
		j := i
		for j < len(items) && step.Start(items[j].at).Equal(start) {
			j++
		}
		rows = append(rows, modelRow(items[i:j], start, step))
		i = j
	}
	if dir == repo.NewestFirst {
		slices.Reverse(rows)
	}
	return rows
}

func modelRow(in []reading, start time.Time, step Step) Row {
	var temps []float64
	var counts []int64
	for _, r := range in {
		if r.temp != nil && !math.IsNaN(*r.temp) {
			temps = append(temps, *r.temp)
		}
		counts = append(counts, r.count)
	}
	row := Row{Start: start, End: step.End(start), Items: int64(len(in))}
	exact := new(big.Float).SetPrec(2000)
	for _, v := range temps {
		exact.Add(exact, big.NewFloat(v))
	}
	fsum, _ := exact.Float64()
	var isum int64
	for _, c := range counts {
		isum += c
	}
	tempOr := func(f func() float64) Value {
		if len(temps) == 0 {
			return Value{}
		}
		return Float(f())
	}
	row.Values = []Value{
		Int(int64(len(in))), Int(int64(len(temps))),
		tempOr(func() float64 { return fsum }), tempOr(func() float64 { return slices.Min(temps) }),
		tempOr(func() float64 { return slices.Max(temps) }), tempOr(func() float64 { return fsum / float64(len(temps)) }),
		tempOr(func() float64 { return temps[0] }), tempOr(func() float64 { return temps[len(temps)-1] }),
		Int(isum), Int(slices.Min(counts)), Int(slices.Max(counts)), Float(float64(isum) / float64(len(counts))),
		Int(counts[0]), Int(counts[len(counts)-1]),
	}
	return row
}

// sameRows compares rows exactly: float sums are correctly rounded.
func sameRows(got, want []Row) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d rows, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if !g.Start.Equal(w.Start) || !g.End.Equal(w.End) || g.Items != w.Items {
			return fmt.Errorf("row %d: %v-%v %d items, want %v-%v %d", i, g.Start, g.End, g.Items, w.Start, w.End, w.Items)
		}
		for k := range g.Values {
			if !closeValue(g.Values[k], w.Values[k]) {
				return fmt.Errorf("row %d %v: %s = %v, want %v", i, g.Start, allAggs[k], g.Values[k], w.Values[k])
			}
		}
	}
	return nil
}

func closeValue(g, w Value) bool { return g == w }

// TestExactSumIsCorrectlyRounded sums values that cancel catastrophically, in
// random orders, and wants the exact sum rounded to nearest even every time.
func TestExactSumIsCorrectlyRounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 2000 {
		n := 1 + rng.IntN(60)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = math.Ldexp(rng.NormFloat64(), rng.IntN(200)-100)
			if i > 0 && rng.IntN(3) == 0 {
				xs[i] = -xs[rng.IntN(i)] * (1 + math.Ldexp(1, -50))
			}
		}
		exact := new(big.Float).SetPrec(4000)
		for _, x := range xs {
			exact.Add(exact, big.NewFloat(x))
		}
		want, _ := exact.Float64()
		for range 3 {
			rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
			var s exactSum
			for _, x := range xs {
				s.add(x)
			}
			if got := s.value(); got != want {
				t.Fatalf("round %d: sum = %v, want %v (exact, rounded)", round, got, want)
			}
		}
	}
	var s exactSum
	for _, x := range []float64{1, math.Inf(1), 2} {
		s.add(x)
	}
	if !math.IsInf(s.value(), 1) {
		t.Fatalf("sum with +Inf = %v", s.value())
	}
	s.add(math.Inf(-1))
	if !math.IsNaN(s.value()) {
		t.Fatalf("sum with both infinities = %v, want NaN", s.value())
	}
}

// TestExactSumOverflowIsAnError: a partial sum of finite values past
// float64 is ErrOverflow (as Python's math.fsum), never the Inf or NaN that
// made [Max, Max, -Max] differ from [Max, -Max, Max]; infinite values keep
// IEEE rules.
func TestExactSumOverflowIsAnError(t *testing.T) {
	m := math.MaxFloat64
	for _, c := range []struct {
		xs      []float64
		want    float64
		wantErr bool
	}{
		{[]float64{m, m, -m}, 0, true},
		{[]float64{m, m}, 0, true},
		{[]float64{-m, -m}, 0, true},
		{[]float64{m, math.Ldexp(1, 970)}, 0, true}, // half an ulp of Max: rounds to even, past it
		{[]float64{m, -m, m}, m, false},
		{[]float64{m, math.Inf(1)}, math.Inf(1), false},
		{[]float64{m, m, math.Inf(-1)}, 0, true}, // the finite values overflowed first
		{[]float64{math.Inf(-1), m, -m, m}, math.Inf(-1), false},
	} {
		var s exactSum
		var err error
		for _, x := range c.xs {
			if err = s.add(x); err != nil {
				break
			}
		}
		switch {
		case c.wantErr && !errors.Is(err, ErrOverflow):
			t.Errorf("sum of %v: error %v, value %v; want ErrOverflow", c.xs, err, s.value())
		case !c.wantErr && (err != nil || s.value() != c.want):
			t.Errorf("sum of %v = %v, %v; want %v", c.xs, s.value(), err, c.want)
		}
	}
}

// TestFloatSumOverflowIsAnError: a fold whose float sum overflows fails
// with ErrOverflow in either direction, as an integer sum past int64 does.
func TestFloatSumOverflowIsAnError(t *testing.T) {
	m := math.MaxFloat64
	items := []reading{{at: time.Unix(0, 0), temp: &m}, {at: time.Unix(1, 0), temp: &m}}
	for _, dir := range []repo.Direction{repo.OldestFirst, repo.NewestFirst} {
		for _, agg := range []Agg{{Sum, "temp"}, {Avg, "temp"}} {
			q := Query{Step: Step{Every: time.Hour}, Aggs: []Agg{agg}, Direction: dir}
			if rows, err := foldAll(items, &q, 10); !errors.Is(err, ErrOverflow) {
				t.Errorf("%v %v: fold = %v, %v; want ErrOverflow", dir, agg, rows, err)
			}
		}
	}
}

func TestSumOverflowIsAnError(t *testing.T) {
	items := []reading{{at: time.Unix(0, 0), count: math.MaxInt64}, {at: time.Unix(1, 0), count: 1}}
	q := Query{Step: Step{Every: time.Hour}, Aggs: []Agg{{Sum, "count"}}, Direction: repo.OldestFirst}
	if _, err := foldAll(items, &q, 10); !errors.Is(err, ErrOverflow) {
		t.Fatalf("fold = %v, want ErrOverflow", err)
	}
	q.Aggs = []Agg{{Max, "count"}} // max of the same items is fine
	if _, err := foldAll(items, &q, 10); err != nil {
		t.Fatal(err)
	}
}

func TestValidateNamesTheField(t *testing.T) {
	good := Query{Step: Step{Every: time.Hour}, Aggs: []Agg{{Avg, "temp"}}}
	for _, c := range []struct {
		name  string
		edit  func(*Query)
		field string
	}{
		{"text column", func(q *Query) { q.Aggs = []Agg{{Avg, "temp"}, {Max, "unit"}} }, "Aggs[1]"},
		{"unknown column", func(q *Query) { q.Aggs = []Agg{{Sum, "humidity"}} }, "Aggs[0]"},
		{"sum of *", func(q *Query) { q.Aggs = []Agg{{Sum, "*"}} }, "Aggs[0]"},
		{"no aggregate", func(q *Query) { q.Aggs = nil }, "Aggs"},
		{"no step", func(q *Query) { q.Step = Step{} }, "Step.Every"},
		{"inverted range", func(q *Query) { q.From, q.To = time.Unix(10, 0), time.Unix(5, 0) }, "From"},
		{"negative page", func(q *Query) { q.PageSize = -1 }, "PageSize"},
	} {
		q := good
		c.edit(&q)
		var qe *QueryError
		if err := q.validate(testView, 1000); !errors.As(err, &qe) || qe.Field != c.field {
			t.Errorf("%s: validate = %v, want a QueryError naming %s", c.name, err, c.field)
		}
	}
	if err := good.validate(testView, 1000); err != nil || good.PageSize != DefaultPageSize {
		t.Fatalf("good query: %v, page size %d", err, good.PageSize)
	}
}

func TestPartialEdges(t *testing.T) {
	items := []reading{{at: time.Date(2026, 1, 1, 0, 30, 0, 0, time.UTC)}, {at: time.Date(2026, 1, 1, 1, 30, 0, 0, time.UTC)}, {at: time.Date(2026, 1, 1, 2, 10, 0, 0, time.UTC)}}
	q := Query{Step: Step{Every: time.Hour}, Aggs: []Agg{{Count, "*"}}, Direction: repo.OldestFirst,
		From: time.Date(2026, 1, 1, 0, 15, 0, 0, time.UTC), To: time.Date(2026, 1, 1, 2, 20, 0, 0, time.UTC)}
	rows, err := foldAll(items, &q, 2)
	if err != nil {
		t.Fatal(err)
	}
	var partial []bool
	for _, r := range rows {
		partial = append(partial, r.Partial)
	}
	if !slices.Equal(partial, []bool{true, false, true}) {
		t.Fatalf("partial = %v, want the first and last intervals cut by the range", partial)
	}
}

// TestIntegerSumIsTheSameEitherWay: an integer sum whose running total
// passes int64 on the way but whose sum fits is that sum in both
// directions, and an average of large values is their average. The
// running total was checked item by item, so the oldest-first read of
// MaxInt64, 1, -1 failed with ErrOverflow and the newest-first one gave
// MaxInt64; the average of two MaxInt64 failed too.
func TestIntegerSumIsTheSameEitherWay(t *testing.T) {
	items := []reading{{at: time.Unix(0, 0), count: math.MaxInt64}, {at: time.Unix(1, 0), count: 1}, {at: time.Unix(2, 0), count: -1}}
	for _, dir := range []repo.Direction{repo.OldestFirst, repo.NewestFirst} {
		q := Query{Step: Step{Every: time.Hour}, Aggs: []Agg{{Sum, "count"}, {Avg, "count"}}, Direction: dir}
		rows, err := foldAll(items, &q, 10)
		if err != nil || len(rows) != 1 || rows[0].Values[0] != Int(math.MaxInt64) || rows[0].Values[1] != Float(float64(math.MaxInt64)/3) {
			t.Errorf("%v: %v, %v; want sum MaxInt64 and avg MaxInt64/3", dir, rows, err)
		}
	}
	low := []reading{{at: time.Unix(0, 0), count: math.MinInt64}, {at: time.Unix(1, 0), count: -1}, {at: time.Unix(2, 0), count: 1}}
	for _, dir := range []repo.Direction{repo.OldestFirst, repo.NewestFirst} {
		q := Query{Step: Step{Every: time.Hour}, Aggs: []Agg{{Sum, "count"}}, Direction: dir}
		if rows, err := foldAll(low, &q, 1); err != nil || len(rows) != 1 || rows[0].Values[0] != Int(math.MinInt64) {
			t.Errorf("%v: %v, %v; want sum MinInt64", dir, rows, err)
		}
	}
	big := []reading{{at: time.Unix(0, 0), count: math.MaxInt64}, {at: time.Unix(1, 0), count: math.MaxInt64}}
	q := Query{Step: Step{Every: time.Hour}, Aggs: []Agg{{Avg, "count"}}}
	if rows, err := foldAll(big, &q, 10); err != nil || len(rows) != 1 || rows[0].Values[0] != Float(math.MaxInt64) {
		t.Errorf("avg of two MaxInt64: %v, %v; want %v", rows, err, float64(math.MaxInt64))
	}
	q.Aggs = []Agg{{Sum, "count"}}
	if _, err := foldAll(big, &q, 10); !errors.Is(err, ErrOverflow) {
		t.Errorf("sum of two MaxInt64: %v, want ErrOverflow", err)
	}
}
