package repo

import (
	"reflect"
	"strconv"
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

// TestRowsNamedAsAlone: deriveRows names all its rows from one string
// (nameRows); each row's presKey and partKey are what rowOf gives the row
// alone: key and bucket, the shard after them in a sharded view, nothing
// of the next row's. A row derived loosely without its ID stays unnamed.
func TestRowsNamedAsAlone(t *testing.T) {
	f := newChat(t, Options{}, shardedViews(4)...)
	m := f.msg(7, f.now, 3)
	rows, err := f.r.rowsOf(&m)
	if err != nil {
		t.Fatal(err)
	}
	iv := reflect.ValueOf(&m).Elem()
	for _, rw := range rows {
		alone, err := f.r.rowOf(rw.v, iv, forWrite, make(Key, len(rw.v.spec.Key)), nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rw.presKey != alone.presKey || rw.partKey != alone.partKey {
			t.Errorf("view %s: named %q / %q, alone %q / %q", rw.v.spec.Name, rw.presKey, rw.partKey, alone.presKey, alone.partKey)
		}
		want := partitionKey(rw.key, rw.v.spec.Bucketed(), rw.bucket)
		if rw.v.spec.Sharded() {
			if rw.presKey != want || rw.partKey != want+"/s"+strconv.Itoa(rw.shard) {
				t.Errorf("sharded view %s: named %q / %q, want %q / %q/s%d", rw.v.spec.Name, rw.presKey, rw.partKey, want, want, rw.shard)
			}
		} else if rw.presKey != want || rw.partKey != want {
			t.Errorf("view %s: named %q / %q, want %q", rw.v.spec.Name, rw.presKey, rw.partKey, want)
		}
	}

	// A row derived loosely without its ID (unset) between two others.
	mixed := []row{rows[0], {v: rows[1].v, unset: true}, rows[2]}
	nameRows(mixed)
	if mixed[1].presKey != "" || mixed[1].partKey != "" {
		t.Errorf("an unset row named %q / %q", mixed[1].presKey, mixed[1].partKey)
	}
	for _, i := range []int{0, 2} {
		if mixed[i].presKey != rows[i].presKey || mixed[i].partKey != rows[i].partKey {
			t.Errorf("row %d next to an unset one named %q / %q, want %q / %q", i, mixed[i].presKey, mixed[i].partKey, rows[i].presKey, rows[i].partKey)
		}
	}
}
