package repo

import (
	"math/big"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gopkg.in/inf.v0"
)

// clonedRow has a field of every kind a scanned row may share by reference.
type clonedRow struct {
	Blob   []byte
	Tags   []string
	Attrs  map[string]int
	Note   *string
	Count  *big.Int
	Price  *inf.Dec
	Nested [][]byte
	Any    any
	At     time.Time
	Next   *clonedRow // a type that refers to itself
	hidden []byte     // unexported: left shared
}

// TestCopierSharesNothing: a copied item's slices, maps and pointers are
// its own; changing them leaves the original as it was.
func TestCopierSharesNothing(t *testing.T) {
	note := "n"
	orig := clonedRow{Blob: []byte("ab"), Tags: []string{"t"}, Attrs: map[string]int{"a": 1}, Note: &note,
		Count: big.NewInt(7), Price: inf.NewDec(123, 2), Nested: [][]byte{[]byte("x")}, Any: []byte("y"),
		At: fixedNow, Next: &clonedRow{Blob: []byte("z")}}
	c := orig
	copierOf(reflect.TypeFor[clonedRow]())(reflect.ValueOf(&c).Elem())
	if !reflect.DeepEqual(c, orig) {
		t.Fatalf("copy %+v differs from %+v", c, orig)
	}
	c.Blob[0] = 'X'
	c.Tags[0] = "X"
	c.Attrs["a"] = 9
	*c.Note = "X"
	c.Count.Add(c.Count, big.NewInt(1))
	c.Price.SetUnscaled(9)
	c.Nested[0][0] = 'X'
	c.Any.([]byte)[0] = 'X'
	c.Next.Blob[0] = 'X'
	if string(orig.Blob) != "ab" || orig.Tags[0] != "t" || orig.Attrs["a"] != 1 || note != "n" ||
		orig.Count.Int64() != 7 || orig.Price.UnscaledBig().Int64() != 123 || string(orig.Nested[0]) != "x" ||
		string(orig.Any.([]byte)) != "y" || string(orig.Next.Blob) != "z" {
		t.Fatalf("changing the copy changed the original: %+v", orig)
	}
	if copierOf(reflect.TypeFor[struct {
		A int
		B string
		C time.Time
	}]()) != nil {
		t.Error("a struct of values got a copier: its items would be copied for nothing")
	}
}

// TestCoalescedRecordsAreEachCallersOwn: readers of a hot key coalesced
// into one walk got the same Record maps (and []byte values), so one adding
// to its Record raced with another reading its own, a fatal concurrent map
// write. Each caller's items are now copies that share nothing.
func TestCoalescedRecordsAreEachCallersOwn(t *testing.T) {
	g := newFlightGroup[Record]()
	release := make(chan struct{})
	leaderIn := make(chan struct{})
	var calls atomic.Int64
	read := func() (Page[Record], error) {
		if calls.Add(1) == 1 {
			close(leaderIn)
			<-release
		}
		return Page[Record]{Items: []Record{{"body": []byte("hi"), "n": int64(1)}}}, nil
	}
	const n = 3
	results := make([]Page[Record], n)
	var wg sync.WaitGroup
	wg.Go(func() { results[0], _, _ = g.do(t.Context(), "k", read) })
	<-leaderIn
	for i := 1; i < n; i++ {
		wg.Go(func() { results[i], _, _ = g.do(t.Context(), "k", read) })
	}
	waitForFollowers(g, "k", n-1)
	close(release)
	wg.Wait()
	results[1].Items[0]["extra"] = true
	results[1].Items[0]["body"].([]byte)[0] = 'X'
	for _, i := range []int{0, 2} {
		r := results[i].Items[0]
		if _, ok := r["extra"]; ok || string(r["body"].([]byte)) != "hi" {
			t.Errorf("caller %d sees another caller's change: %v", i, r)
		}
	}
}
