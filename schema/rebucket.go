package schema

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
)

// RebucketOptions tunes Rebucket.
type RebucketOptions struct {
	// Lead is the least time from now to the change; zero means
	// DefaultRebucketLead. It may not be below Fleet.MinLead (ErrBadRebucket),
	// and must be at least the Lead every repository of the keyspace assumes
	// (repo.Options.Schemes.Lead, DefaultLead unless set).
	Lead time.Duration
	// Fleet are the bounds the keyspace's repositories use (SchemeRefresh,
	// MaxFutureSkew, ClockSkew; zero: the defaults): they set the least lead.
	Fleet Fleet
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// DryRun plans and checks the change, reading the cluster, but records
	// nothing.
	DryRun bool
}

// RebucketPlan is a checked scheme change of one view.
type RebucketPlan struct {
	View string
	From time.Time // the instant the new scheme is in force from
	// Before and After are the schemes in force just before and from From;
	// Scheme is the view's whole history with the change.
	Before, After, Scheme bucket.Scheme
	// LastBefore and FirstAfter are the bucket numbers on either side of
	// the change: consecutive.
	LastBefore, FirstAfter bucket.Bucket
	// Window and NewWindow are the view's TWCS windows before and with the
	// change (derived from the widest width and the TTL unless the view sets
	// one).
	Window, NewWindow time.Duration
	// IndexedAhead is how many presence-index entries already name buckets
	// at or after From (items stamped ahead of their writers' clocks); the
	// change is refused unless it is 0.
	IndexedAhead int
	// Notes are advice that does not block the change: TTL against the new
	// width, table options to apply.
	Notes []string
	// Applied says the change was recorded (false for a dry run).
	Applied bool
}

// PlanRebucket checks a change of v's scheme to next from the instant from
// on, made at now with the given least lead: from must be at least lead
// ahead of now, after every earlier change, and a bucket boundary of the
// scheme in force before it and of next; the changed view must still
// validate and lint clean. It reads nothing from the cluster (Rebucket adds
// the presence-index check). ErrBadRebucket, wrapping bucket.ErrBadChange
// for a misaligned instant.
func PlanRebucket(v View, from time.Time, next bucket.Scheme, now time.Time, lead time.Duration) (RebucketPlan, error) {
	v = v.WithDefaults()
	if lead <= 0 {
		lead = DefaultRebucketLead
	}
	from = from.UTC()
	p := RebucketPlan{View: v.Name, From: from}
	if !v.Bucketed() {
		return p, fmt.Errorf("%w: view %s is unbucketed", ErrBadRebucket, v.Name)
	}
	if earliest := now.Add(lead); from.Before(earliest) {
		return p, fmt.Errorf("%w: view %s: the change at %s is less than %v ahead of now (%s): every repository must load it first; pick %s or later",
			ErrBadRebucket, v.Name, from.Format(time.RFC3339), lead, now.UTC().Format(time.RFC3339), nextChange(v.Scheme, earliest))
	}
	h, err := v.Scheme.Then(from, next)
	if err != nil {
		hint := ""
		if errors.Is(err, bucket.ErrBadChange) {
			hint = fmt.Sprintf(" (the next bucket boundary of %v is %s)", v.Scheme.Latest(), nextChange(v.Scheme, from))
		}
		return p, fmt.Errorf("%w: view %s: %w%s", ErrBadRebucket, v.Name, err, hint)
	}
	p.Before, p.After, p.Scheme = v.Scheme.At(from.Add(-time.Nanosecond)), next, h
	p.FirstAfter, _ = h.Of(from)
	p.LastBefore = p.FirstAfter - 1
	p.Window = compactionWindowOf(v)
	changed := v
	changed.Scheme = h
	if err := changed.Validate(); err != nil {
		return p, fmt.Errorf("%w: view %s with the change: %w", ErrBadRebucket, v.Name, err)
	}
	if fs := Lint([]View{changed}); len(fs) > 0 {
		return p, fmt.Errorf("%w: view %s with the change: %s", ErrBadRebucket, v.Name, fs[0].Message)
	}
	p.NewWindow = compactionWindowOf(changed)
	if p.NewWindow != p.Window {
		p.Notes = append(p.Notes, fmt.Sprintf("the TWCS window goes from %v to %v: `tsbucket schema check` prints the ALTER TABLE that sets it (new SSTables use it, old ones keep theirs)", p.Window, p.NewWindow))
	}
	if v.TTL > 0 && next.Width() > v.TTL {
		p.Notes = append(p.Notes, fmt.Sprintf("the new width %v exceeds the TTL %v: a bucket's first rows expire while it is still written, so reads of it pass their tombstones", next.Width(), v.TTL))
	}
	if next.Width() > p.Before.Width() && v.TTL > 0 {
		p.Notes = append(p.Notes, "presence entries now outlive their rows by the new, wider width: `tsbucket schema check` prints the ALTER TABLE for the _buckets table's default TTL")
	}
	return p, nil
}

func compactionWindowOf(v View) time.Duration {
	if v.CompactionWindow > 0 {
		return v.CompactionWindow
	}
	return bucket.CompactionWindow(v.Scheme.Width(), v.TTL).Duration()
}

// nextChange is the first instant at or after t a change of s can take
// effect at, for a hint (bucket.Scheme.ChangeAtOrAfter), or what stops one.
func nextChange(s bucket.Scheme, t time.Time) string {
	at, err := s.ChangeAtOrAfter(t)
	if err != nil {
		return fmt.Sprintf("none (%v)", err)
	}
	return at.Format(time.RFC3339Nano)
}

// Rebucket changes the bucket scheme of the registered view to next from the
// instant from on, without rewriting anything: rows written before from stay
// in the buckets they are in, and reads walk both schemes (bucket numbers
// continue across the change). It plans the change (PlanRebucket), refuses it
// if the presence index already lists buckets at or after from (items
// stamped that far ahead were bucketed by the old scheme), and records the
// new history in MetadataTable with a lightweight transaction conditioned on
// the scheme it checked, so two changes racing cannot both apply.
// Repositories pick the history up within their Options.Schemes.Refresh.
//
// Checking the presence index reads the view's whole _buckets table once
// (one row per key and bucket), paged: it is an operator's command, not a
// request path.
func Rebucket(ctx context.Context, s *gocql.Session, keyspace, view string, from time.Time, next bucket.Scheme, opts RebucketOptions) (RebucketPlan, error) {
	if err := checkKeyspace(keyspace); err != nil {
		return RebucketPlan{}, err
	}
	lead := opts.Lead
	if lead <= 0 {
		lead = DefaultRebucketLead
	}
	if err := opts.Fleet.CheckLead(lead); err != nil {
		return RebucketPlan{View: view, From: from.UTC()}, fmt.Errorf("view %s: %w", view, err)
	}
	now := time.Now()
	if opts.Now != nil {
		now = opts.Now()
	}
	v, revision, err := registeredView(ctx, s, keyspace, view)
	if err != nil {
		return RebucketPlan{}, err
	}
	p, err := PlanRebucket(v, from, next, now, lead)
	if err != nil {
		return p, err
	}
	if p.IndexedAhead, err = indexedFrom(ctx, s, keyspace, v, p.FirstAfter); err != nil {
		return p, err
	}
	if p.IndexedAhead > 0 {
		return p, fmt.Errorf("%w: view %s: the presence index already lists %d bucket(s) at or after %s (items stamped ahead, bucketed by %v): pick a later instant",
			ErrBadRebucket, view, p.IndexedAhead, from.UTC().Format(time.RFC3339), p.Before)
	}
	if opts.DryRun {
		return p, nil
	}
	if err := recordScheme(ctx, s, keyspace, view, v, revision, p.Scheme); err != nil {
		return p, err
	}
	p.Applied = true
	return p, nil
}

// recordScheme writes the new scheme history next of view, registered as v
// at revision, to MetadataTable with a lightweight transaction conditioned
// on the scheme and revision read, so that of two changes racing only one
// applies.
func recordScheme(ctx context.Context, s *gocql.Session, keyspace, view string, v View, revision int, next bucket.Scheme) error {
	changed := v
	changed.Scheme = next
	def, err := encodeDefinition(changed)
	if err != nil {
		return err
	}
	update := fmt.Sprintf(`UPDATE %s SET "scheme" = ?, "definition" = ?, "revision" = ?, "updated_at" = toTimestamp(now()) WHERE "view" = ? IF "scheme" = ? AND "revision" = ?`,
		qualified(keyspace, MetadataTable))
	row := map[string]any{}
	applied, err := lwt(ctx, s, update, next.String(), def, revision+1, view, v.Scheme.String(), revision).MapScanCAS(row)
	if err != nil {
		return fmt.Errorf("record the scheme change of view %q: %w", view, err)
	}
	if !applied {
		return fmt.Errorf("%w: view %s changed while the change was checked (now scheme %v, revision %v): check again",
			ErrBadRebucket, view, row["scheme"], row["revision"])
	}
	return nil
}

// registeredView reads one registered view and its definition revision.
func registeredView(ctx context.Context, s *gocql.Session, keyspace, name string) (View, int, error) {
	if err := ValidateIdentifier(name); err != nil {
		return View{}, 0, err
	}
	var def *string
	var revision *int
	err := s.Query(fmt.Sprintf(`SELECT "definition", "revision" FROM %s WHERE "view" = ?`, qualified(keyspace, MetadataTable)), name).
		WithContext(ctx).Consistency(gocql.LocalQuorum).Scan(&def, &revision)
	switch {
	case errors.Is(err, gocql.ErrNotFound):
		return View{}, 0, fmt.Errorf("%w: keyspace %q has no registered view %q", ErrNotApplied, keyspace, name)
	case err != nil:
		return View{}, 0, fmt.Errorf("read view %q from %s: %w", name, MetadataTable, err)
	case def == nil || *def == "" || revision == nil:
		return View{}, 0, fmt.Errorf("%w: view %q was registered without its definition: open it once with this version", ErrNotApplied, name)
	}
	v, err := decodeDefinition(*def)
	if err != nil {
		return View{}, 0, fmt.Errorf("view %q: stored definition: %w", name, err)
	}
	return v, *revision, nil
}

// indexedFrom counts the presence-index entries of v naming bucket first or
// a later one.
func indexedFrom(ctx context.Context, s *gocql.Session, keyspace string, v View, first bucket.Bucket) (int, error) {
	it := s.Query(fmt.Sprintf(`SELECT %s FROM %s`, Quote(v.BucketColumn), qualified(keyspace, v.PresenceTable()))).
		WithContext(ctx).Consistency(gocql.LocalQuorum).PageSize(5000).Iter()
	n := 0
	var b int64
	for it.Scan(&b) {
		if bucket.Bucket(b) >= first {
			n++
		}
	}
	if err := it.Close(); err != nil {
		return 0, fmt.Errorf("read %s: %w", v.PresenceTable(), err)
	}
	return n, nil
}

// LoadSchemes reads the schemes recorded for the named views (with their
// histories), for a repository refreshing its copy. A view without a row is
// left out.
func LoadSchemes(ctx context.Context, s *gocql.Session, keyspace string, views []string) (map[string]bucket.Scheme, error) {
	out := make(map[string]bucket.Scheme, len(views))
	q := SchemeSelect(keyspace)
	for _, name := range views {
		var text string
		err := s.Query(q, name).WithContext(ctx).Consistency(gocql.LocalQuorum).Scan(&text)
		if errors.Is(err, gocql.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read the scheme of view %q: %w", name, err)
		}
		sc, bucketed, err := ParseStoredScheme(text)
		if err != nil {
			return nil, fmt.Errorf("view %q: %w", name, err)
		}
		if bucketed {
			out[name] = sc
		}
	}
	return out, nil
}

// SchemeSelect is the statement LoadSchemes sends for each view (bind: the
// view's name; one row, the scheme's text), for a caller that sends it
// through an executor of its own.
func SchemeSelect(keyspace string) string {
	return fmt.Sprintf(`SELECT "scheme" FROM %s WHERE "view" = ?`, qualified(keyspace, MetadataTable))
}

// ParseStoredScheme parses a scheme as MetadataTable records it; bucketed
// is false for an unbucketed view.
func ParseStoredScheme(text string) (s bucket.Scheme, bucketed bool, err error) {
	if text == unbucketedScheme {
		return s, false, nil
	}
	if s, err = bucket.ParseScheme(text); err != nil {
		return s, false, fmt.Errorf("stored scheme %q: %w", text, err)
	}
	return s, true, nil
}
