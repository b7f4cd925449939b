package demo

import (
	"errors"
	"fmt"
	"math"
	"net"
	"time"
)

// ErrBadConfig reports an unusable Config; the wrapped message names the field.
var ErrBadConfig = errors.New("demo: bad config")

// Defaults applied by Run to zero fields of Config.
const (
	DefaultKeyspace    = "tsbucket_demo"
	DefaultDuration    = 30 * time.Second
	DefaultMetricsAddr = "127.0.0.1:9464"
	// DefaultPartitionRowsLimit is far below the 100,000-row guideline on
	// purpose: a 30-second demo then shows partitions crossing the early
	// warning (half the limit) on the dashboard.
	DefaultPartitionRowsLimit = 1000
)

// MetricsOff as Config.MetricsAddr serves no /metrics endpoint.
const MetricsOff = "off"

// Upper bounds of Config fields that cost memory.
const (
	maxGoroutines = 1024        // Workers (per operation) and Viewers
	maxBodyBytes  = 1 << 20     // the repository's default MaxValueBytes
	maxPurge      = 100_000     // messages held in memory for the purge
	maxRate       = 1_000_000.0 // operations per second, per operation
)

// ValidateKeyspace checks a keyspace name: a valid identifier, and not one
// of the system keyspaces.
func ValidateKeyspace(name string) error {
	_, err := keyspace(name, "dc", 1).CQL()
	return err
}

// Progress says how Run reports progress while it runs.
type Progress int8

const (
	// ProgressLines writes a plain log line every Config.ProgressEvery
	// (for logs and pipes). It is the zero value.
	ProgressLines Progress = iota
	// ProgressTerminal rewrites one status line every second.
	ProgressTerminal
	// ProgressNone writes only the set-up lines.
	ProgressNone
)

// Config describes one demo run. Hosts and Datacenter are required; every
// other zero field takes the default documented on it.
type Config struct {
	Hosts      []string // host or host:port of the cluster
	Datacenter string   // local datacenter
	Username   string   // optional PasswordAuthenticator credentials
	Password   string
	// AddressMap translates the node addresses the cluster reports
	// (repo.SessionConfig.AddressMap): set for a container reached through
	// a published port.
	AddressMap map[string]string

	Keyspace          string // default "tsbucket_demo"
	ReplicationFactor int    // in Datacenter; default 1

	// Duration of the live phase; default 30s. Forever runs until ctx is done.
	Duration time.Duration
	Forever  bool

	Channels int // chat channels; default 500
	Authors  int // chat authors; default 200
	Sensors  int // IoT sensors; default 200
	Sites    int // IoT sites the sensors are spread over; default 20
	// Skew is the Zipf exponent (> 1) of channel and author popularity: a
	// few hot channels, many quiet ones. Default 1.2.
	Skew float64

	// Operations per second. Here and for the seed, purge and fault
	// settings, zero takes the default and a negative value means none.
	ChatRate   float64 // message writes; default 100
	IoTRate    float64 // reading writes; default 100
	LatestRate float64 // channel openings, each by Viewers readers; default 20
	AuthorRate float64 // author feed reads; default 10
	PageRate   float64 // pager sessions, each up to Pages pages; default 2
	SensorRate float64 // latest readings of a sensor; default 20
	RangeRate  float64 // oldest-first reads of a site's last 6 hours; default 5
	SiteRate   float64 // latest values of every sensor of a site, at once; default 5
	HourlyRate float64 // a sensor's hourly aggregates over the last day; default 2
	DeleteRate float64 // moderator deletes of recent messages; default 1

	Viewers   int // identical concurrent reads per channel opening; default 4
	Pages     int // pages per pager session; default 5
	PageSize  int // messages per page; default 50
	BodyBytes int // message body size; default 200

	History      time.Duration // span of the seeded chat history; default 30 days
	SeedMessages int           // messages seeded before the live phase; default 5000
	SeedReadings int           // readings seeded over the last two days; default 5000
	Purge        int           // messages written then deleted in one channel; default 150

	FaultRate    float64       // fraction of message writes whose messages_by_author insert fails (injected); default 0.01
	FaultTimeout time.Duration // how long that injected write timeout takes; default 1ms

	Workers int // concurrent workers per operation; default 8

	PartitionRowsLimit int64         // metrics.Config.PartitionRowsLimit; default DefaultPartitionRowsLimit
	MetricsAddr        string        // /metrics listen address; default 127.0.0.1:9464, MetricsOff for none
	SizePollInterval   time.Duration // server size-estimate polls; default 10s

	Progress      Progress
	ProgressEvery time.Duration // between progress lines in ProgressLines mode; default 5s

	Seed uint64 // seeds the workers' random sources; same seed, same choices
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// orNone is orDefault for settings where "none" is meaningful: zero takes the
// default, a negative value means none (0).
func orNone[T int | float64](v, def T) T {
	if v < 0 {
		return 0
	}
	return orDefault(v, def)
}

// WithDefaults returns a copy of c with every zero field defaulted and every
// negative "none" field set to 0, as Run uses it.
func (c Config) WithDefaults() Config { return c.withDefaults() }

func (c Config) withDefaults() Config {
	c.Hosts = append([]string(nil), c.Hosts...)
	c.Keyspace = orDefault(c.Keyspace, DefaultKeyspace)
	c.ReplicationFactor = orDefault(c.ReplicationFactor, 1)
	c.Duration = orDefault(c.Duration, DefaultDuration)
	c.Channels = orDefault(c.Channels, 500)
	c.Authors = orDefault(c.Authors, 200)
	c.Sensors = orDefault(c.Sensors, 200)
	c.Sites = orDefault(c.Sites, 20)
	c.Skew = orDefault(c.Skew, 1.2)
	c.ChatRate = orNone(c.ChatRate, 100)
	c.IoTRate = orNone(c.IoTRate, 100)
	c.LatestRate = orNone(c.LatestRate, 20)
	c.AuthorRate = orNone(c.AuthorRate, 10)
	c.PageRate = orNone(c.PageRate, 2)
	c.SensorRate = orNone(c.SensorRate, 20)
	c.RangeRate = orNone(c.RangeRate, 5)
	c.SiteRate = orNone(c.SiteRate, 5)
	c.HourlyRate = orNone(c.HourlyRate, 2)
	c.DeleteRate = orNone(c.DeleteRate, 1)
	c.Viewers = orDefault(c.Viewers, 4)
	c.Pages = orDefault(c.Pages, 5)
	c.PageSize = orDefault(c.PageSize, 50)
	c.BodyBytes = orDefault(c.BodyBytes, 200)
	c.History = orDefault(c.History, 30*24*time.Hour)
	c.SeedMessages = orNone(c.SeedMessages, 5000)
	c.SeedReadings = orNone(c.SeedReadings, 5000)
	c.Purge = orNone(c.Purge, 150)
	c.FaultRate = orNone(c.FaultRate, 0.01)
	c.FaultTimeout = orDefault(c.FaultTimeout, time.Millisecond)
	c.Workers = orDefault(c.Workers, 8)
	c.PartitionRowsLimit = orDefault(c.PartitionRowsLimit, DefaultPartitionRowsLimit)
	c.MetricsAddr = orDefault(c.MetricsAddr, DefaultMetricsAddr)
	c.SizePollInterval = orDefault(c.SizePollInterval, 10*time.Second)
	c.ProgressEvery = orDefault(c.ProgressEvery, 5*time.Second)
	return c
}

// Validate reports the first unusable field. Zero fields are valid: they
// take defaults.
func (c Config) Validate() error {
	c = c.withDefaults()
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadConfig}, args...)...)
	}
	if len(c.Hosts) == 0 || c.Datacenter == "" {
		return bad("hosts and datacenter are required")
	}
	if err := ValidateKeyspace(c.Keyspace); err != nil {
		return bad("%v", err)
	}
	if c.MetricsAddr != MetricsOff {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			return bad("metrics address %q: %v", c.MetricsAddr, err)
		}
	}
	if c.Password != "" && c.Username == "" {
		return bad("password without username")
	}
	type count struct {
		name    string
		v, most int
	}
	// The upper bounds keep memory bounded: workers and viewers are
	// goroutines, the purge and a body are held in memory.
	for _, n := range []count{
		{"replication factor", c.ReplicationFactor, 32}, {"channels", c.Channels, math.MaxInt32},
		{"authors", c.Authors, math.MaxInt32}, {"sensors", c.Sensors, math.MaxInt32},
		{"sites", c.Sites, math.MaxInt32}, {"viewers", c.Viewers, maxGoroutines},
		{"pages", c.Pages, math.MaxInt32}, {"page size", c.PageSize, 1000},
		{"body bytes", c.BodyBytes, maxBodyBytes}, {"workers", c.Workers, maxGoroutines},
		{"purge", c.Purge, maxPurge},
	} {
		least := 1
		if n.name == "purge" {
			least = 0
		}
		if n.v < least || n.v > n.most {
			return bad("%s %d not in [%d, %d]", n.name, n.v, least, n.most)
		}
	}
	return c.validateRanges(bad)
}

func (c Config) validateRanges(bad func(string, ...any) error) error {
	for _, op := range liveOps {
		if r := c.rate(op); !(r >= 0 && r <= maxRate) {
			return bad("%s rate %v not in [0, %v]", op, r, float64(maxRate))
		}
	}
	switch {
	case c.Sites > c.Sensors:
		return bad("%d sites for %d sensors: every site needs a sensor", c.Sites, c.Sensors)
	case !(c.Skew > 1) || math.IsInf(c.Skew, 0):
		return bad("skew %v must be a finite number > 1 (a Zipf exponent)", c.Skew)
	case !(c.FaultRate >= 0 && c.FaultRate <= 1):
		return bad("fault rate %v not in [0, 1]", c.FaultRate)
	case c.Duration < 0, c.History < 0, c.FaultTimeout < 0, c.SizePollInterval < 0, c.ProgressEvery < 0:
		return bad("negative duration")
	case c.PartitionRowsLimit < 0:
		return bad("partition rows limit %d < 0", c.PartitionRowsLimit)
	case c.Progress < ProgressLines || c.Progress > ProgressNone:
		return bad("unknown progress mode %d", c.Progress)
	}
	return nil
}

// rate is the configured rate of a live operation (0 for the others).
func (c Config) rate(op string) float64 {
	switch op {
	case OpChatWrite:
		return c.ChatRate
	case OpIoTWrite:
		return c.IoTRate
	case OpChatLatest:
		return c.LatestRate
	case OpChatAuthor:
		return c.AuthorRate
	case OpChatPage:
		return c.PageRate
	case OpIoTLatest:
		return c.SensorRate
	case OpIoTRange:
		return c.RangeRate
	case OpIoTSite:
		return c.SiteRate
	case OpIoTHourly:
		return c.HourlyRate
	case OpChatDelete:
		return c.DeleteRate
	}
	return 0
}
