package repo

import (
	"errors"
	"math/big"
	"testing"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// The partition names a person reads in log lines, and that the presence
// cache and the coalescing keys rely on being distinct.
func TestPartitionKey(t *testing.T) {
	tests := []struct {
		name     string
		key      Key
		bucketed bool
		want     string
	}{
		{"text and bucket", Key{"room-42"}, true, "room-42/19834"},
		{"int", Key{int64(7)}, true, "7/19834"},
		{"composite", Key{"site-1", 3}, true, "site-1/3/19834"},
		{"unbucketed", Key{"msg-1"}, false, "msg-1"},
		{"separator escaped", Key{"a/b"}, true, "a%2Fb/19834"},
		{"escape escaped", Key{"100%"}, true, "100%25/19834"},
		{"control characters", Key{"a\x00b\n"}, true, "a%00b%0A/19834"},
		{"unicode kept", Key{"café"}, true, "café/19834"},
		{"blob in hex", Key{[]byte{0xde, 0xad}}, true, "0xdead/19834"},
		{"uuid", Key{gocql.UUID{0xde, 0xad, 15: 1}}, true, "dead0000-0000-0000-0000-000000000001/19834"},
		{"uuid array", Key{[16]byte{15: 2}}, false, "00000000-0000-0000-0000-000000000002"},
		{"other types", Key{true}, false, "true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := partitionKey(tt.key, tt.bucketed, bucket.Bucket(19834)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// Distinct keys of one view never share an encoding: a shared one would
// make the presence cache skip the index entry of one of them.
func FuzzKeyEncodingDistinct(f *testing.F) {
	f.Add("a/b", "c", "a", "b/c")
	f.Add("a\x00b", "c", "a", "b\x00c")
	f.Add("%2F", "x", "/", "x")
	f.Fuzz(func(t *testing.T, a1, a2, b1, b2 string) {
		ka, kb := Key{a1, a2}, Key{b1, b2}
		same := a1 == b1 && a2 == b2
		if ea, eb := string(ka.encode(nil)), string(kb.encode(nil)); (ea == eb) != same {
			t.Fatalf("%q and %q encode to %q and %q", ka, kb, ea, eb)
		}
	})
}

// TestVarintKeyOfAnySize: a varint key column takes an integer of any Go
// type and a *big.Int, what the driver scans a varint into (tsbucket
// backfill passes one beyond int64 as it is).
func TestVarintKeyOfAnySize(t *testing.T) {
	cols := []schema.Column{{Name: "n", Type: "varint"}}
	huge := new(big.Int).Lsh(big.NewInt(1), 70)
	for _, k := range []Key{{int64(-7)}, {7}, {huge}} {
		if err := k.checkTypes(cols); err != nil {
			t.Errorf("key %v of a varint column: %v", k, err)
		}
	}
	if err := (Key{"7"}).checkTypes(cols); !errors.Is(err, ErrBadKey) {
		t.Errorf("a string for a varint column: %v, want ErrBadKey", err)
	}
}
