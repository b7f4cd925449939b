package bench

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
)

// Keys of the loaded data; the written messages of scenario 3 use their own
// channels (writeChannel) so they never change what the reads see.
const (
	denseChannel int64 = 1_000_001
	deepChannel  int64 = 4_000_001
	writeChannel int64 = 2_000_000
	writeAuthor  int64 = 3_000_000
	sparseSite         = "site-sparse"
	sparseSensor       = "sensor-sparse"
	loadChunk          = 500 // items per PutMany while loading
)

// ids hands out unique IDs: the counter fills the snowflake's worker and
// sequence bits (the TimeUUID's clock sequence), so two IDs of the same
// millisecond still differ.
type ids struct{ n atomic.Uint64 }

func (g *ids) snowflake(t time.Time) (int64, error) {
	sf := bucket.DiscordSnowflake()
	n := g.n.Add(1)
	id, err := sf.Make(t, (n>>sf.SequenceBits)%(1<<sf.WorkerBits), n%(1<<sf.SequenceBits))
	if err != nil {
		return 0, err
	}
	return sf.Int64(id), nil
}

func (g *ids) timeUUID(t time.Time) (gocql.UUID, error) {
	n := g.n.Add(1)
	id, err := bucket.TimeUUID{}.Make(t, uint16(n&0x3fff), [6]byte{0xb, 0xe, 0xc, 0x4, byte(n >> 22), byte(n >> 14)})
	return gocql.UUID(id), err
}

// body is a message text of about 100 bytes, like a short chat line.
func body(i int) string {
	return "benchmark message number " + strconv.Itoa(i) + " with a body about as long as a short chat line."
}

// load writes the dense, sparse and deep keys through the repositories.
func (e *env) load(ctx context.Context, g *ids) error {
	start := time.Now()
	dense, err := e.denseMessages(g)
	if err != nil {
		return err
	}
	deep, err := e.deepMessages(g)
	if err != nil {
		return err
	}
	for _, batch := range [][]refmodel.Message{dense, deep} {
		for i := 0; i < len(batch); i += loadChunk {
			if err := e.chat.PutMany(ctx, batch[i:min(i+loadChunk, len(batch))]); err != nil {
				return fmt.Errorf("bench: load messages: %w", err)
			}
		}
	}
	sparse, err := e.sparseReadings(g)
	if err != nil {
		return err
	}
	if err := e.iot.PutMany(ctx, sparse); err != nil {
		return fmt.Errorf("bench: load readings: %w", err)
	}
	e.logf("loaded %d dense, %d deep messages and %d sparse readings in %v",
		len(dense), len(deep), len(sparse), time.Since(start).Round(time.Millisecond))
	return nil
}

// denseMessages spreads DenseItems over the current bucket up to now, so the
// newest page is one partition: the one a hand-written query names.
func (e *env) denseMessages(g *ids) ([]refmodel.Message, error) {
	s := refmodel.ChatScheme()
	b, err := s.Of(e.now)
	if err != nil {
		return nil, err
	}
	from := s.Start(b)
	span := max(e.now.Sub(from)-time.Second, 0)
	n := e.cfg.DenseItems
	out := make([]refmodel.Message, n)
	for i := range out {
		t := from.Add(span / time.Duration(n+1) * time.Duration(i+1))
		id, err := g.snowflake(t)
		if err != nil {
			return nil, err
		}
		out[i] = refmodel.Message{ChannelID: denseChannel, MessageID: id, AuthorID: int64(i % 50), Body: body(i)}
	}
	return out, nil
}

// deepMessages fills the buckets before the current one, DeepPerBucket items
// each, newest bucket first, DeepItems in all.
func (e *env) deepMessages(g *ids) ([]refmodel.Message, error) {
	s := refmodel.ChatScheme()
	cur, err := s.Of(e.now)
	if err != nil {
		return nil, err
	}
	per, n := e.cfg.DeepPerBucket, e.cfg.DeepItems
	out := make([]refmodel.Message, 0, n)
	for i := 0; len(out) < n; i++ {
		b := cur - 1 - bucket.Bucket(i/per)
		t := s.Start(b).Add(s.Width() / time.Duration(per+1) * time.Duration(i%per+1))
		id, err := g.snowflake(t)
		if err != nil {
			return nil, err
		}
		out = append(out, refmodel.Message{ChannelID: deepChannel, MessageID: id, AuthorID: int64(100 + i%1000), Body: body(i)})
	}
	return out, nil
}

// sparseReadings puts one reading every SparseEvery hourly buckets of the
// site, the newest in the current hour.
func (e *env) sparseReadings(g *ids) ([]refmodel.Reading, error) {
	s := bucket.Hourly()
	cur, err := s.Of(e.now)
	if err != nil {
		return nil, err
	}
	out := make([]refmodel.Reading, e.cfg.SparseItems)
	for k := range out {
		t := s.Start(cur - bucket.Bucket(k*e.cfg.SparseEvery)).Add(time.Second)
		id, err := g.timeUUID(t)
		if err != nil {
			return nil, err
		}
		out[k] = refmodel.Reading{SensorID: sparseSensor, SiteID: sparseSite, ReadingID: id, Value: float64(k), Unit: "C"}
	}
	return out, nil
}
