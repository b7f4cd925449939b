package idgen_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/idgen"
)

// start is a whole second well inside every kind's range.
var start = time.Date(2024, 3, 5, 13, 0, 0, 0, time.UTC)

// kinds is every kind idgen generates, with layouts at the edges.
var kinds = []struct {
	name string
	kind bucket.Kind
}{
	{"twitter", bucket.TwitterSnowflake()},
	{"discord", bucket.DiscordSnowflake()},
	{"snowflake 0 sequence bits", bucket.Snowflake{Epoch: time.UnixMilli(0).UTC(), WorkerBits: 4}},
	{"snowflake 22 sequence bits", bucket.Snowflake{Epoch: time.UnixMilli(0).UTC(), SequenceBits: 22}},
	{"timeuuid", bucket.TimeUUID{}},
	{"uuidv7", bucket.UUIDv7{}},
	{"ulid", bucket.ULID{}},
	{"timestamp", bucket.Timestamp{}},
}

// clock is a fake clock that moves by step after each reading.
type clock struct {
	t    time.Time
	step time.Duration
}

func (c *clock) now() time.Time {
	t := c.t
	c.t = c.t.Add(c.step)
	return t
}

// seeded is a deterministic random reader.
func seeded(seed byte) *rand.ChaCha8 { return rand.NewChaCha8([32]byte{seed}) }

func newGen(t testing.TB, kind bucket.Kind, opts ...idgen.Option) *idgen.Generator {
	t.Helper()
	g, err := idgen.New(kind, opts...)
	if err != nil {
		t.Fatalf("New(%v): %v", kind, err)
	}
	return g
}

func next(t testing.TB, g *idgen.Generator) bucket.ID {
	t.Helper()
	id, err := g.Next()
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return id
}

// timeOf is kind.Time(id), failing the test on error.
func timeOf(t testing.TB, kind bucket.Kind, id bucket.ID) time.Time {
	t.Helper()
	at, err := kind.Time(id)
	if err != nil {
		t.Fatalf("Time(%s): %v", kind.Format(id), err)
	}
	return at
}

// increasing fails unless every ID is strictly greater than the one before.
func increasing(t testing.TB, kind bucket.Kind, ids []bucket.ID) {
	t.Helper()
	for i := 1; i < len(ids); i++ {
		if kind.Compare(ids[i-1], ids[i]) >= 0 {
			t.Fatalf("ID %d %s not after ID %d %s", i, kind.Format(ids[i]), i-1, kind.Format(ids[i-1]))
		}
	}
}

// worker and seq read a snowflake's fields, which bucket does not expose.
func worker(k bucket.Snowflake, id bucket.ID) uint64 {
	return uint64(k.Int64(id)>>k.SequenceBits) & (1<<k.WorkerBits - 1)
}

func seq(k bucket.Snowflake, id bucket.ID) uint64 {
	return uint64(k.Int64(id)) & (1<<k.SequenceBits - 1)
}
