package integration

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

// flavor is what the model test needs to know about one item type and its
// views: how to make items, name their IDs and keys, and edit them.
type flavor[T comparable] struct {
	name  string
	views []schema.View
	kind  bucket.Kind
	idCol string
	// spread is how far back item times go.
	spread time.Duration
	// keys are the keys the generator uses, per view.
	keys  map[string][]any
	id    func(T) bucket.ID
	idArg func(T) any // the ID as a statement binds it
	key   func(view string, it T) any
	// make returns a new item stamped at, with random keys.
	make func(rng *rand.Rand, at time.Time, seq uint64) T
	// edit returns it with another value column, same ID and keys.
	edit func(it T, n int) T
	// setup, if set, runs once before the flavor's repositories open.
	setup func(s *gocql.Session, ks string) error
}

func (f *flavor[T]) at(id bucket.ID) time.Time {
	t, err := f.kind.Time(id)
	if err != nil {
		panic(fmt.Sprintf("%s: time of %v: %v", f.name, id, err)) // IDs are made valid
	}
	return t
}

func (f *flavor[T]) view(name string) schema.View {
	for _, v := range f.views {
		if v.Name == name {
			return v.WithDefaults()
		}
	}
	panic("no view " + name)
}

// bucketed returns the names of the flavor's bucketed views.
func (f *flavor[T]) bucketed() []string {
	var names []string
	for _, v := range f.views {
		if v.Bucketed() {
			names = append(names, v.Name)
		}
	}
	return names
}

// chatFlavor: snowflake IDs over two years of ten-day buckets, so a busy
// channel spans more buckets than one presence-index page (32) lists. Keys
// are offset by the seed, so seeds sharing a keyspace never meet.
func chatFlavor(seed int64) *flavor[refmodel.Message] {
	base := seed * 100
	channels := []any{base + 1, base + 2, base + 3}
	authors := []any{base + 51, base + 52, base + 53}
	return &flavor[refmodel.Message]{
		name:   "chat",
		views:  refmodel.ChatViews(),
		kind:   bucket.DiscordSnowflake(),
		idCol:  "message_id",
		spread: 2 * 365 * 24 * time.Hour,
		keys:   map[string][]any{"messages_by_channel": channels, "messages_by_author": authors},
		id: func(m refmodel.Message) bucket.ID {
			var id bucket.ID
			binary.BigEndian.PutUint64(id[8:], uint64(m.MessageID))
			return id
		},
		idArg: func(m refmodel.Message) any { return m.MessageID },
		key: func(view string, m refmodel.Message) any {
			switch view {
			case "messages_by_channel":
				return m.ChannelID
			case "messages_by_author":
				return m.AuthorID
			}
			return m.MessageID
		},
		make: func(rng *rand.Rand, at time.Time, seq uint64) refmodel.Message {
			// The worker field is the seed's: seeds share the keyspace and
			// its message_by_id, and pick the same edge instants (bucket
			// starts, scheme changes), so only the worker keeps their IDs apart.
			id, err := bucket.DiscordSnowflake().Make(at, uint64(seed)%1024, seq%4096)
			if err != nil {
				panic(fmt.Sprintf("snowflake at %v: %v", at, err))
			}
			return refmodel.Message{
				ChannelID: skewedPick(rng, channels).(int64),
				AuthorID:  skewedPick(rng, authors).(int64),
				MessageID: int64(binary.BigEndian.Uint64(id[8:])),
				Body:      fmt.Sprintf("m%d", seq),
			}
		},
		edit: func(m refmodel.Message, n int) refmodel.Message {
			m.Body = fmt.Sprintf("m%d-edit%d", m.MessageID%1000, n)
			return m
		},
	}
}

// shardedChatFlavor is chatFlavor with messages_by_channel written over 3
// shards per (channel, bucket): reads merge the shards, and must give exactly
// what the unsharded view gives. Its views live in their own keyspace.
func shardedChatFlavor(seed int64) *flavor[refmodel.Message] {
	f := chatFlavor(seed)
	f.name = "chat-sharded"
	f.views[0].Shards = 3
	return f
}

// hotChatFlavor is chatFlavor with messages_by_channel sharded per key: its
// busy channel was promoted to 3 shards about 300 days ago (mid-bucket), so
// its older items are in shard 0 and its newer ones spread; the other
// channels stay in one partition per bucket. Its views live in their own
// keyspace.
func hotChatFlavor(seed int64) *flavor[refmodel.Message] {
	f := chatFlavor(seed)
	f.name = "chat-hot"
	f.views[0].Shards, f.views[0].PerKeyShards = 3, true
	busy := f.keys["messages_by_channel"][0].(int64)
	f.setup = func(s *gocql.Session, ks string) error {
		now := time.Now().UTC()
		_, _, err := schema.PromoteKey(context.Background(), s, ks, schema.Promotion{
			View: "messages_by_channel", Key: strconv.FormatInt(busy, 10), From: now.Add(-300 * 24 * time.Hour).Truncate(time.Millisecond),
			Shards: 3, PromotedAt: now, Reason: "model test",
		})
		return err
	}
	return f
}

// rebucketedChatFlavor is chatFlavor with views whose bucket width changed
// over the two years its items span (schemeChanges): messages_by_channel
// went narrower then wider, messages_by_author wider then much narrower.
// Reads walk across the changes both ways; items land on both sides of
// them, exactly at them, and late ones in the old schemes' buckets. Its
// views live in their own keyspace.
func rebucketedChatFlavor(seed int64) *flavor[refmodel.Message] {
	f := chatFlavor(seed)
	f.name = "chat-rebucketed"
	byChannel, byAuthor := schemeChanges()
	f.views[0].Scheme = byChannel
	f.views[1].Scheme = byAuthor
	return f
}

// schemeChanges are the histories of rebucketedChatFlavor's views, made
// once per test binary so that every seed registers the same ones:
//
//	messages_by_channel: 10 days, 1 day from ~400 days ago, 20 days from ~100 days ago
//	messages_by_author:  10 days, 30 days from ~200 days ago, 1 hour from 3-33 days ago
var schemeChanges = sync.OnceValues(func() (bucket.Scheme, bucket.Scheme) {
	tenDays := refmodel.ChatViews()[0].Scheme
	now := time.Now().UTC()
	// boundary is the start of the bucket of s holding the instant ago
	// before now: in the past, so items stamped at it are accepted.
	boundary := func(s bucket.Scheme, ago time.Duration) time.Time {
		b, err := s.Of(now.Add(-ago))
		if err != nil {
			panic(err)
		}
		return s.Start(b)
	}
	then := func(s bucket.Scheme, at time.Time, next bucket.Scheme) bucket.Scheme {
		h, err := s.Then(at, next)
		if err != nil {
			panic(err)
		}
		return h
	}
	fixed := func(w time.Duration, at time.Time) bucket.Scheme {
		s, err := bucket.Fixed(w, at)
		if err != nil {
			panic(err)
		}
		return s
	}
	day := 24 * time.Hour
	t1 := boundary(tenDays, 400*day)
	byChannel := then(tenDays, t1, fixed(day, t1))
	t2 := boundary(byChannel.Latest(), 100*day)
	byChannel = then(byChannel, t2, fixed(20*day, t2))
	t3 := boundary(tenDays, 200*day)
	byAuthor := then(tenDays, t3, fixed(30*day, t3))
	t4 := boundary(byAuthor.Latest(), 3*day)
	byAuthor = then(byAuthor, t4, bucket.Hourly())
	return byChannel, byAuthor
})

// iotFlavor: TimeUUID IDs over six weeks of daily (sensor) and hourly (site)
// buckets: a third of them older than the views' 30-day TTL, which is
// backfill, alive for 30 days from its write.
func iotFlavor(seed int64) *flavor[refmodel.Reading] {
	sensors := []any{}
	for i := range 4 {
		sensors = append(sensors, fmt.Sprintf("s%d-%d", seed, i))
	}
	sites := []any{fmt.Sprintf("site%d-a", seed), fmt.Sprintf("site%d-b", seed)}
	node := [6]byte{0x02, 0, 0, 0, byte(seed >> 8), byte(seed)}
	return &flavor[refmodel.Reading]{
		name:   "iot",
		views:  refmodel.IoTViews(),
		kind:   bucket.TimeUUID{},
		idCol:  "reading_id",
		spread: 45 * 24 * time.Hour,
		keys:   map[string][]any{"readings_by_sensor": sensors, "readings_by_site": sites},
		id:     func(r refmodel.Reading) bucket.ID { return bucket.ID(r.ReadingID) },
		idArg:  func(r refmodel.Reading) any { return r.ReadingID },
		key: func(view string, r refmodel.Reading) any {
			if view == "readings_by_site" {
				return r.SiteID
			}
			return r.SensorID
		},
		make: func(rng *rand.Rand, at time.Time, seq uint64) refmodel.Reading {
			// Clock sequences repeat every 16384 items; equal times are
			// then ordered by them, as the database orders them.
			id, err := bucket.TimeUUID{}.Make(at, uint16(seq%16384), node)
			if err != nil {
				panic(fmt.Sprintf("timeuuid at %v: %v", at, err))
			}
			return refmodel.Reading{
				SensorID:  skewedPick(rng, sensors).(string),
				SiteID:    skewedPick(rng, sites).(string),
				ReadingID: gocql.UUID(id),
				Value:     float64(seq),
				Unit:      "C",
			}
		},
		edit: func(r refmodel.Reading, n int) refmodel.Reading {
			r.Value = float64(n) + 0.5
			return r
		},
	}
}

// skewedPick picks the first key half of the time: one busy key gets many
// buckets, the others few.
func skewedPick(rng *rand.Rand, keys []any) any {
	if rng.IntN(2) == 0 {
		return keys[0]
	}
	return keys[rng.IntN(len(keys))]
}
