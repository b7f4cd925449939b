package bench

import (
	"errors"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	ok := Config{Hosts: []string{"127.0.0.1"}, Datacenter: "dc1"}
	tests := []struct {
		name string
		edit func(*Config)
		bad  bool
	}{
		{"zero sizes take defaults", func(*Config) {}, false},
		{"quick", func(c *Config) { q := Quick(); q.Hosts, q.Datacenter = c.Hosts, c.Datacenter; *c = q }, false},
		{"no hosts", func(c *Config) { c.Hosts = nil }, true},
		{"no datacenter", func(c *Config) { c.Datacenter = "" }, true},
		{"negative rounds", func(c *Config) { c.Rounds = -1 }, true},
		{"negative rate", func(c *Config) { c.DenseRate = -1 }, true},
		{"negative Put spin", func(c *Config) { c.PutSpin = -time.Microsecond }, true},
		{"page over MaxLimit", func(c *Config) { c.Page = 1001 }, true},
		{"only known scenarios", func(c *Config) { c.Only = []string{"writes", "deep"} }, false},
		{"unknown scenario", func(c *Config) { c.Only = []string{"dense", "latency"} }, true},
		{"dense key smaller than a page", func(c *Config) { c.DenseItems, c.Page = 10, 50 }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			err := c.Validate()
			if got := err != nil; got != tc.bad {
				t.Fatalf("got error %v, want error: %t", err, tc.bad)
			}
			if tc.bad && !errors.Is(err, ErrBadConfig) {
				t.Errorf("got %v, want ErrBadConfig", err)
			}
		})
	}
}

func TestConfigDefaultsCopy(t *testing.T) {
	hosts := []string{"a"}
	c := Config{Hosts: hosts, Datacenter: "dc1"}.withDefaults()
	c.Hosts[0] = "b"
	if hosts[0] != "a" {
		t.Error("withDefaults shares the caller's Hosts")
	}
	if c.Keyspace != "tsbucket_bench" || c.Rounds != 6 || c.DeepItems != 10_000 || c.Page != 50 || c.Now == nil || c.Log == nil {
		t.Errorf("defaults not applied: %+v", c)
	}
}
