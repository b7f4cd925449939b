package schema

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestCreateBlockedKeysTable(t *testing.T) {
	stmt, err := CreateBlockedKeysTable("ks")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"ks"."tsbucket_blocked_keys"`, `"blocked_at" timestamp`, `"reason" text`, `"rows" bigint`,
		`PRIMARY KEY (("view"), "key")`} {
		if !strings.Contains(stmt, want) {
			t.Errorf("lacks %q:\n%s", want, stmt)
		}
	}
	if _, err := CreateBlockedKeysTable("bad name"); err == nil {
		t.Fatal("a bad keyspace accepted")
	}
}

func TestScanBlockedKeys(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 3600))
	reason, rows := "past the ceiling", int64(900)
	n := 0
	got := ScanBlockedKeys("v", func(dest ...any) bool {
		if n++; n > 2 {
			return false
		}
		*dest[0].(*string) = []string{"a", "b"}[n-1]
		*dest[1].(*time.Time) = at
		if n == 1 {
			*dest[2].(**string), *dest[3].(**int64) = &reason, &rows
		} else {
			*dest[2].(**string), *dest[3].(**int64) = nil, nil
		}
		return true
	})
	a, b := got["a"], got["b"]
	if len(got) != 2 || a.View != "v" || a.Reason != reason || a.Rows != 900 || a.BlockedAt.Location() != time.UTC ||
		b.Reason != "" || b.Rows != 0 {
		t.Fatalf("%+v", got)
	}
}

// TestMissingTableOfEitherDriver: a read of a table never created fails
// with a gocql.RequestError on gocql, and with an error of its own on the
// ScyllaDB fork (its prepare refused the statement); both say the table is
// missing (TestExpiryLimitOfTheNode and others failed under make
// test-scylla when only the first was recognized).
func TestMissingTableOfEitherDriver(t *testing.T) {
	fork := fmt.Errorf("read the blocked keys: %w", errors.New("table tsbucket_blocked_keys does not exist (potentially executed: false)"))
	if !IsMissingTable(fork) {
		t.Fatalf("%v not seen as a missing table", fork)
	}
	if IsMissingTable(errors.New("operation timed out")) || IsMissingTable(nil) {
		t.Fatal("a timeout or no error seen as a missing table")
	}
}
