package integration

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// Tick is the item of the scheme-change tests: a stream of readings with
// millisecond UUIDv7 IDs.
type Tick struct {
	Stream string     `db:"stream"`
	TickID gocql.UUID `db:"tick_id"`
	N      int64      `db:"n"`
}

// ticksView is bucketed by 4-second windows, so that a change to 1-second
// windows a few seconds ahead is one a test can watch happen.
func ticksView(t *testing.T) schema.View {
	t.Helper()
	s, err := bucket.Fixed(4*time.Second, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return schema.View{
		Name:   "ticks_by_stream",
		Key:    []schema.Column{{Name: "stream", Type: "text"}},
		Scheme: s,
		ID:     schema.Column{Name: "tick_id"},
		Kind:   bucket.UUIDv7{},
		Values: []schema.Column{{Name: "n", Type: "bigint"}},
	}
}

func tickAt(t *testing.T, stream string, at time.Time, n int64) Tick {
	t.Helper()
	var node [10]byte
	node[0], node[1] = byte(n>>8), byte(n)
	id, err := bucket.UUIDv7{}.Make(at, node)
	if err != nil {
		t.Fatal(err)
	}
	return Tick{Stream: stream, TickID: gocql.UUID(id), N: n}
}

// TestRebucketWhileRunning changes a view's bucket width while two
// repositories write and read it: one writes ticks stamped with its clock
// through the change, the other reads the newest page all along; a late
// tick for a time before the change is written after it. Afterwards every
// acknowledged tick is read back exactly once, in order, by both
// repositories in both directions, the ticks after the change sit in
// 1-second buckets, and the reader picked the change up within its
// SchemeRefresh.
func TestRebucketWhileRunning(t *testing.T) {
	ctx := t.Context()
	ks := testKeyspace(t)
	s := connect(t, "")
	v := ticksView(t)
	if err := schema.Apply(ctx, s, ks, []schema.View{v}); err != nil {
		t.Fatal(err)
	}
	const refresh = 300 * time.Millisecond
	// A fleet with small bounds, so a change can be recorded 2 s ahead.
	fleet := schema.Fleet{SchemeRefresh: refresh, MaxFutureSkew: 500 * time.Millisecond, ClockSkew: 100 * time.Millisecond}
	open := func() *repo.Repo[Tick] {
		r, err := repo.Open[Tick](ctx, s, ks.Name, []schema.View{v}, repo.Options{
			Schemes: repo.SchemeOptions{Refresh: refresh, MaxFutureSkew: fleet.MaxFutureSkew, ClockSkew: fleet.ClockSkew, Lead: 2 * time.Second},
		})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	writer, reader := open(), open()

	// The change: 1-second buckets from the first 4-second boundary at
	// least 3 s ahead, recorded with a 2 s lead.
	now := time.Now()
	old := v.Scheme
	b, _ := old.Of(now.Add(3 * time.Second))
	from := old.End(b)
	next, err := bucket.Fixed(time.Second, from)
	if err != nil {
		t.Fatal(err)
	}

	var (
		mu    sync.Mutex
		acked []Tick
		n     atomic.Int64
	)
	put := func(tk Tick) error {
		if err := writer.Put(ctx, &tk); err != nil {
			return err
		}
		mu.Lock()
		acked = append(acked, tk)
		mu.Unlock()
		return nil
	}
	stop := make(chan struct{})
	var wg, readers sync.WaitGroup
	errs := make(chan error, 4)
	wg.Go(func() { // the writer: ticks stamped now, until 5 s after the change
		for time.Now().Before(from.Add(5 * time.Second)) {
			if err := put(tickAt(t, "s1", time.Now(), n.Add(1))); err != nil {
				errs <- fmt.Errorf("put: %w", err)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	var seenAt atomic.Int64 // when the reader first used the new history
	var reads atomic.Int64
	readers.Go(func() { // the reader: newest pages, in order, no duplicates
		for {
			select {
			case <-stop:
				return
			default:
			}
			p, err := reader.Latest(ctx, v.Name, repo.Key{"s1"}, 25)
			if err != nil {
				errs <- fmt.Errorf("read: %w", err)
				return
			}
			reads.Add(1)
			if err := strictlyDescending(p.Items); err != nil {
				errs <- err
				return
			}
			if sc, _ := reader.Scheme(v.Name); sc.HasChanges() && seenAt.Load() == 0 {
				seenAt.Store(time.Now().UnixNano())
			}
			time.Sleep(10 * time.Millisecond)
		}
	})

	time.Sleep(500 * time.Millisecond)
	plan, err := schema.Rebucket(ctx, s, ks.Name, v.Name, from, next, schema.RebucketOptions{Lead: 2 * time.Second, Fleet: fleet})
	if err != nil {
		t.Fatalf("rebucket: %v", err)
	}
	recorded := time.Now()
	t.Logf("change recorded at %s for %s: buckets up to %d of 4 s, from %d of 1 s", recorded.Format("15:04:05.000"), from.Format("15:04:05.000"), plan.LastBefore, plan.FirstAfter)

	// A late tick for a time before the change, written after it.
	time.Sleep(time.Until(from.Add(2 * time.Second)))
	late := tickAt(t, "s1", from.Add(-1500*time.Millisecond), n.Add(1))
	if err := put(late); err != nil {
		t.Fatal(err)
	}
	wg.Wait() // the writer ends 5 s after the change
	close(stop)
	readers.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	if seenAt.Load() == 0 {
		t.Fatal("the reader never used the new history")
	}
	if lag := time.Unix(0, seenAt.Load()).Sub(recorded); lag > refresh+time.Second {
		t.Errorf("the reader used the change %v after it was recorded; SchemeRefresh is %v", lag, refresh)
	}
	t.Logf("%d ticks written, %d pages read during the change; the reader had the new history %v after it was recorded",
		len(acked), reads.Load(), time.Unix(0, seenAt.Load()).Sub(recorded).Round(time.Millisecond))

	want := tickIDs(acked)
	slices.SortFunc(want, func(a, b gocql.UUID) int { return bucket.UUIDv7{}.Compare(bucket.ID(a), bucket.ID(b)) })
	rng := rand.New(rand.NewPCG(7, 7))
	for _, r := range []*repo.Repo[Tick]{writer, reader, open()} {
		for _, dir := range []repo.Direction{repo.OldestFirst, repo.NewestFirst} {
			got := readTicks(t, r, repo.Query{View: v.Name, Key: repo.Key{"s1"}, Direction: dir}, rng)
			exp := slices.Clone(want)
			if dir == repo.NewestFirst {
				slices.Reverse(exp)
			}
			if !slices.Equal(got, exp) {
				t.Fatalf("%v read: %d ticks, want the %d acknowledged (first difference at %d)", dir, len(got), len(exp), firstDiff(got, exp))
			}
		}
	}

	// Where the rows are: every tick in the bucket its time gives under the
	// history, 1-second buckets after the change, the late one before it.
	h := plan.Scheme
	perBucket := map[bucket.Bucket]int{}
	iter := s.Query(fmt.Sprintf(`SELECT bucket, tick_id FROM %s.ticks_by_stream WHERE stream = 's1' AND bucket IN ?`, ks.Name), bucketList(h, acked)).Iter()
	var bk int64
	var id gocql.UUID
	for iter.Scan(&bk, &id) {
		at, _ := bucket.UUIDv7{}.Time(bucket.ID(id))
		if at.Before(h.Start(bucket.Bucket(bk))) || !at.Before(h.End(bucket.Bucket(bk))) {
			t.Errorf("tick at %v stored in bucket %d [%v, %v)", at, bk, h.Start(bucket.Bucket(bk)), h.End(bucket.Bucket(bk)))
		}
		perBucket[bucket.Bucket(bk)]++
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	after := 0
	for b := range perBucket {
		if b >= plan.FirstAfter {
			after++
		}
	}
	if after < 4 {
		t.Errorf("%d buckets hold ticks of the 5 s after the change; 1-second buckets make at least 4", after)
	}
	if lb, _ := h.Of(from.Add(-1500 * time.Millisecond)); lb != plan.LastBefore || perBucket[lb] == 0 {
		t.Errorf("the late tick's bucket %d (last before the change %d) holds %d ticks", lb, plan.LastBefore, perBucket[lb])
	}
}

// TestRebucketRefusals: changes that would misplace rows are refused, and
// nothing is recorded.
func TestRebucketRefusals(t *testing.T) {
	ctx := t.Context()
	ks := testKeyspace(t)
	s := connect(t, "")
	v := ticksView(t)
	if err := schema.Apply(ctx, s, ks, []schema.View{v}); err != nil {
		t.Fatal(err)
	}
	// A writer allowing items stamped up to three hours ahead.
	r, err := repo.Open[Tick](ctx, s, ks.Name, []schema.View{v}, repo.Options{Schemes: repo.SchemeOptions{MaxFutureSkew: 3 * time.Hour, Lead: 4 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	b, _ := v.Scheme.Of(now.Add(time.Hour))
	in1h := v.Scheme.End(b)
	oneSec := func(at time.Time) bucket.Scheme {
		sc, err := bucket.Fixed(time.Second, at)
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	// An item stamped two hours ahead is indexed beyond a change in one.
	if err := r.Put(ctx, ptr(tickAt(t, "s9", now.Add(2*time.Hour), 1))); err != nil {
		t.Fatal(err)
	}
	// The index check is a second line: with a fleet allowing 3 h ahead the
	// lead alone refuses a change in 1 h; told of a fleet allowing 10 min,
	// the index still finds the item stamped 2 h ahead.
	small := schema.Fleet{MaxFutureSkew: 10 * time.Minute}
	cases := []struct {
		name  string
		view  string
		from  time.Time
		next  bucket.Scheme
		lead  time.Duration
		fleet schema.Fleet
		want  error
		text  string
	}{
		{"too soon", v.Name, in1h, oneSec(in1h), 2 * time.Hour, schema.Fleet{}, schema.ErrBadRebucket, "less than 2h0m0s ahead"},
		{"lead below the fleet's least", v.Name, in1h, oneSec(in1h), 30 * time.Minute, schema.Fleet{MaxFutureSkew: 3 * time.Hour}, schema.ErrBadRebucket, "below the least"},
		{"not a boundary", v.Name, in1h.Add(time.Second), oneSec(in1h.Add(time.Second)), 30 * time.Minute, small, schema.ErrBadRebucket, "not a bucket boundary"},
		{"indexed beyond", v.Name, in1h, oneSec(in1h), 30 * time.Minute, small, schema.ErrBadRebucket, "already lists 1 bucket(s)"},
		{"unknown view", "nope", in1h, oneSec(in1h), 30 * time.Minute, small, schema.ErrNotApplied, "no registered view"},
	}
	for _, c := range cases {
		_, err := schema.Rebucket(ctx, s, ks.Name, c.view, c.from, c.next, schema.RebucketOptions{Lead: c.lead, Fleet: c.fleet})
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: err = %v, want %v containing %q", c.name, err, c.want, c.text)
		}
	}
	stored, err := schema.LoadSchemes(ctx, s, ks.Name, []string{v.Name})
	if err != nil || stored[v.Name] != v.Scheme {
		t.Fatalf("after refused changes the stored scheme is %v (%v), want %v unchanged", stored[v.Name], err, v.Scheme)
	}

	// Beyond the indexed item, the change is accepted; a dry run first
	// records nothing.
	b, _ = v.Scheme.Of(now.Add(3 * time.Hour))
	in3h := v.Scheme.End(b)
	p, err := schema.Rebucket(ctx, s, ks.Name, v.Name, in3h, oneSec(in3h), schema.RebucketOptions{DryRun: true})
	if err != nil || p.Applied {
		t.Fatalf("dry run: %+v, %v", p, err)
	}
	if stored, _ := schema.LoadSchemes(ctx, s, ks.Name, []string{v.Name}); stored[v.Name] != v.Scheme {
		t.Fatal("a dry run recorded the change")
	}
	if p, err = schema.Rebucket(ctx, s, ks.Name, v.Name, in3h, oneSec(in3h), schema.RebucketOptions{}); err != nil || !p.Applied {
		t.Fatalf("rebucket: %+v, %v", p, err)
	}
	// Code that still names the old scheme opens with the recorded history;
	// code naming another scheme is refused.
	r2, err := repo.Open[Tick](ctx, s, ks.Name, []schema.View{v}, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sc, _ := r2.Scheme(v.Name); sc != p.Scheme {
		t.Fatalf("opened with %v, want the recorded %v", sc, p.Scheme)
	}
	other := v
	other.Scheme = oneSec(time.Unix(0, 0))
	if _, err := repo.Open[Tick](ctx, s, ks.Name, []schema.View{other}, repo.Options{}); !errors.Is(err, schema.ErrSchemeMismatch) {
		t.Fatalf("open with another scheme: %v, want ErrSchemeMismatch", err)
	}
	// The registry's definition carries the history: tools read it back.
	views, err := schema.RegisteredViews(ctx, s, ks.Name)
	if err != nil || len(views) != 1 || views[0].Scheme != p.Scheme {
		t.Fatalf("registered views %v, %v: want the history %v", views, err, p.Scheme)
	}
}

func ptr[T any](v T) *T { return &v }

func strictlyDescending(items []Tick) error {
	for i := 1; i < len(items); i++ {
		if (bucket.UUIDv7{}).Compare(bucket.ID(items[i-1].TickID), bucket.ID(items[i].TickID)) <= 0 {
			return fmt.Errorf("page out of order or with a duplicate at %d: %v then %v", i, items[i-1].TickID, items[i].TickID)
		}
	}
	return nil
}

func tickIDs(ts []Tick) []gocql.UUID {
	out := make([]gocql.UUID, len(ts))
	for i, tk := range ts {
		out[i] = tk.TickID
	}
	return out
}

// readTicks reads q to its end in pages of random sizes.
func readTicks(t *testing.T, r *repo.Repo[Tick], q repo.Query, rng *rand.Rand) []gocql.UUID {
	t.Helper()
	var out []gocql.UUID
	seen := map[gocql.UUID]bool{} // bounded: a repeating cursor fails at once
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		q.Limit = 1 + rng.IntN(40)
		p, err := r.Read(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range tickIDs(p.Items) {
			if seen[id] {
				t.Fatalf("%v read: tick %v returned twice, after %d ticks", q.Direction, id, len(out))
			}
			seen[id] = true
		}
		out = append(out, tickIDs(p.Items)...)
		if p.Cursor == "" {
			return out
		}
		q.Cursor = p.Cursor
	}
}

func firstDiff(a, b []gocql.UUID) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// bucketList is every bucket the ticks fall in under h.
func bucketList(h bucket.Scheme, ts []Tick) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, tk := range ts {
		at, _ := bucket.UUIDv7{}.Time(bucket.ID(tk.TickID))
		b, _ := h.Of(at)
		if !seen[int64(b)] {
			seen[int64(b)] = true
			out = append(out, int64(b))
		}
	}
	return out
}

// TestRebucketCLI: the command plans, refuses and records a change, and the
// history shows in views and schema check.
func TestRebucketCLI(t *testing.T) {
	ctx := t.Context()
	c := cluster(t)
	ks := testKeyspace(t)
	s := connect(t, "")
	v := ticksView(t)
	if err := schema.Apply(ctx, s, ks, []schema.View{v}); err != nil {
		t.Fatal(err)
	}
	bin := buildCLI(t)
	conn := []string{"--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter, "--keyspace", ks.Name}
	run := func(args ...string) (int, string, string) {
		return tsbucket(t, bin, append(append([]string{"schema", "rebucket"}, conn...), args...)...)
	}

	code, out, errOut := run("--view", v.Name, "--width", "1s", "--from", "+10m")
	if code != 1 || !strings.Contains(errOut, "less than 2h0m0s ahead of now") {
		t.Fatalf("too soon: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run("--view", v.Name, "--width", "1s", "--from", "2030-01-01T00:00:01Z")
	if code != 1 || !strings.Contains(errOut, "not a bucket boundary") || !strings.Contains(errOut, "the next bucket boundary of fixed(width=4s") {
		t.Fatalf("misaligned: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run("--view", v.Name, "--width", "1s")
	if code != 2 || !strings.Contains(errOut, "--from is required") {
		t.Fatalf("no --from: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run("--view", v.Name, "--width", "1s", "--from", "+3h", "--dry-run")
	if code != 0 || !strings.Contains(out, "dry run: nothing recorded") || !strings.Contains(out, "fixed(width=1s") {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run("--view", v.Name, "--scheme", "hour", "--from", "+3h")
	if code != 0 || !strings.Contains(out, "recorded: repositories use the new scheme from") {
		t.Fatalf("rebucket: exit %d\n%s%s", code, out, errOut)
	}
	// The repositories' option is Options.Schemes.Refresh (--scheme-refresh).
	if !strings.Contains(out, "after its Options.Schemes.Refresh (--scheme-refresh 1m0s)") {
		t.Errorf("rebucket does not name the repositories' refresh option as it is spelt:\n%s", out)
	}
	t.Logf("tsbucket schema rebucket printed:\n%s", out)
	code, out, errOut = tsbucket(t, bin, append([]string{"views"}, conn...)...)
	if code != 0 || !strings.Contains(out, "; from ") || !strings.Contains(out, " hour") {
		t.Fatalf("views: exit %d\n%s%s", code, out, errOut)
	}
	// Hourly buckets want an hourly TWCS window: check says so and prints
	// the fix; once it is run, the keyspace is clean, history and all.
	code, out, errOut = tsbucket(t, bin, append([]string{"schema", "check"}, conn...)...)
	if code != 1 || !strings.Contains(out, "scheme history: fixed(width=4s") || !strings.Contains(out, "hour (pending)") {
		t.Fatalf("schema check: exit %d\n%s%s", code, out, errOut)
	}
	_, fix, ok := strings.Cut(out, "run them in cqlsh:\n")
	if !ok || !strings.Contains(fix, "'compaction_window_unit': 'HOURS'") {
		t.Fatalf("schema check printed no window fix:\n%s", out)
	}
	for _, stmt := range strings.Split(strings.TrimSpace(fix), ";\n") {
		if err := s.Query(strings.TrimSuffix(stmt, ";")).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	code, out, errOut = tsbucket(t, bin, append([]string{"schema", "check"}, conn...)...)
	if code != 0 || !strings.Contains(out, "scheme history") || !strings.Contains(out, "no drift") {
		t.Fatalf("schema check after the fix: exit %d\n%s%s", code, out, errOut)
	}
}

// TestRebucketedViewRepairAndCoalescing: with views whose width changed
// (rebucketedChatFlavor's histories), rows a failed fan-out never wrote are
// repaired into the right scheme's buckets on both sides of each change, and
// identical concurrent reads across a change are coalesced into one walk
// that gives every reader the same exact page.
func TestRebucketedViewRepairAndCoalescing(t *testing.T) {
	ctx := t.Context()
	ks := testKeyspace(t)
	s := connect(t, "")
	views := rebucketedChatFlavor(0).views
	if err := schema.Apply(ctx, s, ks, views); err != nil {
		t.Fatal(err)
	}
	broken, err := repo.Open[refmodel.Message](ctx, s, ks.Name, views, repo.Options{
		WrapExecutor: func(next repo.Executor) repo.Executor { return failTable{next, "messages_by_channel"} }})
	if err != nil {
		t.Fatal(err)
	}
	r, err := repo.Open[refmodel.Message](ctx, s, ks.Name, views, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Items around every change of both views: at it, a millisecond either
	// side, and a bucket's width either side.
	var ats []time.Time
	for _, v := range views[:2] {
		for _, c := range v.Scheme.Changes()[1:] {
			// All in the past: the latest change is at least 3 days old.
			for _, d := range []time.Duration{-36 * time.Hour, -time.Millisecond, 0, time.Millisecond, 3 * time.Hour, 47 * time.Hour} {
				ats = append(ats, c.From.Add(d))
			}
		}
	}
	var want []int64
	for i, at := range ats {
		m := refmodel.Message{ChannelID: 5, AuthorID: 9, MessageID: snowflakeAt(t, at, uint64(i)), Body: "b"}
		if err := broken.Put(ctx, &m); err == nil {
			t.Fatal("the broken fan-out wrote messages_by_channel")
		}
		want = append(want, m.MessageID)
	}
	slices.Sort(want)
	slices.Reverse(want)
	report, err := r.Repair(ctx, "messages_by_author", repo.Key{int64(9)}, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Views["messages_by_channel"].Missing; got != len(ats) {
		t.Fatalf("repair: %s; want %d missing rows of messages_by_channel written", report, len(ats))
	}
	var got []int64
	for m, err := range r.All(ctx, repo.Query{View: "messages_by_channel", Key: repo.Key{int64(5)}, Limit: 5}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.MessageID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("after repair, pages of 5: %v, want %v", got, want)
	}

	// 50 identical reads at once of a page that crosses both changes.
	var wg sync.WaitGroup
	pages := make([]repo.Page[refmodel.Message], 50)
	readErrs := make([]error, 50)
	for i := range pages {
		wg.Go(func() {
			pages[i], readErrs[i] = r.Latest(ctx, "messages_by_channel", repo.Key{int64(5)}, len(want))
		})
	}
	wg.Wait()
	coalesced := 0
	for i, p := range pages {
		if readErrs[i] != nil {
			t.Fatal(readErrs[i])
		}
		if !slices.Equal(messageIDs(p.Items), want) {
			t.Fatalf("concurrent read %d: %v, want %v", i, messageIDs(p.Items), want)
		}
		if p.Stats.Coalesced {
			coalesced++
		}
	}
	if coalesced == 0 {
		t.Error("no read of 50 identical ones was coalesced")
	}
	t.Logf("%d items across %d scheme changes repaired and read back; %d of 50 concurrent reads coalesced", len(want), 4, coalesced)
}
