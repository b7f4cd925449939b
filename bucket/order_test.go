package bucket

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// randomID makes an ID of kind k at t with random worker, sequence, clock,
// node or entropy bits.
func randomID(t *testing.T, k Kind, at time.Time, r *rand.Rand) ID {
	t.Helper()
	var b [10]byte
	binary.BigEndian.PutUint64(b[:8], r.Uint64())
	binary.BigEndian.PutUint16(b[8:], uint16(r.Uint32()))
	var id ID
	var err error
	switch k := k.(type) {
	case Snowflake:
		id, err = k.Make(at, r.Uint64N(1<<k.WorkerBits), r.Uint64N(1<<k.SequenceBits))
	case TimeUUID:
		id, err = k.Make(at, uint16(r.UintN(1<<14)), [6]byte(b[:6]))
	case UUIDv7:
		id, err = k.Make(at, b)
	case ULID:
		id, err = k.Make(at, b)
	case Timestamp:
		id = k.Make(at, r.Uint64())
	}
	if err != nil {
		t.Fatalf("make %s at %v: %v", k, at, err)
	}
	return id
}

// TestTimeOrder checks that Compare orders IDs of distinct instants by time
// and that MinID and MaxID bracket every ID of their instant.
func TestTimeOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC)
	for _, k := range allKinds() {
		t.Run(k.String(), func(t *testing.T) {
			for i := 0; i < 2000; i++ {
				a := base.Add(time.Duration(r.Int64N(int64(48 * time.Hour))))
				b := a.Add(time.Duration(r.Int64N(int64(10*time.Millisecond))) + k.Precision())
				ida, idb := randomID(t, k, a, r), randomID(t, k, b, r)
				if got := k.Compare(ida, idb); got != -1 {
					t.Fatalf("Compare(%s @%v, %s @%v) = %d, want -1", k.Format(ida), a, k.Format(idb), b, got)
				}
				lo, _ := k.MinID(a)
				hi, _ := k.MaxID(a)
				if k.Compare(lo, ida) > 0 || k.Compare(ida, hi) > 0 {
					t.Fatalf("%s not within [%s, %s]", k.Format(ida), k.Format(lo), k.Format(hi))
				}
				next, _ := k.MinID(a.Truncate(k.Precision()).Add(k.Precision()))
				if k.Compare(hi, next) != -1 {
					t.Fatalf("MaxID(%v) = %s not before MinID of the next tick %s", a, k.Format(hi), k.Format(next))
				}
			}
		})
	}
}

// cassandraTimeUUIDCompare transcribes Cassandra's TimeUUIDType.compareCustom:
// reorder the timestamp bytes of the high long, compare signed; then compare
// the low long after signedBytesToNativeLong (xor 0x0080808080808080).
func cassandraTimeUUIDCompare(a, b ID) int {
	reorder := func(msb uint64) int64 {
		return int64(msb<<48 | (msb<<16)&0xFFFF00000000 | msb>>32)
	}
	if c := cmpInt64(reorder(binary.BigEndian.Uint64(a[:8])), reorder(binary.BigEndian.Uint64(b[:8]))); c != 0 {
		return c
	}
	lsb := func(id ID) int64 { return int64(binary.BigEndian.Uint64(id[8:]) ^ 0x0080808080808080) }
	return cmpInt64(lsb(a), lsb(b))
}

func TestTimeUUIDCompareMatchesCassandra(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	at := time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 5000; i++ {
		// Nearby instants exercise the byte tie-break; distant ones (up to
		// about 290 years) every part of the reordered timestamp.
		spread := []int64{300, 1 << 62}[r.IntN(2)]
		a := randomID(t, TimeUUID{}, at.Add(time.Duration(r.Int64N(spread))), r)
		b := randomID(t, TimeUUID{}, at.Add(time.Duration(r.Int64N(spread))), r)
		if r.IntN(4) == 0 { // same clock and node prefix, to reach the last bytes
			copy(b[8:12], a[8:12])
		}
		if got, want := (TimeUUID{}).Compare(a, b), cassandraTimeUUIDCompare(a, b); got != want {
			t.Fatalf("Compare(%x, %x) = %d, Cassandra %d", a, b, got, want)
		}
	}
}

func TestSnowflakeOrderIsBigint(t *testing.T) {
	d := DiscordSnowflake()
	tests := []struct {
		a, b int64
		want int
	}{
		{1, 2, -1},
		{1 << 22, 1<<22 - 1, 1},
		{175928847299117063, 175928847299117063, 0},
		{1<<62 + 5, 1 << 40, 1},
	}
	for _, tt := range tests {
		if got := d.Compare(d.FromInt64(tt.a), d.FromInt64(tt.b)); got != tt.want {
			t.Errorf("Compare(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestSnowflake63BitsEnd: a layout with no worker or sequence bits has 63
// timestamp bits; its last millisecond is an ID and every instant after it
// is ErrOutOfRange. The milliseconds overflowed int64 just past the end and
// made a negative (corrupt) ID.
func TestSnowflake63BitsEnd(t *testing.T) {
	s := Snowflake{Epoch: time.UnixMilli(0).UTC()}
	last := time.UnixMilli(math.MaxInt64).UTC()
	id, err := s.MinID(last)
	if err != nil {
		t.Fatalf("MinID(last ms): %v", err)
	}
	if v := s.Int64(id); v != math.MaxInt64 {
		t.Fatalf("MinID(last ms) = %d, want %d", v, int64(math.MaxInt64))
	}
	if got, err := s.Time(id); err != nil || !got.Equal(last) {
		t.Fatalf("Time(last) = %v, %v; want %v", got, err, last)
	}
	for _, after := range []time.Time{
		last.Add(time.Millisecond),
		last.Add(999 * time.Millisecond),
		last.Add(time.Second),
		last.Add(time.Hour),
	} {
		id, err := s.MinID(after)
		if !errors.Is(err, ErrOutOfRange) {
			t.Errorf("MinID(%v) = %d, %v; want ErrOutOfRange", after, s.Int64(id), err)
		}
	}
}

// TestParseKindNumbersOutOfRange: a snowflake layout whose numbers do not
// fit their fields is a bad kind (ErrBadKind), not text that names no kind.
func TestParseKindNumbersOutOfRange(t *testing.T) {
	for _, text := range []string{
		"snowflake(epoch=1420070400000,worker=300,seq=12)",
		"snowflake(epoch=1420070400000,worker=10,seq=256)",
		"snowflake(epoch=99999999999999999999,worker=10,seq=12)",
	} {
		if _, err := ParseKind(text); !errors.Is(err, ErrBadKind) || errors.Is(err, ErrUnknownKind) {
			t.Errorf("ParseKind(%q) = %v, want ErrBadKind", text, err)
		}
	}
	if _, err := ParseKind("snowflake(epoch=x,worker=10,seq=12)"); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("ParseKind of a non-number = %v, want ErrUnknownKind", err)
	}
}

// TestSnowflakeEpochZone: an epoch's year is checked in UTC: the last
// instants of year 9999 given in a zone east of UTC are valid epochs.
func TestSnowflakeEpochZone(t *testing.T) {
	east := time.FixedZone("east", 3600)
	epoch := time.Date(10000, 1, 1, 0, 30, 0, 0, east) // 9999-12-31T23:30Z
	s := Snowflake{Epoch: epoch, WorkerBits: 10, SequenceBits: 12}
	if _, err := s.MinID(epoch.Add(time.Minute)); err != nil {
		t.Fatalf("MinID with epoch %v: %v", epoch, err)
	}
}
