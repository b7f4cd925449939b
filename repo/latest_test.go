package repo

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/schema"
)

// latestNoteView is the latest-value view of by_room (noteViews).
func latestNoteView() schema.View {
	src := noteViews()[0]
	return schema.View{Name: "latest_by_room", LatestOf: src.Name, Key: src.Key, ID: src.ID, Kind: src.Kind,
		Values: []schema.Column{{Name: "body", Type: "text"}}}
}

// TestLatestViewNeedsItsSource: a repository given a latest-value view
// without its source cannot restore it after a delete, so New refuses it.
func TestLatestViewNeedsItsSource(t *testing.T) {
	_, err := New[note](tripwireSession(), "ks", []schema.View{latestNoteView()}, Options{})
	if !errors.Is(err, ErrBadOptions) || !strings.Contains(err.Error(), `latest_of "by_room"`) {
		t.Fatalf("New = %v, want ErrBadOptions naming the missing source", err)
	}
}

// TestLatestValueOfAnotherView: LatestValue reads latest-value views only.
func TestLatestValueOfAnotherView(t *testing.T) {
	views := append(noteViews(), latestNoteView())
	r, err := New[note](tripwireSession(), "ks", views, Options{Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.LatestValue(t.Context(), "by_room", Key{"r"}); !errors.Is(err, ErrUnknownView) {
		t.Fatalf("LatestValue of a bucketed view = %v, want ErrUnknownView", err)
	}
	if _, _, err := r.LatestValues(t.Context(), "nope", []Key{{"r"}}); !errors.Is(err, ErrUnknownView) {
		t.Fatalf("LatestValues of an unknown view = %v, want ErrUnknownView", err)
	}
}
