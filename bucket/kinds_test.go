package bucket

import (
	"errors"
	"testing"
	"time"
)

// allKinds lists one value of every kind, presets included.
func allKinds() []Kind {
	return []Kind{DiscordSnowflake(), TwitterSnowflake(), TimeUUID{}, UUIDv7{}, ULID{}, Timestamp{}}
}

func TestKindRoundTrip(t *testing.T) {
	at := time.Date(2024, 3, 5, 13, 14, 15, 123456789, time.UTC)
	for _, k := range allKinds() {
		t.Run(k.String(), func(t *testing.T) {
			back, err := ParseKind(k.String())
			if err != nil || back != k {
				t.Fatalf("ParseKind(%q) = %v, %v, want %v", k.String(), back, err, k)
			}
			lo, err := k.MinID(at)
			if err != nil {
				t.Fatal(err)
			}
			hi, err := k.MaxID(at)
			if err != nil {
				t.Fatal(err)
			}
			want := at.Truncate(k.Precision())
			for _, id := range []ID{lo, hi} {
				got, err := k.Time(id)
				if err != nil || !got.Equal(want) {
					t.Errorf("Time(%s) = %v, %v, want %v", k.Format(id), got, err, want)
				}
				parsed, err := k.Parse(k.Format(id))
				if err != nil || parsed != id {
					t.Errorf("Parse(Format(%x)) = %x, %v", id, parsed, err)
				}
			}
			if k.Compare(lo, hi) != -1 || k.Compare(hi, lo) != 1 || k.Compare(lo, lo) != 0 {
				t.Errorf("Compare(min, max) not ordered")
			}
			if _, err := k.Time(ID{}); !errors.Is(err, ErrZeroID) {
				t.Errorf("Time(zero) error = %v, want ErrZeroID", err)
			}
		})
	}
}
