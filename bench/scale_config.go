package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"
)

// ScaleConfig describes one scale run (RunScale): the chat reference views
// loaded with many keys over many buckets, flushed to SSTables, with deletes
// and a Zipf key skew, read at several sizes. Zero fields take the defaults
// of the full run (make bench-scale); QuickScale returns a run small enough
// for a test.
type ScaleConfig struct {
	Hosts      []string // required
	Datacenter string   // required
	Keyspace   string   // default "tsbucket_bench_scale"; dropped and recreated at start
	Keep       bool     // keep the keyspace after the run
	RF         int      // replicas in Datacenter (NetworkTopologyStrategy); default 1

	// Sizes are the messages loaded before each measurement, increasing:
	// each size adds to the data of the previous one. Default 250,000,
	// 1,000,000 and 3,000,000.
	Sizes       []int
	Channels    int     // channels the messages spread over, Zipf-skewed; default 100,000
	ZipfS       float64 // Zipf exponent (> 1) of the channels written and read; default 1.1
	Authors     int     // authors, spread evenly; default 10,000
	SpanBuckets int     // past ten-day chat buckets the data spans before the current one; default 12
	DeleteFrac  float64 // fraction of each load deleted after it (row tombstones in 3 views); default 0.02
	LoadCallers int     // concurrent PutMany calls while loading; default 4
	LoadChunk   int     // messages per PutMany; default 1000

	Rounds    int           // interleaved rounds of every read; default 4
	Block     time.Duration // each measured block; default 2s
	Callers   int           // closed-loop callers of each block; default 4
	DeepPages int           // pages of one deep walk by cursor; default 20
	DeepKeys  int           // deep walks pick Zipf-skewed among this many hottest channels; default 20
	Check     int           // keys whose tsbucket page is compared with the baseline's before each measurement; default 100
	MixedRate float64       // background mutations per second while reads run (one in ten a delete); default 100
	Page      int           // page size of every read; default 50
	Seed      uint64        // of the data and of the keys read; default 1

	// Nodetool runs nodetool with args on every node and returns each
	// node's output (LocalNodetool for a local cluster). Nil: no flush,
	// and no SSTable counts (the report says so).
	Nodetool func(ctx context.Context, args ...string) ([]string, error)
	// NodePIDs are the server processes on this machine whose CPU time and
	// disk reads are sampled from /proc; nil: not reported.
	NodePIDs []int

	// Now places the data in time; default time.Now.
	Now func() time.Time
	Log io.Writer // progress lines; nil discards
}

// QuickScale is a small run for tests: two sizes, a few seconds of reads.
func QuickScale() ScaleConfig {
	return ScaleConfig{
		Sizes: []int{2000, 5000}, Channels: 500, Authors: 100, SpanBuckets: 3, LoadCallers: 2, LoadChunk: 500,
		Rounds: 2, Block: 150 * time.Millisecond, Callers: 2, DeepPages: 3, DeepKeys: 3, Check: 5, MixedRate: 50,
	}
}

// Validate reports the first unusable field.
func (c ScaleConfig) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadConfig}, args...)...)
	}
	switch {
	case len(c.Hosts) == 0:
		return bad("no hosts")
	case c.Datacenter == "":
		return bad("no datacenter")
	case c.RF < 0, c.Channels < 0, c.Authors < 0, c.SpanBuckets < 0, c.LoadCallers < 0, c.LoadChunk < 0,
		c.Rounds < 0, c.Callers < 0, c.DeepPages < 0, c.DeepKeys < 0, c.Check < 0, c.Page < 0:
		return bad("negative count")
	case c.Block < 0, c.MixedRate < 0:
		return bad("negative duration or rate")
	case c.ZipfS != 0 && c.ZipfS <= 1:
		return bad("Zipf exponent %g: want > 1", c.ZipfS)
	case c.DeleteFrac < 0 || c.DeleteFrac >= 1:
		return bad("delete fraction %g: want 0 to 1", c.DeleteFrac)
	case c.Page > 1000:
		return bad("page %d over the repository's MaxLimit 1000", c.Page)
	}
	for i, n := range c.Sizes {
		if n <= 0 || (i > 0 && n <= c.Sizes[i-1]) {
			return bad("sizes %v: want positive and increasing", c.Sizes)
		}
	}
	if d := c.withDefaults(); d.DeepKeys > d.Channels {
		return bad("%d deep keys out of %d channels", d.DeepKeys, d.Channels)
	}
	return nil
}

func (c ScaleConfig) withDefaults() ScaleConfig {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	if c.Keyspace == "" {
		c.Keyspace = "tsbucket_bench_scale"
	}
	def(&c.RF, 1)
	if len(c.Sizes) == 0 {
		c.Sizes = []int{250_000, 1_000_000, 3_000_000}
	}
	def(&c.Channels, 100_000)
	if c.ZipfS == 0 {
		c.ZipfS = 1.1
	}
	def(&c.Authors, 10_000)
	def(&c.SpanBuckets, 12)
	if c.DeleteFrac == 0 {
		c.DeleteFrac = 0.02
	}
	def(&c.LoadCallers, 4)
	def(&c.LoadChunk, 1000)
	def(&c.Rounds, 4)
	if c.Block == 0 {
		c.Block = 2 * time.Second
	}
	def(&c.Callers, 4)
	def(&c.DeepPages, 20)
	def(&c.DeepKeys, 20)
	def(&c.Check, 100)
	if c.MixedRate == 0 {
		c.MixedRate = 100
	}
	def(&c.Page, 50)
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	c.Hosts = slices.Clone(c.Hosts)
	c.Sizes = slices.Clone(c.Sizes)
	c.NodePIDs = slices.Clone(c.NodePIDs)
	return c
}
