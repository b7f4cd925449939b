package repo

import (
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
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

// pickRecorder is a host selection policy that only records Pick calls.
type pickRecorder struct {
	gocql.HostSelectionPolicy
	picked int
}

func (p *pickRecorder) AddHost(*gocql.HostInfo)    {}
func (p *pickRecorder) HostDown(*gocql.HostInfo)   {}
func (p *pickRecorder) HostUp(*gocql.HostInfo)     {}
func (p *pickRecorder) RemoveHost(*gocql.HostInfo) {}

func (p *pickRecorder) Pick(gocql.ExecutableQuery) gocql.NextHost {
	p.picked++
	return func() gocql.SelectedHost { return nil }
}

// specOf reads the speculative execution policy gocql will use for q: the
// driver keeps it unexported (field spec of Query and Batch, in gocql and
// in its ScyllaDB fork alike).
func specOf(t *testing.T, q any) any {
	t.Helper()
	f := reflect.ValueOf(q).Elem().FieldByName("spec")
	if !f.IsValid() {
		t.Fatalf("%T has no field spec: the driver changed", q)
	}
	if f.IsNil() {
		return nil
	}
	e := f.Elem()
	if e.Kind() == reflect.Pointer {
		e = e.Elem()
	}
	if e.Type() == reflect.TypeFor[gocql.SimpleSpeculativeExecution]() {
		return gocql.SimpleSpeculativeExecution{
			NumAttempts:  int(e.FieldByName("NumAttempts").Int()),
			TimeoutDelay: time.Duration(e.FieldByName("TimeoutDelay").Int()),
		}
	}
	return e.Type().Name()
}

func TestSessionSpeculativeExecution(t *testing.T) {
	base := SessionConfig{Hosts: []string{"127.0.0.1"}, Datacenter: "dc1"}
	with := func(attempts int, delay time.Duration) SessionConfig {
		c := base
		c.SpeculativeAttempts, c.SpeculativeDelay = attempts, delay
		return c
	}
	idempotent := func() gocql.ExecutableQuery { return (&gocql.Query{}).Idempotent(true) }
	tests := []struct {
		name  string
		cfg   SessionConfig
		hosts int // hosts up
		query func() gocql.ExecutableQuery
		want  any // the query's policy after Pick; nil: never set
	}{
		{"defaults, idempotent query", base, 3, idempotent,
			gocql.SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: DefaultSpeculativeDelay}},
		{"chosen attempts and delay", with(2, 30*time.Millisecond), 3, idempotent,
			gocql.SimpleSpeculativeExecution{NumAttempts: 2, TimeoutDelay: 30 * time.Millisecond}},
		{"attempts capped by the other hosts up", with(5, 30*time.Millisecond), 3, idempotent,
			gocql.SimpleSpeculativeExecution{NumAttempts: 2, TimeoutDelay: 30 * time.Millisecond}},
		{"single node: no host to speculate on", base, 1, idempotent, "NonSpeculativeExecution"},
		{"idempotent batch", base, 3, func() gocql.ExecutableQuery {
			return &gocql.Batch{Entries: []gocql.BatchEntry{{Stmt: "x", Idempotent: true}}}
		}, gocql.SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: DefaultSpeculativeDelay}},
		{"query not idempotent: left alone", base, 3, func() gocql.ExecutableQuery { return &gocql.Query{} }, nil},
		{"batch not idempotent: left alone", base, 3, func() gocql.ExecutableQuery {
			return &gocql.Batch{Entries: []gocql.BatchEntry{{Stmt: "x", Idempotent: true}, {Stmt: "y"}}}
		}, nil},
		{"speculation off", with(-1, 0), 3, idempotent, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &pickRecorder{}
			p := speculating(rec, tc.cfg.withDefaults())
			for range tc.hosts {
				p.AddHost(&gocql.HostInfo{})
			}
			q := tc.query()
			p.Pick(q)
			if rec.picked != 1 {
				t.Fatalf("inner policy picked %d times, want 1", rec.picked)
			}
			if got := specOf(t, q); got != tc.want {
				t.Errorf("speculative policy %v, want %v", got, tc.want)
			}
		})
	}
}

// The session's policy is token-aware over DC-aware, wrapped for
// speculation unless it is off.
func TestSessionSpeculationWrapsPolicy(t *testing.T) {
	tests := []struct {
		name     string
		attempts int
		wrapped  bool
	}{
		{"default", 0, true},
		{"two attempts", 2, true},
		{"off", -1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cc, err := SessionConfig{Hosts: []string{"127.0.0.1"}, Datacenter: "dc1", SpeculativeAttempts: tc.attempts}.ClusterConfig()
			if err != nil {
				t.Fatal(err)
			}
			_, got := cc.PoolConfig.HostSelectionPolicy.(*speculativePolicy)
			if got != tc.wrapped {
				t.Errorf("policy %T, wrapped %t, want %t", cc.PoolConfig.HostSelectionPolicy, got, tc.wrapped)
			}
		})
	}
}

func TestSessionSpeculationInvalid(t *testing.T) {
	tests := []struct {
		name     string
		attempts int
		delay    time.Duration
	}{
		{"attempts below -1", -2, 0},
		{"negative delay", 1, -time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := SessionConfig{Hosts: []string{"h"}, Datacenter: "dc1", SpeculativeAttempts: tc.attempts, SpeculativeDelay: tc.delay}
			if err := cfg.Validate(); !errors.Is(err, ErrBadSessionConfig) {
				t.Errorf("Validate() = %v, want ErrBadSessionConfig", err)
			}
		})
	}
}

// The count of hosts up follows the driver's notifications: with two of
// three down, a statement does not speculate.
func TestSessionSpeculationFollowsHostsUp(t *testing.T) {
	p := speculating(&pickRecorder{}, SessionConfig{Hosts: []string{"h"}, Datacenter: "dc1"}.withDefaults())
	hosts := []*gocql.HostInfo{{}, {}, {}}
	p.(interface{ AddHosts([]*gocql.HostInfo) }).AddHosts(hosts)
	steps := []struct {
		name   string
		change func()
		want   any
	}{
		{"three up", func() {}, gocql.SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: DefaultSpeculativeDelay}},
		{"one down", func() { p.HostDown(hosts[0]) }, gocql.SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: DefaultSpeculativeDelay}},
		{"two down", func() { p.HostDown(hosts[1]) }, "NonSpeculativeExecution"},
		{"one back", func() { p.HostUp(hosts[0]) }, gocql.SimpleSpeculativeExecution{NumAttempts: 1, TimeoutDelay: DefaultSpeculativeDelay}},
		{"removed", func() { p.RemoveHost(hosts[0]) }, "NonSpeculativeExecution"},
	}
	for _, st := range steps {
		st.change()
		q := (&gocql.Query{}).Idempotent(true)
		p.Pick(q)
		if got := specOf(t, q); got != st.want {
			t.Errorf("%s: speculative policy %v, want %v", st.name, got, st.want)
		}
	}
}

func TestSessionDefaults(t *testing.T) {
	cc, err := SessionConfig{Hosts: []string{"127.0.0.1"}, Datacenter: "dc1"}.ClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cc.Timeout, DefaultTimeout; got != want {
		t.Errorf("Timeout %v, want %v", got, want)
	}
	if got, want := cc.Consistency, gocql.LocalQuorum; got != want {
		t.Errorf("Consistency %v, want %v", got, want)
	}
}

// TestSessionRetriesOnlyWhatCannotApplyTwice: the session's retry policy
// retries idempotent statements and SELECTs, never another statement: gocql
// asks the policy about every statement, and a counter update, a list
// append or an LWT that timed out after it applied would apply again.
func TestSessionRetriesOnlyWhatCannotApplyTwice(t *testing.T) {
	cc, err := SessionConfig{Hosts: []string{"127.0.0.1"}, Datacenter: "dc1"}.ClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	s := tripwireSession()
	for _, c := range []struct {
		q    gocql.RetryableQuery
		want bool
	}{
		{s.Query(`UPDATE ks.c SET n = n + 1 WHERE k = 1`), false},
		{s.Query(`INSERT INTO ks.t (k) VALUES (1) IF NOT EXISTS`), false},
		{s.Query(`UPDATE ks.c SET n = n + 1 WHERE k = 1`).Idempotent(true), true},
		{s.Query(`SELECT k FROM ks.t WHERE k = 1`), true},
		{s.Query(` select k FROM ks.t`), true},
		{s.Query(`SELECTED`), true}, // a prefix test: CQL has no such statement
		{s.Query(`DELETE FROM ks.t WHERE k = 1`), false},
		{s.Query(`DROP KEYSPACE IF EXISTS ks`), true},
		{s.Query(`ALTER TABLE ks.t ADD v text`), false},
		{unmarkedBatch(s), false},
	} {
		if got := cc.RetryPolicy.Attempt(c.q); got != c.want {
			t.Errorf("%T %v: Attempt %v, want %v", c.q, c.q, got, c.want)
		}
	}
}

// unmarkedBatch is a batch of one statement not marked idempotent.
func unmarkedBatch(s *gocql.Session) *gocql.Batch {
	b := s.NewBatch(gocql.UnloggedBatch)
	b.Query(`UPDATE ks.c SET n = n + 1 WHERE k = 1`)
	return b
}
