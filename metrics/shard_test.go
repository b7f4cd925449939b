package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestShardWrite(t *testing.T) {
	m, reg := newTestMetrics(t, Config{})
	for _, shard := range []int{0, 0, 7, 255} {
		m.ShardWrite("messages_by_channel", shard)
	}
	m.ShardWrite("readings_by_sensor", 1)
	want := `
# HELP tsbucket_shard_writes_total Rows written to each write shard of a sharded view's table: even rates mean an even spread.
# TYPE tsbucket_shard_writes_total counter
tsbucket_shard_writes_total{shard="0",table="messages_by_channel"} 2
tsbucket_shard_writes_total{shard="1",table="readings_by_sensor"} 1
tsbucket_shard_writes_total{shard="255",table="messages_by_channel"} 1
tsbucket_shard_writes_total{shard="7",table="messages_by_channel"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "tsbucket_shard_writes_total"); err != nil {
		t.Error(err)
	}
}

// A shard outside [0, ShardLabels) is a caller's bug: it is counted under
// one label, so the family stays bounded.
func TestShardWriteOutOfRange(t *testing.T) {
	m, reg := newTestMetrics(t, Config{})
	for _, shard := range []int{-1, ShardLabels, 1 << 40} {
		m.ShardWrite("t", shard)
	}
	want := `
# HELP tsbucket_shard_writes_total Rows written to each write shard of a sharded view's table: even rates mean an even spread.
# TYPE tsbucket_shard_writes_total counter
tsbucket_shard_writes_total{shard="invalid",table="t"} 3
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "tsbucket_shard_writes_total"); err != nil {
		t.Error(err)
	}
}

func TestShardWriteNoAlloc(t *testing.T) {
	m, _ := newTestMetrics(t, Config{})
	m.ShardWrite("messages_by_channel", 200)
	if n := testing.AllocsPerRun(100, func() { m.ShardWrite("messages_by_channel", 200) }); n != 0 {
		t.Errorf("ShardWrite allocates %v times per call once seen, want 0", n)
	}
}

func BenchmarkShardWrite(b *testing.B) {
	m, _ := newTestMetrics(b, Config{})
	b.ReportAllocs()
	shard := 0
	for b.Loop() {
		m.ShardWrite("messages_by_channel", shard)
		shard = (shard + 1) % ShardLabels
	}
}
