package bucket

import (
	"fmt"
	"iter"
	"time"
)

// Descending returns the buckets from, from-1, ..., floor: both endpoints
// included, newest first, the order a "latest N" read walks. Callers stop
// early by breaking out of the range loop. ErrFloorAfterStart when floor >
// from; ErrOutOfRange when either lies outside Range, which also bounds
// every walk.
func (s Scheme) Descending(from, floor Bucket) (iter.Seq[Bucket], error) {
	if err := s.checkWalk(floor, from); err != nil {
		return nil, err
	}
	return descending(from, floor), nil
}

// Ascending returns the buckets from, from+1, ..., ceiling, both included,
// oldest first. ErrFloorAfterStart when ceiling < from; ErrOutOfRange as in
// Descending.
func (s Scheme) Ascending(from, ceiling Bucket) (iter.Seq[Bucket], error) {
	if err := s.checkWalk(from, ceiling); err != nil {
		return nil, err
	}
	return ascending(from, ceiling), nil
}

// Between returns the buckets overlapping the half-open range [start, end),
// newest first if newestFirst, else oldest first. A start before Epoch is
// raised to it, since no bucket exists earlier; an empty range (start ==
// end, or end at or before Epoch) yields nothing. ErrFloorAfterStart when
// end is before start; ErrOutOfRange when end is after year 9999.
func (s Scheme) Between(start, end time.Time, newestFirst bool) (iter.Seq[Bucket], error) {
	if s.unit == unitNone {
		return nil, ErrBadScheme
	}
	if end.Before(start) {
		return nil, fmt.Errorf("buckets between %s and %s: %w", instant(start), instant(end), ErrFloorAfterStart)
	}
	if epoch := s.Epoch(); start.Before(epoch) {
		start = epoch
	}
	if !start.Before(end) {
		return func(func(Bucket) bool) {}, nil
	}
	first, err := s.Of(start)
	if err != nil {
		return nil, err
	}
	last, err := s.Of(end.Add(-time.Nanosecond))
	if err != nil {
		return nil, err
	}
	if newestFirst {
		return descending(last, first), nil
	}
	return ascending(first, last), nil
}

// checkWalk validates lo <= hi, both within Range.
func (s Scheme) checkWalk(lo, hi Bucket) error {
	if s.unit == unitNone {
		return ErrBadScheme
	}
	if lo > hi {
		return fmt.Errorf("walk with bounds %d > %d: %w", lo, hi, ErrFloorAfterStart)
	}
	if !s.Contains(lo) || !s.Contains(hi) {
		return fmt.Errorf("walk %d..%d: %w", lo, hi, ErrOutOfRange)
	}
	return nil
}

// descending counts down without computing floor-1, so it cannot overflow.
func descending(from, floor Bucket) iter.Seq[Bucket] {
	return func(yield func(Bucket) bool) {
		for b := from; yield(b) && b != floor; b-- {
		}
	}
}

func ascending(from, ceiling Bucket) iter.Seq[Bucket] {
	return func(yield func(Bucket) bool) {
		for b := from; yield(b) && b != ceiling; b++ {
		}
	}
}
