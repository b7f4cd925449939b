package idgen

import (
	"container/list"
	"fmt"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
)

// MaxAtInstants is how many other instants At remembers the last counter of
// besides the one asked: IDs asked for an instant it remembers are strictly
// increasing; for one it forgot (more than MaxAtInstants other instants
// asked since it was last asked), the counter
// starts again from random bits, still unique with overwhelming
// probability but not ordered after the IDs handed out before for it.
const MaxAtInstants = 4096

// atTicks remembers the last counter At used for recent ticks: a list from
// the tick asked most recently to the one asked least recently, of at most
// MaxAtInstants+1 ticks (the one asked and the MaxAtInstants others asked
// since), the least recent forgotten first. Once full, the forgotten tick's
// element is reused: no allocation per tick.
type atTicks struct {
	last  map[int64]*list.Element // of atTick
	order list.List               // front: asked most recently
}

type atTick struct {
	tick int64
	c    counter
}

func (a *atTicks) get(tick int64) (counter, bool) {
	e, ok := a.last[tick]
	if !ok {
		return counter{}, false
	}
	return e.Value.(*atTick).c, true
}

func (a *atTicks) put(tick int64, c counter) {
	if a.last == nil {
		a.last = make(map[int64]*list.Element)
	}
	if e, ok := a.last[tick]; ok {
		e.Value.(*atTick).c = c
		a.order.MoveToFront(e)
		return
	}
	if a.order.Len() <= MaxAtInstants {
		a.last[tick] = a.order.PushFront(&atTick{tick: tick, c: c})
		return
	}
	e := a.order.Back()
	t := e.Value.(*atTick)
	delete(a.last, t.tick)
	t.tick, t.c = tick, c
	a.order.MoveToFront(e)
	a.last[tick] = e
}

// At returns an ID for an item stamped at t, not now: a device's reading
// stamped by its own clock, a backfilled item keeping its original time.
// kind.Time(id) is t truncated to the kind's precision, whatever the
// generator's clock says, and the IDs At returns for one instant are
// strictly increasing (and so unique) while the generator remembers the
// instant (MaxAtInstants). IDs of different instants order by instant. At
// does not move Next's IDs, nor Next At's: an ID from At may sort before
// IDs Next returned earlier, as its item is older.
//
// At is for kinds whose tie-breaker is random (UUIDv7, ULID, Timestamp):
// their IDs of one instant stay unique across generators and processes with
// overwhelming probability. Snowflakes and TimeUUIDs are ErrUnsupportedKind:
// their tie-breaker is a per-process counter that Next shares, so an ID for
// a past instant could repeat one already handed out. A t the kind cannot
// represent wraps bucket.ErrBeforeEpoch or bucket.ErrOutOfRange; more IDs
// for one instant than its counter holds is ErrExhausted.
func (g *Generator) At(t time.Time) (bucket.ID, error) {
	if !g.codec.random() {
		return bucket.ID{}, fmt.Errorf("at of %s: its tie-breaker is a counter Next shares: %w", g.kind.Name(), ErrUnsupportedKind)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	tick, err := g.codec.tick(t)
	if err != nil {
		return bucket.ID{}, fmt.Errorf("at %s: %w", g.kind.Name(), err)
	}
	for {
		c, err := g.atCounter(tick)
		if err != nil {
			return bucket.ID{}, fmt.Errorf("at %s: %w", g.kind.Name(), err)
		}
		id, err := g.codec.build(tick, c)
		if err != nil {
			return bucket.ID{}, fmt.Errorf("at %s: %w", g.kind.Name(), err)
		}
		g.at.put(tick, c)
		if !id.IsZero() { // the zero ID is never handed out; the next one is not zero
			return id, nil
		}
	}
}

// atCounter is the counter of At's next ID of tick: after the last one it
// used for the tick, else fresh random bits.
func (g *Generator) atCounter(tick int64) (counter, error) {
	last, ok := g.at.get(tick)
	if !ok {
		return g.fresh()
	}
	c, fits, err := g.incrementFrom(last)
	if err != nil {
		return counter{}, err
	}
	if !fits {
		return counter{}, fmt.Errorf("instant %d of %v full: %w", tick, g.kind.Precision(), ErrExhausted)
	}
	return c, nil
}
