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

func mustTime(t *testing.T, k Kind, id ID) time.Time {
	t.Helper()
	got, err := k.Time(id)
	if err != nil {
		t.Fatalf("%s.Time(%x): %v", k.Name(), id, err)
	}
	return got
}

// TestKnownIDs checks each kind against IDs published or produced elsewhere.
func TestKnownIDs(t *testing.T) {
	tests := []struct {
		name string
		kind Kind
		text string
		want time.Time
	}{
		// Discord's developer documentation example.
		{"discord docs", DiscordSnowflake(), "175928847299117063", time.Date(2016, 4, 30, 11, 18, 25, 796e6, time.UTC)},
		// Twitter layout: (id >> 22) + 1288834974657 ms.
		{"twitter", TwitterSnowflake(), "1212092628029698048", time.UnixMilli(1212092628029698048>>22 + 1288834974657).UTC()},
		// Produced by gocql.MinTimeUUID / MaxTimeUUID (gocql v1.7.0).
		{"gocql min", TimeUUID{}, "43e74407-daf2-11ee-8080-808080808080", time.Date(2024, 3, 5, 13, 14, 15, 123456700, time.UTC)},
		{"gocql max", TimeUUID{}, "43e74407-daf2-11ee-bf7f-7f7f7f7f7f7f", time.Date(2024, 3, 5, 13, 14, 15, 123456700, time.UTC)},
		{"gocql 1582", TimeUUID{}, "00000000-0000-1000-8080-808080808080", time.Date(1582, 10, 15, 0, 0, 0, 0, time.UTC)},
		{"gocql 1970", TimeUUID{}, "13814000-1dd2-11b2-bf7f-7f7f7f7f7f7f", time.Unix(0, 0).UTC()},
		{"gocql docs", TimeUUID{}, "d2177dd0-eaa2-11de-a572-001b779c76e3", time.Date(2009, 12, 17, 0, 26, 29, 805e6, time.UTC)},
		// RFC 9562 appendix A.6.
		{"rfc9562", UUIDv7{}, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", time.Date(2022, 2, 22, 19, 22, 22, 0, time.UTC)},
		// The ULID specification's example; time decoded independently.
		{"ulid spec", ULID{}, "01ARZ3NDEKTSV4RRFFQ69G5FAV", time.UnixMilli(1469922850259).UTC()},
		{"timestamp", Timestamp{}, "2024-03-05T13:00:00.5Z/000000000000002a", time.Date(2024, 3, 5, 13, 0, 0, 5e8, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := tt.kind.Parse(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if got := mustTime(t, tt.kind, id); !got.Equal(tt.want) {
				t.Errorf("Time = %v, want %v", got, tt.want)
			}
			if got := tt.kind.Format(id); got != tt.text {
				t.Errorf("Format = %q, want %q", got, tt.text)
			}
		})
	}
}

// TestMinMaxMatchGocql pins MinID/MaxID to gocql.MinTimeUUID/MaxTimeUUID.
func TestMinMaxMatchGocql(t *testing.T) {
	at := time.Date(2024, 3, 5, 13, 14, 15, 123456789, time.UTC)
	lo, _ := TimeUUID{}.MinID(at)
	hi, _ := TimeUUID{}.MaxID(at)
	var k TimeUUID
	if got, want := k.Format(lo), "43e74407-daf2-11ee-8080-808080808080"; got != want {
		t.Errorf("MinID = %s, want %s", got, want)
	}
	if got, want := k.Format(hi), "43e74407-daf2-11ee-bf7f-7f7f7f7f7f7f"; got != want {
		t.Errorf("MaxID = %s, want %s", got, want)
	}
}

func TestDiscordMake(t *testing.T) {
	// 175928847299117063: internal worker 1, process 0, increment 7.
	id, err := DiscordSnowflake().Make(time.Date(2016, 4, 30, 11, 18, 25, 796e6, time.UTC), 1<<5, 7)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := DiscordSnowflake().Int64(id), int64(175928847299117063); got != want {
		t.Errorf("Make = %d, want %d", got, want)
	}
}

func TestKindErrors(t *testing.T) {
	d := DiscordSnowflake()
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"snowflake negative text", errOf(d.Parse("-5")), ErrMalformedID},
		{"snowflake leading zero", errOf(d.Parse("05")), ErrMalformedID},
		{"snowflake plus", errOf(d.Parse("+5")), ErrMalformedID},
		{"snowflake zero text", errOf(d.Parse("0")), ErrZeroID},
		{"snowflake overflow", errOf(d.Parse("9223372036854775808")), ErrMalformedID},
		{"snowflake high bytes", errOf(d.Time(ID{0: 1, 15: 1})), ErrMalformedID},
		{"snowflake negative", errOf(d.Time(d.FromInt64(-1))), ErrMalformedID},
		{"snowflake before epoch", errOf(d.MinID(d.Epoch.Add(-time.Millisecond))), ErrBeforeEpoch},
		{"snowflake after 41 bits", errOf(d.MinID(d.Epoch.Add((1 << 41) * time.Millisecond))), ErrOutOfRange},
		{"snowflake far future", errOf(d.MinID(time.Date(1e9, 1, 1, 0, 0, 0, 0, time.UTC))), ErrOutOfRange},
		{"snowflake worker too wide", errOf(d.Make(d.Epoch, 1024, 0)), ErrOutOfRange},
		{"snowflake seq too wide", errOf(d.Make(d.Epoch, 0, 4096)), ErrOutOfRange},
		{"snowflake layout", errOf(Snowflake{WorkerBits: 12, SequenceBits: 11}.Time(ID{15: 1})), ErrBadKind},
		{"snowflake sub-ms epoch", errOf(Snowflake{Epoch: time.Unix(0, 1)}.MinID(time.Unix(1, 0))), ErrBadKind},
		{"snowflake epoch year 0", errOf(Snowflake{Epoch: time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)}.MinID(time.Unix(1, 0))), ErrBadKind},
		{"timeuuid v4", errOf(TimeUUID{}.Parse("f47ac10b-58cc-4372-a567-0e02b2c3d479")), ErrMalformedID},
		{"timeuuid bad variant", errOf(TimeUUID{}.Parse("43e74407-daf2-11ee-4080-808080808080")), ErrMalformedID},
		{"timeuuid short", errOf(TimeUUID{}.Parse("43e74407-daf2-11ee-8080-80808080808")), ErrMalformedID},
		{"timeuuid dash", errOf(TimeUUID{}.Parse("43e74407-daf2-11ee-8080_808080808080")), ErrMalformedID},
		{"timeuuid hex", errOf(TimeUUID{}.Parse("43e74407-daf2-11ee-8080-80808080808g")), ErrMalformedID},
		{"timeuuid zero", errOf(TimeUUID{}.Parse("00000000-0000-0000-0000-000000000000")), ErrZeroID},
		{"timeuuid before 1582", errOf(TimeUUID{}.MinID(time.Date(1582, 10, 14, 23, 59, 59, 0, time.UTC))), ErrBeforeEpoch},
		{"timeuuid after 60 bits", errOf(TimeUUID{}.MaxID(time.Date(5237, 1, 1, 0, 0, 0, 0, time.UTC))), ErrOutOfRange},
		{"timeuuid clock seq", errOf(TimeUUID{}.Make(time.Unix(0, 0), 0x4000, [6]byte{})), ErrOutOfRange},
		{"uuidv7 v1", errOf(UUIDv7{}.Parse("43e74407-daf2-11ee-8080-808080808080")), ErrMalformedID},
		{"uuidv7 before 1970", errOf(UUIDv7{}.MinID(time.Unix(0, -1))), ErrBeforeEpoch},
		{"uuidv7 after 48 bits", errOf(UUIDv7{}.MinID(time.UnixMilli(1 << 48))), ErrOutOfRange},
		{"ulid too long", errOf(ULID{}.Parse("01ARZ3NDEKTSV4RRFFQ69G5FAVX")), ErrMalformedID},
		{"ulid overflow", errOf(ULID{}.Parse("81ARZ3NDEKTSV4RRFFQ69G5FAV")), ErrMalformedID},
		{"ulid letter U", errOf(ULID{}.Parse("01ARZ3NDEKTSV4RRFFQ69G5FAU")), ErrMalformedID},
		{"ulid zero", errOf(ULID{}.Parse("00000000000000000000000000")), ErrZeroID},
		{"ulid before 1970", errOf(ULID{}.MaxID(time.Unix(-1, 0))), ErrBeforeEpoch},
		{"ulid after 48 bits", errOf(ULID{}.MaxID(time.Date(10890, 1, 1, 0, 0, 0, 0, time.UTC))), ErrOutOfRange},
		{"timestamp no slash", errOf(Timestamp{}.Parse("2024-03-05T13:00:00Z")), ErrMalformedID},
		{"timestamp short hex", errOf(Timestamp{}.Parse("2024-03-05T13:00:00Z/2a")), ErrMalformedID},
		{"timestamp bad hex", errOf(Timestamp{}.Parse("2024-03-05T13:00:00Z/00000000000000zz")), ErrMalformedID},
		{"timestamp bad time", errOf(Timestamp{}.Parse("2024-13-05T13:00:00Z/000000000000002a")), ErrMalformedID},
		{"timestamp year 1600", errOf(Timestamp{}.Parse("1600-01-01T00:00:00Z/000000000000002a")), ErrMalformedID}, // text no Timestamp has
		{"timestamp zero", errOf(Timestamp{}.Parse("1677-09-21T00:12:43.145224192Z/0000000000000000")), ErrZeroID},
		{"timestamp before", errOf(Timestamp{}.MinID(time.Unix(-9223372037, 145224191))), ErrBeforeEpoch},
		{"timestamp after", errOf(Timestamp{}.MaxID(time.Unix(9223372036, 854775808))), ErrOutOfRange},
		{"kind unknown", errOf(ParseKind("uuid")), ErrUnknownKind},
		{"kind malformed snowflake", errOf(ParseKind("snowflake(epoch=x,worker=10,seq=12)")), ErrUnknownKind},
		{"kind snowflake missing seq", errOf(ParseKind("snowflake(epoch=0,worker=10)")), ErrUnknownKind},
		{"kind snowflake layout", errOf(ParseKind("snowflake(epoch=0,worker=20,seq=3)")), ErrBadKind},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !errors.Is(tt.err, tt.want) {
				t.Errorf("error = %v, want %v", tt.err, tt.want)
			}
		})
	}
}

// errOf keeps the error of a two-result call.
func errOf[T any](_ T, err error) error { return err }

// TestKindRange checks each kind at the first and last instant it holds.
func TestKindRange(t *testing.T) {
	d := DiscordSnowflake()
	tests := []struct {
		name        string
		kind        Kind
		first, last time.Time
	}{
		{"discord", d, d.Epoch, d.Epoch.Add((1<<41 - 1) * time.Millisecond)},
		{"wide snowflake", Snowflake{Epoch: time.Unix(0, 0).UTC(), SequenceBits: 1}, time.Unix(0, 0), time.UnixMilli(1<<62 - 1)},
		{"timeuuid", TimeUUID{}, time.Date(1582, 10, 15, 0, 0, 0, 0, time.UTC), time.Unix(gregorianUnix+(1<<60-1)/10_000_000, (1<<60-1)%10_000_000*100)},
		{"uuidv7", UUIDv7{}, time.Unix(0, 0), time.UnixMilli(1<<48 - 1)},
		{"ulid", ULID{}, time.Unix(0, 0), time.UnixMilli(1<<48 - 1)},
		{"timestamp", Timestamp{}, time.Unix(0, -1<<63), time.Unix(0, 1<<63-1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hi, err := tt.kind.MaxID(tt.first)
			if err != nil || !mustTime(t, tt.kind, hi).Equal(tt.first) {
				t.Errorf("MaxID(first) = %x, %v", hi, err)
			}
			hi, err = tt.kind.MaxID(tt.last)
			if err != nil || !mustTime(t, tt.kind, hi).Equal(tt.last) {
				t.Errorf("MaxID(last) = %x, %v; Time = %v, want %v", hi, err, mustTime(t, tt.kind, hi), tt.last)
			}
			if _, err := tt.kind.MinID(tt.first.Add(-time.Nanosecond)); !errors.Is(err, ErrBeforeEpoch) {
				t.Errorf("MinID(first-1ns) error = %v, want ErrBeforeEpoch", err)
			}
			if _, err := tt.kind.MinID(tt.last.Add(tt.kind.Precision())); !errors.Is(err, ErrOutOfRange) {
				t.Errorf("MinID(last+precision) error = %v, want ErrOutOfRange", err)
			}
		})
	}
}

func TestNames(t *testing.T) {
	want := []string{"snowflake", "snowflake", "timeuuid", "uuidv7", "ulid", "timestamp"}
	for i, k := range allKinds() {
		if got := k.Name(); got != want[i] {
			t.Errorf("%v.Name() = %q, want %q", k, got, want[i])
		}
	}
	if got, want := DiscordSnowflake().String(), "snowflake(epoch=1420070400000,worker=10,seq=12)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

func TestTimestampMakeSaturates(t *testing.T) {
	var k Timestamp
	tests := []struct {
		name string
		at   time.Time
		want time.Time
	}{
		{"inside", time.Unix(5, 7), time.Unix(5, 7)},
		{"year 1000", time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC), time.Unix(0, -1<<63)},
		{"year 3000", time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), time.Unix(0, 1<<63-1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := k.Make(tt.at, 9)
			if got := mustTime(t, k, id); !got.Equal(tt.want) || k.TieBreaker(id) != 9 {
				t.Errorf("Time(Make) = %v, tie %d, want %v, 9", got, k.TieBreaker(id), tt.want)
			}
		})
	}
}

func TestTimeUUIDMakeRange(t *testing.T) {
	if _, err := (TimeUUID{}).Make(time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC), 1, [6]byte{}); !errors.Is(err, ErrBeforeEpoch) {
		t.Errorf("Make(1500) error = %v, want ErrBeforeEpoch", err)
	}
	id, err := TimeUUID{}.Make(time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC), 0x3fff, [6]byte{1, 2, 3, 4, 5, 6})
	// Expected value produced by gocql.TimeUUIDWith (gocql v1.7.0).
	if got, want := (TimeUUID{}).Format(id), "4f3c8000-da83-11ee-bfff-010203040506"; err != nil || got != want {
		t.Errorf("Make = %s, %v, want %s", got, err, want)
	}
}

// TestParseAnyCase pins that ULID text is read in either case and UUID text
// (TimeUUID, UUIDv7) in either hex case: each spelling gives the same 16
// bytes as the canonical text, and Format gives the canonical text back.
// The letters cover both ends of each range (a/A, f/F, z/Z) and the
// non-letters next to them are refused.
func TestParseAnyCase(t *testing.T) {
	tests := []struct {
		name      string
		kind      Kind
		canonical string
		others    []string // other spellings of the same ID
		want      ID       // its bytes
	}{
		{"ulid", ULID{}, "01ARZ3NDEKTSV4RRFFQ69G5FAV",
			[]string{"01arz3ndektsv4rrffq69g5fav", "01ArZ3nDeKtSv4RrFfQ69g5FaV"},
			ID{0x01, 0x56, 0x3e, 0x3a, 0xb5, 0xd3, 0xd6, 0x76, 0x4c, 0x61, 0xef, 0xb9, 0x93, 0x02, 0xbd, 0x5b}},
		{"ulid of every letter", ULID{}, "7ZZZZZZZZZABCDEFGHJKMNPQRS",
			[]string{"7zzzzzzzzzabcdefghjkmnpqrs"},
			ID{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x52, 0xd8, 0xd7, 0x3e, 0x11, 0x94, 0xe9, 0x5b, 0x5f, 0x19}}, // decoded independently
		{"timeuuid", TimeUUID{}, "d2177dd0-eaa2-11de-a572-001b779c76e3",
			[]string{"D2177DD0-EAA2-11DE-A572-001B779C76E3", "d2177DD0-eAa2-11De-A572-001b779C76E3"},
			ID{0xd2, 0x17, 0x7d, 0xd0, 0xea, 0xa2, 0x11, 0xde, 0xa5, 0x72, 0x00, 0x1b, 0x77, 0x9c, 0x76, 0xe3}},
		{"uuidv7", UUIDv7{}, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
			[]string{"017F22E2-79B0-7CC3-98C4-DC0C0C07398F"},
			ID{0x01, 0x7f, 0x22, 0xe2, 0x79, 0xb0, 0x7c, 0xc3, 0x98, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f}},
		{"uuidv7 of every hex letter", UUIDv7{}, "0abcdeff-ffff-7fed-bcba-abcdefabcdef",
			[]string{"0ABCDEFF-FFFF-7FED-BCBA-ABCDEFABCDEF"},
			ID{0x0a, 0xbc, 0xde, 0xff, 0xff, 0xff, 0x7f, 0xed, 0xbc, 0xba, 0xab, 0xcd, 0xef, 0xab, 0xcd, 0xef}},
	}
	for _, tt := range tests {
		for _, text := range append([]string{tt.canonical}, tt.others...) {
			t.Run(tt.name+" "+text, func(t *testing.T) {
				got, err := tt.kind.Parse(text)
				if err != nil || got != tt.want {
					t.Fatalf("Parse(%q) = %x, %v; want %x", text, got, err, tt.want)
				}
				if got := tt.kind.Format(got); got != tt.canonical {
					t.Errorf("Format = %q, want %q", got, tt.canonical)
				}
			})
		}
	}
	refused := []struct {
		kind Kind
		text string
	}{
		{ULID{}, "01arz3ndektsv4rrffq69g5fau"}, // u is not Crockford, in either case
		{ULID{}, "01arz3ndektsv4rrffq69g5fa{"}, // the byte after z
		{ULID{}, "01arz3ndektsv4rrffq69g5fa`"}, // the byte before a
		{ULID{}, "01ARZ3NDEKTSV4RRFFQ69G5FA["}, // the byte after Z
		{ULID{}, "01ARZ3NDEKTSV4RRFFQ69G5FA@"}, // the byte before A
		{TimeUUID{}, "D2177DD0-EAA2-11DE-A572-001B779C76EG"},
		{TimeUUID{}, "d2177dd0-eaa2-11de-a572-001b779c76eg"},
		{UUIDv7{}, "017F22E2-79B0-7CC3-98C4-DC0C0C07398@"},
		{UUIDv7{}, "017f22e2-79b0-7cc3-98c4-dc0c0c07398`"},
		{UUIDv7{}, "017f22e2-79b0-7cc3-98c4-dc0c0c07398/"},
		{UUIDv7{}, "017f22e2-79b0-7cc3-98c4-dc0c0c07398:"},
	}
	for _, tt := range refused {
		t.Run(tt.kind.Name()+" refuses "+tt.text, func(t *testing.T) {
			if got, err := tt.kind.Parse(tt.text); !errors.Is(err, ErrMalformedID) {
				t.Errorf("Parse(%q) = %x, %v; want ErrMalformedID", tt.text, got, err)
			}
		})
	}
}
