package bucket

import (
	"math"
	"testing"
	"time"
)

func TestCompactionWindow(t *testing.T) {
	const d = 24 * time.Hour
	tests := []struct {
		name  string
		width time.Duration
		ttl   time.Duration
		want  TWCSWindow
	}{
		{"unbucketed", 0, 30 * d, TWCSWindow{}},
		{"no ttl keeps the width", 15 * time.Minute, 0, TWCSWindow{"MINUTES", 15}},
		{"90 seconds rounds up", 90 * time.Second, 0, TWCSWindow{"MINUTES", 2}},
		{"36 hours", 36 * time.Hour, 0, TWCSWindow{"HOURS", 36}},
		{"few windows keep the width", d, 30 * d, TWCSWindow{"DAYS", 1}},
		{"exactly the maximum", time.Hour, 50 * time.Hour, TWCSWindow{"HOURS", 1}},
		{"one over widens", time.Hour, 51 * time.Hour, TWCSWindow{"HOURS", 2}},
		// 50h1s spans 51 windows of an hour once rounded up (50 rounded down).
		{"one second over widens", time.Hour, 50*time.Hour + time.Second, TWCSWindow{"HOURS", 2}},
		{"one nanosecond over widens", time.Hour, 50*time.Hour + 1, TWCSWindow{"HOURS", 2}},
		// Sums like ttl+window-1 would wrap around here; need is 3558.4 days.
		{"longest duration", time.Hour, math.MaxInt64, TWCSWindow{"DAYS", 3559}},
		{"longest duration, widest width", 1 << 62, math.MaxInt64, TWCSWindow{"MINUTES", 76861434}},
		{"discord ten days for a year", 10 * d, 365 * d, TWCSWindow{"DAYS", 10}},
		// 720 hourly windows become 30 daily ones.
		{"hourly for 30 days", time.Hour, 30 * d, TWCSWindow{"DAYS", 1}},
		// need 5h36m: 6 hours is the first multiple of 1h dividing a day.
		{"hourly for a week", time.Hour, 7 * d, TWCSWindow{"HOURS", 6}},
		{"ten minutes for a week", 10 * time.Minute, 7 * d, TWCSWindow{"HOURS", 6}},
		{"ten minutes for 90 days", 10 * time.Minute, 90 * d, TWCSWindow{"DAYS", 3}},
		// 7 minutes does not divide a day: plain multiples (need 5h36m).
		{"unaligned width", 7 * time.Minute, 7 * d, TWCSWindow{"MINUTES", 336}},
		{"ten days for 20 years", 10 * d, MaxTTL, TWCSWindow{"DAYS", 250}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CompactionWindow(tt.width, tt.ttl)
			if got != tt.want {
				t.Fatalf("CompactionWindow(%v, %v) = %v, want %v", tt.width, tt.ttl, got, tt.want)
			}
			if got == (TWCSWindow{}) {
				return
			}
			w := got.Duration()
			if tt.ttl > 0 {
				if n := ceilDiv(tt.ttl, w); n > MaxCompactionWindows {
					t.Errorf("%v spans %d windows, more than %d", tt.ttl, n, MaxCompactionWindows)
				}
			}
			if base := (tt.width + time.Minute - 1) / time.Minute * time.Minute; w%base != 0 {
				t.Errorf("window %v is not a multiple of the (rounded) width %v", w, base)
			}
		})
	}
}

// Every window CompactionWindow gives keeps the invariants: whole minutes,
// a multiple of the width, at most MaxCompactionWindows over the TTL, and
// never narrower than needed by more than the rounding.
func FuzzCompactionWindow(f *testing.F) {
	f.Add(int64(time.Hour), int64(30*24*time.Hour))
	f.Add(int64(7*time.Minute), int64(7*24*time.Hour))
	f.Fuzz(func(t *testing.T, width, ttl int64) {
		if width <= 0 || width > int64(365*24*time.Hour) || ttl < 0 {
			return
		}
		w := CompactionWindow(time.Duration(width), time.Duration(ttl))
		d := w.Duration()
		if d <= 0 || d%time.Minute != 0 {
			t.Fatalf("window %v is not a positive whole number of minutes", w)
		}
		if twcsWindowOf(d) != w {
			t.Fatalf("window %v is not in its largest unit", w)
		}
		base := (time.Duration(width) + time.Minute - 1) / time.Minute * time.Minute
		if d%base != 0 {
			t.Fatalf("window %v is not a multiple of %v", w, base)
		}
		if ttl > 0 && ceilDiv(time.Duration(ttl), d) > MaxCompactionWindows {
			t.Fatalf("ttl %v spans %d windows of %v", time.Duration(ttl), ceilDiv(time.Duration(ttl), d), w)
		}
	})
}

// TestCompactionWindowLongestWidths: a width within a minute of the largest
// Duration rounds up past it; its window is still whole minutes, at least
// the width, where the rounding overflowed to a negative window.
func TestCompactionWindowLongestWidths(t *testing.T) {
	for _, width := range []time.Duration{math.MaxInt64, math.MaxInt64 - time.Second, math.MaxInt64 / time.Minute * time.Minute} {
		w := CompactionWindow(width, 30*24*time.Hour)
		if w.Size <= 0 || w.Unit != "MINUTES" && w.Unit != "HOURS" && w.Unit != "DAYS" {
			t.Fatalf("CompactionWindow(%v) = %v, want a positive window", width, w)
		}
		var unit int64 = 1
		switch w.Unit {
		case "HOURS":
			unit = 60
		case "DAYS":
			unit = 24 * 60
		}
		if mins := int64(w.Size) * unit; mins < int64(width/time.Minute) || mins > int64(width/time.Minute)+1 {
			t.Fatalf("CompactionWindow(%v) = %v: %d minutes, want the width's %d rounded up", width, w, mins, int64(width/time.Minute))
		}
	}
}
