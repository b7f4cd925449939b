package integration

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// failTable fails every write to one table before it is sent.
type failTable struct {
	repo.Executor
	table string
}

func (f failTable) Exec(ctx context.Context, s repo.Statement) error {
	if s.Table == f.table {
		return fmt.Errorf("injected: %s unavailable", f.table)
	}
	return f.Executor.Exec(ctx, s)
}

// TestShardedViewRepairAndDrift: on a real node, a sharded view's table has
// the shard in its partition key (schema check clean), rows a failed fan-out
// never wrote are repaired into their shards from another view, and reads
// merge the shards into the same pages an unsharded view gives.
func TestShardedViewRepairAndDrift(t *testing.T) {
	ks := testKeyspace(t)
	s := connect(t, "")
	views := refmodel.ChatViews()
	views[0].Shards = 4 // messages_by_channel
	if err := schema.Apply(t.Context(), s, ks, views); err != nil {
		t.Fatal(err)
	}
	drifts, err := schema.Check(t.Context(), s, ks.Name, views)
	if err != nil || len(drifts) != 0 {
		t.Fatalf("check: %v, %v", drifts, err)
	}
	broken, err := repo.Open[refmodel.Message](t.Context(), s, ks.Name, views, repo.Options{
		WrapExecutor: func(next repo.Executor) repo.Executor { return failTable{next, "messages_by_channel"} }})
	if err != nil {
		t.Fatal(err)
	}
	r, err := repo.Open[refmodel.Message](t.Context(), s, ks.Name, views, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var want []int64
	for i := range 30 {
		m := refmodel.Message{ChannelID: 5, AuthorID: 9, MessageID: snowflakeAt(t, now.Add(-time.Duration(i)*time.Minute), uint64(i)), Body: "b"}
		err := broken.Put(t.Context(), &m)
		var pe *repo.PutError
		if !errors.As(err, &pe) || !slices.Equal(pe.FailedViews(), []string{"messages_by_channel"}) {
			t.Fatalf("put: got %v, want a PutError of messages_by_channel", err)
		}
		want = append(want, m.MessageID)
	}
	if p, err := r.Latest(t.Context(), "messages_by_channel", repo.Key{int64(5)}, 50); err != nil || len(p.Items) != 0 {
		t.Fatalf("before repair: %d items, %v", len(p.Items), err)
	}
	report, err := r.Repair(t.Context(), "messages_by_author", repo.Key{int64(9)}, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Views["messages_by_channel"].Missing; got != 30 {
		t.Fatalf("repair: %s; want 30 missing rows of messages_by_channel written", report)
	}
	var got []int64
	for m, err := range r.All(t.Context(), repo.Query{View: "messages_by_channel", Key: repo.Key{int64(5)}, Limit: 7}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.MessageID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("after repair, pages of 7: %v, want %v", got, want)
	}
}

// TestPerKeyPromotion: on a real node, a view with per-key shards keeps
// every key in one partition per bucket until one of them is written hot:
// the writer promotes it on its own (Options.Schemes.PromoteAfter), every repository
// learns of it within SchemeRefresh, and from the promotion's instant its
// rows spread over the shards while the quiet key's stay in one partition.
// Both read back exactly, through a repository opened before the promotion.
func TestPerKeyPromotion(t *testing.T) {
	ctx := t.Context()
	ks := testKeyspace(t)
	s := connect(t, "")
	views := refmodel.ChatViews()
	views[0].Shards, views[0].PerKeyShards = 4, true // messages_by_channel
	if err := schema.Apply(ctx, s, ks, views); err != nil {
		t.Fatal(err)
	}
	drifts, err := schema.Check(ctx, s, ks.Name, views)
	if err != nil || len(drifts) != 0 {
		t.Fatalf("check: %v, %v", drifts, err)
	}
	const refresh = 200 * time.Millisecond
	open := func() *repo.Repo[refmodel.Message] {
		r, err := repo.Open[refmodel.Message](ctx, s, ks.Name, views, repo.Options{
			Schemes: repo.SchemeOptions{Refresh: refresh, PromoteAfter: 40,
				// A fleet with small bounds, so the promotion takes effect 600 ms on.
				MaxFutureSkew: 300 * time.Millisecond, ClockSkew: 50 * time.Millisecond, Lead: 600 * time.Millisecond},
		})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	writer, reader := open(), open()
	start := time.Now()
	var hot, quiet []int64
	// At least 2 s and 150 writes of channel 7: its promotion needs 40 rows
	// in one partition, and more after the promotion's lead, however slow
	// a loaded machine makes each Put.
	for i := 0; time.Since(start) < 2*time.Second || i < 150; i++ {
		m := refmodel.Message{ChannelID: 7, AuthorID: 1, MessageID: snowflakeAt(t, time.Now(), uint64(i)), Body: "hot"}
		if err := writer.Put(ctx, &m); err != nil {
			t.Fatal(err)
		}
		hot = append(hot, m.MessageID)
		if i%10 == 0 {
			q := refmodel.Message{ChannelID: 8, AuthorID: 1, MessageID: snowflakeAt(t, time.Now(), uint64(i+1)), Body: "quiet"}
			if err := writer.Put(ctx, &q); err != nil {
				t.Fatal(err)
			}
			quiet = append(quiet, q.MessageID)
		}
		time.Sleep(5 * time.Millisecond)
	}
	promos, err := schema.Promotions(ctx, s, ks.Name, "messages_by_channel")
	if err != nil {
		t.Fatal(err)
	}
	p, ok := promos["7"]
	if !ok || len(promos) != 1 || p.Shards != 4 || p.From.Before(start) {
		t.Fatalf("promotions %+v: want channel 7 alone, to 4 shards", promos)
	}
	t.Logf("channel 7 promoted: %s, from %s (%v after the first write)", p.Reason, p.From.Format(time.RFC3339Nano), p.From.Sub(start).Round(time.Millisecond))

	// Where the rows are.
	perShard := map[int]int{}
	it := s.Query(fmt.Sprintf(`SELECT channel_id, shard, message_id FROM %s.messages_by_channel WHERE channel_id IN (7, 8) AND bucket = ? AND shard IN (0, 1, 2, 3)`, ks.Name),
		int64(chatBucketOf(t, start))).Iter()
	var ch, id int64
	var shard int
	for it.Scan(&ch, &shard, &id) {
		at := snowflakeTime(id)
		switch {
		case ch == 8 && shard != 0:
			t.Errorf("quiet channel 8 has a row in shard %d", shard)
		case ch == 7 && at.Before(p.From) && shard != 0:
			t.Errorf("channel 7 row from before the promotion in shard %d", shard)
		case ch == 7 && !at.Before(p.From):
			perShard[shard]++
		}
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if len(perShard) != 4 {
		t.Errorf("channel 7 rows after the promotion in shards %v, want all 4", perShard)
	}

	for _, c := range []struct {
		key     int64
		want    []int64
		queries int
	}{{7, hot, 5}, {8, quiet, 2}} {
		want := slices.Clone(c.want)
		slices.Reverse(want)
		var got []int64
		for m, err := range reader.All(ctx, repo.Query{View: "messages_by_channel", Key: repo.Key{c.key}, Limit: 13}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, m.MessageID)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("channel %d: read %d messages, want the %d written", c.key, len(got), len(want))
		}
		page, err := reader.Latest(ctx, "messages_by_channel", repo.Key{c.key}, 10)
		if err != nil || page.Stats.Queries != c.queries {
			t.Fatalf("channel %d latest 10: %d queries (%v), want %d", c.key, page.Stats.Queries, err, c.queries)
		}
	}

	// The command lists the promotion and promotes another key by hand.
	c := cluster(t)
	bin := buildCLI(t)
	conn := []string{"--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter, "--keyspace", ks.Name, "--view", "messages_by_channel"}
	code, out, errOut := tsbucket(t, bin, append([]string{"hotkeys"}, conn...)...)
	if code != 0 || !strings.Contains(out, "1 key(s) promoted to 4 shards") || !strings.Contains(out, "40 rows to bucket") {
		t.Fatalf("hotkeys: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = tsbucket(t, bin, append([]string{"hotkeys", "--promote", "8"}, conn...)...)
	if code != 0 || !strings.Contains(out, "promoted 8 of messages_by_channel to 4 shards") || !strings.Contains(out, "2 key(s) promoted") {
		t.Fatalf("hotkeys --promote: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("tsbucket hotkeys printed:\n%s", out)
	promotedKeyByCommands(t, bin, conn, len(hot))
}

// promotedKeyByCommands reads, aggregates and repairs channel 7, promoted
// to 4 shards, with the command: each must find its n messages in every
// shard. They built their repositories with repo.New, which knows no
// promotion: read found only the rows of shard 0, the aggregate counted
// them alone, and repair reported the others missing and wrote copies
// into shard 0.
func promotedKeyByCommands(t *testing.T, bin string, conn []string, n int) {
	t.Helper()
	code, out, errOut := tsbucket(t, bin, append([]string{"read", "--key", "7", "--limit", "1000", "--json"}, conn...)...)
	var page struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil || len(page.Items) != n {
		t.Errorf("read of the promoted key: exit %d, %v, %d items, want %d\n%s", code, err, len(page.Items), n, errOut)
	}
	code, out, errOut = tsbucket(t, bin, append([]string{"read", "--key", "7", "--every", "8760h", "--agg", "count(*)", "--json"}, conn...)...)
	var agg struct {
		Rows []struct {
			Values []float64 `json:"values"`
		} `json:"rows"`
	}
	count := 0.0
	err := json.Unmarshal([]byte(out), &agg)
	for _, r := range agg.Rows {
		count += r.Values[0]
	}
	if code != 0 || err != nil || count != float64(n) {
		t.Errorf("count of the promoted key: exit %d, %v, count %v, want %d\n%s%s", code, err, count, n, out, errOut)
	}
	repair := slices.DeleteFunc(slices.Clone(conn), func(a string) bool { return a == "--view" || a == "messages_by_channel" })
	code, out, errOut = tsbucket(t, bin, append([]string{"repair", "--base", "messages_by_channel", "--key", "7", "--json"}, repair...)...)
	var report repo.RepairReport
	err = json.Unmarshal([]byte(out), &report)
	if code != 0 || err != nil || report.Items != n || report.Views["message_by_id"].Missing != 0 || report.Fixed() != 0 {
		t.Errorf("repair from the promoted key: exit %d, %v; want %d items, none missing\n%s%s", code, err, n, out, errOut)
	}
}

func chatBucketOf(t *testing.T, at time.Time) bucket.Bucket {
	t.Helper()
	b, err := refmodel.ChatScheme().Of(at)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func snowflakeTime(id int64) time.Time {
	var b bucket.ID
	binary.BigEndian.PutUint64(b[8:], uint64(id))
	at, _ := bucket.DiscordSnowflake().Time(b)
	return at
}
