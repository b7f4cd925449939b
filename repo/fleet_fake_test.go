package repo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

// A fleet in one test: several repositories (instances) share one fake
// cluster and one fake metadata store, each with its own clock (the world's
// plus an offset within ClockSkew) and its own faults: reloads that fail, a
// reload that hangs until released.

// world is the true time of a fleet test, which the test moves.
type world struct {
	mu  sync.Mutex
	now time.Time
}

func (w *world) clock() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.now
}

func (w *world) advance(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.now = w.now.Add(d)
}

// fakeMeta is the metadata recorded in the keyspace: scheme histories and
// promotions, as the metadata seam sees them.
type fakeMeta struct {
	mu      sync.Mutex
	schemes map[string]bucket.Scheme
	promos  map[string]map[string]schema.Promotion
}

func newFakeMeta(views []schema.View) *fakeMeta {
	m := &fakeMeta{schemes: map[string]bucket.Scheme{}, promos: map[string]map[string]schema.Promotion{}}
	for _, v := range views {
		v = v.WithDefaults()
		if v.Bucketed() {
			m.schemes[v.Name] = v.Scheme
		}
	}
	return m
}

// rebucket records a change of view's scheme to next from from on, checked
// as schema.PlanRebucket checks it (from at least lead after now).
func (m *fakeMeta) rebucket(t *testing.T, v schema.View, from time.Time, next bucket.Scheme, now time.Time, lead time.Duration) bucket.Scheme {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	v.Scheme = m.schemes[v.Name]
	p, err := schema.PlanRebucket(v, from, next, now, lead)
	if err != nil {
		t.Fatalf("rebucket %s: %v", v.Name, err)
	}
	m.schemes[v.Name] = p.Scheme
	return p.Scheme
}

// instanceMeta is one instance's way to the metadata, with its faults.
type instanceMeta struct {
	m     *fakeMeta
	mu    sync.Mutex
	fail  error         // reloads fail with it while set
	hold  chan struct{} // a reload waits until it is closed, while set
	slow  bool          // a reload hangs for a while and gives up
	loads int           // reloads attempted
}

func (im *instanceMeta) fault() (error, chan struct{}) {
	im.mu.Lock()
	defer im.mu.Unlock()
	im.loads++
	return im.fail, im.hold
}

func (im *instanceMeta) setFail(err error) {
	im.mu.Lock()
	defer im.mu.Unlock()
	im.fail = err
}

func (im *instanceMeta) setHold(c chan struct{}) {
	im.mu.Lock()
	defer im.mu.Unlock()
	im.hold = c
}

func (im *instanceMeta) schemes(ctx context.Context, views []string) (map[string]bucket.Scheme, error) {
	err, hold := im.fault()
	if im.isSlow() {
		time.Sleep(2 * time.Millisecond)
		return nil, fmt.Errorf("read the schemes: %w", context.DeadlineExceeded)
	}
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err != nil {
		return nil, err
	}
	im.m.mu.Lock()
	defer im.m.mu.Unlock()
	out := map[string]bucket.Scheme{}
	for _, name := range views {
		if s, ok := im.m.schemes[name]; ok {
			out[name] = s
		}
	}
	return out, nil
}

func (im *instanceMeta) promotions(ctx context.Context, view string) (map[string]schema.Promotion, error) {
	im.m.mu.Lock()
	defer im.m.mu.Unlock()
	return maps.Clone(im.m.promos[view]), nil
}

func (im *instanceMeta) blocked(ctx context.Context, view string) (map[string]schema.BlockedKey, error) {
	return nil, nil
}

func (im *instanceMeta) promote(ctx context.Context, p schema.Promotion) (schema.Promotion, error) {
	if err, _ := im.fault(); err != nil {
		return p, err
	}
	im.m.mu.Lock()
	defer im.m.mu.Unlock()
	if im.m.promos[p.View] == nil {
		im.m.promos[p.View] = map[string]schema.Promotion{}
	}
	if q, ok := im.m.promos[p.View][p.Key]; ok {
		return q, nil
	}
	im.m.promos[p.View][p.Key] = p
	return p, nil
}

// instance is one repository of a fleet.
type instance struct {
	name   string
	offset time.Duration // its clock is the world's plus this
	w      *world
	meta   *instanceMeta
	r      *Repo[refmodel.Message]
}

func (in *instance) clock() time.Time { return in.w.clock().Add(in.offset) }

// newInstance opens a repository on the fleet's fake cluster and metadata,
// as Open would: it loads the metadata and trusts it from then on.
func newInstance(t *testing.T, name string, w *world, fake *fakeCluster, m *fakeMeta, views []schema.View, offset time.Duration, opts Options) *instance {
	t.Helper()
	in := &instance{name: name, offset: offset, w: w, meta: &instanceMeta{m: m}}
	opts.Now = in.clock
	opts.WrapExecutor = fake.wrap
	r, err := New[refmodel.Message](tripwireSession(), "ks", views, opts)
	if err != nil {
		t.Fatal(err)
	}
	r.meta = in.meta
	start := in.clock()
	if err := r.loadMetadata(t.Context()); err != nil {
		t.Fatal(err)
	}
	r.enableReload(start)
	in.r = r
	return in
}

// isStale reports whether err is the typed stale-metadata error.
func isStale(err error) bool {
	var se *StaleError
	return errors.Is(err, ErrStaleMetadata) && errors.As(err, &se)
}

func (im *instanceMeta) loadCount() int {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.loads
}

func (im *instanceMeta) setSlow(slow bool) {
	im.mu.Lock()
	defer im.mu.Unlock()
	im.slow = slow
}

func (im *instanceMeta) isSlow() bool {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.slow
}
