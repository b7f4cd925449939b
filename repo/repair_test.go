package repo

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/refmodel"
)

// tripwireSession is a session that was never connected: any statement sent
// through it panics (gocql's executor is nil), so a test that returns
// normally proves that no statement reached a database. It is not a fake: it
// answers nothing.
func tripwireSession() *gocql.Session { return new(gocql.Session) }

func tripwireChat(t testing.TB, opts Options) *Repo[refmodel.Message] {
	t.Helper()
	r, err := New[refmodel.Message](tripwireSession(), "ks", refmodel.ChatViews(), opts)
	if err != nil {
		t.Fatalf("new chat repo: %v", err)
	}
	return r
}

func TestRepairRejectsBadInputWithoutIO(t *testing.T) {
	r := tripwireChat(t, Options{})
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		base     string
		key      Key
		from, to time.Time
		want     error
	}{
		{"unknown view", "no_such_view", Key{int64(1)}, time.Time{}, time.Time{}, ErrUnknownView},
		{"hostile view name", "messages_by_channel; DROP TABLE x", Key{int64(1)}, time.Time{}, time.Time{}, ErrUnknownView},
		{"no key", "messages_by_channel", nil, time.Time{}, time.Time{}, ErrBadKey},
		{"two values for one column", "messages_by_channel", Key{int64(1), int64(2)}, time.Time{}, time.Time{}, ErrBadKey},
		{"nil key value", "messages_by_channel", Key{nil}, time.Time{}, time.Time{}, ErrBadKey},
		{"empty string key", "messages_by_channel", Key{""}, time.Time{}, time.Time{}, ErrBadKey},
		{"inverted range", "messages_by_channel", Key{int64(1)}, at, at.Add(-time.Second), ErrBadRange},
		{"empty range", "messages_by_channel", Key{int64(1)}, at, at, ErrBadRange},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := r.Repair(t.Context(), tc.base, tc.key, tc.from, tc.to)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if rep.Items != 0 || rep.Fixed() != 0 {
				t.Fatalf("report %v after rejected input", rep)
			}
		})
	}
}

func TestStampQuery(t *testing.T) {
	r := tripwireChat(t, Options{})
	tests := []struct {
		view   string
		want   string
		values int
	}{
		{"messages_by_channel", "SELECT message_id,WRITETIME(author_id),TTL(author_id),WRITETIME(body),TTL(body) FROM ks.messages_by_channel WHERE channel_id=? AND bucket=? AND message_id=?", 2},
		{"message_by_id", "SELECT message_id,WRITETIME(channel_id),TTL(channel_id),WRITETIME(author_id),TTL(author_id),WRITETIME(body),TTL(body) FROM ks.message_by_id WHERE message_id=?", 3},
	}
	for _, tc := range tests {
		t.Run(tc.view, func(t *testing.T) {
			got := newStampQuery(r.views[tc.view])
			if got.cql != tc.want || got.values != tc.values {
				t.Fatalf("got %q (%d values), want %q (%d)", got.cql, got.values, tc.want, tc.values)
			}
		})
	}
}

func TestScalarType(t *testing.T) {
	tests := []struct {
		typ  string
		want bool
	}{
		{"text", true},
		{"bigint", true},
		{"frozen<list<int>>", true},
		{"vector<float, 3>", true},
		{"list<int>", false},
		{"set<text>", false},
		{"map<text, int>", false},
		{"not a type", false},
	}
	for _, tc := range tests {
		t.Run(tc.typ, func(t *testing.T) {
			if got := scalarType(tc.typ); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRepairReport(t *testing.T) {
	rep := RepairReport{Base: "a", Items: 5, Invalid: 1, Views: map[string]ViewRepair{
		"c": {Missing: 2, Stale: 1, Current: 1},
		"b": {Current: 3, Failed: 1},
	}}
	if got, want := rep.Fixed(), 3; got != want {
		t.Fatalf("Fixed() = %d, want %d", got, want)
	}
	want := "repair from a: 5 item(s) read, 1 invalid; b: missing 0, stale 0, current 3, failed 1; c: missing 2, stale 1, current 1, failed 0"
	if got := rep.String(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	latest := RepairReport{Base: "a", Items: 4, Views: map[string]ViewRepair{"l": {Current: 1, Retired: 3}}}
	if got, want := latest.String(), "repair from a: 4 item(s) read, 0 invalid; l: missing 0, stale 0, current 1, failed 0, retired 3"; got != want || latest.Fixed() != 0 {
		t.Fatalf("latest-value view: got %q (fixed %d), want %q (fixed 0)", got, latest.Fixed(), want)
	}
	if strings.Contains(RepairReport{Base: "a"}.String(), "%!") {
		t.Fatal("empty report misprints")
	}
}

func tripwireIoT(t testing.TB, opts Options) *Repo[refmodel.Reading] {
	t.Helper()
	r, err := New[refmodel.Reading](tripwireSession(), "ks", refmodel.IoTViews(), opts)
	if err != nil {
		t.Fatalf("new IoT repo: %v", err)
	}
	return r
}
