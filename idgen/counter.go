package idgen

import "math/bits"

// counter is the per-tick part of an ID, up to 80 bits: a snowflake's
// sequence, a UUIDv7's rand_a and rand_b, a ULID's entropy, a Timestamp's
// tie-breaker.
type counter struct{ hi, lo uint64 }

// fits reports whether c has no bit set at or above width.
func (c counter) fits(width uint) bool {
	if width >= 64 {
		return c.hi>>(width-64) == 0
	}
	return c.hi == 0 && c.lo>>width == 0
}

// add returns c+d and whether the sum still fits in width bits.
func (c counter) add(d uint64, width uint) (counter, bool) {
	lo, carry := bits.Add64(c.lo, d, 0)
	hi, carry2 := bits.Add64(c.hi, 0, carry)
	sum := counter{hi, lo}
	return sum, carry2 == 0 && sum.fits(width)
}

// fromBytes reads b (at most 16 bytes) as a big-endian number and keeps its
// low width-1 bits: the top bit of a fresh counter is clear, so at least
// half its range is left for the tick's increments (RFC 9562 section 6.2,
// method 1's guard against rollover).
func fromBytes(b []byte, width uint) counter {
	var c counter
	for _, x := range b {
		c.hi = c.hi<<8 | c.lo>>56
		c.lo = c.lo<<8 | uint64(x)
	}
	keep := width - 1
	switch {
	case width == 0:
		return counter{}
	case keep >= 64:
		c.hi &= 1<<(keep-64) - 1
	default:
		c.hi, c.lo = 0, c.lo&(1<<keep-1)
	}
	return c
}

// bytes10 writes the low 80 bits of c big-endian.
func (c counter) bytes10() [10]byte {
	var b [10]byte
	b[0], b[1] = byte(c.hi>>8), byte(c.hi)
	for i := 0; i < 8; i++ {
		b[2+i] = byte(c.lo >> (56 - 8*i))
	}
	return b
}
