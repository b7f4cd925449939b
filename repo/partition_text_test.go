package repo

import (
	"testing"

	"github.com/gocql/gocql"
)

// The partition the metrics name reads back as the key text form.
func TestPartitionKeyText(t *testing.T) {
	u := gocql.TimeUUID()
	for _, k := range []Key{{"room-42"}, {"a/b, c", int64(7)}, {u, []byte{1, 2}}, {"50%", "x,y"}} {
		part := partitionKey(k, true, 19834)
		text, b, shard, ok := PartitionKeyText(part)
		if !ok || b != 19834 || text != k.String() || shard != 0 {
			t.Errorf("%v: %q -> %q %d %v, want %q", k, part, text, b, ok, k.String())
		}
		text, b, shard, ok = PartitionKeyText(part + "/s3")
		if !ok || b != 19834 || text != k.String() || shard != 3 {
			t.Errorf("%v shard 3: -> %q %d %d %v", k, text, b, shard, ok)
		}
	}
	for _, bad := range []string{"", "room", "/5", "room/x", "r%zz/5", "room/5/sx", "5/s1", "room/s1"} {
		if _, _, _, ok := PartitionKeyText(bad); ok {
			t.Errorf("%q read", bad)
		}
	}
}
