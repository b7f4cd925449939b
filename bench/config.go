package bench

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
)

// stepIDs name the steps of a run, in order, for Config.Only.
func stepIDs() []string { return []string{"dense", "sparse", "empty", "writes", "hot", "deep"} }

// ErrBadConfig reports an unusable Config.
var ErrBadConfig = errors.New("bench: bad config")

// Config describes one run. Zero fields take the defaults of the full run
// (about three minutes on two cores); Quick returns a run small enough for a
// test.
type Config struct {
	Hosts      []string // required
	Datacenter string   // required: the keyspace is NetworkTopologyStrategy, RF 1 there
	Keyspace   string   // default "tsbucket_bench"; dropped and recreated at start
	Keep       bool     // keep the keyspace after the run

	Rounds int // interleaved rounds per scenario; default 6

	DenseItems int     // items of the dense key, all in the current bucket; default 1000
	DenseRate  float64 // open-loop calls per second of each variant; default 250
	DenseOps   int     // calls per variant per round; default 400

	SparseItems int // items of the sparse key; default 200
	SparseEvery int // buckets between two of them; default 50
	SparseReads int // tsbucket reads per round (the naive walk runs once); default 20

	WriteWorkers  int           // concurrent Put callers; default 16
	WriteBlock    time.Duration // duration of each measured write block (2*Rounds of them per variant); default 1s
	BatchItems    int           // items per PutMany; default 100
	BatchCallers  int           // concurrent PutMany callers; default 2
	WriteChannels int           // channels the written messages spread over; default 100

	// PutSpin, when set, adds a variant to the closed-loop Put: the
	// hand-written Put after PutSpin of busy CPU on its caller's goroutine.
	// It calibrates the closed loop, not a target: what that much more
	// client CPU per Put does to the throughput ratio on this machine,
	// where the node shares the cores (BENCHMARKS.md, issue 26).
	PutSpin time.Duration

	HotReaders int // concurrent identical reads; default 200

	DeepItems     int // items walked back; default 10,000
	DeepPerBucket int // items per bucket of the deep key; default 125

	Page int // page size of every read; default 50

	// Only names the scenarios to run (dense, sparse, writes, hot, deep);
	// empty runs all. For profiling one of them.
	Only []string

	// Now places the data in time; default time.Now. Latencies always use the
	// monotonic clock.
	Now func() time.Time
	Log io.Writer // progress lines; nil discards

	// NodePIDs are the node processes, on this machine, of the cluster at
	// Hosts (LoopbackServerPIDs finds them): their CPU time per operation
	// is reported next to the client's. None: not reported.
	NodePIDs []int
}

// Quick is a small run for tests: every scenario, a few seconds in all.
func Quick() Config {
	return Config{
		Rounds: 2, DenseItems: 200, DenseRate: 200, DenseOps: 40,
		SparseItems: 30, SparseEvery: 20, SparseReads: 3,
		WriteWorkers: 4, WriteBlock: 300 * time.Millisecond, BatchItems: 20, BatchCallers: 1, WriteChannels: 10,
		HotReaders: 50, DeepItems: 600, DeepPerBucket: 70, Page: 50,
	}
}

// Validate reports the first unusable field.
func (c Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadConfig}, args...)...)
	}
	switch {
	case len(c.Hosts) == 0:
		return bad("no hosts")
	case c.Datacenter == "":
		return bad("no datacenter")
	case c.Rounds < 0, c.DenseItems < 0, c.DenseOps < 0, c.SparseItems < 0, c.SparseEvery < 0,
		c.SparseReads < 0, c.WriteWorkers < 0, c.BatchItems < 0, c.BatchCallers < 0,
		c.WriteChannels < 0, c.HotReaders < 0, c.DeepItems < 0, c.DeepPerBucket < 0, c.Page < 0:
		return bad("negative count")
	case c.DenseRate < 0, c.WriteBlock < 0, c.PutSpin < 0:
		return bad("negative rate or duration")
	case c.Page > 1000:
		return bad("page %d over the repository's MaxLimit 1000", c.Page)
	case c.DenseItems > 0 && c.Page > 0 && c.DenseItems < c.Page:
		return bad("dense key has %d items, fewer than a page of %d", c.DenseItems, c.Page)
	}
	for _, id := range c.Only {
		if !slices.Contains(stepIDs(), id) {
			return bad("unknown scenario %q (have %v)", id, stepIDs())
		}
	}
	return nil
}

func (c Config) withDefaults() Config {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	if c.Keyspace == "" {
		c.Keyspace = "tsbucket_bench"
	}
	def(&c.Rounds, 6)
	def(&c.DenseItems, 1000)
	def(&c.DenseOps, 400)
	def(&c.SparseItems, 200)
	def(&c.SparseEvery, 50)
	def(&c.SparseReads, 20)
	def(&c.WriteWorkers, 16)
	def(&c.BatchItems, 100)
	def(&c.BatchCallers, 2)
	def(&c.WriteChannels, 100)
	def(&c.HotReaders, 200)
	def(&c.DeepItems, 10_000)
	def(&c.DeepPerBucket, 125)
	def(&c.Page, 50)
	if c.DenseRate == 0 {
		c.DenseRate = 250
	}
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
	c.Only = append([]string(nil), c.Only...)
	c.NodePIDs = append([]int(nil), c.NodePIDs...)
	return c
}
