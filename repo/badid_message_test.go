package repo

import (
	"context"
	"errors"
	"strings"
	"testing"

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
