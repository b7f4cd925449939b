package repo

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// TestValidateNamesEveryField: Validate reports every bad field at once,
// each an *OptionError naming it, and the whole is ErrBadOptions.
func TestValidateNamesEveryField(t *testing.T) {
	o := Options{
		Read:    ReadOptions{MaxLimit: -1, HintsSize: -1, CursorSecret: []byte("short")},
		Write:   WriteOptions{TTL: 1500 * time.Millisecond, Concurrency: -2},
		Index:   IndexOptions{CacheSize: -1},
		Schemes: SchemeOptions{Refresh: -time.Second},
	}
	err := o.Validate()
	if !errors.Is(err, ErrBadOptions) {
		t.Fatalf("Validate() = %v, want ErrBadOptions", err)
	}
	var fields []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var oe *OptionError
		if !errors.As(e, &oe) {
			t.Fatalf("%v is not an *OptionError", e)
		}
		fields = append(fields, oe.Field)
	}
	want := []string{"Read.MaxLimit", "Read.HintsSize", "Read.CursorSecret", "Write.TTL", "Write.Concurrency", "Index.CacheSize", "Schemes.Refresh"}
	if !slices.Equal(fields, want) {
		t.Fatalf("fields %q, want %q", fields, want)
	}
}

// TestOptionsOffByNoFields: every feature is turned off by its No<Feature>
// field, and the defaults fill only zero numbers.
func TestOptionsOffByNoFields(t *testing.T) {
	o := Options{Read: ReadOptions{NoHints: true}, Schemes: SchemeOptions{NoRefresh: true, NoAutoPromote: true, Lead: time.Hour + 11*time.Second}}
	if err := o.Validate(); err != nil {
		t.Fatalf("Validate() = %v: without the background reload the lead need not cover a refresh", err)
	}
	d := o.withDefaults()
	if d.Schemes.refresh() >= 0 || d.Read.HintsSize != 100_000 || d.Schemes.PromoteAfter != 10_000 {
		t.Fatalf("defaults %+v", d)
	}
	r := tripwireChat(t, o)
	if r.hints.dense(entryID{}) || r.hints.keys.size != 0 {
		t.Fatal("NoHints left the read hints on")
	}
}
