package repo

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/metrics"
	"github.com/tsbucket/tsbucket/schema"
)

// shardedViews are the chat views with messages_by_channel spread over 4
// shards per (channel, bucket).
func shardedViews(shards int) []schema.View {
	views := refmodel.ChatViews()
	views[0].Shards = shards
	return views
}

// TestShardedViewReads: a sharded view returns exactly what an unsharded one
// does, page by page in both directions with random page sizes and ranges,
// over dense, sparse, boundary-straddling and out-of-order data; each bucket
// read asks every shard for the remaining count.
func TestShardedViewReads(t *testing.T) {
	const shards = 4
	f := newChat(t, Options{}, shardedViews(shards)...)
	rng := rand.New(rand.NewPCG(1, 2))
	w := refmodel.ChatWidth
	s := refmodel.ChatScheme()
	var all []refmodel.Message
	edge := s.Start(clampedBucket(s, f.now.Add(-3*w)))
	for i := range 90 {
		var at time.Time
		switch i % 3 {
		case 0: // dense, in the current bucket
			at = f.now.Add(-time.Duration(rng.IntN(int(time.Hour))))
		case 1: // sparse, one every few buckets
			at = f.now.Add(-time.Duration(rng.IntN(40)) * w)
		default: // straddling a bucket boundary
			at = edge.Add(time.Duration(rng.IntN(120)-60) * time.Millisecond)
		}
		all = append(all, f.msg(1, at, int64(i)))
	}
	order := rng.Perm(len(all)) // written out of order
	for _, i := range order {
		m := all[i]
		if err := f.r.Put(t.Context(), &m); err != nil {
			t.Fatal(err)
		}
	}
	// Every row went to its ID's shard.
	for _, st := range f.fake.take() {
		if st.Table != "messages_by_channel" || st.Op != "insert" {
			continue
		}
		var id bucket.ID
		n := argOf(t, st, "message_id").(int64)
		for i := range 8 {
			id[8+i] = byte(n >> (56 - 8*i))
		}
		if got, want := argOf(t, st, schema.ShardColumn), bucket.ShardOf(id, shards); got != want {
			t.Fatalf("message %d written to shard %v, want %d", n, got, want)
		}
	}
	newest := slices.Clone(all)
	slices.SortFunc(newest, func(a, b refmodel.Message) int { return int(b.MessageID - a.MessageID) })
	for round := range 16 {
		dir := Direction(round % 2)
		limit := 1 + rng.IntN(30)
		var from, to time.Time
		if round%3 == 0 {
			from = f.now.Add(-time.Duration(rng.IntN(40)) * w)
			to = from.Add(time.Duration(1+rng.IntN(20)) * w)
		}
		var want []int64
		for _, m := range newest {
			at, _ := bucket.DiscordSnowflake().Time(idOf(m.MessageID))
			if (!from.IsZero() && at.Before(from)) || (!to.IsZero() && !at.Before(to)) {
				continue
			}
			want = append(want, m.MessageID)
		}
		if dir == OldestFirst {
			slices.Reverse(want)
			if from.IsZero() {
				from = time.Time{}
			}
		}
		got := f.all(Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: limit, Direction: dir, From: from, To: to})
		if !slices.Equal(got, want) {
			t.Fatalf("round %d (%v, limit %d, [%v, %v)): got %d items, want %d", round, dir, limit, from, to, len(got), len(want))
		}
	}
	// Each bucket read asks every shard, each for the remaining count.
	f.fake.take()
	p, err := f.r.Latest(t.Context(), "messages_by_channel", Key{int64(1)}, 7)
	if err != nil || len(p.Items) != 7 {
		t.Fatalf("latest: %d items, %v", len(p.Items), err)
	}
	perShard := map[any]int{}
	for _, st := range selectsOf(f.fake.take(), "messages_by_channel") {
		perShard[argOf(t, st, schema.ShardColumn)]++
		if got := argOf(t, st, bindLimit); got != 7 {
			t.Fatalf("shard query limit %v, want 7", got)
		}
	}
	if len(perShard) != shards || p.Stats.Queries != shards+1 {
		t.Fatalf("queried shards %v in %d queries, want all %d shards of the head bucket and the index", perShard, p.Stats.Queries, shards)
	}
	// Delete reaches the row's shard.
	victim := newest[0]
	if err := f.r.Delete(t.Context(), &victim); err != nil {
		t.Fatal(err)
	}
	if p, _ := f.r.Latest(t.Context(), "messages_by_channel", Key{int64(1)}, 1); len(p.Items) != 1 || p.Items[0].MessageID == victim.MessageID {
		t.Fatalf("after delete: %v", ids(p.Items...))
	}
}

func idOf(n int64) bucket.ID {
	var id bucket.ID
	for i := range 8 {
		id[8+i] = byte(n >> (56 - 8*i))
	}
	return id
}

// TestShardWritesCounted: every row written to a sharded view is counted
// against its shard, by Put and by PutMany, so the dashboard shows the spread.
func TestShardWritesCounted(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.Config{})
	if err != nil {
		t.Fatal(err)
	}
	f := newChat(t, Options{Metrics: m}, shardedViews(4)...)
	var batch []refmodel.Message
	for i := range 40 {
		batch = append(batch, f.msg(1, f.now, int64(i)))
	}
	f.put(batch...)
	one := f.msg(1, f.now, 99)
	if err := f.r.Put(t.Context(), &one); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	for _, msg := range append(batch, one) {
		want[strconv.Itoa(bucket.ShardOf(idOf(msg.MessageID), 4))]++
	}
	total := 0.0
	for shard, n := range want {
		got := testutil.ToFloat64(shardCounter(t, reg, shard))
		if got != n {
			t.Fatalf("shard %s: %v writes counted, want %v", shard, got, n)
		}
		total += got
	}
	if total != 41 {
		t.Fatalf("%v writes counted, want 41", total)
	}
}

// shardCounter finds tsbucket_shard_writes_total of messages_by_channel's shard.
func shardCounter(t *testing.T, g prometheus.Gatherer, shard string) prometheus.Collector {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "tsbucket_shard_writes_total" {
			continue
		}
		for _, mm := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range mm.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["table"] == "messages_by_channel" && labels["shard"] == shard {
				c := prometheus.NewCounter(prometheus.CounterOpts{Name: "x"})
				c.Add(mm.GetCounter().GetValue())
				return c
			}
		}
	}
	t.Fatalf("no shard %s series", shard)
	return nil
}

// TestPerKeyShards: in a view with per-key shards, a key that was never
// promoted writes and reads one partition per bucket; a promoted key's items
// from the promotion's instant on spread over the shards, its earlier ones
// stay in shard 0, and reads of buckets reaching that instant ask every
// shard and merge exactly, both directions, across the instant.
func TestPerKeyShards(t *testing.T) {
	const shards = 4
	views := shardedViews(shards)
	views[0].PerKeyShards = true
	f := newChat(t, Options{}, views...)
	v, _ := f.r.view("messages_by_channel")
	w := refmodel.ChatWidth
	from := f.now.Add(-w / 2) // mid-bucket: its bucket holds both kinds of rows
	f.r.adoptPromotion(v, schema.Promotion{View: v.spec.Name, Key: Key{int64(2)}.String(), From: from, Shards: shards})

	rng := rand.New(rand.NewPCG(3, 4))
	var quiet, hot []refmodel.Message
	for i := range 60 {
		at := f.now.Add(-time.Duration(rng.Int64N(int64(3 * w))))
		quiet = append(quiet, f.msg(1, at, int64(i)))
		hot = append(hot, f.msg(2, at, int64(100+i)))
	}
	hot = append(hot, f.msg(2, from, 500), f.msg(2, from.Add(-time.Millisecond), 501)) // at the instant and just before
	f.put(append(slices.Clone(quiet), hot...)...)
	for _, st := range f.fake.take() {
		if st.Table != "messages_by_channel" || (st.Op != "insert" && st.Op != "batch") {
			continue
		}
		if st.Op == "batch" {
			continue // PutMany groups one partition's rows: checked through reads below
		}
		n := argOf(t, st, "message_id").(int64)
		ch := argOf(t, st, "channel_id").(int64)
		at, _ := bucket.DiscordSnowflake().Time(idOf(n))
		want := 0
		if ch == 2 && !at.Before(from) {
			want = bucket.ShardOf(idOf(n), shards)
		}
		if got := argOf(t, st, schema.ShardColumn); got != want {
			t.Fatalf("channel %d message at %v written to shard %v, want %d", ch, at, got, want)
		}
	}
	for _, c := range []struct {
		key  int64
		msgs []refmodel.Message
	}{{1, quiet}, {2, hot}} {
		newest := slices.Clone(c.msgs)
		slices.SortFunc(newest, func(a, b refmodel.Message) int { return int(b.MessageID - a.MessageID) })
		want := make([]int64, len(newest))
		for i, m := range newest {
			want[i] = m.MessageID
		}
		for _, dir := range []Direction{NewestFirst, OldestFirst} {
			exp := slices.Clone(want)
			if dir == OldestFirst {
				slices.Reverse(exp)
			}
			got := f.all(Query{View: "messages_by_channel", Key: Key{c.key}, Limit: 1 + rng.IntN(9), Direction: dir})
			if !slices.Equal(got, exp) {
				t.Fatalf("channel %d %v: got %d items, want %d", c.key, dir, len(got), len(exp))
			}
		}
	}
	// The quiet key costs one query per bucket, the hot key every shard of
	// its buckets from the promotion on.
	f.fake.take()
	p, err := f.r.Latest(t.Context(), "messages_by_channel", Key{int64(1)}, 3)
	if err != nil || p.Stats.Queries != 2 {
		t.Fatalf("quiet key: %d queries (%v), want the head bucket and the index", p.Stats.Queries, err)
	}
	p, err = f.r.Latest(t.Context(), "messages_by_channel", Key{int64(2)}, 3)
	if err != nil || p.Stats.Queries != shards+1 {
		t.Fatalf("hot key: %d queries (%v), want %d shards of the head bucket and the index", p.Stats.Queries, err, shards)
	}
	// A bucket that ended before the promotion is one partition again.
	old := clampedBucket(refmodel.ChatScheme(), from) - 1
	f.fake.take()
	_, err = f.r.Read(t.Context(), Query{View: "messages_by_channel", Key: Key{int64(2)}, Limit: 1,
		From: refmodel.ChatScheme().Start(old), To: refmodel.ChatScheme().End(old)})
	if sel := selectsOf(f.fake.take(), "messages_by_channel"); err != nil || len(sel) != 1 || argOf(t, sel[0], schema.ShardColumn) != 0 {
		t.Fatalf("hot key, bucket before the promotion: %d selects (%v), want one of shard 0", len(sel), err)
	}
	// Delete reaches the shard its row is in, on either side of the instant.
	for _, m := range hot[len(hot)-2:] {
		if err := f.r.Delete(t.Context(), &m); err != nil {
			t.Fatal(err)
		}
	}
	got := f.all(Query{View: "messages_by_channel", Key: Key{int64(2)}, Limit: 50})
	if slices.Contains(got, hot[len(hot)-1].MessageID) || slices.Contains(got, hot[len(hot)-2].MessageID) || len(got) != len(hot)-2 {
		t.Fatalf("after deleting the two edge messages: %d items", len(got))
	}
}

// TestShardedPutManyBatchesOneShard (issue 23's test gap): a PutMany of one
// key's items in one bucket of a sharded view spans its shards, and every
// batch it sends names one partition, shard included: each row in its ID's
// shard, never a batch across shards.
func TestShardedPutManyBatchesOneShard(t *testing.T) {
	const shards = 4
	f := newChat(t, Options{}, shardedViews(shards)...)
	var batch []refmodel.Message
	for i := range 64 {
		batch = append(batch, f.msg(1, f.now.Add(-time.Duration(i)*time.Second), int64(i)))
	}
	f.put(batch...)
	used := map[int]bool{}
	for _, st := range f.fake.take() {
		if st.Table != "messages_by_channel" {
			continue
		}
		entries := st.Entries
		if len(entries) == 0 {
			entries = []Statement{st}
		}
		first := argOf(t, entries[0], schema.ShardColumn)
		for _, e := range entries {
			shard := argOf(t, e, schema.ShardColumn)
			id := argOf(t, e, "message_id").(int64)
			if shard != first {
				t.Fatalf("one batch spans shards %v and %v", first, shard)
			}
			var bid bucket.ID
			for i := range 8 {
				bid[8+i] = byte(id >> (56 - 8*i))
			}
			if want := bucket.ShardOf(bid, shards); shard != want {
				t.Fatalf("message %d in shard %v, want its ID's shard %d", id, shard, want)
			}
			used[shard.(int)] = true
		}
	}
	if len(used) != shards {
		t.Fatalf("the batch used shards %v, want all %d", used, shards)
	}
	if got := f.all(Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 10}); len(got) != len(batch) {
		t.Fatalf("read %d items back, want %d", len(got), len(batch))
	}
}
