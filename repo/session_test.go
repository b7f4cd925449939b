package repo

import (
	"errors"
	"net"
	"strings"
	"testing"
)

// A container under Docker Desktop or a remote engine reports its internal
// address; the map sends the driver to the published port instead.
func TestSessionAddressMap(t *testing.T) {
	cfg := SessionConfig{Hosts: []string{"127.0.0.1:32768"}, Datacenter: "datacenter1",
		AddressMap: map[string]string{"172.17.0.2:9042": "127.0.0.1:32768", "[fd00::2]:9042": "[::1]:19042"}}
	cc, err := cfg.ClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cc.AddressTranslator == nil {
		t.Fatal("no address translator")
	}
	tests := []struct {
		name     string
		ip       net.IP
		port     int
		wantIP   string
		wantPort int
	}{
		{"mapped, 4-byte form", net.IPv4(172, 17, 0, 2).To4(), 9042, "127.0.0.1", 32768},
		{"mapped, 16-byte form (as the driver parses peers)", net.IPv4(172, 17, 0, 2), 9042, "127.0.0.1", 32768},
		{"mapped IPv6", net.ParseIP("fd00::2"), 9042, "::1", 19042},
		{"same ip, other port: as reported", net.IPv4(172, 17, 0, 2), 9043, "172.17.0.2", 9043},
		{"unknown node: as reported", net.IPv4(10, 0, 0, 7), 9042, "10.0.0.7", 9042},
		{"nil ip: as reported", nil, 9042, "<nil>", 9042},
		{"port out of range: as reported", net.IPv4(172, 17, 0, 2), 1 << 20, "172.17.0.2", 1 << 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ip, port := cc.AddressTranslator.Translate(tc.ip, tc.port)
			if got := ip.String(); got != tc.wantIP || port != tc.wantPort {
				t.Errorf("got %s port %d, want %s port %d", got, port, tc.wantIP, tc.wantPort)
			}
		})
	}
}

func TestSessionAddressMapAbsent(t *testing.T) {
	cc, err := SessionConfig{Hosts: []string{"127.0.0.1"}, Datacenter: "dc1"}.ClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cc.AddressTranslator != nil || cc.DisableInitialHostLookup {
		t.Errorf("translator %v, lookup disabled %t: want the driver's defaults", cc.AddressTranslator, cc.DisableInitialHostLookup)
	}
}

func TestSessionDisableInitialHostLookup(t *testing.T) {
	cfg := SessionConfig{Hosts: []string{"127.0.0.1"}, Datacenter: "dc1", DisableInitialHostLookup: true}
	cc, err := cfg.ClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	if !cc.DisableInitialHostLookup {
		t.Error("initial host lookup still enabled")
	}
	if got := cfg.String(); !strings.Contains(got, "host-lookup=off") {
		t.Errorf("String() = %q, want host-lookup=off", got)
	}
}

func TestSessionAddressMapInvalid(t *testing.T) {
	tests := []struct {
		name string
		m    map[string]string
	}{
		{"host name as key", map[string]string{"scylla:9042": "127.0.0.1:9042"}},
		{"host name as value", map[string]string{"172.17.0.2:9042": "localhost:32768"}},
		{"no port in key", map[string]string{"172.17.0.2": "127.0.0.1:32768"}},
		{"no port in value", map[string]string{"172.17.0.2:9042": "127.0.0.1"}},
		{"port out of range", map[string]string{"172.17.0.2:9042": "127.0.0.1:70000"}},
		{"empty", map[string]string{"": ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := SessionConfig{Hosts: []string{"127.0.0.1"}, Datacenter: "dc1", AddressMap: tc.m}
			if err := cfg.Validate(); !errors.Is(err, ErrBadSessionConfig) {
				t.Errorf("Validate() = %v, want ErrBadSessionConfig", err)
			}
			if _, err := cfg.ClusterConfig(); !errors.Is(err, ErrBadSessionConfig) {
				t.Errorf("ClusterConfig() error %v, want ErrBadSessionConfig", err)
			}
		})
	}
}

func TestSessionStringShowsAddressMap(t *testing.T) {
	cfg := SessionConfig{Hosts: []string{"127.0.0.1:32768"}, Datacenter: "datacenter1", Password: "s3cret", Username: "u",
		AddressMap: map[string]string{"172.17.0.3:9042": "127.0.0.1:32769", "172.17.0.2:9042": "127.0.0.1:32768"}}
	got := cfg.String()
	if want := "addresses=172.17.0.2:9042->127.0.0.1:32768,172.17.0.3:9042->127.0.0.1:32769"; !strings.Contains(got, want) {
		t.Errorf("String() = %q, want it to contain %q", got, want)
	}
	if strings.Contains(got, "s3cret") {
		t.Errorf("String() = %q prints the password", got)
	}
}

// The map is read, never changed: the caller's map stays theirs.
func TestSessionAddressMapNotMutated(t *testing.T) {
	m := map[string]string{"[::ffff:172.17.0.2]:9042": "127.0.0.1:32768"}
	if _, err := (SessionConfig{Hosts: []string{"h"}, Datacenter: "dc1", AddressMap: m}).ClusterConfig(); err != nil {
		t.Fatal(err)
	}
	if len(m) != 1 || m["[::ffff:172.17.0.2]:9042"] != "127.0.0.1:32768" {
		t.Errorf("map changed: %v", m)
	}
}
