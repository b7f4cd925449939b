package repo

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/refmodel"
)

// An ID the view's kind rejects is ErrBadID naming the column and the
// value the item holds: "bucket: malformed ID" alone left the caller to
// guess which field of which item. Nothing is sent (the executor fails
// the test if asked).
func TestBadIDErrorNamesColumnAndValue(t *testing.T) {
	r := offline(t, Options{WrapExecutor: func(Executor) Executor { return refusingExecutor{t} }})
	ctx := context.Background()
	for _, tc := range []struct {
		id   int64
		want string
	}{
		{0, "message_id 0"},
		{-5, "message_id -5"},
	} {
		m := refmodel.Message{ChannelID: 1, AuthorID: 2, MessageID: tc.id, Body: "x"}
		calls := map[string]error{
			"Put":     r.Put(ctx, &m),
			"PutMany": r.PutMany(ctx, []refmodel.Message{m}),
			"Delete":  r.Delete(ctx, &m),
		}
		for name, err := range calls {
			if !errors.Is(err, ErrBadID) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s of ID %d: got %v, want ErrBadID naming %q", name, tc.id, err, tc.want)
			}
		}
	}
}

// A 16-byte ID is named in its kind's text form: a version 4 UUID where
// a timeuuid is due, as 8-4-4-4-12 hex.
func TestBadUUIDErrorNamesValue(t *testing.T) {
	r, err := New[refmodel.Reading](&gocql.Session{}, "iot", refmodel.IoTViews(),
		Options{WrapExecutor: func(Executor) Executor { return refusingExecutor{t} }})
	if err != nil {
		t.Fatal(err)
	}
	v4 := gocql.UUID{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0x4d, 0xef, 0x80, 1, 2, 3, 4, 5, 6, 7}
	err = r.Put(context.Background(), &refmodel.Reading{SensorID: "s", SiteID: "x", ReadingID: v4, Value: 1})
	if want := "reading_id " + v4.String(); !errors.Is(err, ErrBadID) || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want ErrBadID naming %q", err, want)
	}
}

// refusingExecutor fails the test on any statement.
type refusingExecutor struct{ t *testing.T }

func (e refusingExecutor) Exec(_ context.Context, s Statement) error {
	e.t.Errorf("unexpected statement %s", s.CQL)
	return errors.New("refused")
}

func (e refusingExecutor) Query(_ context.Context, s Statement) Rows {
	e.t.Errorf("unexpected query %s", s.CQL)
	return &fakeRows{}
}
