package faults

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/localcluster"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// permissionWait bounds how long a GRANT or REVOKE takes to reach the
// node's permission cache (permissions_validity, 2 s by default).
const permissionWait = 30 * time.Second

// TestPermissionRevokedOnOneView: the application role loses MODIFY on
// messages_by_author. Put then names that view, and only it, as failed, with
// the server's Unauthorized error. Once MODIFY is granted back, retrying one
// failed Put completes it, and Repair from messages_by_channel restores the
// rest and reports exactly those.
func TestPermissionRevokedOnOneView(t *testing.T) {
	lc := useCluster(t, secureCluster)
	user, secret := createLoginRole(t, lc)
	admin := newSession(t, adminConfig(lc))
	ks := setupGrants(t, lc, admin, user)

	app := repo.SessionConfig{Hosts: lc.Hosts(), Datacenter: lc.Datacenter(0), Keyspace: ks, Username: user, Password: secret, TLS: lc.TLSConfig()}
	r, err := repo.Open[refmodel.Message](t.Context(), newSession(t, app), ks, refmodel.ChatViews(), repo.Options{})
	if err != nil {
		t.Fatalf("open as %s: %v", user, err)
	}
	var seq uint64
	next := func() refmodel.Message {
		seq++
		id, err := bucket.DiscordSnowflake().Make(time.Now(), 0, seq)
		if err != nil {
			t.Fatal(err)
		}
		return refmodel.Message{ChannelID: 3, MessageID: idInt(id), AuthorID: 30, Body: fmt.Sprintf("m%d", seq)}
	}

	exec(t, admin, fmt.Sprintf("REVOKE MODIFY ON TABLE %s.messages_by_author FROM %s", ks, user))
	var failed []refmodel.Message
	eventually(t, "Put to fail on messages_by_author", func() bool {
		m := next()
		err := r.Put(t.Context(), &m)
		if err == nil {
			return false // the revoke has not reached the cache yet: m is whole
		}
		checkUnauthorizedView(t, err)
		failed = append(failed, m)
		return true
	})
	for range 4 {
		m := next()
		checkUnauthorizedView(t, r.Put(t.Context(), &m))
		failed = append(failed, m)
	}

	exec(t, admin, fmt.Sprintf("GRANT MODIFY ON TABLE %s.messages_by_author TO %s", ks, user))
	eventually(t, "a retried Put to complete", func() bool { return r.Put(t.Context(), &failed[0]) == nil })
	rep, err := r.Repair(t.Context(), "messages_by_channel", repo.Key{int64(3)}, time.Time{}, time.Time{})
	if err != nil {
		t.Fatalf("repair: %v", err)
	}
	t.Logf("%v", rep)
	if got, want := rep.Views["messages_by_author"].Missing, len(failed)-1; got != want || rep.Views["messages_by_author"].Failed != 0 {
		t.Fatalf("repair restored %d rows of messages_by_author (report %v), want %d", got, rep, want)
	}
	p, err := r.Latest(t.Context(), "messages_by_author", repo.Key{int64(30)}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range failed {
		if !slices.Contains(p.Items, m) {
			t.Fatalf("%+v missing from messages_by_author after retry and repair", m)
		}
	}
}

// setupGrants creates the chat keyspace as the superuser and grants user
// SELECT on it and MODIFY on each table separately, so that one table's
// MODIFY can be revoked alone (a keyspace-wide grant would still cover it).
func setupGrants(t *testing.T, lc *localcluster.Cluster, admin *gocql.Session, user string) string {
	t.Helper()
	ks := createKeyspace(t, func() (*gocql.Session, error) { return repo.NewSession(adminConfig(lc)) }, lc.Datacenter(0), 1)
	ms, err := schema.LoadMigrations(refmodel.Migrations())
	if err != nil {
		t.Fatal(err)
	}
	cfg := adminConfig(lc)
	cfg.Keyspace = ks
	if _, err := schema.Migrate(t.Context(), newSession(t, cfg), ks, ms); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	exec(t, admin, fmt.Sprintf("GRANT SELECT ON KEYSPACE %s TO %s", ks, user))
	tables := []string{schema.MetadataTable}
	for _, v := range refmodel.ChatViews() {
		tables = append(tables, v.Name)
		if v.Bucketed() {
			tables = append(tables, v.PresenceTable())
		}
	}
	for _, table := range tables {
		exec(t, admin, fmt.Sprintf("GRANT MODIFY ON TABLE %s.%s TO %s", ks, table, user))
	}
	return ks
}

// checkUnauthorizedView: err is a *repo.PutError naming messages_by_author
// alone, caused by the server's Unauthorized error.
func checkUnauthorizedView(t *testing.T, err error) {
	t.Helper()
	var pe *repo.PutError
	if !errors.As(err, &pe) || !slices.Equal(pe.FailedViews(), []string{"messages_by_author"}) {
		t.Fatalf("got %v, want a *repo.PutError for messages_by_author only", err)
	}
	var re gocql.RequestError
	if !errors.As(err, &re) || re.Code() != gocql.ErrCodeUnauthorized {
		t.Fatalf("got %v, want the server's Unauthorized error", err)
	}
}

func exec(t *testing.T, s *gocql.Session, stmt string) {
	t.Helper()
	if err := s.Query(stmt).WithContext(t.Context()).Exec(); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// eventually polls cond every 200 ms until it holds or permissionWait passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(permissionWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", permissionWait, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
