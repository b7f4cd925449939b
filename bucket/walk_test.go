package bucket

import (
	"errors"
	"iter"
	"slices"
	"testing"
	"time"
)

func collect(t *testing.T, seq iter.Seq[Bucket], err error) []Bucket {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return slices.Collect(seq)
}

func TestWalks(t *testing.T) {
	s := Daily()
	first, last := s.Range()
	tests := []struct {
		name string
		got  func() (iter.Seq[Bucket], error)
		want []Bucket
	}{
		{"descending", func() (iter.Seq[Bucket], error) { return s.Descending(5, 2) }, []Bucket{5, 4, 3, 2}},
		{"descending one", func() (iter.Seq[Bucket], error) { return s.Descending(5, 5) }, []Bucket{5}},
		{"descending negative", func() (iter.Seq[Bucket], error) { return s.Descending(1, -2) }, []Bucket{1, 0, -1, -2}},
		{"descending to first", func() (iter.Seq[Bucket], error) { return s.Descending(first+1, first) }, []Bucket{first + 1, first}},
		{"ascending", func() (iter.Seq[Bucket], error) { return s.Ascending(2, 5) }, []Bucket{2, 3, 4, 5}},
		{"ascending to last", func() (iter.Seq[Bucket], error) { return s.Ascending(last-1, last) }, []Bucket{last - 1, last}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seq, err := tt.got()
			if got := collect(t, seq, err); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWalkStopsEarly(t *testing.T) {
	seq, err := Hourly().Descending(100, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []Bucket
	for b := range seq {
		got = append(got, b)
		if len(got) == 3 {
			break
		}
	}
	if want := []Bucket{100, 99, 98}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestWalkErrors(t *testing.T) {
	d := discordScheme(t)
	_, last := d.Range()
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"floor after start", errOf(d.Descending(3, 4)), ErrFloorAfterStart},
		{"ceiling before start", errOf(d.Ascending(4, 3)), ErrFloorAfterStart},
		{"before epoch", errOf(d.Descending(3, -1)), ErrOutOfRange},
		{"after last", errOf(d.Ascending(3, last+1)), ErrOutOfRange},
		{"zero scheme", errOf(Scheme{}.Descending(3, 1)), ErrBadScheme},
		{"between reversed", errOf(d.Between(utc(2020, 1, 2, 0, 0, 0, 0), utc(2020, 1, 1, 0, 0, 0, 0), true)), ErrFloorAfterStart},
		{"between year 10000", errOf(d.Between(utc(2020, 1, 1, 0, 0, 0, 0), utc(10000, 1, 1, 0, 0, 0, 1), true)), ErrOutOfRange},
		{"between zero scheme", errOf(Scheme{}.Between(utc(2020, 1, 1, 0, 0, 0, 0), utc(2020, 1, 2, 0, 0, 0, 0), true)), ErrBadScheme},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !errors.Is(tt.err, tt.want) {
				t.Errorf("error = %v, want %v", tt.err, tt.want)
			}
		})
	}
}

func TestBetween(t *testing.T) {
	day := Daily()
	d := discordScheme(t)
	jan := func(dd, h int) time.Time { return utc(2024, 1, dd, h, 0, 0, 0) }
	b := func(dd int) Bucket { return mustOf(t, day, jan(dd, 0)) }
	tests := []struct {
		name        string
		scheme      Scheme
		start, end  time.Time
		newestFirst bool
		want        []Bucket
	}{
		{"exclusive end", day, jan(1, 0), jan(3, 0), false, []Bucket{b(1), b(2)}},
		{"newest first", day, jan(1, 0), jan(3, 0), true, []Bucket{b(2), b(1)}},
		{"partial buckets", day, jan(1, 23), jan(3, 1), false, []Bucket{b(1), b(2), b(3)}},
		{"end one ns in", day, jan(1, 12), jan(2, 0).Add(time.Nanosecond), true, []Bucket{b(2), b(1)}},
		{"inside one bucket", day, jan(1, 1), jan(1, 2), true, []Bucket{b(1)}},
		{"empty", day, jan(1, 1), jan(1, 1), true, nil},
		{"clamped to epoch", d, utc(2014, 1, 1, 0, 0, 0, 0), utc(2015, 1, 21, 0, 0, 0, 0), true, []Bucket{1, 0}},
		{"all before epoch", d, utc(2014, 1, 1, 0, 0, 0, 0), utc(2015, 1, 1, 0, 0, 0, 0), true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seq, err := tt.scheme.Between(tt.start, tt.end, tt.newestFirst)
			if got := collect(t, seq, err); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBetweenBeyondRange(t *testing.T) {
	_, err := Daily().Between(utc(10001, 1, 1, 0, 0, 0, 0), utc(10002, 1, 1, 0, 0, 0, 0), false)
	if !errors.Is(err, ErrOutOfRange) {
		t.Errorf("error = %v, want ErrOutOfRange", err)
	}
}
