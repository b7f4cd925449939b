package integration

import (
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

// TestRecordReadsNullAsNil: a Repo[Record] read gives a null column as nil,
// and an empty text as "". gocql's MapScan gives a null as its type's zero
// value, so a Record read and written back (tsbucket repair, backfill)
// wrote "" (or 0, or an empty blob) where there had been nothing.
func TestRecordReadsNullAsNil(t *testing.T) {
	ks, s := refKeyspace(t)
	r, err := repo.Open[repo.Record](t.Context(), s, ks, refmodel.ChatViews(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	unset := repo.Record{"channel_id": int64(1), "message_id": snowflakeAt(t, now.Add(-2*time.Second), 1), "author_id": int64(7)}
	empty := repo.Record{"channel_id": int64(1), "message_id": snowflakeAt(t, now.Add(-time.Second), 2), "author_id": int64(0), "body": ""}
	for _, rec := range []repo.Record{unset, empty} {
		if err := r.Put(t.Context(), &rec); err != nil {
			t.Fatal(err)
		}
	}
	p, err := r.Latest(t.Context(), "messages_by_channel", repo.Key{int64(1)}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 2 {
		t.Fatalf("read %d records, want 2", len(p.Items))
	}
	gotEmpty, gotUnset := p.Items[0], p.Items[1]
	if body, ok := gotUnset["body"]; !ok || body != nil {
		t.Errorf("a body never written reads as %#v (present %v), want nil", body, ok)
	}
	if body := gotEmpty["body"]; body != "" {
		t.Errorf("an empty body reads as %#v, want \"\"", body)
	}
	if a := gotEmpty["author_id"]; a != int64(0) {
		t.Errorf("author_id 0 reads as %#v, want int64(0)", a)
	}
	if id := gotUnset["message_id"]; id != unset["message_id"] {
		t.Errorf("message_id reads as %#v, want %v", id, unset["message_id"])
	}
}
