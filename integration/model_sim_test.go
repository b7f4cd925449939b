package integration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// clock is the writer's clock: real time (TTLs run on the server's real
// clock), strictly increasing by at least a microsecond so every write gets
// a timestamp of its own. It remembers what it handed out since mark.
type clock struct {
	mu     sync.Mutex
	last   time.Time
	handed []int64
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := time.Now().Truncate(time.Microsecond)
	if !t.After(c.last) {
		t = c.last.Add(time.Microsecond)
	}
	c.last = t
	c.handed = append(c.handed, t.UnixMicro())
	return t
}

func (c *clock) mark() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handed = nil
}

func (c *clock) since() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.handed)
}

// reader is a repository the checks read through.
type reader[T comparable] struct {
	name string
	r    *repo.Repo[T]
}

// sim drives one flavor: it writes through a repository whose executor
// injects faults, folds into the model what reached the database, and reads
// back through the writer and through readers with shifted clocks.
type sim[T comparable] struct {
	f       *flavor[T]
	writer  *repo.Repo[T]
	readers []reader[T]
	fx      *faultExec
	clk     *clock
	truth   *truth[T]

	items  map[bucket.ID]T // newest content of each item, for edits and deletes
	ids    []bucket.ID     // every item, in creation order: picks stay deterministic
	hot    []bucket.ID     // items with a retry pending: edits and deletes favour them
	lastTS map[bucket.ID]int64
	seq    uint64
	edits  int
}

// call is one Put, PutMany or Delete and its options.
type call[T comparable] struct {
	op      string // "put", "putmany" or "delete"
	items   []T
	ttl     time.Duration // WithTTL when > 0
	ts      int64         // WithTimestamp when > 0
	rule    *faultRule
	retryOf error // the failure this call retries, with RetryOf
	extra   []repo.WriteOption
}

func (c call[T]) options() []repo.WriteOption {
	var opts []repo.WriteOption
	if c.ttl > 0 {
		opts = append(opts, repo.WithTTL(c.ttl))
	}
	if c.ts > 0 {
		opts = append(opts, repo.WithTimestamp(c.ts))
	}
	if c.retryOf != nil {
		opts = append(opts, repo.RetryOf(c.retryOf))
	}
	return append(opts, c.extra...)
}

func (s *sim[T]) describe(c call[T]) string {
	d := fmt.Sprintf("%s %s %s", s.f.name, c.op, s.idList(c.items))
	if c.ttl > 0 {
		d += fmt.Sprintf(" ttl=%v", c.ttl)
	}
	if c.ts > 0 {
		d += fmt.Sprintf(" ts=%d", c.ts)
	}
	if c.rule != nil {
		d += " [" + c.rule.String() + "]"
	}
	if c.retryOf != nil {
		d += " (retry with RetryOf)"
	}
	return d
}

func (s *sim[T]) send(ctx context.Context, c call[T]) error {
	switch c.op {
	case "put":
		return s.writer.Put(ctx, &c.items[0], c.options()...)
	case "putmany":
		return s.writer.PutMany(ctx, c.items, c.options()...)
	case "delete":
		return s.writer.Delete(ctx, &c.items[0], c.options()...)
	}
	panic("unknown op " + c.op)
}

// do runs c, checks the error and the timestamps it reports against what
// the executor saw, and folds what reached the database into the model.
func (s *sim[T]) do(r *runner, c call[T]) error {
	desc := s.describe(c)
	r.logf("%s", desc)
	s.fx.arm(c.rule)
	s.clk.mark()
	start := time.Now()
	err := s.send(r.t.Context(), c)
	end := time.Now()
	log, handed := s.fx.take(), s.clk.since()
	var pe *repo.PutError
	if err != nil && !errors.As(err, &pe) {
		r.fatalf("%s: %v, want nil or a *repo.PutError", desc, err)
	}
	ts := s.checkTimestamp(r, desc, c, log, handed, pe)
	s.checkPutError(r, desc, log, err, pe)
	s.fold(r, c, log, ts, start, end)
	if c.rule != nil {
		r.count("fault "+c.rule.Mode.String(), 1)
	}
	if c.retryOf != nil {
		r.count("retries", 1)
	}
	if err != nil {
		r.logf("  -> %v", err)
	}
	return err
}

// checkTimestamp checks that every statement of the call carried one
// timestamp, the one asked for (WithTimestamp, RetryOf) or else the clock's,
// and that a PutError reports it. It returns that timestamp.
func (s *sim[T]) checkTimestamp(r *runner, desc string, c call[T], log []sentWrite, handed []int64, pe *repo.PutError) int64 {
	if len(log) == 0 {
		r.fatalf("%s: no statement sent", desc)
	}
	var ts int64
	for _, w := range log {
		if strings.HasSuffix(w.Table, schema.PresenceSuffix) {
			// A presence entry's timestamp is its expiry (the longest-lived
			// entry of a bucket wins), not the row's: see repo's presenceTimestamp.
			continue
		}
		for _, row := range w.Rows {
			got, _ := row["tsb_ts"].(int64)
			if ts == 0 {
				ts = got
			}
			if got != ts || got <= 0 {
				r.fatalf("%s: %s %s with timestamp %d, another with %d: one write, one timestamp", desc, w.Op, w.Table, got, ts)
			}
		}
	}
	var want []int64
	switch {
	case c.ts > 0:
		want = []int64{c.ts}
	case c.retryOf != nil:
		var first *repo.PutError
		errors.As(c.retryOf, &first)
		want = []int64{first.Timestamp}
	default:
		want = handed
	}
	if !slices.Contains(want, ts) {
		r.fatalf("%s: written with timestamp %d, want one of %v", desc, ts, want)
	}
	if pe != nil && pe.Timestamp != ts {
		r.fatalf("%s: PutError.Timestamp %d, statements carried %d", desc, pe.Timestamp, ts)
	}
	return ts
}

// checkPutError checks that the error names exactly the views (a presence
// table counts as its view) whose statements failed, and the others as
// written.
func (s *sim[T]) checkPutError(r *runner, desc string, log []sentWrite, err error, pe *repo.PutError) {
	failed := map[string]bool{}
	for _, w := range log {
		if w.Failed {
			failed[viewOf(w.Table)] = true
		}
	}
	if len(failed) == 0 {
		if err != nil {
			r.fatalf("%s: %v, but every statement succeeded", desc, err)
		}
		return
	}
	if pe == nil {
		r.fatalf("%s: no error, but statements for %v failed", desc, failed)
	}
	var wantFailed, wantWritten []string
	for _, v := range s.f.views {
		if failed[v.Name] {
			wantFailed = append(wantFailed, v.Name)
		} else {
			wantWritten = append(wantWritten, v.Name)
		}
	}
	sort.Strings(wantFailed)
	sort.Strings(wantWritten)
	if got := pe.FailedViews(); !slices.Equal(got, wantFailed) {
		r.fatalf("%s: FailedViews %v, want %v", desc, got, wantFailed)
	}
	if !slices.Equal(pe.Written, wantWritten) {
		r.fatalf("%s: Written %v, want %v", desc, pe.Written, wantWritten)
	}
	if !errors.Is(err, errInjected) {
		r.fatalf("%s: %v does not unwrap to the injected fault", desc, err)
	}
}

// fold applies to the model every statement that reached the database: rows
// to their views, entries to the presence index. Contents come from the
// call, not from the statements: the model knows what it asked for.
func (s *sim[T]) fold(r *runner, c call[T], log []sentWrite, ts int64, start, end time.Time) {
	byID := map[bucket.ID]T{}
	for _, it := range c.items {
		id := s.f.id(it)
		byID[id] = it
		s.lastTS[id] = max(s.lastTS[id], ts)
	}
	for _, w := range log {
		if !w.Landed {
			continue
		}
		v := s.f.view(viewOf(w.Table))
		for _, row := range w.Rows {
			if w.Table != v.Name {
				key := row[v.Key[0].Name]
				b, _ := row[v.BucketColumn].(int64)
				s.truth.presence[presenceKey{view: v.Name, key: key, bucket: b}] = true
				continue
			}
			id, err := idOfValue(row[s.f.idCol])
			if err != nil {
				r.fatalf("%s %s: %v", w.Op, w.Table, err)
			}
			it, ok := byID[id]
			if !ok {
				r.fatalf("%s %s wrote %s, not an item of the call", w.Op, w.Table, s.f.kind.Format(id))
			}
			ver := version[T]{ts: ts, item: it, del: w.Op == "delete"}
			if !ver.del {
				ttl := c.ttl
				if ttl == 0 {
					ttl = v.TTL
				}
				if ttl > 0 {
					ver.expLo, ver.expHi = start.Add(ttl), end.Add(ttl)
				}
			}
			s.truth.apply(v.Name, id, ver)
		}
	}
}

// refused runs a write that must be refused before anything is sent.
func (s *sim[T]) refused(r *runner, c call[T], want error) {
	desc := s.describe(c)
	r.logf("%s: want %v", desc, want)
	s.fx.arm(nil)
	err := s.send(r.t.Context(), c)
	if log := s.fx.take(); len(log) > 0 {
		r.fatalf("%s: sent %d statements, want none", desc, len(log))
	}
	if !errors.Is(err, want) {
		r.fatalf("%s: %v, want %v", desc, err, want)
	}
}

func (s *sim[T]) idList(items []T) string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = s.idString(s.f.id(it))
	}
	return "[" + fmt.Sprint(ids) + "]"
}

func (s *sim[T]) idString(id bucket.ID) string {
	return s.f.kind.Format(id) + "@" + s.f.at(id).UTC().Format("2006-01-02T15:04:05.0000000")
}
