package integration

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

var (
	modelSeed  = flag.Int64("model.seed", 0, "TestModel: run only this seed (0: seeds 1..model.seeds)")
	modelSeeds = flag.Int("model.seeds", 4, "TestModel: how many seeds to run")
	modelSteps = flag.Int("model.steps", 250, "TestModel: steps per seed")
)

// TestModel is a randomized stateful test of the repository's contract
// against a real node. Per seed, on keys of its own in a fresh keyspace, it
// runs random steps on the chat views (snowflake IDs, ten-day buckets over
// two years) and the IoT views (TimeUUID IDs, daily and hourly buckets over
// six weeks, 30-day TTL, backfill older than it): Put, PutMany, edits,
// deletes (also with the timestamp of the newest write: a tombstone wins the
// tie), writes that fail part-way (a statement failed before it is sent, or
// after it was applied) retried later with RetryOf, rows with a 2-5 s TTL
// that expire during the run, items stamped up to 50 minutes ahead (and
// refused beyond MaxFutureSkew), and
// writes that must be refused. A third chat flavor writes each bucket over
// three shards, a fourth uses views whose bucket width changed twice
// within the two years (narrower then wider, wider then hourly), with items
// exactly at the changes, and a fifth shards per key, its busy channel
// promoted mid-bucket 300 days ago. Every few steps it reads a key page by page,
// both directions, random page sizes and ranges, through the writer and
// through repositories whose clocks are 3 days ahead and 20 minutes behind,
// and compares with a model kept per view. A failure names the seed; rerun
// it with -model.seed=N (make model SEED=N).
func TestModel(t *testing.T) {
	// One keyspace for all seeds: each seed's keys are its own (flavors
	// offset them by the seed), so no seed sees another's rows, and parallel
	// seeds do not each wait on schema changes (keyspace creation timed out
	// on a busy node with six seeds at once).
	ks, s := refKeyspace(t)
	sharded := flavorKeyspace(t, s, shardedChatFlavor(0))
	rebucketed := flavorKeyspace(t, s, rebucketedChatFlavor(0))
	hot := flavorKeyspace(t, s, hotChatFlavor(0))
	seeds := []int64{*modelSeed}
	if *modelSeed == 0 {
		seeds = seeds[:0]
		for i := range *modelSeeds {
			seeds = append(seeds, int64(i+1))
		}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			runModel(t, s, modelKeyspaces{ks, sharded, rebucketed, hot}, seed, *modelSteps)
		})
	}
}

// modelKeyspaces are the keyspaces of the model's flavors.
type modelKeyspaces struct{ ref, sharded, rebucketed, hot string }

func runModel(t *testing.T, s *gocql.Session, ks modelKeyspaces, seed int64, steps int) {
	r := &runner{t: t, seed: seed, rng: rand.New(rand.NewPCG(uint64(seed), 0x7a6d)), counts: map[string]int{}}
	chat := newSim(r, s, ks.ref, chatFlavor(seed))
	iot := newSim(r, s, ks.ref, iotFlavor(seed))
	shardedChat := newSim(r, s, ks.sharded, shardedChatFlavor(seed))
	rebucketedChat := newSim(r, s, ks.rebucketed, rebucketedChatFlavor(seed))
	hotChat := newSim(r, s, ks.hot, hotChatFlavor(seed))
	actors := []actor{chat, iot, shardedChat, rebucketedChat, hotChat}
	start := time.Now()
	for r.step = 1; r.step <= steps; r.step++ {
		r.runDue()
		a := actors[r.rng.IntN(len(actors))]
		if r.rng.IntN(4) == 0 {
			a.checkStep(r)
		} else {
			a.writeStep(r)
		}
	}
	r.runAll()
	// Let every short TTL run out, so the final reads see expired rows gone.
	for _, at := range []time.Time{chat.truth.lastExpiry(), iot.truth.lastExpiry(), shardedChat.truth.lastExpiry(),
		rebucketedChat.truth.lastExpiry(), hotChat.truth.lastExpiry()} {
		time.Sleep(time.Until(at.Add(expiryMargin)))
	}
	for _, a := range actors {
		a.finalCheck(r)
	}
	t.Logf("seed %d: %d steps, %d chat, %d iot, %d sharded, %d rebucketed and %d per-key sharded chat items, %v; %v", seed, steps,
		len(chat.ids), len(iot.ids), len(shardedChat.ids), len(rebucketedChat.ids), len(hotChat.ids), time.Since(start).Round(time.Millisecond), r.counts)
}

// actor is one flavor's sim, whatever its item type.
type actor interface {
	writeStep(r *runner)
	checkStep(r *runner)
	finalCheck(r *runner)
}

// newSim opens the writer (real clock, fault-injecting executor) and two
// readers whose clocks are shifted: what is alive is the database's call,
// not the reader's clock, so they must read the same.
func newSim[T comparable](r *runner, s *gocql.Session, ks string, f *flavor[T]) *sim[T] {
	if f.setup != nil {
		if err := f.setup(s, ks); err != nil {
			r.t.Fatalf("set up %s: %v", f.name, err)
		}
	}
	fx := &faultExec{}
	clk := &clock{}
	open := func(opts repo.Options) *repo.Repo[T] {
		rp, err := repo.Open[T](r.t.Context(), s, ks, f.views, opts)
		if err != nil {
			r.t.Fatalf("open %s repo: %v", f.name, err)
		}
		return rp
	}
	writer := open(repo.Options{Now: clk.Now, WrapExecutor: func(next repo.Executor) repo.Executor {
		fx.next = next
		return fx
	}})
	shifted := func(d time.Duration) func() time.Time {
		return func() time.Time { return time.Now().Add(d) }
	}
	return &sim[T]{
		f: f, writer: writer, fx: fx, clk: clk, truth: newTruth(f),
		readers: []reader[T]{
			{name: "writer", r: writer},
			{name: "clock+3d", r: open(repo.Options{Now: shifted(3 * 24 * time.Hour)})},
			{name: "clock-20m", r: open(repo.Options{Now: shifted(-20 * time.Minute)})},
		},
		items: map[bucket.ID]T{}, lastTS: map[bucket.ID]int64{},
	}
}

// runner holds what the steps of one seed share: the random source, the
// step count, retries waiting for their step, and a trace of what was done,
// printed when a check fails.
type runner struct {
	t       *testing.T
	seed    int64
	rng     *rand.Rand
	step    int
	trace   []string
	retries []retry
	counts  map[string]int // what the seed exercised, logged at its end
}

type retry struct {
	due int
	run func()
}

// later runs fn at the start of the step `steps` from now.
func (r *runner) later(steps int, fn func()) {
	r.retries = append(r.retries, retry{due: r.step + steps, run: fn})
}

// runDue runs the retries due by now, in the order they were scheduled.
func (r *runner) runDue() {
	var left []retry
	due := r.retries
	r.retries = nil
	for _, rt := range due {
		if rt.due <= r.step {
			rt.run()
		} else {
			left = append(left, rt)
		}
	}
	r.retries = append(left, r.retries...)
}

// runAll runs every pending retry.
func (r *runner) runAll() {
	for len(r.retries) > 0 {
		rt := r.retries[0]
		r.retries = r.retries[1:]
		rt.run()
	}
}

// duration is uniform in [0, d).
func (r *runner) duration(d time.Duration) time.Duration {
	return time.Duration(r.rng.Int64N(int64(d)))
}

func (r *runner) count(what string, n int) { r.counts[what] += n }

func (r *runner) logf(format string, args ...any) {
	r.trace = append(r.trace, fmt.Sprintf("step %d: ", r.step)+fmt.Sprintf(format, args...))
}

// fatalf fails the seed with its number, the way to rerun it, and the
// last steps that led there.
func (r *runner) fatalf(format string, args ...any) {
	r.t.Helper()
	tail := r.trace[max(0, len(r.trace)-40):]
	r.t.Fatalf("seed %d (rerun: go test -run 'TestModel' -model.seed=%d ./integration), step %d: %s\nlast steps:\n%s",
		r.seed, r.seed, r.step, fmt.Sprintf(format, args...), strings.Join(tail, "\n"))
}

// flavorKeyspace applies a flavor's views to a keyspace of their own (the
// chat and IoT flavors use the reference migrations).
func flavorKeyspace[T comparable](t *testing.T, s *gocql.Session, f *flavor[T]) string {
	t.Helper()
	ks := testKeyspace(t) // dropped when the test ends
	if err := schema.Apply(t.Context(), s, ks, f.views); err != nil {
		t.Fatalf("apply %s views: %v", f.name, err)
	}
	return ks.Name
}
