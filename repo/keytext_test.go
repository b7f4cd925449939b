package repo

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// Key.String is the key syntax the commands parse (tsbucket --key,
// hotkeys --promote) and the text promotions are recorded under.
func TestKeyString(t *testing.T) {
	tests := []struct {
		name string
		key  Key
		want string
	}{
		{"text", Key{"room-42"}, "room-42"},
		{"composite", Key{"site-1", int64(3)}, "site-1,3"},
		{"comma escaped", Key{"Paris, FR"}, "Paris%2C FR"},
		{"slash escaped", Key{"a/b"}, "a%2Fb"},
		{"escape escaped", Key{"100%"}, "100%25"},
		{"control characters", Key{"a\x00b\n"}, "a%00b%0A"},
		{"edge spaces escaped", Key{" a b "}, "%20a b%20"},
		{"unicode kept", Key{"café"}, "café"},
		{"blob in hex", Key{[]byte{0xde, 0xad}}, "0xdead"},
		{"uuid", Key{gocql.UUID{0xde, 0xad, 15: 1}}, "dead0000-0000-0000-0000-000000000001"},
		{"time in RFC 3339", Key{time.Date(2025, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))}, "2025-01-02T02:04:05Z"},
		{"bool", Key{true}, "true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.key.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSplitKeyText(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
		bad  bool
	}{
		{"one", "room-42", []string{"room-42"}, false},
		{"two, spaces trimmed", "site-1, 3", []string{"site-1", "3"}, false},
		{"escaped comma", "Paris%2C FR", []string{"Paris, FR"}, false},
		{"lower-case hex", "Paris%2c FR", []string{"Paris, FR"}, false},
		{"bare slash is a character", "a/b,c", []string{"a/b", "c"}, false},
		{"escaped edge spaces kept", "%20a%20", []string{" a "}, false},
		{"empty value kept (the type decides)", "a,", []string{"a", ""}, false},
		{"bad escape", "100%", nil, true},
		{"bad hex", "a%zz", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SplitKeyText(tt.text)
			if tt.bad {
				if err == nil {
					t.Fatalf("SplitKeyText(%q) = %q, want an error", tt.text, got)
				}
				return
			}
			if err != nil || len(got) != len(tt.want) {
				t.Fatalf("SplitKeyText(%q) = %q, %v; want %q", tt.text, got, err, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("value %d: got %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// Every key String prints splits back into its values' texts.
func TestKeyTextRoundTrip(t *testing.T) {
	for _, k := range []Key{{"a,b", "c/d"}, {"%2C", " x"}, {"\t,\n", "y "}, {"Paris, FR"}} {
		parts, err := SplitKeyText(k.String())
		if err != nil || len(parts) != len(k) {
			t.Fatalf("%q: %q, %v", k.String(), parts, err)
		}
		for i := range k {
			if parts[i] != k[i] {
				t.Errorf("%q: value %d: got %q, want %q", k.String(), i, parts[i], k[i])
			}
		}
	}
}

// Promotions recorded before the key syntax was unified hold the old
// '/'-separated form; they are read as the key they name.
func TestCanonicalKeyText(t *testing.T) {
	tests := []struct {
		name    string
		stored  string
		columns int
		want    string
	}{
		{"old composite", "site-1/3", 2, "site-1,3"},
		{"old comma in text", "Paris, FR", 1, "Paris%2C FR"},
		{"old composite with comma and escaped slash", "a,b/c%2Fd", 2, "a%2Cb,c%2Fd"},
		{"single value: same in both forms", "room-42", 1, "room-42"},
		{"old escaped slash: same in both forms", "a%2Fb", 1, "a%2Fb"},
		{"new composite kept", "site-1,3", 2, "site-1,3"},
		{"new escaped comma kept", "Paris%2C FR", 1, "Paris%2C FR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CanonicalKeyText(tt.stored, tt.columns); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// A refused key names the column at fault, not its position.
func TestBadKeyNamesColumn(t *testing.T) {
	cols := []schema.Column{{Name: "site_id", Type: "text"}, {Name: "device_id", Type: "text"}}
	tests := []struct {
		name string
		key  Key
		want string
	}{
		{"empty text", Key{"s1", ""}, "repo: bad key: device_id is empty"},
		{"nil", Key{nil, "d1"}, "repo: bad key: site_id is empty"},
		{"count", Key{"s1"}, "repo: bad key: 1 value(s) for 2 key column(s) (site_id, device_id)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.key.validate(cols)
			if !errors.Is(err, ErrBadKey) || err.Error() != tt.want {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// An item stamped centuries ahead is refused with the distance spelled
// out, never a saturated time.Duration (2562047h47m16s).
func TestFutureRefusalText(t *testing.T) {
	k := bucket.UUIDv7{}
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		at   time.Time
		want string
	}{
		{"an hour", now.Add(time.Hour), "1h0m0s ahead of the clock"},
		{"far future", time.Date(8000, 1, 1, 0, 0, 0, 0, time.UTC), "more than 292 years ahead of the clock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := k.MinID(tt.at)
			if err != nil {
				t.Fatal(err)
			}
			r := &Repo[Record]{opts: Options{Schemes: SchemeOptions{MaxFutureSkew: time.Minute}}}
			rows := []row{{v: &view{spec: schema.View{Kind: k}}, id: id}}
			_, err = r.checkFuture(rows, now, 0)
			if !errors.Is(err, ErrBadID) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "2562047h") {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// FuzzKeyText: the text of any key of text values splits back into them.
func FuzzKeyText(f *testing.F) {
	f.Add("Paris, FR", "eu/west")
	f.Add(" %2C ", "\u00a0x\u00a0")
	f.Add("", ",")
	f.Fuzz(func(t *testing.T, a, b string) {
		k := Key{a, b}
		parts, err := SplitKeyText(k.String())
		if err != nil || len(parts) != 2 || parts[0] != a || parts[1] != b {
			t.Fatalf("%q: split %q, %v; want %q", k.String(), parts, err, []string{a, b})
		}
		if got := CanonicalKeyText(k.String(), 2); got != k.String() {
			t.Fatalf("CanonicalKeyText(%q) = %q: a current key text changed", k.String(), got)
		}
	})
}

func BenchmarkKeyString(b *testing.B) {
	k := Key{"Paris, FR", int64(42), gocql.UUID{1, 2, 3}}
	b.ReportAllocs()
	for b.Loop() {
		_ = k.String()
	}
}
