package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/aggregate"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// IoTConfig is the IoT benchmark (issue 29): hourly aggregates of a month
// of one device, by a hand-written loop over pages and by package
// aggregate; the latest reading of many devices, by a latest-value view
// and by a walk of each device's readings.
type IoTConfig struct {
	Hosts      []string
	Datacenter string
	Keyspace   string        // default tsbucket_bench_iot, dropped and made again
	Days       int           // history of the device; default 30
	Every      time.Duration // one reading per Every; default 10s
	Devices    int           // devices of the latest-value read; default 1000
	Rounds     int           // reads of each variant; default 3
	Keep       bool
	Log        io.Writer
}

func (c IoTConfig) withDefaults() IoTConfig {
	if c.Keyspace == "" {
		c.Keyspace = "tsbucket_bench_iot"
	}
	orDefault(&c.Days, 30)
	orDefault(&c.Rounds, 3)
	orDefault(&c.Devices, 1000)
	if c.Every == 0 {
		c.Every = 10 * time.Second
	}
	return c
}

func orDefault(v *int, d int) {
	if *v == 0 {
		*v = d
	}
}

// QuickIoT is a small run for tests and smoke checks.
func QuickIoT() IoTConfig { return IoTConfig{Days: 2, Every: time.Minute, Devices: 50, Rounds: 1} }

// IoTVariant is one way of answering one question, measured over Rounds.
type IoTVariant struct {
	Name      string  `json:"name"`
	Requests  float64 `json:"requests_per_read"`
	Rows      float64 `json:"rows_per_read"`
	MillisP50 float64 `json:"ms_p50"`
	CPUMillis float64 `json:"client_cpu_ms_per_read"`
}

// IoTReport is the outcome of RunIoT.
type IoTReport struct {
	Readings   int          `json:"readings"`
	Intervals  int          `json:"intervals"`
	Devices    int          `json:"devices"`
	Aggregates []IoTVariant `json:"aggregates"`
	Latest     []IoTVariant `json:"latest"`
	Same       bool         `json:"same_answers"`
	// RollupSame: the rollup-backed read (c) equals the raw read (b) bit
	// for bit; RollupBuild is the worker round that rolled the range.
	RollupSame  bool           `json:"rollup_same_answers"`
	RollupBuild IoTRollupBuild `json:"rollup_build"`
}

// iotViews are the IoT views and latest_reading_by_sensor.
func iotViews() []schema.View { return append(refmodel.IoTViews(), refmodel.IoTLatestView()) }

// RunIoT loads the data and measures every variant side by side.
func RunIoT(ctx context.Context, cfg IoTConfig) (IoTReport, error) {
	cfg = cfg.withDefaults()
	c := &counter{}
	s, err := iotSetup(ctx, cfg, c)
	if err != nil {
		return IoTReport{}, err
	}
	defer s.Close()
	r, err := repo.Open[refmodel.Reading](ctx, s, cfg.Keyspace, iotViews(), repo.Options{})
	if err != nil {
		return IoTReport{}, err
	}
	from, to, n, err := loadDevice(ctx, r, cfg)
	if err != nil {
		return IoTReport{}, err
	}
	rep := IoTReport{Readings: n, Devices: cfg.Devices}
	if err := rep.aggregates(ctx, cfg, s, r, c, from, to); err != nil {
		return rep, err
	}
	if err := rep.latest(ctx, cfg, r, c); err != nil {
		return rep, err
	}
	if !cfg.Keep {
		err = s.Query("DROP KEYSPACE IF EXISTS " + schema.Quote(cfg.Keyspace)).WithContext(ctx).Exec()
	}
	return rep, err
}

func iotSetup(ctx context.Context, cfg IoTConfig, c *counter) (*gocql.Session, error) {
	cc, err := repo.SessionConfig{Hosts: cfg.Hosts, Datacenter: cfg.Datacenter, Timeout: 10 * time.Second}.ClusterConfig()
	if err != nil {
		return nil, err
	}
	cc.QueryObserver, cc.BatchObserver = c, c
	s, err := cc.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("bench: connect: %w", err)
	}
	ks := schema.Keyspace{Name: cfg.Keyspace, Replication: map[string]int{cfg.Datacenter: 1}}
	if err := schema.CreateKeyspace(ctx, s, ks, schema.KeyspaceOptions{DropFirst: true}); err != nil {
		s.Close()
		return nil, err
	}
	if err := schema.Apply(ctx, s, ks, iotViews()); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// loadDevice writes one device's readings, one per Every over Days, and
// returns the range they cover.
func loadDevice(ctx context.Context, r *repo.Repo[refmodel.Reading], cfg IoTConfig) (from, to time.Time, n int, err error) {
	to = time.Now().Truncate(time.Hour)
	from = to.Add(-time.Duration(cfg.Days) * 24 * time.Hour)
	batch := make([]refmodel.Reading, 0, 500)
	for at := from; at.Before(to); at = at.Add(cfg.Every) {
		batch = append(batch, refmodel.Reading{SensorID: "device-0", SiteID: "site", Unit: "C",
			ReadingID: gocql.UUIDFromTime(at), Value: 20 + 5*math.Sin(float64(n)/360)})
		n++
		if len(batch) == cap(batch) {
			if err := r.PutMany(ctx, batch); err != nil {
				return from, to, n, err
			}
			batch = batch[:0]
		}
	}
	if len(batch) > 0 {
		err = r.PutMany(ctx, batch)
	}
	return from, to, n, err
}

// hourAgg is the hand-written loop's running aggregate of one hour.
type hourAgg struct {
	n             int
	sum, min, max float64
}

// aggregates measures hourly avg, min, max and count over [from, to) by a
// hand-written page loop over the device's daily buckets, and by
// aggregate.Collect.
func (rep *IoTReport) aggregates(ctx context.Context, cfg IoTConfig, s *gocql.Session, r *repo.Repo[refmodel.Reading], c *counter, from, to time.Time) error {
	aggs, err := aggregate.Parse("avg(value),min(value),max(value),count(*)")
	if err != nil {
		return err
	}
	var hand map[time.Time]hourAgg
	var rows []aggregate.Row
	handV, err := measure(cfg.Rounds, c, "hand-written page loop", func() (int, error) {
		var n int
		hand, n, err = handHourly(ctx, s, cfg.Keyspace, from, to)
		return n, err
	})
	if err != nil {
		return err
	}
	var st aggregate.Stats
	q := aggregate.Query{View: "readings_by_sensor", Key: repo.Key{"device-0"},
		From: from, To: to, Direction: repo.OldestFirst, Step: aggregate.Step{Every: time.Hour}, Aggs: aggs, Stats: &st}
	rawV, err := measure(cfg.Rounds, c, "tsbucket aggregate (raw)", func() (int, error) {
		st = aggregate.Stats{}
		rows, err = aggregate.Collect(ctx, r, q)
		return st.Rows, err
	})
	if err != nil {
		return err
	}
	rep.Intervals = len(rows)
	rep.Aggregates = []IoTVariant{handV, rawV}
	rep.Same = sameHourly(hand, rows)
	q.Stats = nil
	return rep.rollupVariant(ctx, cfg, s, r, c, q, rows) // iot_rollup.go
}

// handHourly is what a team writes by hand: each daily bucket of the range
// paged through with the driver, the hours folded in a map.
func handHourly(ctx context.Context, s *gocql.Session, ks string, from, to time.Time) (map[time.Time]hourAgg, int, error) {
	views := refmodel.IoTViews()
	var scheme = views[0].Scheme
	for _, v := range views {
		if v.Name == "readings_by_sensor" {
			scheme = v.Scheme
		}
	}
	first, err := scheme.Of(from)
	if err != nil {
		return nil, 0, err
	}
	last, err := scheme.Of(to.Add(-time.Nanosecond))
	if err != nil {
		return nil, 0, err
	}
	out := map[time.Time]hourAgg{}
	rows := 0
	cql := "SELECT reading_id, value FROM " + schema.Quote(ks) + ".readings_by_sensor WHERE sensor_id = ? AND bucket = ? " +
		"AND reading_id >= minTimeuuid(?) AND reading_id < minTimeuuid(?) ORDER BY reading_id ASC"
	for b := first; b <= last; b++ {
		iter := s.Query(cql, "device-0", int64(b), from, to).WithContext(ctx).PageSize(1000).Iter()
		var id gocql.UUID
		var v float64
		for iter.Scan(&id, &v) {
			h := id.Time().Truncate(time.Hour)
			a, ok := out[h]
			if !ok {
				a = hourAgg{min: v, max: v}
			}
			a.n++
			a.sum += v
			a.min, a.max = min(a.min, v), max(a.max, v)
			out[h] = a
			rows++
		}
		if err := iter.Close(); err != nil {
			return nil, rows, err
		}
	}
	return out, rows, nil
}

// sameHourly reports whether both ways found the same hours, counts,
// minima and maxima, and averages within a rounding of each other (the
// hand loop sums naively).
func sameHourly(hand map[time.Time]hourAgg, rows []aggregate.Row) bool {
	if len(hand) != len(rows) {
		return false
	}
	for _, row := range rows {
		h, ok := hand[row.Start]
		if !ok || int64(h.n) != row.Items || h.min != row.Values[1].Float64() || h.max != row.Values[2].Float64() {
			return false
		}
		if avg := h.sum / float64(h.n); math.Abs(avg-row.Values[0].Float64()) > 1e-9*math.Abs(avg) {
			return false
		}
	}
	return true
}

// latest measures the latest reading of Devices devices: LatestValues on
// the latest-value view, and a walk (Latest, limit 1) of each device's
// readings_by_sensor.
func (rep *IoTReport) latest(ctx context.Context, cfg IoTConfig, r *repo.Repo[refmodel.Reading], c *counter) error {
	keys := make([]repo.Key, cfg.Devices)
	readings := make([]refmodel.Reading, 0, cfg.Devices)
	now := time.Now()
	for i := range keys {
		keys[i] = repo.Key{fmt.Sprintf("fleet-%d", i)}
		readings = append(readings, refmodel.Reading{SensorID: keys[i][0].(string), SiteID: "fleet", Unit: "C",
			ReadingID: gocql.UUIDFromTime(now.Add(-time.Duration(i) * time.Minute)), Value: float64(i)})
	}
	if err := r.PutMany(ctx, readings); err != nil {
		return err
	}
	view, err := measure(cfg.Rounds, c, "latest-value view (LatestValues)", func() (int, error) {
		_, found, err := r.LatestValues(ctx, "latest_reading_by_sensor", keys)
		return countTrue(found), err
	})
	if err != nil {
		return err
	}
	walk, err := measure(cfg.Rounds, c, "a walk per device (Latest, limit 1)", func() (int, error) {
		n := 0
		for _, k := range keys {
			p, err := r.Latest(ctx, "readings_by_sensor", k, 1)
			if err != nil {
				return n, err
			}
			n += len(p.Items)
		}
		return n, nil
	})
	rep.Latest = []IoTVariant{view, walk}
	return err
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// measure runs read rounds times and returns its figures per read: requests
// (the counter's), rows (read's own count), p50 latency and client CPU.
func measure(rounds int, c *counter, name string, read func() (int, error)) (IoTVariant, error) {
	v := IoTVariant{Name: name}
	lat := make([]float64, 0, rounds)
	q0, cpu0 := c.load(), processCPU()
	for range rounds {
		start := time.Now()
		rows, err := read()
		if err != nil {
			return v, fmt.Errorf("bench: %s: %w", name, err)
		}
		lat = append(lat, float64(time.Since(start).Microseconds())/1000)
		v.Rows += float64(rows)
	}
	v.Requests = float64(c.load()-q0) / float64(rounds)
	v.Rows /= float64(rounds)
	v.CPUMillis = round3(float64((processCPU() - cpu0).Microseconds()) / 1000 / float64(rounds))
	v.MillisP50 = round3(median(lat))
	return v, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// Markdown writes the report's two tables.
func (rep IoTReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Hourly avg, min, max and count of one device: %d readings, %d hours (answers the same: %v; rollup-backed equals raw bit for bit: %v)\n\n",
		rep.Readings, rep.Intervals, rep.Same, rep.RollupSame)
	iotTable(&b, rep.Aggregates)
	fmt.Fprintf(&b, "\nThe rollup, built once by one worker round (aggregate.Roller): %d intervals, %d requests, %.0f ms\n",
		rep.RollupBuild.Intervals, rep.RollupBuild.Requests, rep.RollupBuild.Millis)
	fmt.Fprintf(&b, "\nLatest reading of %d devices\n\n", rep.Devices)
	iotTable(&b, rep.Latest)
	return b.String()
}

func iotTable(b *strings.Builder, vs []IoTVariant) {
	b.WriteString("| variant | requests | rows | p50 ms | client CPU ms |\n|---|---|---|---|---|\n")
	for _, v := range vs {
		fmt.Fprintf(b, "| %s | %.0f | %.0f | %.1f | %.1f |\n", v.Name, v.Requests, v.Rows, v.MillisP50, v.CPUMillis)
	}
}
