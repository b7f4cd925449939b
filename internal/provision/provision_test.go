package provision

import (
	"context"
	"errors"
	"maps"
	"net"
	"slices"
	"strconv"
	"testing"

	"github.com/tsbucket/tsbucket/schema"
)

func TestKeyspaceName(t *testing.T) {
	tests := []struct {
		name, test, want string
	}{
		{"plain", "TestChain", "t_testchain_r1_3"},
		{"subtest and symbols", "TestA/b-c d", "t_testa_b_c_d_r1_3"},
		{"long name cut", "TestAVeryLongNameThatKeepsGoingAndGoing", "t_testaverylongnamethatkee_r1_3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := KeyspaceName("t", tc.test, "r1", 3)
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if err := schema.ValidateIdentifier(got); err != nil {
				t.Fatalf("%q is not a valid keyspace name: %v", got, err)
			}
		})
	}
}

type fakeResolver map[string][]net.IPAddr

func (f fakeResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ips, ok := f[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	return ips, nil
}

// What Docker Desktop, a remote engine and a native engine hand the harness.
func TestContainerAddressMap(t *testing.T) {
	r := fakeResolver{
		"localhost":         {{IP: net.ParseIP("::1")}, {IP: net.ParseIP("127.0.0.1")}},
		"docker.example":    {{IP: net.ParseIP("192.0.2.10")}},
		"v6only.example":    {{IP: net.ParseIP("2001:db8::10")}},
		"noaddress.example": {},
	}
	tests := []struct {
		name, internal, published string
		want                      map[string]string
		wantErr                   bool
	}{
		{"docker desktop: localhost and a random port", "172.17.0.2", "localhost:32768",
			map[string]string{"172.17.0.2:9042": "127.0.0.1:32768"}, false},
		{"remote engine by name", "172.18.0.5", "docker.example:49153",
			map[string]string{"172.18.0.5:9042": "192.0.2.10:49153"}, false},
		{"published on an IP", "172.17.0.2", "127.0.0.1:32768",
			map[string]string{"172.17.0.2:9042": "127.0.0.1:32768"}, false},
		{"IPv6 only host", "172.17.0.2", "v6only.example:32768",
			map[string]string{"172.17.0.2:9042": "[2001:db8::10]:32768"}, false},
		{"reached at its own address: no map", "172.17.0.2", "172.17.0.2:9042", nil, false},
		{"internal address not an IP", "scylla", "localhost:32768", nil, true},
		{"published address without port", "172.17.0.2", "localhost", nil, true},
		{"unresolvable host", "172.17.0.2", "nowhere.example:1", nil, true},
		{"host without addresses", "172.17.0.2", "noaddress.example:1", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ContainerAddressMap(t.Context(), tc.internal, tc.published, r)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %t", err, tc.wantErr)
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if got == nil {
				return
			}
			// The map is one repo.SessionConfig accepts and translates with.
			c := &Cluster{Hosts: []string{tc.published}, Datacenter: "datacenter1", AddressMap: got}
			cc, err := c.SessionConfig().ClusterConfig()
			if err != nil {
				t.Fatalf("session config refuses the map: %v", err)
			}
			ip, port := cc.AddressTranslator.Translate(net.ParseIP(tc.internal), CQLPort)
			if dest := net.JoinHostPort(ip.String(), strconv.Itoa(port)); dest != tc.want[tc.internal+":9042"] {
				t.Errorf("driver dials %s, want %s", dest, tc.want[tc.internal+":9042"])
			}
		})
	}
}

func TestClusterSessionConfig(t *testing.T) {
	c := &Cluster{Hosts: []string{"127.0.0.1"}, Datacenter: "dc1"}
	got := c.SessionConfig()
	if !slices.Equal(got.Hosts, c.Hosts) || got.Datacenter != "dc1" || got.AddressMap != nil {
		t.Errorf("got %v", got)
	}
}
