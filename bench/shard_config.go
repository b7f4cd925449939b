package bench

import (
	"fmt"
	"io"
	"time"

	"github.com/tsbucket/tsbucket/schema"
)

// ShardConfig describes one run of the write-sharding benchmark (RunShards).
// Zero fields take the defaults of the full run (about a minute once the
// cluster is up); QuickShards returns a run small enough for a test.
type ShardConfig struct {
	Hosts      []string // required
	Datacenter string   // required: the keyspace is NetworkTopologyStrategy, RF 1 there
	Keyspace   string   // default "tsbucket_bench_shards"; dropped and recreated at start
	Keep       bool     // keep the keyspace after the run

	Shards int // shards of the sharded view; default 8 (what `tsbucket plan --rate 10000 --row-bytes 200` recommends)
	Rounds int // interleaved rounds per phase; default 6

	Items     int // messages of the hot key loaded into both views before the reads; default 2000
	ReadOps   int // latest reads per variant per round, one caller; default 100
	DeepPages int // pages of one deep walk; default 20

	WriteWorkers int           // concurrent Put callers; default 16
	WriteBlock   time.Duration // each measured write block (2*Rounds per variant); default 1s

	Page int // page size of every read; default 50

	// Now places the data in time; default time.Now.
	Now func() time.Time
	Log io.Writer // progress lines; nil discards
}

// QuickShards is a small run for tests: a few seconds once the node is up.
func QuickShards() ShardConfig {
	return ShardConfig{Rounds: 2, Items: 300, ReadOps: 10, DeepPages: 4, WriteWorkers: 4, WriteBlock: 300 * time.Millisecond, Page: 50}
}

// Validate reports the first unusable field, after defaults.
func (c ShardConfig) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadConfig}, args...)...)
	}
	switch {
	case len(c.Hosts) == 0:
		return bad("no hosts")
	case c.Datacenter == "":
		return bad("no datacenter")
	case c.Rounds < 0, c.Items < 0, c.ReadOps < 0, c.DeepPages < 0, c.WriteWorkers < 0, c.Page < 0:
		return bad("negative count")
	case c.WriteBlock < 0:
		return bad("negative duration")
	case c.Shards < 0, c.Shards == 1, c.Shards > schema.MaxShards:
		return bad("shards %d: want 2 to %d (0: the default 8)", c.Shards, schema.MaxShards)
	case c.Page > 1000:
		return bad("page %d over the repository's MaxLimit 1000", c.Page)
	}
	d := c.withDefaults()
	if d.Items < d.Page*d.DeepPages {
		return bad("%d items are fewer than %d pages of %d", d.Items, d.DeepPages, d.Page)
	}
	return nil
}

func (c ShardConfig) withDefaults() ShardConfig {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	if c.Keyspace == "" {
		c.Keyspace = "tsbucket_bench_shards"
	}
	def(&c.Shards, 8)
	def(&c.Rounds, 6)
	def(&c.Items, 2000)
	def(&c.ReadOps, 100)
	def(&c.DeepPages, 20)
	def(&c.WriteWorkers, 16)
	def(&c.Page, 50)
	if c.WriteBlock == 0 {
		c.WriteBlock = time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	c.Hosts = append([]string(nil), c.Hosts...)
	return c
}
