package admission

import (
	"context"
	"testing"
	"time"
)

// A waiter that dispatch passes over for its partition, and that a grant
// made by the same dispatch leaves without room in the budget, waits for the
// lane again: a later call to another partition must not pass it.
func TestDispatchedPastAHeldWaiterOutOfBudget(t *testing.T) {
	l := newLimiter(t, Config{Write: LaneConfig{Limit: 4, PartitionLimit: 1, MaxQueueTime: time.Minute}})
	hot := mustAcquire(t, l, Write, 1, 1)                   // partition 1 busy; 1 of 4 in flight
	filler := mustAcquire(t, l, Write, 3, 9)                // 4 of 4 in flight
	a := acquireAsync(context.Background(), l, Write, 3, 1) // waits for the lane (and partition 1)
	waitQueued(t, l, Write, 3)
	b := acquireAsync(context.Background(), l, Write, 1, 2) // behind a
	waitQueued(t, l, Write, 4)
	filler.Release(nil) // dispatch: a fits 3 of 3 free but partition 1 is busy (held); b granted
	rb := <-b
	if rb.err != nil {
		t.Fatal(rb.err)
	}
	// Now 2 of 4 in flight; a needs 3: it waits for the lane's budget too.
	c := acquireAsync(context.Background(), l, Write, 2, 3)
	select {
	case r := <-c:
		t.Errorf("a call of 2 arriving after a waiter of 3 that does not fit the budget was admitted "+
			"at once (err %v): it passed a waiter of the lane; stats %+v", r.err, l.Stats(Write))
		if r.p != nil {
			r.p.Release(nil)
		}
	case <-time.After(200 * time.Millisecond):
	}
	hot.Release(nil)
	rb.p.Release(nil)
	for _, ch := range []chan result{a, c} {
		select {
		case r := <-ch:
			if r.p != nil {
				r.p.Release(nil)
			}
		case <-time.After(time.Second):
		}
	}
}
