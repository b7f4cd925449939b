package idgen

import "testing"

func TestCounterAdd(t *testing.T) {
	tests := []struct {
		name   string
		c      counter
		d      uint64
		width  uint
		want   counter
		wantOK bool
	}{
		{"zero width never fits", counter{}, 1, 0, counter{0, 1}, false},
		{"sequence below full", counter{0, 4094}, 1, 12, counter{0, 4095}, true},
		{"sequence full", counter{0, 4095}, 1, 12, counter{0, 4096}, false},
		{"carry into hi", counter{0, 1<<64 - 1}, 1, 74, counter{1, 0}, true},
		{"74 bits at the top", counter{1<<10 - 1, 1<<64 - 2}, 1, 74, counter{1<<10 - 1, 1<<64 - 1}, true},
		{"74 bits overflow", counter{1<<10 - 1, 1<<64 - 1}, 1, 74, counter{1 << 10, 0}, false},
		{"80 bits overflow", counter{1<<16 - 1, 1<<64 - 1}, 1 << 32, 80, counter{1 << 16, 1<<32 - 1}, false},
		{"64 bits overflow", counter{0, 1<<64 - 1}, 1, 64, counter{1, 0}, false},
		{"64 bits fits", counter{0, 1<<63 - 1}, 1 << 32, 64, counter{0, 1<<63 - 1 + 1<<32}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.c.add(tt.d, tt.width)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("add = %x, %v; want %x, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestFromBytesClearsTopBit(t *testing.T) {
	ones := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	tests := []struct {
		name  string
		b     []byte
		width uint
		want  counter
	}{
		{"uuidv7 74 bits", ones, 74, counter{1<<9 - 1, 1<<64 - 1}},
		{"ulid 80 bits", ones, 80, counter{1<<15 - 1, 1<<64 - 1}},
		{"timestamp 64 bits", ones[:8], 64, counter{0, 1<<63 - 1}},
		{"sequence 12 bits", ones[:2], 12, counter{0, 1<<11 - 1}},
		{"no bits", nil, 0, counter{}},
		{"big-endian", []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 80, counter{0x0102, 0x030405060708090a}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fromBytes(tt.b, tt.width); got != tt.want {
				t.Errorf("fromBytes = %x, want %x", got, tt.want)
			}
		})
	}
}
