package integration

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// latestViews are the IoT views and latest_reading_by_sensor, the
// latest-value view of readings_by_sensor.
func latestViews() []schema.View {
	return append(refmodel.IoTViews(), refmodel.IoTLatestView())
}

// latestKeyspace is a new keyspace with latestViews applied, a session bound
// to it, and the views.
func latestKeyspace(t *testing.T) (*gocql.Session, string, []schema.View) {
	t.Helper()
	c := cluster(t)
	ks := newKeyspace(t)
	s := connect(t, ks)
	views := latestViews()
	if err := schema.Apply(t.Context(), s, schema.Keyspace{Name: ks, Replication: map[string]int{c.Datacenter: 1}}, views); err != nil {
		t.Fatal(err)
	}
	return s, ks, views
}

// TestLatestValueEqualsTheModel drives five sensors through random writes
// out of time order (late and backfilled readings), edits, deletes (the
// newest among them) and RetryOf retries, and checks after every round
// that each sensor's latest value is the model's newest reading by its
// own time, read in one request per key.
func TestLatestValueEqualsTheModel(t *testing.T) {
	s, ks, views := latestKeyspace(t)
	r, err := repo.Open[refmodel.Reading](t.Context(), s, ks, views, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := latestModel{stored: map[string]map[gocql.UUID]refmodel.Reading{}}
	rng := rand.New(rand.NewPCG(29, 3))
	keys := make([]repo.Key, 5)
	for i := range keys {
		keys[i] = repo.Key{fmt.Sprintf("sensor-%d", i)}
	}
	now := time.Now()
	for round := range 30 {
		for range 12 {
			m.step(t, r, rng, now)
		}
		items, found, err := r.LatestValues(t.Context(), "latest_reading_by_sensor", keys)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			want, ok := m.newest(k[0].(string))
			if found[i] != ok || ok && (items[i].ReadingID != want.ReadingID || items[i].Value != want.Value) {
				t.Fatalf("round %d, %v: latest %v (found %v), want %v (found %v)", round, k, items[i], found[i], want, ok)
			}
		}
	}
	p, err := r.Read(t.Context(), repo.Query{View: "latest_reading_by_sensor", Key: keys[0], Limit: 1})
	if err != nil || p.Stats.Queries != 1 {
		t.Fatalf("a latest value took %d requests (%v), want 1", p.Stats.Queries, err)
	}
	// Each write retired the key's older rows: a partition holds the newest
	// reading and the few written after it that are older than it (about
	// ln n of n random arrivals), not every reading.
	for _, k := range keys {
		var n int
		if err := s.Query(`SELECT COUNT(*) FROM latest_reading_by_sensor WHERE sensor_id = ?`, k[0]).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if held := len(m.stored[k[0].(string)]); n > 10 {
			t.Errorf("%v: %d live rows in its latest-value partition (it holds %d readings), want a few", k, n, held)
		}
	}
	t.Logf("model: %d puts, %d edits, %d deletes (%d of the newest), %d retries", m.puts, m.edits, m.deletes, m.newestDeletes, m.retries)
}

type latestModel struct {
	stored                                       map[string]map[gocql.UUID]refmodel.Reading
	puts, edits, deletes, newestDeletes, retries int
}

func (m *latestModel) newest(sensor string) (refmodel.Reading, bool) {
	var best refmodel.Reading
	ok := false
	for _, rd := range m.stored[sensor] {
		if !ok || (bucket.TimeUUID{}).Compare(bucket.ID(rd.ReadingID), bucket.ID(best.ReadingID)) > 0 {
			best, ok = rd, true
		}
	}
	return best, ok
}

// step makes one random change: mostly a reading (or three, by PutMany) at a
// random time in the last two days (so most arrive after newer ones), else
// an edit, a delete
// (half the time of the newest), or a Put retried with its own timestamp.
func (m *latestModel) step(t *testing.T, r *repo.Repo[refmodel.Reading], rng *rand.Rand, now time.Time) {
	sensor := fmt.Sprintf("sensor-%d", rng.IntN(5))
	if m.stored[sensor] == nil {
		m.stored[sensor] = map[gocql.UUID]refmodel.Reading{}
	}
	held := m.stored[sensor]
	var some refmodel.Reading
	for _, rd := range held {
		some = rd
		break
	}
	switch n := rng.IntN(10); {
	case n < 5 || len(held) == 0:
		batch := make([]refmodel.Reading, 1+rng.IntN(2)*2) // one Put, or a PutMany of three
		for i := range batch {
			batch[i] = refmodel.Reading{SensorID: sensor, SiteID: "site", Value: float64(rng.IntN(1000)), Unit: "C",
				ReadingID: gocql.UUIDFromTime(now.Add(-time.Duration(rng.Int64N(int64(48 * time.Hour)))))}
		}
		if len(batch) == 1 {
			m.put(t, r, batch[0])
		} else if err := r.PutMany(t.Context(), batch); err != nil {
			t.Fatal(err)
		}
		for _, rd := range batch {
			held[rd.ReadingID] = rd
		}
		m.puts += len(batch)
	case n < 7:
		some.Value += 0.5
		m.put(t, r, some)
		m.edits++
	case n < 9:
		if rng.IntN(2) == 0 {
			some, _ = m.newest(sensor)
			m.newestDeletes++
		}
		if err := r.Delete(t.Context(), &some); err != nil {
			t.Fatal(err)
		}
		delete(held, some.ReadingID)
		m.deletes++
	default:
		ts := time.Now().UnixMicro()
		some.Value += 1
		for range 2 { // the first attempt and its retry, with the same timestamp
			if err := r.Put(t.Context(), &some, repo.WithTimestamp(ts)); err != nil {
				t.Fatal(err)
			}
		}
		held[some.ReadingID] = some
		m.retries++
	}
}

func (m *latestModel) put(t *testing.T, r *repo.Repo[refmodel.Reading], rd refmodel.Reading) {
	if err := r.Put(t.Context(), &rd); err != nil {
		t.Fatal(err)
	}
	m.stored[rd.SensorID][rd.ReadingID] = rd
}

// TestLatestValueUnderSkewedClocks: two instances whose clocks differ by
// 8 s (ClockSkew 10 s) write and delete one sensor's readings. The fast
// one writes the newest reading P, whose insert retires the older rows at
// its (fast) timestamp, then deletes P and writes N back at its own clock.
// The slow one then deletes N: in the source that delete wins, but the
// latest-value view holds N at the fast write-back's later timestamp, and
// M written back at the slow delete's timestamp would be shadowed by P's
// retirement. The view must still show M, as the source does.
func TestLatestValueUnderSkewedClocks(t *testing.T) {
	s, ks, views := latestKeyspace(t)
	open := func(offset time.Duration) *repo.Repo[refmodel.Reading] {
		opts := repo.Options{Now: func() time.Time { return time.Now().Add(offset) }}
		opts.Schemes.ClockSkew = 10 * time.Second
		r, err := repo.Open[refmodel.Reading](t.Context(), s, ks, views, opts)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	fast, slow := open(4*time.Second), open(-4*time.Second)
	now := time.Now()
	reading := func(ago time.Duration, v float64) refmodel.Reading {
		return refmodel.Reading{SensorID: "s", SiteID: "site", Value: v, Unit: "C", ReadingID: gocql.UUIDFromTime(now.Add(-ago))}
	}
	m, n, p := reading(3*time.Minute, 1), reading(2*time.Minute, 2), reading(time.Minute, 3)
	for _, step := range []struct {
		r    *repo.Repo[refmodel.Reading]
		item refmodel.Reading
		del  bool
		want refmodel.Reading
	}{
		{slow, m, false, m}, {slow, n, false, n}, {fast, p, false, p},
		{fast, p, true, n}, // N written back at the fast clock
		{slow, n, true, m}, // the slow delete of N, M written back under P's retirement
	} {
		var err error
		if step.del {
			err = step.r.Delete(t.Context(), &step.item)
		} else {
			err = step.r.Put(t.Context(), &step.item)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []*repo.Repo[refmodel.Reading]{fast, slow} {
			got, found, err := r.LatestValue(t.Context(), "latest_reading_by_sensor", repo.Key{"s"})
			if err != nil || !found || got.ReadingID != step.want.ReadingID {
				t.Fatalf("after %s of %v: latest %v (found %v, %v), want %v", map[bool]string{false: "put", true: "delete"}[step.del],
					step.item.Value, got.Value, found, err, step.want.Value)
			}
		}
	}
}

// beforeWriteBack runs once, ahead of the first insert into table that it
// sees once armed, the next executor's statements otherwise unchanged.
type beforeWriteBack struct {
	repo.Executor
	table string
	armed atomic.Bool
	run   func()
}

func (e *beforeWriteBack) Exec(ctx context.Context, s repo.Statement) error {
	if s.Op == "insert" && s.Table == e.table && e.armed.CompareAndSwap(true, false) {
		e.run()
	}
	return e.Executor.Exec(ctx, s)
}

// TestRacingDeletesOfTheNewestTwo: an instance whose clock is ahead deletes
// a sensor's newest reading (P) and writes back the one before it (N); an
// instance whose clock is behind deletes N in between, just before that
// write-back lands, and writes back M. The write-back of N, stamped later
// than N's delete, must not leave the deleted N as the latest value: it
// ends at M.
func TestRacingDeletesOfTheNewestTwo(t *testing.T) {
	s, ks, views := latestKeyspace(t)
	open := func(offset time.Duration, wrap func(repo.Executor) repo.Executor) *repo.Repo[refmodel.Reading] {
		opts := repo.Options{Now: func() time.Time { return time.Now().Add(offset) }, WrapExecutor: wrap}
		opts.Schemes.ClockSkew = 10 * time.Second
		r, err := repo.Open[refmodel.Reading](t.Context(), s, ks, views, opts)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	slow := open(-4*time.Second, nil)
	hook := &beforeWriteBack{table: refmodel.IoTLatestView().Name}
	fast := open(4*time.Second, func(next repo.Executor) repo.Executor { hook.Executor = next; return hook })
	now := time.Now()
	reading := func(ago time.Duration, v float64) refmodel.Reading {
		return refmodel.Reading{SensorID: "s", SiteID: "site", Value: v, Unit: "C", ReadingID: gocql.UUIDFromTime(now.Add(-ago))}
	}
	m, n, p := reading(3*time.Minute, 1), reading(2*time.Minute, 2), reading(time.Minute, 3)
	for _, it := range []refmodel.Reading{m, n, p} {
		if err := slow.Put(t.Context(), &it); err != nil {
			t.Fatal(err)
		}
	}
	var errN error
	hook.run = func() { errN = slow.Delete(t.Context(), &n) }
	hook.armed.Store(true)
	if err := fast.Delete(t.Context(), &p); err != nil {
		t.Fatal(err)
	}
	if hook.armed.Load() || errN != nil {
		t.Fatalf("the delete of N did not run before the write-back (armed %v), or failed: %v", hook.armed.Load(), errN)
	}
	for _, r := range []*repo.Repo[refmodel.Reading]{fast, slow} {
		got, found, err := r.LatestValue(t.Context(), "latest_reading_by_sensor", repo.Key{"s"})
		if err != nil || !found || got.ReadingID != m.ReadingID {
			t.Fatalf("latest %v (found %v, %v), want M (1), the newest reading left", got.Value, found, err)
		}
	}
}

// TestLatestValueAfterAShorterLivedNewestExpires: on a node, a reading
// written with a 2 s TTL after one with the view's retires the older one
// from the latest-value view; once it has expired the older one, alive in
// the source, is the latest value (it was found false).
func TestLatestValueAfterAShorterLivedNewestExpires(t *testing.T) {
	s, ks, views := latestKeyspace(t)
	r, err := repo.Open[refmodel.Reading](t.Context(), s, ks, views, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	old := refmodel.Reading{SensorID: "s1", SiteID: "site", ReadingID: timeUUIDAt(t, now.Add(-time.Minute)), Value: 1, Unit: "C"}
	newer := refmodel.Reading{SensorID: "s1", SiteID: "site", ReadingID: timeUUIDAt(t, now), Value: 2, Unit: "C"}
	if err := r.Put(t.Context(), &old); err != nil {
		t.Fatal(err)
	}
	if err := r.Put(t.Context(), &newer, repo.WithTTL(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	it, found, err := r.LatestValue(t.Context(), "latest_reading_by_sensor", repo.Key{"s1"})
	if err != nil || !found || it.ReadingID != old.ReadingID || it.Value != 1 {
		t.Fatalf("LatestValue = %v value %v (found %v, %v); want the older reading %v", it.ReadingID, it.Value, found, err, old.ReadingID)
	}
}

// TestServerRefusalsRefusedFirst: on a node, what the server refuses in
// one view alone (a sensor ID over 64 KiB, a partition key of
// readings_by_sensor but a value of readings_by_site; a unit that is not
// valid UTF-8) is refused before anything is sent, and a sensor ID just
// under the bound is written. Both were written to some views and refused
// by others: an ErrPartialWrite no retry could complete.
func TestServerRefusalsRefusedFirst(t *testing.T) {
	s, ks, views := latestKeyspace(t)
	r, err := repo.Open[refmodel.Reading](t.Context(), s, ks, views, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i, tc := range []struct {
		rd   refmodel.Reading
		want error
	}{
		{refmodel.Reading{SensorID: strings.Repeat("s", 70_000), SiteID: "site-a", Value: 1, Unit: "C"}, repo.ErrValueTooLarge},
		{refmodel.Reading{SensorID: "s1", SiteID: "site-b", Value: 1, Unit: "\xff\xfe"}, repo.ErrBadItem},
		{refmodel.Reading{SensorID: strings.Repeat("s", 65_000), SiteID: "site-c", Value: 1, Unit: "C"}, nil},
	} {
		tc.rd.ReadingID = timeUUIDAt(t, now.Add(time.Duration(i)*time.Millisecond))
		err := r.Put(t.Context(), &tc.rd)
		if !errors.Is(err, tc.want) || (tc.want != nil && errors.Is(err, repo.ErrPartialWrite)) {
			t.Errorf("reading %d: Put = %v, want %v", i, err, tc.want)
		}
		p, err := r.Latest(t.Context(), "readings_by_site", repo.Key{tc.rd.SiteID}, 10)
		if want := map[bool]int{true: 0, false: 1}[tc.want != nil]; err != nil || len(p.Items) != want {
			t.Errorf("reading %d: readings_by_site holds %d item(s) (%v), want %d", i, len(p.Items), err, want)
		}
	}
}

// TestAtomicWriteOverTheNodesBatchThreshold: Open learns the node's
// batch_size_fail_threshold (50 KiB by default), and an Atomic write of
// an item over it is ErrValueTooLarge before anything is sent. The node
// refused its logged batch as "Batch too large" on every attempt, RetryOf
// included. A value well under the threshold is written.
func TestAtomicWriteOverTheNodesBatchThreshold(t *testing.T) {
	s, ks, views := latestKeyspace(t)
	r, err := repo.Open[refmodel.Reading](t.Context(), s, ks, views[:2], repo.Options{Write: repo.WriteOptions{Atomic: true}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	big := refmodel.Reading{SensorID: "s1", SiteID: "site", ReadingID: timeUUIDAt(t, now), Value: 1, Unit: strings.Repeat("u", 60_000)}
	if err := r.Put(t.Context(), &big); !errors.Is(err, repo.ErrValueTooLarge) || errors.Is(err, repo.ErrPartialWrite) {
		t.Fatalf("atomic Put of a 60 KB value: %v, want ErrValueTooLarge before anything is sent", err)
	}
	small := big
	small.ReadingID, small.Unit = timeUUIDAt(t, now.Add(time.Millisecond)), strings.Repeat("u", 10_000)
	if err := r.Put(t.Context(), &small); err != nil {
		t.Fatalf("atomic Put of a 10 KB value: %v", err)
	}
	p, err := r.Latest(t.Context(), "readings_by_site", repo.Key{"site"}, 10)
	if err != nil || len(p.Items) != 1 {
		t.Fatalf("readings_by_site holds %d item(s) (%v), want the small one", len(p.Items), err)
	}
}
