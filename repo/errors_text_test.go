package repo

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
)

// TestErrorsNameThePackageOnce: an error of a call names the package once,
// at the front, however deep its sentinel was wrapped: a Put of a bad ID
// said "repo: put: view message_by_id: repo: bad id: ...", and a Get of a
// nil item "repo: get: repo: bad item: nil item". Nothing is sent.
func TestErrorsNameThePackageOnce(t *testing.T) {
	r := offline(t, Options{Write: WriteOptions{MaxValueBytes: 10},
		WrapExecutor: func(Executor) Executor { return refusingExecutor{t} }})
	ctx := context.Background()
	id := snowflakeFor(t, time.Now())
	ahead := snowflakeFor(t, time.Now().Add(48*time.Hour))
	msg := func(mid int64, body string) refmodel.Message {
		return refmodel.Message{ChannelID: 1, AuthorID: 2, MessageID: mid, Body: body}
	}
	bad, large, far := msg(-5, "x"), msg(id, strings.Repeat("x", 100)), msg(ahead, "x")
	get := func(m *refmodel.Message) error { _, err := r.Get(ctx, m); return err }
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"Put of a bad ID", r.Put(ctx, &bad), ErrBadID},
		{"PutMany of a bad ID", r.PutMany(ctx, []refmodel.Message{bad}), ErrBadID},
		{"Delete of a bad ID", r.Delete(ctx, &bad), ErrBadID},
		{"Get of a bad ID", get(&bad), ErrBadID},
		{"Put stamped ahead", r.Put(ctx, &far), ErrBadID},
		{"Put of a value too large", r.Put(ctx, &large), ErrValueTooLarge},
		{"PutMany of a value too large", r.PutMany(ctx, []refmodel.Message{large}), ErrValueTooLarge},
		{"Put of nil", r.Put(ctx, nil), ErrBadItem},
		{"Get of nil", get(nil), ErrBadItem},
		{"LatestValue of a bucketed view", func() error {
			_, _, err := r.LatestValue(ctx, "messages_by_channel", Key{int64(1)})
			return err
		}(), ErrUnknownView},
		{"Read of a bad key", func() error {
			_, err := r.Read(ctx, Query{View: "messages_by_channel", Key: Key{int64(1), int64(2)}, Limit: 10})
			return err
		}(), ErrBadKey},
		{"WriteRollupRow of an unknown rollup", r.WriteRollupRow(ctx, "nope", Key{int64(1)}, RollupRow{}, time.Now()), ErrUnknownView},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
			continue
		}
		if text := tc.err.Error(); strings.Count(text, "repo: ") != 1 || !strings.HasPrefix(text, "repo: ") {
			t.Errorf("%s: %q names the package other than once, at the front", tc.name, text)
		}
	}
}
