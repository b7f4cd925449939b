package bucket_test

import (
	"fmt"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
)

// Discord's layout: snowflake IDs in ten-day buckets from the snowflake epoch.
func Example() {
	kind := bucket.DiscordSnowflake()
	scheme, err := bucket.Fixed(bucket.DefaultWidth, kind.Epoch)
	if err != nil {
		panic(err)
	}
	id, err := kind.Parse("175928847299117063")
	if err != nil {
		panic(err)
	}
	at, _ := kind.Time(id)
	b, _ := scheme.OfID(kind, id)
	fmt.Println(at.Format(time.RFC3339Nano))
	fmt.Println(b, scheme.Format(b))
	fmt.Println(scheme.Start(b), "<= t <", scheme.End(b))
	// Output:
	// 2016-04-30T11:18:25.796Z
	// 48 2016-04-25T00:00:00Z/240h0m0s
	// 2016-04-25 00:00:00 +0000 UTC <= t < 2016-05-05 00:00:00 +0000 UTC
}

// MinID and MaxID bound a clustering range: every item of one millisecond.
func ExampleKind_minID() {
	kind := bucket.DiscordSnowflake()
	at := time.Date(2024, 3, 5, 13, 0, 0, 0, time.UTC)
	lo, _ := kind.MinID(at)
	hi, _ := kind.MaxID(at)
	fmt.Println(kind.Format(lo), kind.Format(hi))
	// Output:
	// 1214558031052800000 1214558031056994303
}

// The same limits for TimeUUID match gocql.MinTimeUUID and MaxTimeUUID.
func ExampleTimeUUID_MinID() {
	at := time.Date(2024, 3, 5, 13, 14, 15, 123456789, time.UTC)
	lo, _ := bucket.TimeUUID{}.MinID(at)
	hi, _ := bucket.TimeUUID{}.MaxID(at)
	fmt.Println(bucket.TimeUUID{}.Format(lo))
	fmt.Println(bucket.TimeUUID{}.Format(hi))
	// Output:
	// 43e74407-daf2-11ee-8080-808080808080
	// 43e74407-daf2-11ee-bf7f-7f7f7f7f7f7f
}

func ExampleULID_Make() {
	id, _ := bucket.ULID{}.Make(time.UnixMilli(1469922850259), [10]byte{0xd6, 0x76, 0x4c, 0x61, 0xef, 0xb9, 0x93, 0x02, 0xbd, 0x5b})
	fmt.Println(bucket.ULID{}.Format(id))
	// Output:
	// 01ARZ3NDEKTSV4RRFFQ69G5FAV
}

func ExampleParseKind() {
	kind, err := bucket.ParseKind("snowflake(epoch=1288834974657,worker=10,seq=12)")
	fmt.Println(kind == bucket.TwitterSnowflake(), err)
	// Output:
	// true <nil>
}

// Calendar schemes name their buckets the way people do.
func ExampleMonthly() {
	at := time.Date(2024, 2, 29, 23, 59, 59, 999e6, time.UTC)
	for _, s := range []bucket.Scheme{bucket.Hourly(), bucket.Daily(), bucket.ISOWeekly(), bucket.Monthly()} {
		b, _ := s.Of(at)
		fmt.Printf("%-7s %-13s %d\n", s, s.Format(b), b)
	}
	// Output:
	// hour    2024-02-29T23 474791
	// day     2024-02-29    19782
	// isoweek 2024-W09      2826
	// month   2024-02       649
}

// A "latest N" read walks buckets newest first and stops at a floor.
func ExampleScheme_Descending() {
	s := bucket.Daily()
	from, _ := s.ParseBucket("2024-03-05")
	floor, _ := s.ParseBucket("2024-03-01")
	walk, err := s.Descending(from, floor)
	if err != nil {
		panic(err)
	}
	for b := range walk {
		fmt.Println(s.Format(b))
	}
	// Output:
	// 2024-03-05
	// 2024-03-04
	// 2024-03-03
	// 2024-03-02
	// 2024-03-01
}

func ExampleScheme_Between() {
	s := bucket.Hourly()
	start := time.Date(2024, 3, 5, 22, 30, 0, 0, time.UTC)
	end := time.Date(2024, 3, 6, 1, 0, 0, 0, time.UTC) // exclusive
	buckets, _ := s.Between(start, end, false)
	for b := range buckets {
		fmt.Println(s.Format(b))
	}
	// Output:
	// 2024-03-05T22
	// 2024-03-05T23
	// 2024-03-06T00
}

func ExampleParseScheme() {
	s, err := bucket.ParseScheme("fixed(width=240h0m0s,epoch=2015-01-01T00:00:00Z)")
	fmt.Println(s.Width(), err)
	// Output:
	// 240h0m0s <nil>
}

// The textbook hot channel: 100 messages/s of 200 B, kept 30 days.
func ExamplePlan() {
	res, err := bucket.Plan(bucket.PlanInput{
		PeakWritesPerSecond: 100,
		AvgRowBytes:         200,
		Retention:           30 * 24 * time.Hour,
		Candidates:          []time.Duration{10 * time.Minute, 15 * time.Minute, time.Hour, 24 * time.Hour},
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.3f GB/day\n", res.BytesPerDay/1e9)
	for _, c := range res.Candidates {
		fmt.Printf("%-8v %s\n", c.Width, c.Reason)
	}
	fmt.Println("recommended", res.Recommended, "TWCS", res.TWCS, "TTL", res.TTL.Seconds())
	// Output:
	// 1.728 GB/day
	// 10m0s    fits: 60000 rows <= 100000, 12.0 MB <= 100.0 MB
	// 15m0s    fits, little headroom: 90000 rows <= 100000, 18.0 MB <= 100.0 MB, 90% full (recommended: at most 67%)
	// 1h0m0s   too many rows: 360000 rows > 100000
	// 24h0m0s  too many rows and bytes: 8640000 rows > 100000, 1728.0 MB > 100.0 MB
	// recommended 10m0s TWCS 1 DAYS TTL 2.592e+06
}
