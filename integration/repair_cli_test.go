package integration

import (
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

// TestRepairCommand: rows lost from one view come back from the base view
// through `tsbucket repair`, which reports what it fixed; a second run fixes
// nothing.
func TestRepairCommand(t *testing.T) {
	c := cluster(t)
	bin := buildCLI(t)
	ks, s := refKeyspace(t)
	r, err := repo.Open[refmodel.Message](t.Context(), s, ks, refmodel.ChatViews(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	for i := range 6 {
		msg := refmodel.Message{ChannelID: 3, MessageID: snowflakeAt(t, now.Add(-time.Duration(i)*time.Hour), uint64(i)), AuthorID: 8, Body: "repair me"}
		if err := r.Put(t.Context(), &msg); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Query(`TRUNCATE messages_by_author`).Exec(); err != nil {
		t.Fatal(err)
	}
	args := []string{"repair", "--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter, "--keyspace", ks,
		"--base", "messages_by_channel", "--key", "3", "--from", now.Add(-24 * time.Hour).Format(time.RFC3339)}
	code, out, errOut := tsbucket(t, bin, args...)
	t.Logf("first repair: %s", out)
	if code != 0 || !strings.Contains(out, "fixed 6 row(s)") {
		t.Fatalf("repair: exit %d\n%s%s", code, out, errOut)
	}
	p, err := r.Latest(t.Context(), "messages_by_author", repo.Key{int64(8)}, 10)
	if err != nil || len(p.Items) != 6 {
		t.Fatalf("messages_by_author after repair: %d items, %v; want 6", len(p.Items), err)
	}
	code, out, errOut = tsbucket(t, bin, append(args, "--json")...)
	if code != 0 || !strings.Contains(out, `"Fixed": 0`) {
		t.Fatalf("second repair: exit %d\n%s%s", code, out, errOut)
	}
}
