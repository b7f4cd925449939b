package idgen_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/idgen"
)

// Discord snowflakes from worker 5 with a clock that stands still: the
// sequence counts within the millisecond.
func Example() {
	kind := bucket.DiscordSnowflake()
	at := time.Date(2024, 3, 5, 13, 0, 0, 0, time.UTC)
	g, err := idgen.New(kind, idgen.WithWorker(5), idgen.WithClock(func() time.Time { return at }))
	if err != nil {
		panic(err)
	}
	for range 3 {
		v, err := g.NextInt64()
		if err != nil {
			panic(err)
		}
		t, _ := kind.Time(kind.FromInt64(v))
		fmt.Println(v, t.Format(time.RFC3339Nano))
	}
	// Output:
	// 1214558031052820480 2024-03-05T13:00:00Z
	// 1214558031052820481 2024-03-05T13:00:00Z
	// 1214558031052820482 2024-03-05T13:00:00Z
}

// UUIDv7 with injected randomness: within a millisecond the random bits
// grow by a random step (RFC 9562 section 6.2).
func ExampleGenerator_NextUUID() {
	at := time.Date(2024, 3, 5, 13, 0, 0, 0, time.UTC)
	g, err := idgen.New(bucket.UUIDv7{},
		idgen.WithClock(func() time.Time { return at }),
		idgen.WithRand(rand.NewChaCha8([32]byte{})))
	if err != nil {
		panic(err)
	}
	for range 3 {
		u, err := g.NextUUID() // assignable to gocql.UUID
		if err != nil {
			panic(err)
		}
		fmt.Println(bucket.UUIDv7{}.Format(u))
	}
	// Output:
	// 018e0eb3-1080-761d-bece-6d368aac1a6f
	// 018e0eb3-1080-761d-bece-6d36cc4ae097
	// 018e0eb3-1080-761d-bece-6d3793b5fc93
}

// Readings that carry their own time: a device stamps each reading, and
// the ID keeps that instant, so the reading lands in the bucket of when it
// was measured, not of when it arrived. Two readings stamped in the same
// millisecond still get distinct, increasing IDs.
func ExampleGenerator_At() {
	kind := bucket.UUIDv7{}
	g, err := idgen.New(kind, idgen.WithRand(rand.NewChaCha8([32]byte{})))
	if err != nil {
		panic(err)
	}
	stamped := time.Date(2026, 11, 30, 8, 15, 0, 0, time.UTC) // the device's clock
	for range 2 {
		id, err := g.At(stamped)
		if err != nil {
			panic(err)
		}
		t, _ := kind.Time(id)
		fmt.Println(kind.Format(id), t.Format(time.RFC3339Nano))
	}
	// Output:
	// 01a22b85-83a0-761d-bece-6d368aac1a6f 2026-11-30T08:15:00Z
	// 01a22b85-83a0-761d-bece-6d36cc4ae097 2026-11-30T08:15:00Z
}
