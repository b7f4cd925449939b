package demo

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func validConfig() Config {
	return Config{Hosts: []string{"127.0.0.1"}, Datacenter: "dc1"}
}

func TestValidate(t *testing.T) {
	mod := func(f func(*Config)) Config {
		c := validConfig()
		f(&c)
		return c
	}
	tests := []struct {
		name string
		cfg  Config
		want string // "" for valid; else a fragment of the error
	}{
		{"defaults", validConfig(), ""},
		{"everything off", mod(func(c *Config) {
			c.ChatRate, c.IoTRate, c.LatestRate, c.DeleteRate, c.FaultRate = -1, -1, -1, -1, -1
			c.SeedMessages, c.SeedReadings, c.Purge = -1, -1, -1
		}), ""},
		{"no hosts", mod(func(c *Config) { c.Hosts = nil }), "hosts and datacenter"},
		{"no datacenter", mod(func(c *Config) { c.Datacenter = "" }), "hosts and datacenter"},
		{"bad keyspace", mod(func(c *Config) { c.Keyspace = "Demo-1" }), "keyspace"},
		{"password alone", mod(func(c *Config) { c.Password = "x" }), "password without username"},
		{"system keyspace", mod(func(c *Config) { c.Keyspace = "system_auth" }), "reserved"},
		{"negative channels", mod(func(c *Config) { c.Channels = -3 }), "channels -3 not in [1, "},
		{"negative workers", mod(func(c *Config) { c.Workers = -1 }), "workers"},
		{"too many workers", mod(func(c *Config) { c.Workers = 100_000 }), "workers 100000 not in [1, 1024]"},
		{"huge body", mod(func(c *Config) { c.BodyBytes = 1 << 40 }), "body bytes"},
		{"huge purge", mod(func(c *Config) { c.Purge = 1 << 30 }), "purge"},
		{"huge rate", mod(func(c *Config) { c.ChatRate = 1e12 }), "chat.write rate"},
		{"metrics address without port", mod(func(c *Config) { c.MetricsAddr = "no port" }), "metrics address"},
		{"metrics off", mod(func(c *Config) { c.MetricsAddr = MetricsOff }), ""},
		{"skew 1", mod(func(c *Config) { c.Skew = 1 }), "skew"},
		{"skew NaN", mod(func(c *Config) { c.Skew = math.NaN() }), "skew"},
		{"skew infinite", mod(func(c *Config) { c.Skew = math.Inf(1) }), "skew"},
		{"NaN rate", mod(func(c *Config) { c.ChatRate = math.NaN() }), "chat.write rate"},
		{"infinite rate", mod(func(c *Config) { c.RangeRate = math.Inf(1) }), "iot.range rate"},
		{"fault rate 2", mod(func(c *Config) { c.FaultRate = 2 }), "fault rate"},
		{"more sites than sensors", mod(func(c *Config) { c.Sites, c.Sensors = 30, 10 }), "sites"},
		{"negative duration", mod(func(c *Config) { c.Duration = -time.Second }), "negative duration"},
		{"page too large", mod(func(c *Config) { c.PageSize = 5000 }), "page size"},
		{"negative rows limit", mod(func(c *Config) { c.PartitionRowsLimit = -1 }), "partition rows limit"},
		{"unknown progress", mod(func(c *Config) { c.Progress = 9 }), "progress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("got %v, want nil", err)
			case tt.want != "" && (err == nil || !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("got %v, want ErrBadConfig mentioning %q", err, tt.want)
			}
		})
	}
}

func TestWithDefaults(t *testing.T) {
	c := Config{ChatRate: -1, Purge: -5, FaultRate: -1, IoTRate: 7, Hosts: []string{"a"}}
	got := c.WithDefaults()
	if got.ChatRate != 0 || got.Purge != 0 || got.FaultRate != 0 {
		t.Errorf("negative settings: got rate %v, purge %d, fault rate %v; want 0 (none)", got.ChatRate, got.Purge, got.FaultRate)
	}
	if got.IoTRate != 7 || got.LatestRate != 20 || got.Duration != DefaultDuration || got.Keyspace != DefaultKeyspace {
		t.Errorf("got %+v, want IoTRate 7 kept and defaults filled", got)
	}
	got.Hosts[0] = "changed"
	if c.Hosts[0] != "a" {
		t.Error("WithDefaults shares the Hosts slice with the caller")
	}
}

func TestKeyspaceCQL(t *testing.T) {
	tests := []struct {
		name    string
		tablets bool
		want    string
	}{
		{"cassandra", false, `CREATE KEYSPACE IF NOT EXISTS "demo" WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3} AND durable_writes = true`},
		{"scylla with tablets", true, `CREATE KEYSPACE IF NOT EXISTS "demo" WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3} AND durable_writes = true AND tablets = {'enabled': false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := keyspace("demo", "dc1", 3)
			k.NoTablets = tt.tablets // what schema.CreateKeyspace sets on a ScyllaDB with tablets
			got, err := k.CQL()
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := keyspace("demo", "dc1", 0).CQL(); err == nil {
		t.Error("replication factor 0 accepted")
	}
}
