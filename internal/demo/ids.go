package demo

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
)

// idGen makes unique time-sortable IDs for one process: a counter fills the
// non-time bits (worker and sequence of a snowflake, clock sequence of a
// TimeUUID), so two IDs of the same millisecond differ unless 4 million
// (snowflake) or 16,384 (TimeUUID, per 100 ns tick) are made within it.
type idGen struct {
	n    atomic.Uint64
	node [6]byte // TimeUUID node: random per run, multicast bit set as RFC 9562 asks
}

func newIDGen(seed uint64) *idGen {
	g := &idGen{}
	for i := range g.node {
		g.node[i] = byte(seed >> (8 * i))
	}
	g.node[0] |= 0x01
	return g
}

// snowflake returns a Discord snowflake of t.
func (g *idGen) snowflake(t time.Time) (int64, error) {
	k := bucket.DiscordSnowflake()
	n := g.n.Add(1)
	seq := n & (1<<k.SequenceBits - 1)
	worker := (n >> k.SequenceBits) & (1<<k.WorkerBits - 1)
	id, err := k.Make(t, worker, seq)
	if err != nil {
		return 0, fmt.Errorf("demo: snowflake: %w", err)
	}
	return k.Int64(id), nil
}

// timeUUID returns a version 1 UUID of t.
func (g *idGen) timeUUID(t time.Time) (gocql.UUID, error) {
	id, err := bucket.TimeUUID{}.Make(t, uint16(g.n.Add(1)&0x3fff), g.node)
	if err != nil {
		return gocql.UUID{}, fmt.Errorf("demo: timeuuid: %w", err)
	}
	return gocql.UUID(id), nil
}
