package integration

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// TestExpiryLimitOfTheNode (issue 23, defect 7): Open asks the node for the
// latest expiry it accepts (a Cassandra 5.0 node in its default storage
// compatibility mode stops at 2038-01-19), so a view whose TTL reaches past
// it is refused up front with ErrBadTTL naming the limit, not with the
// server's error inside a *PutError on every write; a shorter TTL is written.
func TestExpiryLimitOfTheNode(t *testing.T) {
	ctx := t.Context()
	ks := testKeyspace(t)
	s := connect(t, "")
	v := ticksView(t)
	v.TTL = schema.MaxTTL
	if err := schema.Apply(ctx, s, ks, []schema.View{v}); err != nil {
		t.Fatal(err)
	}
	r, err := repo.Open[Tick](ctx, s, ks.Name, []schema.View{v}, repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := s.Query(`SELECT value FROM system_views.settings WHERE name = 'storage_compatibility_mode'`).WithContext(ctx).Scan(&mode); err != nil {
		t.Skipf("the node does not say its storage compatibility mode: %v", err)
	}
	tk := tickAt(t, "s1", time.Now(), 1)
	err = r.Put(ctx, &tk)
	if mode == "NONE" {
		if err != nil {
			t.Fatalf("mode NONE: a 20-year TTL is accepted, got %v", err)
		}
		return
	}
	var pe *repo.PutError
	if !errors.Is(err, repo.ErrBadTTL) || errors.As(err, &pe) || !strings.Contains(err.Error(), "2038-01-19") {
		t.Fatalf("mode %s: got %v, want ErrBadTTL naming 2038-01-19, before anything is sent", mode, err)
	}
	if err := r.Put(ctx, &tk, repo.WithTTL(24*time.Hour)); err != nil {
		t.Fatalf("a TTL of a day: %v", err)
	}
}
