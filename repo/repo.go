package repo

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
	"github.com/scylladb/go-reflectx"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/metrics"
	"github.com/tsbucket/tsbucket/schema"
)

// Repo stores items of type T in a set of views. T is a struct whose fields map to
// the views' columns by `db` tags (gocqlx conventions). A Repo is safe for
// concurrent use.
type Repo[T any] struct {
	session  *gocql.Session
	executor Executor
	keyspace string
	opts     Options
	mapper   *reflectx.Mapper
	views    map[string]*view
	order    []*view // views sorted by name: deterministic fan-out order
	// keyValues is the number of key values of all views: an item's rows
	// share one Key of this length (deriveRows).
	keyValues int
	fields    fieldSet // the distinct columns of the views, read once per write (fields.go)
	presence  *presenceCache
	hints     *readHints
	flights   *flightGroup[T]
	// maxExpiry is the latest expiry the cluster accepts (Options.Write.MaxExpiry).
	maxExpiry time.Time
	// atomicMax bounds an Atomic write's batch (Options.Write.AtomicMaxBytes,
	// learnAtomicMax); 0: not checked.
	atomicMax int
	schemes   schemeReload              // enabled by Open: the views are registered in the keyspace
	meta      metadata                  // where the metadata that places rows is loaded from
	rollups   atomic.Pointer[rollupSet] // AddRollups (rollup.go); nil: none
	deadlines *deadlines                // of the writes' own contexts (sending.go)
	senders   *senderPool               // send a Put's inserts (senders.go)
}

// view is one schema.View with everything derived from it once.
type view struct {
	spec     schema.View
	table    string     // keyspace.name
	columns  []string   // item columns: key..., id, values...
	texts    []textKind // of columns: which hold text the server validates
	idIdx    int        // position of the ID in columns
	colPaths [][]int    // field traversals of columns, same order as columns; nil for Record
	record   bool       // items are Records: columns by name, no struct fields
	// keyRangeChecked: a key value written may be out of its column's
	// range (a Record's, or a field of a wider Go type), so rowOf checks.
	keyRangeChecked bool
	stmts           statements
	idInKey         bool              // the ID is (part of) the partition key: one row per ID
	idCQL           bucket.CQLMapping // how the ID is stored: the form of its bound values
	ttl             int               // seconds, the effective default TTL of writes
	// sch is the bucket scheme in force, with the history recorded in the
	// cluster (Open, and reloads every Options.Schemes.Refresh): use scheme(),
	// never spec.Scheme, for bucket numbers.
	sch atomic.Pointer[bucket.Scheme]
	// promos holds the promoted keys of a PerKeyShards view, by key text
	// (nil: none known); hot counts rows towards automatic promotion.
	promos atomic.Pointer[map[string]schema.Promotion]
	hot    hotCounter
	// blocked holds the view's blocked keys, by key text (nil: none
	// known): Put and PutMany refuse their items (blocked.go).
	blocked atomic.Pointer[map[string]schema.BlockedKey]
	// all is the projection of every column; projections holds those of
	// reads of some columns, by their names (projection.go); projected
	// counts the sets asked for. plainPaths: colPaths cross no pointer.
	all         projection
	projections sync.Map
	projected   atomic.Int32
	plainPaths  bool
	// slots are the columns' places in Repo.fields (nil for Records);
	// derefs[i]: column i's field is a pointer or interface, its key
	// value the one it points to.
	slots  []int
	derefs []bool
	// metrics are the view table's metrics, found once (nil without
	// Options.Metrics): its statements and partition writes are recorded
	// without looking the table's name up each time.
	metrics *metrics.TableMetrics
	// idFrom is an earlier view whose rows carry the same ID (the same
	// field, the same kind: fields.go), nil if none.
	idFrom *view
}

// scheme is the view's bucket scheme as currently known, with its history.
func (v *view) scheme() bucket.Scheme { return *v.sch.Load() }

// Open checks the views' bucket schemes against the metadata stored in the
// keyspace (recording them the first time) and returns the repository. A view
// whose stored scheme differs from its spec is an error (schema.ErrSchemeMismatch):
// reading it with another scheme would silently miss older data.
func Open[T any](ctx context.Context, session *gocql.Session, keyspace string, views []schema.View, opts Options) (*Repo[T], error) {
	r, err := New[T](session, keyspace, views, opts)
	if err != nil {
		return nil, err
	}
	start := r.opts.Now()
	inForce, err := schema.Register(ctx, session, keyspace, viewSpecs(r.order))
	if err != nil {
		return nil, opErr("check view schemes", err)
	}
	for _, s := range inForce {
		if err := r.adoptScheme(s.Name, s.Scheme); err != nil {
			return nil, err
		}
	}
	if err := r.loadPromotions(ctx); err != nil {
		return nil, fmt.Errorf("repo: %w", err)
	}
	if err := r.loadBlocked(ctx); err != nil {
		return nil, fmt.Errorf("repo: %w", err)
	}
	if err := r.learnMaxExpiry(ctx); err != nil {
		return nil, err
	}
	r.learnAtomicMax(ctx)
	r.enableReload(start)
	r.reportSchemes()
	return r, nil
}

// enableReload starts the metadata validity (schemeReload) from a load that
// began at start.
func (r *Repo[T]) enableReload(start time.Time) {
	s := &r.schemes
	s.mu.Lock()
	defer s.mu.Unlock()
	s.enabled = true
	s.loadedAt, s.validUntil = start, start.Add(r.opts.Schemes.Lead-r.opts.Schemes.ClockSkew)
}

// New builds a repository without touching the database. Callers that do not use
// Open must check the stored schemes themselves (schema.RegisterViews).
func New[T any](session *gocql.Session, keyspace string, views []schema.View, opts Options) (*Repo[T], error) {
	t := reflect.TypeFor[T]()
	if err := checkNewArgs(session, keyspace, views, opts, t); err != nil {
		return nil, err
	}
	r, err := newRepo[T](session, keyspace, opts.withDefaults())
	if err != nil {
		return nil, err
	}
	if t != recordType {
		if err := r.checkReservedFields(t); err != nil {
			return nil, err
		}
	}
	if err := r.addViews(t, views); err != nil {
		return nil, err
	}
	if err := r.checkViews(); err != nil {
		return nil, err
	}
	return r, nil
}

// checkNewArgs checks New's arguments before anything is built.
func checkNewArgs(session *gocql.Session, keyspace string, views []schema.View, opts Options, t reflect.Type) error {
	if session == nil {
		return fmt.Errorf("%w: nil session", ErrBadOptions)
	}
	if err := schema.ValidateIdentifier(keyspace); err != nil {
		return opErr("keyspace", err)
	}
	if err := opts.Validate(); err != nil {
		return err
	}
	if len(views) == 0 {
		return fmt.Errorf("%w: no views", ErrBadOptions)
	}
	if t.Kind() != reflect.Struct && t != recordType {
		return fmt.Errorf("%w: %s is not a struct (or repo.Record)", ErrBadItem, t)
	}
	return nil
}

// newRepo builds a repository without views from opts, defaults filled in.
func newRepo[T any](session *gocql.Session, keyspace string, opts Options) (*Repo[T], error) {
	r := &Repo[T]{
		session:   session,
		executor:  &gocqlExecutor{session: session, metrics: opts.Metrics, mapper: newMapper()},
		keyspace:  keyspace,
		opts:      opts,
		mapper:    newMapper(),
		views:     map[string]*view{},
		presence:  newPresenceCache(opts.Index.CacheSize),
		hints:     newReadHints(opts.Read.hintsSize()),
		flights:   newFlightGroup[T](),
		schemes:   schemeReload{sem: make(chan struct{}, 1)},
		maxExpiry: opts.Write.MaxExpiry,
		atomicMax: opts.Write.AtomicMaxBytes,
		deadlines: newDeadlines(opts.Write.FanoutTimeout),
		senders:   newSenderPool(),
	}
	if r.maxExpiry.IsZero() {
		r.maxExpiry = defaultMaxExpiry()
	}
	if opts.WrapExecutor != nil {
		if r.executor = opts.WrapExecutor(r.executor); r.executor == nil {
			return nil, fmt.Errorf("%w: WrapExecutor returned nil", ErrBadOptions)
		}
	}
	if err := r.wireAdmission(); err != nil { // admit.go (issue 27)
		return nil, err
	}
	r.meta = clusterMetadata{session: session, exec: r.executor, keyspace: keyspace}
	return r, nil
}

// addViews derives every view of specs, in name order.
func (r *Repo[T]) addViews(t reflect.Type, specs []schema.View) error {
	for _, spec := range specs {
		v, err := r.newView(t, spec)
		if err != nil {
			return err
		}
		if _, dup := r.views[v.spec.Name]; dup {
			return fmt.Errorf("%w: view %s given twice", ErrBadOptions, v.spec.Name)
		}
		r.views[v.spec.Name] = v
		r.order = append(r.order, v)
		r.keyValues += len(v.spec.Key)
	}
	sort.Slice(r.order, func(i, j int) bool { return r.order[i].spec.Name < r.order[j].spec.Name })
	r.indexFields()
	return nil
}

// checkViews checks what depends on every view: Options.Write.TTL within
// their TTLs, and the schema lint of the set.
func (r *Repo[T]) checkViews() error {
	if ttl := r.opts.Write.TTL; ttl != 0 {
		if err := r.checkWriteTTL(ttl); err != nil {
			return fmt.Errorf("%w: Options.Write.TTL: %w", ErrBadOptions, err)
		}
	}
	if findings := schema.Lint(viewSpecs(r.order)); len(findings) > 0 {
		msgs := make([]string, len(findings))
		for i, f := range findings {
			msgs[i] = f.View + ": " + f.Message
		}
		return fmt.Errorf("%w: schema lint: %s", ErrBadOptions, strings.Join(msgs, "; "))
	}
	// A latest-value view is restored from its source when its newest item
	// is deleted: the repository writes both (latest.go).
	if err := schema.CheckLatest(viewSpecs(r.order)); err != nil {
		return fmt.Errorf("%w: %w", ErrBadOptions, err)
	}
	return nil
}

func viewSpecs(vs []*view) []schema.View {
	specs := make([]schema.View, len(vs))
	for i, v := range vs {
		specs[i] = v.spec
	}
	return specs
}

func (r *Repo[T]) checkReservedFields(t reflect.Type) error {
	for name := range r.mapper.TypeMap(t).Names {
		if strings.HasPrefix(name, "tsb_") {
			return fmt.Errorf("%w: field %q uses the reserved prefix tsb_", ErrBadItem, name)
		}
	}
	return nil
}

func (r *Repo[T]) newView(t reflect.Type, spec schema.View) (*view, error) {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return nil, opErr("view "+spec.Name, err)
	}
	v := &view{spec: spec, table: r.keyspace + "." + spec.Name}
	if m := r.opts.Metrics; m != nil {
		v.metrics = m.Table(spec.Name)
	}
	v.idCQL, _ = bucket.CQLOf(spec.Kind) // spec.Validate refused a kind without one
	v.setColumns()
	v.texts = textKinds(v.columnTypes())
	if v.record = t == recordType; !v.record {
		paths, err := fieldPaths(r.mapper, t, v.columns)
		if err != nil {
			return nil, opErr("view "+spec.Name, err)
		}
		if err := checkFieldTypes(t, paths, v.columns, v.columnTypes()); err != nil {
			return nil, opErr("view "+spec.Name, err)
		}
		v.colPaths = paths
		v.plainPaths = plainFieldPaths(t, paths)
	}
	v.keyRangeChecked = v.record || keyFieldsMayOverflow(t, v.colPaths, spec.Key)
	var err error
	if v.stmts, err = buildStatements(r.keyspace, spec, v.columns, v.idInKey); err != nil {
		return nil, err
	}
	ttl := r.opts.Write.TTL
	if ttl == 0 {
		ttl = spec.TTL
	}
	v.all = projection{sel: v.stmts.selects}
	if v.colPaths != nil && v.plainPaths {
		v.all.paths = v.colPaths
	}
	v.ttl = int(ttl.Seconds())
	v.sch.Store(&spec.Scheme)
	return v, nil
}

// setColumns lists the view's item columns: key..., the ID unless it is in
// the key, values...
func (v *view) setColumns() {
	spec := v.spec
	for _, c := range spec.Key {
		v.columns = append(v.columns, c.Name)
	}
	v.idIdx = slices.IndexFunc(spec.Key, func(c schema.Column) bool { return c.Name == spec.ID.Name })
	v.idInKey = v.idIdx >= 0
	if !v.idInKey {
		v.idIdx = len(v.columns)
		v.columns = append(v.columns, spec.ID.Name)
	}
	for _, c := range spec.Values {
		v.columns = append(v.columns, c.Name)
	}
}

// columnTypes are the CQL types of v.columns, in their order.
func (v *view) columnTypes() []string {
	types := make([]string, 0, len(v.columns))
	for _, c := range v.spec.Key {
		types = append(types, c.Type)
	}
	if !v.idInKey {
		types = append(types, v.spec.ID.Type)
	}
	for _, c := range v.spec.Values {
		types = append(types, c.Type)
	}
	return types
}

// view returns the named view or ErrUnknownView.
func (r *Repo[T]) view(name string) (*view, error) {
	v, ok := r.views[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownView, name)
	}
	return v, nil
}

// Views returns the names of the repository's views, sorted.
func (r *Repo[T]) Views() []string {
	names := make([]string, len(r.order))
	for i, v := range r.order {
		names[i] = v.spec.Name
	}
	return names
}

// consistency picks the per-call level or the repository default.
func (r *Repo[T]) consistency(c gocql.Consistency) gocql.Consistency {
	if c == 0 {
		return r.opts.Consistency
	}
	return c
}
