package bucket

import (
	"testing"
	"time"
)

// fuzzKind picks a kind from a fuzzed byte.
func fuzzKind(i uint8) Kind {
	ks := allKinds()
	return ks[int(i)%len(ks)]
}

// fuzzScheme picks a scheme from a fuzzed byte.
func fuzzScheme(t *testing.T, i uint8) Scheme {
	ss := allSchemes(t)
	return ss[int(i)%len(ss)]
}

// checkID asserts the properties every valid ID has: its text round-trips
// and it lies between MinID and MaxID of its own instant.
func checkID(t *testing.T, k Kind, id ID) {
	at, err := k.Time(id)
	if err != nil {
		return
	}
	text := k.Format(id)
	back, err := k.Parse(text)
	if err != nil || back != id {
		t.Fatalf("%s: Parse(Format(%x)) = %x, %v (text %q)", k, id, back, err, text)
	}
	if k.Compare(id, back) != 0 {
		t.Fatalf("%s: Compare(id, id) != 0", k)
	}
	lo, err1 := k.MinID(at)
	hi, err2 := k.MaxID(at)
	if err1 != nil || err2 != nil {
		t.Fatalf("%s: MinID/MaxID(%v) of a valid ID: %v, %v", k, at, err1, err2)
	}
	if k.Compare(lo, id) > 0 || k.Compare(id, hi) > 0 {
		t.Fatalf("%s: %q outside [%q, %q]", k, text, k.Format(lo), k.Format(hi))
	}
}

func FuzzParseID(f *testing.F) {
	f.Add(uint8(0), "175928847299117063")
	f.Add(uint8(1), "1212092628029698048")
	f.Add(uint8(2), "43e74407-daf2-11ee-8080-808080808080")
	f.Add(uint8(2), "D2177DD0-EAA2-11DE-A572-001B779C76E3")
	f.Add(uint8(3), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f")
	f.Add(uint8(4), "01arz3ndektsv4rrffq69g5fav")
	f.Add(uint8(5), "2024-03-05T13:00:00.5+01:00/000000000000002A")
	f.Fuzz(func(t *testing.T, kind uint8, text string) {
		k := fuzzKind(kind)
		id, err := k.Parse(text)
		if err != nil {
			return
		}
		if id.IsZero() {
			t.Fatalf("%s: Parse(%q) returned the zero ID", k, text)
		}
		if _, err := k.Time(id); err != nil {
			t.Fatalf("%s: Parse(%q) accepted an ID Time rejects: %v", k, text, err)
		}
		checkID(t, k, id)
	})
}

func FuzzIDBytes(f *testing.F) {
	f.Add(uint8(0), []byte{15: 1}, []byte{15: 2})
	f.Add(uint8(2), []byte{0x43, 0xe7, 0x44, 0x07, 0xda, 0xf2, 0x11, 0xee, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80},
		[]byte{0x43, 0xe7, 0x44, 0x07, 0xda, 0xf2, 0x11, 0xee, 0xbf, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f})
	f.Add(uint8(4), []byte("0123456789abcdef"), []byte("0123456789abcdeg"))
	f.Fuzz(func(t *testing.T, kind uint8, a, b []byte) {
		k := fuzzKind(kind)
		var x, y ID
		copy(x[:], a)
		copy(y[:], b)
		checkID(t, k, x)
		checkID(t, k, y)
		if c, d := k.Compare(x, y), k.Compare(y, x); c != -d || c < -1 || c > 1 {
			t.Fatalf("%s: Compare not antisymmetric: %d, %d", k, c, d)
		}
		tx, errx := k.Time(x)
		ty, erry := k.Time(y)
		if errx == nil && erry == nil && tx.Before(ty) && k.Compare(x, y) != -1 {
			t.Fatalf("%s: %v before %v but Compare = %d", k, tx, ty, k.Compare(x, y))
		}
	})
}

func FuzzSchemeOf(f *testing.F) {
	f.Add(uint8(0), int64(1420070400), int64(0))
	f.Add(uint8(1), int64(981173106), int64(789e6))
	f.Add(uint8(5), int64(-62135596800), int64(0))
	f.Add(uint8(6), int64(253402300799), int64(999999999))
	f.Add(uint8(6), int64(951782400), int64(-1))
	f.Fuzz(func(t *testing.T, scheme uint8, sec, nsec int64) {
		s := fuzzScheme(t, scheme)
		at := time.Unix(sec, nsec)
		b, err := s.Of(at)
		if err != nil {
			return
		}
		checkBucket(t, s, b, at)
	})
}

// checkBucket asserts the bounds rule, stepping and the text round trip.
func checkBucket(t *testing.T, s Scheme, b Bucket, at time.Time) {
	start, end := s.Start(b), s.End(b)
	if at.Before(start) || !at.Before(end) {
		t.Fatalf("%v: %v not in bucket %d [%v, %v)", s, at, b, start, end)
	}
	if got, err := s.Of(start); err != nil || got != b {
		t.Fatalf("%v: Of(Start(%d)) = %d, %v", s, b, got, err)
	}
	if got, err := s.Of(end); err == nil && got != s.Next(b) {
		t.Fatalf("%v: Of(End(%d)) = %d, want %d", s, b, got, s.Next(b))
	}
	if got, err := s.ParseBucket(s.Format(b)); err != nil || got != b {
		t.Fatalf("%v: ParseBucket(Format(%d) = %q) = %d, %v", s, b, s.Format(b), got, err)
	}
}

func FuzzFixed(f *testing.F) {
	f.Add(int64(864000000), int64(1420070400), int64(1461000000), int64(0))
	f.Add(int64(1), int64(-62135596800), int64(0), int64(5))
	f.Add(int64(420003), int64(981173106), int64(981173106), int64(789e6-1))
	f.Fuzz(func(t *testing.T, widthMs, epochSec, sec, nsec int64) {
		s, err := Fixed(time.Duration(widthMs)*time.Millisecond, time.Unix(epochSec, 0))
		if err != nil {
			return
		}
		if back, err := ParseScheme(s.String()); err != nil || back != s {
			t.Fatalf("ParseScheme(%q) = %v, %v", s, back, err)
		}
		at := time.Unix(sec, nsec)
		b, err := s.Of(at)
		if err != nil {
			return
		}
		checkBucket(t, s, b, at)
	})
}

func FuzzParseText(f *testing.F) {
	f.Add(uint8(0), "2016-04-25T00:00:00Z/240h0m0s")
	f.Add(uint8(3), "2024-03-05T13")
	f.Add(uint8(4), "2024-02-29")
	f.Add(uint8(5), "2020-W53")
	f.Add(uint8(6), "2024-03")
	f.Add(uint8(6), "-12")
	f.Add(uint8(7), "fixed(width=240h0m0s,epoch=2015-01-01T00:00:00Z)")
	f.Add(uint8(8), "snowflake(epoch=1420070400000,worker=10,seq=12)")
	f.Fuzz(func(t *testing.T, scheme uint8, text string) {
		if s, err := ParseScheme(text); err == nil && s.String() != text {
			if back, err := ParseScheme(s.String()); err != nil || back != s {
				t.Fatalf("ParseScheme(%q).String() = %q does not round-trip", text, s)
			}
		}
		if k, err := ParseKind(text); err == nil {
			if back, err := ParseKind(k.String()); err != nil || back != k {
				t.Fatalf("ParseKind(%q).String() = %q does not round-trip", text, k)
			}
		}
		s := fuzzScheme(t, scheme)
		b, err := s.ParseBucket(text)
		if err != nil {
			return
		}
		if !s.Contains(b) {
			t.Fatalf("%v: ParseBucket(%q) = %d outside Range", s, text, b)
		}
		checkBucket(t, s, b, s.Start(b))
	})
}

// FuzzMakeTime checks that every kind's MinID of an instant decodes to the
// instant truncated to the kind's precision.
func FuzzMakeTime(f *testing.F) {
	f.Add(uint8(0), int64(1420070400), int64(1))
	f.Add(uint8(2), int64(-12219292800), int64(0))
	f.Add(uint8(5), int64(-9223372037), int64(145224193))
	f.Fuzz(func(t *testing.T, kind uint8, sec, nsec int64) {
		k := fuzzKind(kind)
		at := time.Unix(sec, nsec)
		id, err := k.MaxID(at)
		if err != nil {
			return
		}
		got, err := k.Time(id)
		if want := at.Truncate(k.Precision()); err != nil || !got.Equal(want) {
			t.Fatalf("%s: Time(MaxID(%v)) = %v, %v, want %v", k, at, got, err, want)
		}
		checkID(t, k, id)
	})
}
