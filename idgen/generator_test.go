package idgen_test

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/idgen"
)

// A clock moving faster than the precision: every ID has the clock's time,
// is valid, round-trips through its text and is after the one before.
func TestNextFollowsClock(t *testing.T) {
	for _, tt := range kinds {
		t.Run(tt.name, func(t *testing.T) {
			c := &clock{t: start.Add(123456789), step: 1234567}
			g := newGen(t, tt.kind, idgen.WithClock(c.now), idgen.WithRand(seeded(1)))
			ids := make([]bucket.ID, 1000)
			for i := range ids {
				want := c.t.Truncate(tt.kind.Precision())
				ids[i] = next(t, g)
				if got := timeOf(t, tt.kind, ids[i]); !got.Equal(want) {
					t.Fatalf("ID %d: Time = %v, want %v", i, got, want)
				}
				back, err := tt.kind.Parse(tt.kind.Format(ids[i]))
				if err != nil || back != ids[i] {
					t.Fatalf("Parse(Format(%x)) = %x, %v", ids[i], back, err)
				}
			}
			increasing(t, tt.kind, ids)
		})
	}
}

// A clock that stands still for 20,000 IDs: IDs keep increasing and borrow
// the following ticks, never more than the maximum borrow ahead.
func TestNextStillClock(t *testing.T) {
	const n = 20_000
	for _, tt := range kinds {
		t.Run(tt.name, func(t *testing.T) {
			g := newGen(t, tt.kind, idgen.WithClock(func() time.Time { return start }),
				idgen.WithRand(seeded(2)), idgen.WithMaxBorrow(time.Minute))
			ids := make([]bucket.ID, n)
			for i := range ids {
				ids[i] = next(t, g)
			}
			increasing(t, tt.kind, ids)
			if got := timeOf(t, tt.kind, ids[0]); !got.Equal(start) {
				t.Errorf("first Time = %v, want %v", got, start)
			}
			last := timeOf(t, tt.kind, ids[n-1])
			if last.Before(start) || last.After(start.Add(time.Minute)) {
				t.Errorf("last Time = %v, want within a minute after %v", last, start)
			}
		})
	}
}

// Where a still clock puts each kind's 20,000th ID: a snowflake borrows a
// millisecond per full sequence, a TimeUUID 100 ns per ID, the random kinds
// never need to.
func TestNextStillClockBorrow(t *testing.T) {
	tests := []struct {
		name string
		kind bucket.Kind
		want time.Duration // ahead of the clock at the 20,000th ID
	}{
		{"twitter", bucket.TwitterSnowflake(), 4 * time.Millisecond}, // 19,999 / 4,096
		{"timeuuid", bucket.TimeUUID{}, 19_999 * 100 * time.Nanosecond},
		{"uuidv7", bucket.UUIDv7{}, 0},
		{"ulid", bucket.ULID{}, 0},
		{"timestamp", bucket.Timestamp{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGen(t, tt.kind, idgen.WithClock(func() time.Time { return start }), idgen.WithRand(seeded(3)))
			var id bucket.ID
			for range 20_000 {
				id = next(t, g)
			}
			if got := timeOf(t, tt.kind, id).Sub(start); got != tt.want {
				t.Errorf("20,000th ID %v ahead, want %v", got, tt.want)
			}
		})
	}
}

// A clock stepping back: IDs keep the last time and count on, and follow
// the clock again once it has passed them.
func TestNextClockStepsBack(t *testing.T) {
	ms := time.Millisecond
	readings := []time.Time{start, start, start.Add(ms), start.Add(-time.Hour), start.Add(-time.Hour + ms), start.Add(ms), start.Add(2 * ms)}
	wantAt := []time.Duration{0, 0, ms, ms, ms, ms, 2 * ms}
	wantSeq := []uint64{0, 1, 0, 1, 2, 3, 0}
	for _, tt := range kinds {
		t.Run(tt.name, func(t *testing.T) {
			i := 0
			g := newGen(t, tt.kind, idgen.WithRand(seeded(4)), idgen.WithClock(func() time.Time { i++; return readings[i-1] }))
			ids := make([]bucket.ID, len(readings))
			for j := range ids {
				ids[j] = next(t, g)
			}
			increasing(t, tt.kind, ids)
			for j, id := range ids {
				at := timeOf(t, tt.kind, id)
				want := start.Add(wantAt[j])
				if _, ok := tt.kind.(bucket.TimeUUID); ok && j > 0 && wantSeq[j] > 0 {
					want = want.Add(time.Duration(wantSeq[j]) * 100) // a TimeUUID takes the next tick
				}
				if s, ok := tt.kind.(bucket.Snowflake); ok && s.SequenceBits > 0 && seq(s, id) != wantSeq[j] {
					t.Errorf("ID %d: sequence %d, want %d", j, seq(s, id), wantSeq[j])
				}
				if s, ok := tt.kind.(bucket.Snowflake); ok && s.SequenceBits == 0 {
					continue // every ID takes a millisecond of its own
				}
				if !at.Equal(want) {
					t.Errorf("ID %d: Time = %v, want %v", j, at, want)
				}
			}
		})
	}
}

// A clock set back an hour that then runs normally: its progress counts,
// so a snowflake with no sequence bits and 1 ms of borrow goes on for
// 10,000 IDs; a clock stuck an hour back exhausts it after one.
func TestNextClockBehindButMoving(t *testing.T) {
	kind := bucket.Snowflake{Epoch: time.UnixMilli(0).UTC(), WorkerBits: 4}
	for _, step := range []time.Duration{time.Millisecond, 0} {
		c := &clock{t: start}
		g := newGen(t, kind, idgen.WithClock(c.now), idgen.WithMaxBorrow(time.Millisecond))
		next(t, g)
		c.t, c.step = start.Add(-time.Hour), step
		var err error
		n := 0
		for ; n < 10_000 && err == nil; n++ {
			_, err = g.Next()
		}
		switch {
		case step > 0 && err != nil:
			t.Errorf("moving clock: ID %d: %v", n, err)
		case step == 0 && (n != 2 || !errors.Is(err, idgen.ErrExhausted)):
			t.Errorf("stuck clock: ID %d: err %v, want ErrExhausted at the 2nd", n, err)
		}
	}
}

// Sequence overflow: Twitter's 4,096 IDs of one millisecond, then borrow up
// to the maximum, then ErrExhausted, which changes nothing; a moving clock
// ends it.
func TestNextSequenceOverflow(t *testing.T) {
	kind := bucket.TwitterSnowflake()
	tests := []struct {
		name   string
		borrow time.Duration
		want   int // IDs before ErrExhausted
	}{
		{"no borrow", 0, 4096},
		{"2 ms", 2 * time.Millisecond, 3 * 4096},
		{"below a millisecond rounds down", 999 * time.Microsecond, 4096},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &clock{t: start}
			g := newGen(t, kind, idgen.WithClock(c.now), idgen.WithMaxBorrow(tt.borrow))
			var last bucket.ID
			for i := range tt.want {
				last = next(t, g)
				if want := start.Add(time.Duration(i/4096) * time.Millisecond); !timeOf(t, kind, last).Equal(want) {
					t.Fatalf("ID %d: Time %v, want %v", i, timeOf(t, kind, last), want)
				}
			}
			for range 2 {
				if _, err := g.Next(); !errors.Is(err, idgen.ErrExhausted) {
					t.Fatalf("after %d IDs: err %v, want ErrExhausted", tt.want, err)
				}
			}
			c.t = start.Add(tt.borrow + time.Millisecond)
			want := c.t.Truncate(time.Millisecond)
			id := next(t, g)
			if kind.Compare(last, id) >= 0 || seq(kind, id) != 0 || !timeOf(t, kind, id).Equal(want) {
				t.Errorf("after the clock moved: %s (seq %d) after %s", kind.Format(id), seq(kind, id), kind.Format(last))
			}
		})
	}
}

// The kind's last instant: once its counter is full, ErrExhausted (and
// bucket.ErrOutOfRange); a clock past it is bucket.ErrOutOfRange.
func TestNextLastInstant(t *testing.T) {
	kind := bucket.TwitterSnowflake()
	end := kind.Epoch.Add((1<<41 - 1) * time.Millisecond)
	at := end
	g := newGen(t, kind, idgen.WithClock(func() time.Time { return at }))
	for range 4096 {
		next(t, g)
	}
	_, err := g.Next()
	if !errors.Is(err, idgen.ErrExhausted) || !errors.Is(err, bucket.ErrOutOfRange) {
		t.Errorf("full last millisecond: err %v, want ErrExhausted and bucket.ErrOutOfRange", err)
	}
	at = end.Add(time.Millisecond)
	if _, err := g.Next(); errors.Is(err, idgen.ErrExhausted) || !errors.Is(err, bucket.ErrOutOfRange) {
		t.Errorf("clock past the end: err %v, want bucket.ErrOutOfRange only", err)
	}
}

func TestNextBeforeEpoch(t *testing.T) {
	tests := []struct {
		name string
		kind bucket.Kind
		at   time.Time
	}{
		{"discord", bucket.DiscordSnowflake(), bucket.DiscordSnowflake().Epoch.Add(-time.Millisecond)},
		{"twitter", bucket.TwitterSnowflake(), time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"timeuuid", bucket.TimeUUID{}, time.Date(1582, 10, 14, 23, 59, 59, 0, time.UTC)},
		{"uuidv7", bucket.UUIDv7{}, time.Unix(0, -1)},
		{"ulid", bucket.ULID{}, time.Unix(-1, 0)},
		{"timestamp", bucket.Timestamp{}, time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := start
			g := newGen(t, tt.kind, idgen.WithClock(func() time.Time { return at }))
			before := next(t, g)
			at = tt.at
			if _, err := g.Next(); !errors.Is(err, bucket.ErrBeforeEpoch) {
				t.Errorf("err %v, want bucket.ErrBeforeEpoch", err)
			}
			at = start
			if after := next(t, g); tt.kind.Compare(before, after) >= 0 {
				t.Errorf("after the error: %x not after %x", after, before)
			}
		})
	}
}

// The zero ID is an unset field, never an item: at a kind's origin with
// zero random bits it is skipped.
func TestNextSkipsZeroID(t *testing.T) {
	tests := []struct {
		name string
		kind bucket.Kind
		at   time.Time
	}{
		{"discord", bucket.DiscordSnowflake(), bucket.DiscordSnowflake().Epoch},
		{"snowflake 0 sequence bits", bucket.Snowflake{Epoch: time.UnixMilli(0).UTC(), WorkerBits: 4}, time.UnixMilli(0)},
		{"ulid", bucket.ULID{}, time.UnixMilli(0)},
		{"timestamp", bucket.Timestamp{}, time.Unix(0, -1<<63)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGen(t, tt.kind, idgen.WithClock(func() time.Time { return tt.at }), idgen.WithRand(zeros{}))
			ids := []bucket.ID{next(t, g), next(t, g)}
			if ids[0].IsZero() {
				t.Fatal("first ID is zero")
			}
			increasing(t, tt.kind, append([]bucket.ID{{}}, ids...))
		})
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestWorkerRoundTrip(t *testing.T) {
	twitter := bucket.TwitterSnowflake()
	noWorker := bucket.Snowflake{Epoch: twitter.Epoch, SequenceBits: 22}
	tests := []struct {
		name    string
		kind    bucket.Snowflake
		worker  uint64
		wantErr error
	}{
		{"zero", twitter, 0, nil},
		{"one", twitter, 1, nil},
		{"datacenter 31 worker 7", twitter, 31<<5 | 7, nil},
		{"largest", twitter, 1023, nil},
		{"one too wide", twitter, 1024, idgen.ErrBadOption},
		{"no worker bits, zero", noWorker, 0, nil},
		{"no worker bits, one", noWorker, 1, idgen.ErrBadOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &clock{t: start, step: time.Microsecond}
			g, err := idgen.New(tt.kind, idgen.WithWorker(tt.worker), idgen.WithClock(c.now))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("New: err %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			for range 5000 {
				v, err := g.NextInt64()
				if err != nil {
					t.Fatal(err)
				}
				if got := worker(tt.kind, tt.kind.FromInt64(v)); got != tt.worker {
					t.Fatalf("worker %d, want %d", got, tt.worker)
				}
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		kind bucket.Kind
		opts []idgen.Option
		want error
	}{
		{"nil kind", nil, nil, idgen.ErrUnsupportedKind},
		{"foreign kind", foreignKind{}, nil, idgen.ErrUnsupportedKind},
		{"pointer to a kind", &bucket.ULID{}, nil, idgen.ErrUnsupportedKind},
		{"bad layout", bucket.Snowflake{Epoch: start, WorkerBits: 12, SequenceBits: 12}, nil, bucket.ErrBadKind},
		{"nil clock", bucket.ULID{}, []idgen.Option{idgen.WithClock(nil)}, idgen.ErrBadOption},
		{"nil rand", bucket.ULID{}, []idgen.Option{idgen.WithRand(nil)}, idgen.ErrBadOption},
		{"negative borrow", bucket.ULID{}, []idgen.Option{idgen.WithMaxBorrow(-1)}, idgen.ErrBadOption},
		{"worker of a ulid", bucket.ULID{}, []idgen.Option{idgen.WithWorker(0)}, idgen.ErrBadOption},
		{"node of a snowflake", bucket.TwitterSnowflake(), []idgen.Option{idgen.WithNode([6]byte{})}, idgen.ErrBadOption},
		{"timeuuid without randomness", bucket.TimeUUID{}, []idgen.Option{idgen.WithRand(failing{})}, errRead},
		{"nil option is skipped", bucket.ULID{}, []idgen.Option{nil}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := idgen.New(tt.kind, tt.opts...)
			if !errors.Is(err, tt.want) || (err == nil) != (g != nil) {
				t.Errorf("New = %v, %v; want error %v", g, err, tt.want)
			}
		})
	}
}

type foreignKind struct{ bucket.ULID }

var errRead = errors.New("read failed")

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errRead }

// A failing random reader fails Next and changes nothing.
func TestNextRandError(t *testing.T) {
	fail := false
	r := readerFunc(func(p []byte) (int, error) {
		if fail {
			return 0, errRead
		}
		return seeded(5).Read(p)
	})
	c := &clock{t: start}
	g := newGen(t, bucket.UUIDv7{}, idgen.WithClock(c.now), idgen.WithRand(r))
	first := next(t, g)
	fail = true
	for _, step := range []time.Duration{0, time.Millisecond} { // increment, then fresh tick
		c.t = c.t.Add(step)
		if _, err := g.Next(); !errors.Is(err, errRead) {
			t.Errorf("err %v, want %v", err, errRead)
		}
	}
	fail = false
	if id := next(t, g); bucket.UUIDv7.Compare(bucket.UUIDv7{}, first, id) >= 0 {
		t.Errorf("%x not after %x", id, first)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

var _ io.Reader = readerFunc(nil)

// NextUUID is a gocql.UUID of the right version and time; NextInt64 is the
// snowflake's bigint; each refuses the other kinds.
func TestNextGoForms(t *testing.T) {
	at := start.Add(123456789)
	now := func() time.Time { return at }
	for _, tt := range []struct {
		kind    bucket.Kind
		version int
	}{{bucket.TimeUUID{}, 1}, {bucket.UUIDv7{}, 7}} {
		g := newGen(t, tt.kind, idgen.WithClock(now))
		var u gocql.UUID
		u, err := g.NextUUID()
		if err != nil || u.Version() != tt.version {
			t.Errorf("%v: NextUUID = %v (version %d), %v", tt.kind, u, u.Version(), err)
		}
		if _, err := g.NextInt64(); !errors.Is(err, idgen.ErrUnsupportedKind) {
			t.Errorf("%v: NextInt64 err %v, want ErrUnsupportedKind", tt.kind, err)
		}
	}
	g := newGen(t, bucket.TimeUUID{}, idgen.WithClock(now))
	u, _ := g.NextUUID()
	if got, want := gocql.UUID(u).Time(), at.Truncate(100); !got.Equal(want) {
		t.Errorf("gocql time %v, want %v", got, want)
	}

	kind := bucket.DiscordSnowflake()
	g = newGen(t, kind, idgen.WithClock(now))
	v, err := g.NextInt64()
	if err != nil || !timeOf(t, kind, kind.FromInt64(v)).Equal(at.Truncate(time.Millisecond)) {
		t.Errorf("NextInt64 = %d, %v", v, err)
	}
	for _, k := range []bucket.Kind{kind, bucket.ULID{}, bucket.Timestamp{}} {
		if _, err := newGen(t, k).NextUUID(); !errors.Is(err, idgen.ErrUnsupportedKind) {
			t.Errorf("%v: NextUUID err %v, want ErrUnsupportedKind", k, err)
		}
	}
	if got := g.Kind(); got != kind {
		t.Errorf("Kind = %v, want %v", got, kind)
	}
}

// Two TimeUUID generators differ in clock sequence and node; WithNode is kept.
func TestTimeUUIDNode(t *testing.T) {
	now := func() time.Time { return start }
	a, _ := newGen(t, bucket.TimeUUID{}, idgen.WithClock(now)).Next()
	b, _ := newGen(t, bucket.TimeUUID{}, idgen.WithClock(now)).Next()
	if a == b || a[10]&1 != 1 {
		t.Errorf("random nodes: %x and %x, want different, multicast bit set", a, b)
	}
	node := [6]byte{0x02, 0x42, 0xac, 0x11, 0, 2}
	c, _ := newGen(t, bucket.TimeUUID{}, idgen.WithClock(now), idgen.WithNode(node)).Next()
	if [6]byte(c[10:]) != node {
		t.Errorf("node %x, want %x", c[10:], node)
	}
}

func TestNextDoesNotAllocate(t *testing.T) {
	for _, tt := range kinds {
		t.Run(tt.name, func(t *testing.T) {
			c := &clock{t: start, step: time.Microsecond}
			g := newGen(t, tt.kind, idgen.WithClock(c.now))
			if n := testing.AllocsPerRun(1000, func() { _, _ = g.Next() }); n != 0 {
				t.Errorf("Next allocates %v times", n)
			}
		})
	}
}
