package repo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// pagedNotes is a repository of 75 notes over 3 of by_room's buckets on a
// fake cluster (putThreeBuckets), a count of the selects that cluster has
// run, a query of them all, oldest first, and their IDs. The failAt-th
// select (counting from 1) fails.
func pagedNotes(t *testing.T, failAt int64) (*Repo[note], *atomic.Int64, Query, []int64) {
	t.Helper()
	r, fake, width := uncoalescedNotesOn(t)
	first, ids := putThreeBuckets(t, r, width)
	var selects atomic.Int64
	fake.fail = func(s Statement) error {
		if isSelect(s) && selects.Add(1) == failAt {
			return errBoom
		}
		return nil
	}
	return r, &selects, Query{View: "by_room", Key: Key{"r"}, Limit: 10, Direction: OldestFirst, From: first}, ids
}

var errBoom = errors.New("boom")

func isSelect(s Statement) bool { return strings.HasPrefix(s.CQL, "SELECT") }

// TestPagesReadAhead: Pages yields what successive Reads return, page for
// page, and reads the next page while its caller still holds this one.
func TestPagesReadAhead(t *testing.T) {
	r, selects, q, ids := pagedNotes(t, 0)
	var want []string
	var reads []int64 // the selects of successive Reads up to each page
	for rq := q; ; {
		p, err := r.Read(t.Context(), rq)
		if err != nil {
			t.Fatal(err)
		}
		want, reads = append(want, p.Cursor), append(reads, selects.Load())
		if rq.Cursor = p.Cursor; p.Cursor == "" {
			break
		}
	}
	selects.Store(0)
	var got []int64
	var cursors []string
	for p, err := range r.Pages(t.Context(), q) {
		if err != nil {
			t.Fatal(err)
		}
		got, cursors = append(got, editIDs(p.Items)...), append(cursors, p.Cursor)
		if p.Cursor == "" {
			break
		}
		// The caller holds this page: the next one is read all the same.
		next := reads[len(cursors)]
		for deadline := time.Now().Add(10 * time.Second); selects.Load() < next; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("page %d: %d selects while the caller held it, want the %d that read the next page too", len(cursors), selects.Load(), next)
			}
		}
	}
	if !slices.Equal(got, ids) {
		t.Fatalf("read %d items, want the %d written, in order, once each", len(got), len(ids))
	}
	if !slices.Equal(cursors, want) {
		t.Fatalf("cursors %q, want those of successive Reads %q", cursors, want)
	}
}

// TestPagesStopEarly: a caller that stops after the first page has had one
// more read at most, and nothing of the iteration runs once it returns.
func TestPagesStopEarly(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r, selects, q, _ := pagedNotes(t, 0)
	for p, err := range r.Pages(t.Context(), q) {
		if err != nil || len(p.Items) != 10 {
			t.Fatalf("first page: %d items, %v", len(p.Items), err)
		}
		break
	}
	// The first page is a listing and a bucket read; the page read ahead,
	// one select of the same bucket.
	if n := selects.Load(); n > 3 {
		t.Errorf("%d selects for a caller that took one page, want 3 at most", n)
	}
}

// TestPagesEndAtTheFirstError: the error of a page is yielded once, after the
// pages before it, and ends the iteration.
func TestPagesEndAtTheFirstError(t *testing.T) {
	r, _, q, _ := pagedNotes(t, 4) // pages: 2 selects, 1, then the 4th fails
	var pages int
	var errs []error
	for _, err := range r.Pages(t.Context(), q) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		pages++
	}
	if pages != 2 || len(errs) != 1 || !errors.Is(errs[0], errBoom) {
		t.Fatalf("%d pages then errors %v, want 2 pages then the injected error once", pages, errs)
	}
}

// TestPagesCancelledIsAnError: a context ended while the caller holds a
// page ends the iteration with its error, never as if the pages had run
// out (a cancelled export or aggregate would look complete).
func TestPagesCancelledIsAnError(t *testing.T) {
	r, _, q, _ := pagedNotes(t, 0)
	for range 20 { // the reader may be anywhere when the cancel comes
		ctx, cancel := context.WithCancel(t.Context())
		var pages int
		var last error
		for _, err := range r.Pages(ctx, q) {
			if last = err; err != nil {
				break
			}
			if pages++; pages == 1 {
				cancel()
				time.Sleep(time.Millisecond)
			}
		}
		cancel()
		if !errors.Is(last, context.Canceled) {
			t.Fatalf("after a cancel: %d pages, then %v; want context.Canceled", pages, last)
		}
	}
}
