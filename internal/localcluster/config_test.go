package localcluster

import (
	"errors"
	"os"
	"slices"
	"testing"
	"time"
)

func TestConfigDefaults(t *testing.T) {
	got, err := Config{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if got.Nodes != 1 || got.HeapMB != 768 || got.StartTimeout != 120*time.Second || got.StopTimeout != 30*time.Second {
		t.Errorf("defaults = %+v", got)
	}
	if want := []string{"dc1"}; !slices.Equal(got.Datacenters, want) {
		t.Errorf("Datacenters = %v, want %v", got.Datacenters, want)
	}
	three, err := Config{Nodes: 3}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"dc1", "dc1", "dc1"}; !slices.Equal(three.Datacenters, want) {
		t.Errorf("3-node Datacenters = %v, want %v", three.Datacenters, want)
	}
}

func TestConfigDoesNotAliasCaller(t *testing.T) {
	dcs := []string{"a", "b", "c"}
	got, err := Config{Nodes: 3, Datacenters: dcs}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	got.Datacenters[0] = "changed"
	if dcs[0] != "a" {
		t.Errorf("caller's Datacenters changed to %v", dcs)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"two nodes", Config{Nodes: 2}},
		{"four nodes", Config{Nodes: 4}},
		{"negative nodes", Config{Nodes: -1}},
		{"tiny heap", Config{HeapMB: 100}},
		{"dc count mismatch", Config{Nodes: 3, Datacenters: []string{"dc1"}}},
		{"empty dc name", Config{Datacenters: []string{""}}},
		{"dc name with space", Config{Datacenters: []string{"dc 1"}}},
		{"client cert without tls", Config{RequireClientCert: true}},
		{"negative tombstone threshold", Config{TombstoneWarnThreshold: -1}},
		{"fractional size interval", Config{SizeRecorderInterval: 1500 * time.Millisecond}},
		{"negative start timeout", Config{StartTimeout: -time.Second}},
		{"fractional commit log window", Config{CommitLogGroupWindow: 1500 * time.Microsecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.cfg.withDefaults()
			if !errors.Is(err, ErrBadConfig) {
				t.Errorf("err = %v, want ErrBadConfig", err)
			}
		})
	}
}

func TestConfigValid(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"three named dcs", Config{Nodes: 3, Datacenters: []string{"dc1", "dc1", "dc2"}}},
		{"tls with client cert", Config{TLS: true, RequireClientCert: true}},
		{"everything", Config{Auth: true, TombstoneWarnThreshold: 10, ReadThresholds: true, SizeRecorderInterval: 5 * time.Second, HeapMB: 512}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.cfg.withDefaults(); err != nil {
				t.Errorf("err = %v, want nil", err)
			}
		})
	}
}

func TestOwnGroups(t *testing.T) {
	_, err := Config{Nodes: 3, OwnGroups: true}.withDefaults()
	if os.Geteuid() == 0 {
		if err != nil {
			t.Fatalf("OwnGroups as root: %v", err)
		}
	} else if !errors.Is(err, ErrBadConfig) {
		t.Fatalf("OwnGroups without root: err = %v, want ErrBadConfig", err)
	}
	c := &Cluster{cfg: Config{OwnGroups: true}}
	if got := c.GroupID(2); got != NodeGroupBase+3 {
		t.Errorf("GroupID(2) = %d, want %d", got, NodeGroupBase+3)
	}
	if got := (&Cluster{}).GroupID(0); got != 0 {
		t.Errorf("GroupID without OwnGroups = %d, want 0", got)
	}
}
