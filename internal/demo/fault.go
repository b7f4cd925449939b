package demo

import (
	"context"
	"errors"
	"time"

	"github.com/tsbucket/tsbucket/repo"
)

// errInjected is the failure the demo injects into one view's write: what
// a coordinator's write timeout looks like to the fan-out.
var errInjected = errors.New("demo: injected write timeout")

// faultKey marks the context of a write the demo has chosen to fault.
type faultKey struct{}

// withFault marks ctx: faultInjector fails that write's insert into its
// table.
func withFault(ctx context.Context) context.Context {
	return context.WithValue(ctx, faultKey{}, true)
}

// faultInjector is the executor layer (repo.Options.WrapExecutor) behind
// Config.FaultRate: a write whose context withFault marked has its insert
// into table fail after delay, without being sent, while the fan-out's other
// statements go through. The repository reports a partial write (and
// tsbucket_fanout_failures_total counts it), and the demo retries it whole
// with repo.RetryOf, as docs/design.md decision 2 allows. A client deadline can
// no longer make that happen: a fan-out that has begun finishes past its
// caller's cancel.
type faultInjector struct {
	next  repo.Executor
	table string
	delay time.Duration
}

func (f faultInjector) Exec(ctx context.Context, s repo.Statement) error {
	if s.Table == f.table && s.Op == "insert" && ctx.Value(faultKey{}) != nil {
		select {
		case <-time.After(f.delay):
		case <-ctx.Done():
		}
		return errInjected
	}
	return f.next.Exec(ctx, s)
}

func (f faultInjector) Query(ctx context.Context, s repo.Statement) repo.Rows {
	return f.next.Query(ctx, s)
}
