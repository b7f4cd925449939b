package schema_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// TestViewsFileErrorsInFileOrder: a missing required field (found once the
// view's mapping has been read) is reported at its line, before the
// problems further down the file. It came after them: line 12, then line 6.
func TestViewsFileErrorsInFileOrder(t *testing.T) {
	doc := `keyspace:
  name: shop
  replication:
    dc1: 3
views:
  - name: v
    key:
      - k: text
    bucket:
      width: 1d
      epoch: unix
    ttl: 30x
`
	_, err := schema.ParseViewsFile("v.yaml", []byte(doc))
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "v.yaml:6:") || !strings.HasPrefix(lines[1], "v.yaml:12:") {
		t.Errorf("want the line-6 problem (missing id), then the line-12 one (ttl), got:\n%v", err)
	}
}

// TestViewsFileErrorLimitKeepsTheFirst: past the limit, the problems kept
// are the first twenty of the file, not the first twenty found.
func TestViewsFileErrorLimitKeepsTheFirst(t *testing.T) {
	// Each view lacks its key (reported after its fields are read) and
	// has an unknown field (reported while reading them).
	text := "keyspace: {name: x, replication: {dc1: 1}}\nviews:\n" + strings.Repeat("  - {name: v, wrong: 1}\n", 30)
	_, err := schema.ParseViewsFile("views.yaml", []byte(text))
	errs := err.(interface{ Unwrap() []error }).Unwrap()
	if len(errs) != 21 {
		t.Fatalf("got %d errors, want 20 and \"too many errors\"", len(errs))
	}
	last := 0
	for _, e := range errs[:20] {
		var vf *schema.ViewsFileError
		if !errors.As(e, &vf) {
			t.Fatalf("%v is no *ViewsFileError", e)
		}
		if vf.Line < last {
			t.Errorf("line %d reported after line %d:\n%v", vf.Line, last, err)
		}
		last = vf.Line
	}
	if last > 3+20/2 {
		t.Errorf("the twenty kept reach line %d, want the first lines' problems:\n%v", last, err)
	}
}

// TestCompactionWindowOfAWidthNotWholeMinutes: with 90 s buckets a 3 m
// window is whole minutes and holds exactly two buckets; it was refused
// against the width rounded up to 2 m, an error naming a width the view
// does not have.
func TestCompactionWindowOfAWidthNotWholeMinutes(t *testing.T) {
	s, err := bucket.Fixed(90*time.Second, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	v := schema.View{Name: "v", Key: []schema.Column{{Name: "k", Type: "text"}}, Scheme: s,
		ID: schema.Column{Name: "id"}, Kind: bucket.TimeUUID{}}
	for _, w := range []time.Duration{2 * time.Minute, 3 * time.Minute, 6 * time.Minute} {
		v.CompactionWindow = w
		if err := v.Validate(); err != nil {
			t.Errorf("window %v: %v", w, err)
		}
	}
	v.CompactionWindow = 5 * time.Minute
	err = v.Validate()
	if !errors.Is(err, schema.ErrBadView) || !strings.Contains(err.Error(), "bucket width 1m30s") {
		t.Errorf("window 5m over 90s buckets: %v, want ErrBadView naming the width 1m30s", err)
	}
}
