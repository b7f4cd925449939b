package bucket

import "testing"

// TestCQLOf: every kind has its row in the table, and the table's types
// are the ones the kinds' orders need.
func TestCQLOf(t *testing.T) {
	for _, c := range []struct {
		k    Kind
		typ  string
		form CQLForm
	}{
		{DiscordSnowflake(), "bigint", FormBigint},
		{TimeUUID{}, "timeuuid", FormUUID},
		{UUIDv7{}, "uuid", FormUUID},
		{ULID{}, "blob", FormBlob},
		{Timestamp{}, "blob", FormBlob},
	} {
		m, ok := CQLOf(c.k)
		if !ok || m.Type != c.typ || m.Form != c.form || m.Family != c.k.Name() {
			t.Errorf("CQLOf(%s) = %+v, %v; want %s, form %d", c.k, m, ok, c.typ, c.form)
		}
	}
	if _, ok := CQLOf(nil); ok {
		t.Error("CQLOf(nil) found a mapping")
	}
}
