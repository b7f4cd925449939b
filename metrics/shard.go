package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// ShardLabels bounds the shard label of tsbucket_shard_writes_total: shards
// 0 to ShardLabels-1 are labelled by number (schema.MaxShards is 256), any
// other value, a caller's bug, as ShardInvalid.
const ShardLabels = 256

// ShardInvalid is the shard label of a write whose shard is outside
// [0, ShardLabels).
const ShardInvalid = "invalid"

// shardWrites counts writes per write shard; names holds the label values,
// made once so that ShardWrite does not allocate.
type shardWrites struct {
	writes *prometheus.CounterVec
	names  [ShardLabels]string
}

func newShardWrites() *shardWrites {
	s := &shardWrites{writes: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tsbucket_shard_writes_total",
		Help: "Rows written to each write shard of a sharded view's table: even rates mean an even spread.",
	}, []string{"table", "shard"})}
	for i := range s.names {
		s.names[i] = strconv.Itoa(i)
	}
	return s
}

func (s *shardWrites) label(shard int) string {
	if shard < 0 || shard >= ShardLabels {
		return ShardInvalid
	}
	return s.names[shard]
}

// ShardWrite counts one row written to shard shard (bucket.ShardOf) of a
// sharded view, labelled with the view's table (its name). Call it for
// views with more than one shard only, once per row, retries excluded.
func (m *Metrics) ShardWrite(table string, shard int) {
	label := m.shards.label(shard)
	k := shardKey{table, label}
	c, ok := m.shardCounters.snapshot()[k]
	if !ok {
		c = m.shardCounters.loadOrStore(k, func() prometheus.Counter { return m.shards.writes.WithLabelValues(table, label) })
	}
	c.Inc()
}

// shardKey keys the resolved children of tsbucket_shard_writes_total: one
// per row of a sharded view, where a label lookup cost more than the count.
type shardKey struct{ table, shard string }
