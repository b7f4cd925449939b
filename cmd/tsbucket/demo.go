package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/tsbucket/tsbucket/internal/demo"
	"github.com/tsbucket/tsbucket/internal/localcluster"
	"github.com/tsbucket/tsbucket/internal/provision"
)

// demoTombstoneWarn is the tombstone_warn_threshold of the node the demo
// starts itself: below the default purge (150 deletes in one partition), so
// reading the purged channel makes the server warn, and the dashboard's
// tombstone panel has something to show.
const demoTombstoneWarn = 100

type demoFlags struct {
	cluster  clusterFlags
	cfg      demo.Config
	duration time.Duration
	progress string
	json     bool
	noDocker bool
}

func (f *demoFlags) register(fs *flag.FlagSet, e env) {
	d := demo.Config{}.WithDefaults()
	c := &f.cfg
	f.cluster.register(fs, e)
	fs.IntVar(&c.ReplicationFactor, "rf", d.ReplicationFactor, "replication factor in the local datacenter")
	fs.DurationVar(&f.duration, "duration", d.Duration, "length of the live phase; 0 runs until interrupted")
	fs.IntVar(&c.Channels, "channels", d.Channels, "chat channels")
	fs.IntVar(&c.Authors, "authors", d.Authors, "chat authors")
	fs.IntVar(&c.Sensors, "sensors", d.Sensors, "IoT sensors")
	fs.IntVar(&c.Sites, "sites", d.Sites, "IoT sites the sensors are spread over")
	fs.Float64Var(&c.Skew, "skew", d.Skew, "Zipf exponent (> 1) of channel and author popularity: higher, fewer hot channels")
	fs.Float64Var(&c.ChatRate, "chat-rate", d.ChatRate, "messages written per second (0: none)")
	fs.Float64Var(&c.IoTRate, "iot-rate", d.IoTRate, "readings written per second (0: none)")
	fs.Float64Var(&c.LatestRate, "latest-rate", d.LatestRate, "channel openings per second, each by --viewers identical reads (0: none)")
	fs.Float64Var(&c.AuthorRate, "author-rate", d.AuthorRate, "author feed reads per second (0: none)")
	fs.Float64Var(&c.PageRate, "page-rate", d.PageRate, "pager sessions per second, each up to --pages pages back (0: none)")
	fs.Float64Var(&c.SensorRate, "sensor-rate", d.SensorRate, "latest-readings-of-a-sensor reads per second (0: none)")
	fs.Float64Var(&c.RangeRate, "range-rate", d.RangeRate, "oldest-first reads of a site's last 6 hours per second (0: none)")
	fs.Float64Var(&c.SiteRate, "site-rate", d.SiteRate, "reads per second of the latest value of every sensor of a site, from the latest-value view (0: none)")
	fs.Float64Var(&c.HourlyRate, "hourly-rate", d.HourlyRate, "reads per second of a sensor's hourly avg, min, max and count over the last day, through its rollup (0: none)")
	fs.Float64Var(&c.DeleteRate, "delete-rate", d.DeleteRate, "moderator deletes of recent messages per second (0: none)")
	fs.IntVar(&c.Viewers, "viewers", d.Viewers, "identical concurrent reads per channel opening (coalesced)")
	fs.IntVar(&c.Pages, "pages", d.Pages, "pages per pager session")
	fs.IntVar(&c.PageSize, "page-size", d.PageSize, "messages per page")
	fs.IntVar(&c.BodyBytes, "body-bytes", d.BodyBytes, "message body size in bytes")
	fs.DurationVar(&c.History, "history", d.History, "span of the seeded chat history")
	fs.IntVar(&c.SeedMessages, "seed-messages", d.SeedMessages, "messages seeded before the live phase (0: none)")
	fs.IntVar(&c.SeedReadings, "seed-readings", d.SeedReadings, "readings seeded over the last two days (0: none)")
	fs.IntVar(&c.Purge, "purge", d.Purge, "messages written then deleted in one channel, for tombstones (0: none)")
	fs.Float64Var(&c.FaultRate, "fault-rate", d.FaultRate, "fraction of message writes whose messages_by_author insert fails (an injected write timeout), then retried whole (0: none)")
	fs.DurationVar(&c.FaultTimeout, "fault-timeout", d.FaultTimeout, "how long an injected write timeout takes")
	fs.IntVar(&c.Workers, "workers", d.Workers, "concurrent workers per operation")
	fs.Int64Var(&c.PartitionRowsLimit, "partition-rows-limit", d.PartitionRowsLimit,
		"rows per partition counted as too many by the metrics (lowered so the demo crosses it; the guideline is 100000)")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", d.MetricsAddr, "listen address of /metrics, or \"off\"")
	fs.DurationVar(&c.SizePollInterval, "size-poll", d.SizePollInterval, "interval of the server size-estimate polls")
	fs.Uint64Var(&c.Seed, "seed", 0, "random seed (0: from the clock)")
	fs.StringVar(&f.progress, "progress", "auto", "progress output: auto, terminal, lines or none")
	fs.BoolVar(&f.json, "json", false, "print the summary as JSON")
	fs.BoolVar(&f.noDocker, "no-docker", false, "never start ScyllaDB in Docker; start a local Cassandra node instead")
}

// config completes the demo configuration from the flags.
func (f *demoFlags) config(e env) (demo.Config, error) {
	c := f.cfg
	c.Keyspace, c.Username, c.Password = f.cluster.keyspace, f.cluster.username, f.cluster.password
	if f.duration < 0 {
		return c, usageErr("--duration %v is negative", f.duration)
	}
	c.Duration, c.Forever = f.duration, f.duration == 0
	if err := f.checkPositive(); err != nil {
		return c, err
	}
	zeroMeansNone(&c)
	if c.Seed == 0 {
		c.Seed = uint64(time.Now().UnixNano())
	}
	var err error
	if c.Progress, err = progressMode(f.progress, e); err != nil {
		return c, err
	}
	// Hosts are checked after provisioning; check the rest before starting anything.
	probe := c
	probe.Hosts, probe.Datacenter = []string{"-"}, "-"
	if err := probe.Validate(); err != nil {
		return c, usageErr("%v", err)
	}
	if err := f.cluster.validate(false); err != nil {
		return c, err
	}
	return c, nil
}

// zeroMeansNone turns the rates and counts given as 0 into -1: on the
// command line 0 means none, in demo.Config zero means the default.
func zeroMeansNone(c *demo.Config) {
	for _, p := range []*float64{&c.ChatRate, &c.IoTRate, &c.LatestRate, &c.AuthorRate, &c.PageRate,
		&c.SensorRate, &c.RangeRate, &c.SiteRate, &c.HourlyRate, &c.DeleteRate, &c.FaultRate} {
		if *p == 0 {
			*p = -1
		}
	}
	for _, p := range []*int{&c.SeedMessages, &c.SeedReadings, &c.Purge} {
		if *p == 0 {
			*p = -1
		}
	}
}

// progressMode reads --progress; auto is a status line on a terminal, plain
// lines otherwise.
func progressMode(flagValue string, e env) (demo.Progress, error) {
	switch flagValue {
	case "auto":
		if e.terminal(e.stderr) {
			return demo.ProgressTerminal, nil
		}
		return demo.ProgressLines, nil
	case "terminal":
		return demo.ProgressTerminal, nil
	case "lines":
		return demo.ProgressLines, nil
	case "none":
		return demo.ProgressNone, nil
	}
	return demo.ProgressLines, usageErr("--progress %q: want auto, terminal, lines or none", flagValue)
}

func runDemo(ctx context.Context, args []string, e env) error {
	var f demoFlags
	fs := newFlags("demo", "demo [flags]", e)
	f.register(fs, e)
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := f.config(e)
	if err != nil {
		return err
	}
	cl, err := f.provision(ctx, e)
	if err != nil {
		return err
	}
	defer func() {
		if err := cl.Close(); err != nil {
			fmt.Fprintf(e.stderr, "tsbucket demo: stop cluster: %v\n", err)
		}
	}()
	cfg.Hosts, cfg.Datacenter, cfg.AddressMap = cl.Hosts, cl.Datacenter, cl.AddressMap
	sum, err := demo.Run(ctx, cfg, e.stderr)
	if err != nil {
		return err
	}
	if f.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(sum)
	} else {
		err = sum.WriteTable(e.stdout)
	}
	if err != nil {
		return err
	}
	return nil
}

// checkPositive refuses zero and negative counts and durations: in
// demo.Config zero means "default", which is not what --workers 0 says.
func (f *demoFlags) checkPositive() error {
	c := f.cfg
	for _, n := range []struct {
		flag, what string
		v          any
		ok         bool
	}{
		{"rf", "replication factor", c.ReplicationFactor, c.ReplicationFactor > 0},
		{"channels", "channels", c.Channels, c.Channels > 0},
		{"authors", "authors", c.Authors, c.Authors > 0},
		{"sensors", "sensors", c.Sensors, c.Sensors > 0},
		{"sites", "sites", c.Sites, c.Sites > 0},
		{"viewers", "viewers", c.Viewers, c.Viewers > 0},
		{"pages", "pages", c.Pages, c.Pages > 0},
		{"page-size", "page size", c.PageSize, c.PageSize > 0},
		{"body-bytes", "body bytes", c.BodyBytes, c.BodyBytes > 0},
		{"workers", "workers", c.Workers, c.Workers > 0},
		{"partition-rows-limit", "partition rows limit", c.PartitionRowsLimit, c.PartitionRowsLimit > 0},
		{"history", "history", c.History, c.History > 0},
		{"fault-timeout", "fault timeout", c.FaultTimeout, c.FaultTimeout > 0},
		{"size-poll", "size poll interval", c.SizePollInterval, c.SizePollInterval > 0},
	} {
		if !n.ok {
			return usageErr("--%s: %s %v must be positive", n.flag, n.what, n.v)
		}
	}
	for _, n := range []struct {
		flag string
		v    float64
	}{
		{"chat-rate", c.ChatRate}, {"iot-rate", c.IoTRate}, {"latest-rate", c.LatestRate}, {"author-rate", c.AuthorRate},
		{"page-rate", c.PageRate}, {"sensor-rate", c.SensorRate}, {"range-rate", c.RangeRate}, {"site-rate", c.SiteRate}, {"hourly-rate", c.HourlyRate},
		{"delete-rate", c.DeleteRate},
		{"fault-rate", c.FaultRate}, {"seed-messages", float64(c.SeedMessages)},
		{"seed-readings", float64(c.SeedReadings)}, {"purge", float64(c.Purge)},
	} {
		if n.v < 0 {
			return usageErr("--%s %v is negative (0 turns it off)", n.flag, n.v)
		}
	}
	return nil
}

// provision returns the cluster named by --hosts, else one provision starts:
// ScyllaDB in Docker where an engine answers, else a local Cassandra node.
func (f *demoFlags) provision(ctx context.Context, e env) (*provision.Cluster, error) {
	opts := provision.Options{
		Hosts:      splitList(f.cluster.hosts),
		Datacenter: f.cluster.datacenter(),
		NoDocker:   f.noDocker,
		Log:        e.stderr,
		Local:      localcluster.Config{TombstoneWarnThreshold: demoTombstoneWarn, SizeRecorderInterval: 30 * time.Second},
	}
	cl, err := provision.Provision(ctx, opts)
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, fmt.Errorf("interrupted while starting a cluster: %w", err)
		}
		return nil, err
	}
	fmt.Fprintf(e.stderr, "tsbucket demo: cluster %s\n", cl)
	return cl, nil
}
