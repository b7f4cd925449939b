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
