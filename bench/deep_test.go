package bench

import (
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
)

func TestPageCheck(t *testing.T) {
	msgs := func(ids ...int64) []refmodel.Message {
		out := make([]refmodel.Message, len(ids))
		for i, id := range ids {
			out[i].MessageID = id
		}
		return out
	}
	tests := []struct {
		name  string
		pages [][]refmodel.Message
		ok    bool
	}{
		{"descending across pages", [][]refmodel.Message{msgs(9, 8, 7), msgs(6, 5, 4)}, true},
		{"short page", [][]refmodel.Message{msgs(9, 8)}, false},
		{"repeat across pages", [][]refmodel.Message{msgs(9, 8, 7), msgs(7, 6, 5)}, false},
		{"out of order", [][]refmodel.Message{msgs(9, 10, 7)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c pageCheck
			var err error
			for _, p := range tc.pages {
				if err = c.add(p, 3); err != nil {
					break
				}
			}
			if got := err == nil; got != tc.ok {
				t.Errorf("got error %v, want ok: %t", err, tc.ok)
			}
		})
	}
}

func TestDepthRows(t *testing.T) {
	w := walkLog{}
	for p := range 20 {
		w.lat = append(w.lat, time.Duration(p+1)*time.Millisecond)
		w.queries = append(w.queries, 2+p%2)
	}
	rows := depthRows("tsbucket", []walkLog{w, w})
	if got, want := len(rows), 10; got != want {
		t.Fatalf("got %d rows, want %d", got, want)
	}
	first, last := rows[0], rows[9]
	if first.Pages != "1-2" || last.Pages != "19-20" {
		t.Errorf("pages: got %q and %q, want 1-2 and 19-20", first.Pages, last.Pages)
	}
	if first.P50 != 1 || first.P99 != 2 || last.P50 != 19 || first.QueriesPage != 2.5 {
		t.Errorf("got first %+v, last %+v", first, last)
	}
	if got := depthRows("x", nil); got != nil {
		t.Errorf("no walks: got %v, want nil", got)
	}
	short := walkLog{lat: w.lat[:3], queries: w.queries[:3]}
	if got := len(depthRows("x", []walkLog{short})); got != 3 {
		t.Errorf("3 pages: got %d rows, want 3", got)
	}
}
