package integration

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"go.uber.org/goleak"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// The cancellation tests: a cancelled context ends a read walk, a coalesced
// read, a fan-out and a repair promptly, and every goroutine they started is
// gone afterwards (goleak, with whatever ran before the test ignored; the
// integration package's TestMain is shared, so the check is per test).

// promptly is how long after cancel a call may take to return: a few
// in-flight statements answering their context, far below any server timeout.
const promptly = 500 * time.Millisecond

// leakCheck fails t if goroutines started during the test outlive it. It runs
// after every other cleanup, sessions and keyspace drops included. Ignored
// besides what ran before: the two bounded goroutines gocql v1.7.0 may leave
// after Session.Close when an event arrived just before (a schema change
// makes it wait up to 60 s for schema agreement, retrying even on a closed
// session; a node coming up makes it sleep 10 s before refilling a pool).
func leakCheck(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		goleak.VerifyNone(t, ignore,
			goleak.IgnoreAnyFunction("github.com/gocql/gocql.(*Session).handleKeyspaceChange"),
			goleak.IgnoreAnyFunction("github.com/gocql/gocql.(*Session).handleNodeUp"))
	})
}

// tick is the item of the cancellation tests' view: minute buckets, so an
// open-ended walk has millions of buckets ahead of it.
type tick struct {
	Src string `db:"src"`
	ID  int64  `db:"id"`
	V   string `db:"v"`
}

func tickView() schema.View {
	s, err := bucket.Fixed(time.Minute, bucket.DiscordSnowflake().Epoch)
	if err != nil {
		panic(err) // constant arguments
	}
	return schema.View{
		Name:   "ticks_by_src",
		Key:    []schema.Column{{Name: "src", Type: "text"}},
		Scheme: s,
		ID:     schema.Column{Name: "id", Type: "bigint"},
		Kind:   bucket.DiscordSnowflake(),
		Values: []schema.Column{{Name: "v", Type: "text"}},
	}
}

// openTicks creates the tick tables in a fresh keyspace and opens a repo on
// them with its own session, closed at test end.
func openTicks(t *testing.T, opts repo.Options) *repo.Repo[tick] {
	t.Helper()
	r, _, _ := openTicksIn(t, opts)
	return r
}

// openTicksIn is openTicks that also returns the session and keyspace.
func openTicksIn(t *testing.T, opts repo.Options) (*repo.Repo[tick], *gocql.Session, string) {
	t.Helper()
	ks := newKeyspace(t)
	s := connect(t, ks)
	stmts, err := schema.DDL(ks, []schema.View{tickView()})
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range stmts {
		if err := s.Query(stmt).WithContext(t.Context()).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := s.AwaitSchemaAgreement(t.Context()); err != nil {
		t.Fatal(err)
	}
	r, err := repo.Open[tick](t.Context(), s, ks, []schema.View{tickView()}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r, s, ks
}

// cancelAfter runs call with a context cancelled after d and returns its error
// and how long it took to return after the cancel.
func cancelAfter(t *testing.T, d time.Duration, call func(context.Context) error) (error, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- call(ctx) }()
	select {
	case err := <-done:
		t.Fatalf("returned %v after %v, before the cancel: the call was too short to test", err, time.Since(start))
	case <-time.After(d):
	}
	cancel()
	cancelled := time.Now()
	select {
	case err := <-done:
		return err, time.Since(cancelled)
	case <-time.After(time.Minute):
		t.Fatal("still running a minute after cancel")
	}
	return nil, 0
}

// TestCancelReadWalk: an open-ended walk without a presence index (millions of
// empty minute buckets, probed in parallel) stops when its context does.
func TestCancelReadWalk(t *testing.T) {
	leakCheck(t)
	r := openTicks(t, repo.Options{Read: repo.ReadOptions{EmptyBucketBudget: 1 << 30, NoCoalesce: true}, Index: repo.IndexOptions{NoPresenceIndex: true}})
	err, took := cancelAfter(t, 300*time.Millisecond, func(ctx context.Context) error {
		_, err := r.Latest(ctx, "ticks_by_src", repo.Key{"quiet"}, 10)
		return err
	})
	t.Logf("walk returned %v after the cancel: %v", took, err)
	if !errors.Is(err, context.Canceled) || took > promptly {
		t.Fatalf("got %v after %v, want context.Canceled within %v", err, took, promptly)
	}
}

// TestCancelCoalescedRead: a follower whose context ends stops waiting for
// the leader's walk; the leader stops on its own cancel.
func TestCancelCoalescedRead(t *testing.T) {
	leakCheck(t)
	r := openTicks(t, repo.Options{Read: repo.ReadOptions{EmptyBucketBudget: 1 << 30}, Index: repo.IndexOptions{NoPresenceIndex: true}})
	read := func(ctx context.Context) error {
		_, err := r.Latest(ctx, "ticks_by_src", repo.Key{"quiet"}, 10)
		return err
	}
	leaderCtx, stopLeader := context.WithCancel(t.Context())
	defer stopLeader()
	leader := make(chan error, 1)
	go func() { leader <- read(leaderCtx) }()
	time.Sleep(100 * time.Millisecond) // let the leader's walk start
	err, took := cancelAfter(t, 200*time.Millisecond, read)
	if !errors.Is(err, context.Canceled) || took > promptly {
		t.Fatalf("follower: got %v after %v, want context.Canceled within %v", err, took, promptly)
	}
	stopLeader()
	select {
	case err := <-leader:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("leader: %v, want context.Canceled", err)
		}
	case <-time.After(promptly):
		t.Fatal("leader still walking after its cancel")
	}
}

// TestCancelFanout: a large PutMany cancelled once it has begun sending
// does not stop half-way (issue 23, defect 9: that left the views apart): it
// finishes every item on its own context, within Options.Write.FanoutTimeout, and
// returns nil. A Put on a cancelled context returns at once, having sent
// nothing, with an error that is not a partial write.
//
// The cancel follows the first statement the PutMany sends, seen by its
// executor: a cancel after a fixed delay raced the call's preparation (its
// 20,000 rows derived and grouped, then admitted), which a loaded machine
// under -race stretched past the delay, and a cancel before anything is
// sent rightly returns a nothing-written error.
func TestCancelFanout(t *testing.T) {
	leakCheck(t)
	const bound = time.Minute
	sent := &firstSend{seen: make(chan struct{})}
	r, s, ks := openTicksIn(t, repo.Options{
		Write:        repo.WriteOptions{Concurrency: 4, FanoutTimeout: bound},
		WrapExecutor: func(next repo.Executor) repo.Executor { sent.next = next; return sent },
	})
	now := time.Now()
	items := make([]tick, 20_000)
	for i := range items {
		id, err := bucket.DiscordSnowflake().Make(now.Add(-time.Duration(i)*time.Second), uint64(i%1024), uint64(i%4096))
		if err != nil {
			t.Fatal(err)
		}
		items[i] = tick{Src: fmt.Sprintf("src-%d", i%5000), ID: snowflakeInt(id), V: "v"}
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	sent.armed.Store(true)
	go func() { done <- r.PutMany(ctx, items) }()
	select {
	case err := <-done:
		t.Fatalf("PutMany returned %.300v before sending anything", err)
	case <-sent.seen:
	}
	time.Sleep(20 * time.Millisecond) // a few groups in flight, most still to send
	cancel()
	cancelled := time.Now()
	var err error
	select {
	case err = <-done:
	case <-time.After(bound + 10*time.Second):
		t.Fatalf("PutMany still running %v after the cancel", bound+10*time.Second)
	}
	took := time.Since(cancelled)
	t.Logf("PutMany of %d items returned %v %v after the cancel", len(items), err, took)
	if err != nil || took > bound {
		t.Fatalf("got %.300v after %v, want the fan-out finished (nil) within %v", err, took, bound)
	}
	var n int
	if err := s.Query(fmt.Sprintf("SELECT COUNT(*) FROM %s.ticks_by_src", ks)).WithContext(t.Context()).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != len(items) {
		t.Fatalf("%d rows stored, want all %d", n, len(items))
	}

	ended, end := context.WithCancel(t.Context())
	end()
	start := time.Now()
	err = r.Put(ended, &items[0])
	if !errors.Is(err, context.Canceled) || errors.Is(err, repo.ErrPartialWrite) || time.Since(start) > promptly {
		t.Fatalf("Put on a cancelled context: %v after %v", err, time.Since(start))
	}
}

// firstSend is an executor that closes seen at the first statement it
// executes once armed.
type firstSend struct {
	next  repo.Executor
	armed atomic.Bool
	once  sync.Once
	seen  chan struct{}
}

func (f *firstSend) Exec(ctx context.Context, st repo.Statement) error {
	if f.armed.Load() {
		f.once.Do(func() { close(f.seen) })
	}
	return f.next.Exec(ctx, st)
}

func (f *firstSend) Query(ctx context.Context, st repo.Statement) repo.Rows {
	return f.next.Query(ctx, st)
}

// TestCancelRepair: a repair over a long walk stops with its context.
func TestCancelRepair(t *testing.T) {
	leakCheck(t)
	r := openTicks(t, repo.Options{Read: repo.ReadOptions{EmptyBucketBudget: 1 << 30}, Index: repo.IndexOptions{NoPresenceIndex: true}})
	err, took := cancelAfter(t, 300*time.Millisecond, func(ctx context.Context) error {
		_, err := r.Repair(ctx, "ticks_by_src", repo.Key{"quiet"}, time.Time{}, time.Time{})
		return err
	})
	if !errors.Is(err, context.Canceled) || took > promptly {
		t.Fatalf("got %v after %v, want context.Canceled within %v", err, took, promptly)
	}
}

func snowflakeInt(id bucket.ID) int64 {
	var n int64
	for _, b := range id[8:] {
		n = n<<8 | int64(b)
	}
	return n
}
