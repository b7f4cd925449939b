package repo

import (
	"bytes"
	"context"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"go.uber.org/goleak"

	"github.com/tsbucket/tsbucket/schema"
)

// goroutineExec records the goroutine that sends each statement, and the
// profiler label "op" of the context it was sent with.
type goroutineExec struct {
	*fakeCluster
	mu     sync.Mutex
	ids    map[uint64]int // goroutine: statements sent on it
	labels []string
	// senderLabels, once asked for (probe), is the profiler labels of
	// the first sender goroutine that sent a statement, as a goroutine
	// profile shows them: the goroutine's own, which the context's
	// (labels) are not.
	probe        bool
	senderLabels string
}

func (e *goroutineExec) Exec(ctx context.Context, s Statement) error {
	e.record(ctx)
	return e.fakeCluster.Exec(ctx, s)
}

func (e *goroutineExec) Query(ctx context.Context, s Statement) Rows {
	e.record(ctx)
	return e.fakeCluster.Query(ctx, s)
}

func (e *goroutineExec) record(ctx context.Context) {
	op, _ := pprof.Label(ctx, "op")
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ids[goroutineID()]++
	e.labels = append(e.labels, op)
	if e.probe && e.senderLabels == "" {
		e.senderLabels = senderLabels()
	}
}

// senderLabels is the "# labels:" line of the goroutine profile's record
// of a sender sending a statement (serve, in goroutineExec.record: the
// calling goroutine, when it is a sender), or "" when the caller is not
// one.
func senderLabels() string {
	var b bytes.Buffer
	pprof.Lookup("goroutine").WriteTo(&b, 1)
	for rec := range strings.SplitSeq(b.String(), "\n\n") {
		if strings.Contains(rec, "(*senderPool).serve") && strings.Contains(rec, "(*goroutineExec).record") {
			for line := range strings.SplitSeq(rec, "\n") {
				if strings.HasPrefix(line, "# labels:") {
					return line
				}
			}
			return "# labels: none"
		}
	}
	return ""
}

// goroutineRepo is a repository of views over a fake cluster, at fixedNow,
// whose statements rec records.
func goroutineRepo(t *testing.T, views []schema.View, opts Options) (*Repo[note], *goroutineExec) {
	t.Helper()
	fake := newFakeCluster(t, "ks", views, func() time.Time { return fixedNow })
	rec := &goroutineExec{fakeCluster: fake, ids: map[uint64]int{}}
	opts.Now = func() time.Time { return fixedNow }
	opts.WrapExecutor = func(Executor) Executor { return rec }
	r, err := New[note](tripwireSession(), "ks", views, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r, rec
}

// goroutineID is the calling goroutine's number, from the first line of
// its stack trace ("goroutine 42 [running]:").
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	id, _ := strconv.ParseUint(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	return id
}

// TestSendersAreReused: the inserts a Put sends from goroutines of its own
// go out on goroutines that sent earlier ones, whose stacks the driver's
// frames have grown already. A goroutine started for each of them, as
// before, had its stack copied to a larger one nearly every time (about
// 4 µs a statement on a node, issue 26). The calling goroutine sends one
// view's insert itself; the others' senders are a few, not one per
// statement, they send with the caller's context (its profiler labels
// too), and once idle they end (goleak).
func TestSendersAreReused(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r, rec := goroutineRepo(t, modelViews(t, time.Hour, nil), Options{})
	modelPut(t, r, fixedNow.Add(-time.Hour), 0) // the presence entries: every later row goes alone
	rec.ids, rec.labels, rec.probe = map[uint64]int{}, nil, true

	const puts = 200
	caller := goroutineID()
	ctx := pprof.WithLabels(t.Context(), pprof.Labels("op", "put"))
	for i := range puts {
		n := note{Room: "r", EditID: snowflakeFor(t, fixedNow.Add(-time.Hour)) + int64(i) + 1, Body: "x"}
		n.NoteID = n.EditID
		if err := r.Put(ctx, &n); err != nil {
			t.Fatal(err)
		}
	}
	alone := len(r.order) - 1 // sent by senders; the last view by the caller
	if got := rec.ids[caller]; got != puts {
		t.Errorf("the caller sent %d statements, want %d (one per Put)", got, puts)
	}
	delete(rec.ids, caller)
	sent := 0
	for _, n := range rec.ids {
		sent += n
	}
	if sent != puts*alone {
		t.Fatalf("senders sent %d statements, want %d", sent, puts*alone)
	}
	// Sequential Puts: a sender is nearly always waiting again before the
	// next Put hands it a statement (when it is not, yet, another starts),
	// so the senders are a few. A goroutine per statement would be
	// puts*alone of them.
	if most := puts * alone / 10; len(rec.ids) > most {
		t.Errorf("%d goroutines sent the %d statements of %d Puts; want at most %d, reused", len(rec.ids), sent, puts, most)
	}
	for i, l := range rec.labels {
		if l != "put" {
			t.Fatalf("statement %d sent with profiler label op=%q in its context, want the caller's \"put\"", i, l)
		}
	}
	if want := `# labels: {"op":"put"}`; rec.senderLabels != want {
		t.Errorf("a sender's goroutine had %q while it sent, want %q: the Put's labels, as a goroutine the Put started inherited them", rec.senderLabels, want)
	}
}

// TestPutManyGoroutines: PutMany writes its groups on at most
// Options.Write.Concurrency goroutines, each taking the next group free,
// not on a goroutine per group (a hundred and one here), each of which
// grew its small stack once or twice (issue 26). Every group is written
// once.
func TestPutManyGoroutines(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const concurrency = 4
	r, rec := goroutineRepo(t, modelViews(t, time.Hour, nil), Options{Write: WriteOptions{Concurrency: concurrency}})
	notes := make([]note, 100)
	for i := range notes {
		n := note{Room: "r", EditID: snowflakeFor(t, fixedNow.Add(-time.Minute)) + int64(i), Body: "x"}
		n.NoteID = n.EditID
		notes[i] = n
	}
	if err := r.PutMany(t.Context(), notes); err != nil {
		t.Fatal(err)
	}
	if len(rec.ids) > concurrency {
		t.Errorf("PutMany sent on %d goroutines, want at most Write.Concurrency %d", len(rec.ids), concurrency)
	}
	// by_room: one batch of the room's bucket and its presence entry;
	// note_by_id: one insert per note.
	var byID, batches int
	for _, s := range rec.take() {
		switch {
		case s.Table == "note_by_id":
			byID++
		case s.Op == "batch":
			batches++
		}
	}
	if byID != len(notes) || batches < 1 {
		t.Errorf("sent %d inserts to note_by_id (want %d) and %d batches (want 1 or more)", byID, len(notes), batches)
	}
	got, err := r.Read(t.Context(), Query{View: "by_room", Key: Key{"r"}, Limit: 200})
	if err != nil || len(got.Items) != len(notes) {
		t.Fatalf("read back %d notes, %v; want %d", len(got.Items), err, len(notes))
	}
}

// TestLatestValuesGoroutines: LatestValues reads its keys on at most 16
// goroutines, each taking the next key, not on a goroutine per key, and
// finds each key's newest item.
func TestLatestValuesGoroutines(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r, rec := goroutineRepo(t, append(noteViews(), latestNoteView()), Options{})
	keys := make([]Key, 100)
	for i := range keys {
		room := "room-" + strconv.Itoa(i)
		keys[i] = Key{room}
		n := note{Room: room, EditID: snowflakeFor(t, fixedNow.Add(-time.Minute)) + int64(i), Body: room}
		n.NoteID = n.EditID
		if err := r.Put(t.Context(), &n); err != nil {
			t.Fatal(err)
		}
	}
	rec.ids = map[uint64]int{}
	items, found, err := r.LatestValues(t.Context(), "latest_by_room", keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range items {
		if !found[i] || it.Body != "room-"+strconv.Itoa(i) {
			t.Fatalf("key %d: found %v, item %+v", i, found[i], it)
		}
	}
	if len(rec.ids) > latestConcurrency {
		t.Errorf("LatestValues read on %d goroutines, want at most %d", len(rec.ids), latestConcurrency)
	}
}

// stackExec is a goroutineExec whose Exec first takes deepStackFrames
// frames of the goroutine's stack, as the driver's do, and records where
// on its goroutine's stack each Exec ran.
type stackExec struct {
	*goroutineExec
	at map[uint64][]uintptr // goroutine: the address of Exec's frame, per statement
}

func (e *stackExec) Exec(ctx context.Context, s Statement) error {
	var here byte
	id := goroutineID()
	e.mu.Lock()
	e.at[id] = append(e.at[id], uintptr(unsafe.Pointer(&here)))
	e.mu.Unlock()
	deepStack(deepStackFrames)
	return e.goroutineExec.Exec(ctx, s)
}

// deepStackFrames frames of about 512 bytes: 16 KiB, deep enough that a
// sender's grown stack is under a quarter used while it waits, without
// sendReserve.
const deepStackFrames = 32

//go:noinline
func deepStack(n int) byte {
	var frame [512]byte
	frame[n%len(frame)] = byte(n)
	if n > 0 {
		return deepStack(n-1) + frame[0]
	}
	return frame[0]
}

// TestSenderStacksKept: a sender keeps the stack the driver's frames grew
// while it waits for its next statement. The collector halves the stack
// of a goroutine that uses under a quarter of it, and an idle sender used
// hardly any: after each collection its next statement grew the stack
// again, copying it (bench/ -cpuprofile: runtime.newstack under the
// senders, 1 to 2 µs a Put, gone with GODEBUG=gcshrinkstackoff=1; issue 26).
// A stack copied moves: Exec's frame on a sender that sent before and
// after a collection is where it was.
func TestSenderStacksKept(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	fake := newFakeCluster(t, "ks", modelViews(t, time.Hour, nil), func() time.Time { return fixedNow })
	rec := &stackExec{goroutineExec: &goroutineExec{fakeCluster: fake, ids: map[uint64]int{}}, at: map[uint64][]uintptr{}}
	r, err := New[note](tripwireSession(), "ks", modelViews(t, time.Hour, nil), Options{
		Now:          func() time.Time { return fixedNow },
		WrapExecutor: func(Executor) Executor { return rec },
	})
	if err != nil {
		t.Fatal(err)
	}
	modelPut(t, r, fixedNow.Add(-time.Hour), 0) // the presence entries: every later row goes alone
	caller := goroutineID()
	id := snowflakeFor(t, fixedNow.Add(-time.Hour))
	put := func() {
		id++
		n := note{Room: "r", EditID: id, NoteID: id, Body: "x"}
		if err := r.Put(t.Context(), &n); err != nil {
			t.Fatal(err)
		}
	}
	// Each try: Puts, a collection, Puts. A sender compared sent twice
	// before it (its first statement grew its new stack), and sends
	// again after; should a slow machine let every sender end in between
	// (100 ms idle), the next try has new ones.
	kept := 0
	for try := 0; try < 3 && kept == 0; try++ {
		for range 5 {
			put()
		}
		before := map[uint64]uintptr{}
		rec.mu.Lock()
		for g, at := range rec.at {
			if g != caller && len(at) >= 2 {
				before[g] = at[len(at)-1]
			}
			rec.at[g] = nil
		}
		rec.mu.Unlock()
		runtime.GC()
		for range 5 {
			put()
		}
		rec.mu.Lock()
		for g, at := range rec.at {
			was, ok := before[g]
			if !ok || len(at) == 0 {
				continue
			}
			if at[0] != was {
				t.Errorf("sender goroutine %d's stack moved across a collection (Exec's frame at %#x, then %#x): it was shrunk while idle, and grown again", g, was, at[0])
			}
			kept++
		}
		clear(rec.at)
		rec.mu.Unlock()
	}
	if kept == 0 {
		t.Fatal("in three tries, no sender sent twice before a collection and again after it")
	}
}
