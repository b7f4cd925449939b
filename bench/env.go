package bench

import (
	"context"
	"fmt"
	"runtime/pprof"
	"time"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/metrics"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// sparseSpan is how far back the naive walk goes. The sparse key's 10,000
// hourly buckets (417 days) hold rows written during the load, so all of
// them are alive (a row lives its TTL from its write, whatever its ID's
// time); the naive walk, with no index to tell it where data ends, stops
// after this span.
const sparseSpan = 600 * 24 * time.Hour

// env is everything the scenarios share: one session per side, so each
// side's requests are counted apart, and the repositories.
type env struct {
	cfg Config
	now time.Time // data placement

	ts      *gocql.Session // tsbucket's, instrumented by its metrics
	base    *gocql.Session // the hand-written baseline's
	hotSess *gocql.Session // every request counted at the session: hot key, Put without metrics

	baseCount, hotCount *counter
	reg                 *prometheus.Registry

	chat      *repo.Repo[refmodel.Message] // default options, with metrics: loads and writes
	chatRead  *repo.Repo[refmodel.Message] // NoCoalesce: every timed read does its own walk
	chatNoIdx *repo.Repo[refmodel.Message] // NoCoalesce, no presence index: one query for a dense latest
	chatBare  *repo.Repo[refmodel.Message] // on hotSess, no metrics: the instrumentation's cost
	iot       *repo.Repo[refmodel.Reading] // with metrics
	hotCo     *repo.Repo[refmodel.Message] // on hot: coalescing (the default)
	hotNo     *repo.Repo[refmodel.Message] // on hot: NoCoalesce
}

// setup recreates the keyspace, applies the reference migrations and opens
// the sessions and repositories.
func setup(ctx context.Context, cfg Config) (*env, error) {
	e := &env{cfg: cfg, now: cfg.Now(), baseCount: &counter{}, hotCount: &counter{}, reg: prometheus.NewRegistry()}
	if err := createKeyspace(ctx, cfg); err != nil {
		return nil, err
	}
	var err error
	if e.ts, err = e.session("tsbucket", nil); err != nil {
		return nil, err
	}
	if e.base, err = e.session("baseline", e.baseCount); err != nil {
		e.close()
		return nil, err
	}
	if e.hotSess, err = e.session("counted", e.hotCount); err != nil {
		e.close()
		return nil, err
	}
	if err := e.open(ctx); err != nil {
		e.close()
		return nil, err
	}
	return e, nil
}

func (e *env) sessionConfig(keyspace string) repo.SessionConfig {
	return repo.SessionConfig{Hosts: e.cfg.Hosts, Datacenter: e.cfg.Datacenter, Keyspace: keyspace, Timeout: 10 * time.Second}
}

// session opens a session on the bench keyspace; c, when set, observes every
// request it sends. The session is made under the profiler label
// session=name, which its connections' goroutines inherit: in a
// -cpuprofile, go tool pprof -tagfocus 'session=^baseline$' shows the
// driver's writing and reading for that side alone, the work the variant
// label cannot reach (it runs on the driver's goroutines).
func (e *env) session(name string, c *counter) (*gocql.Session, error) {
	cc, err := e.sessionConfig(e.cfg.Keyspace).ClusterConfig()
	if err != nil {
		return nil, err
	}
	if c != nil {
		cc.QueryObserver, cc.BatchObserver = c, c
	}
	var s *gocql.Session
	pprof.Do(context.Background(), pprof.Labels("session", name), func(context.Context) { s, err = cc.CreateSession() })
	if err != nil {
		return nil, fmt.Errorf("bench: connect: %w", err)
	}
	return s, nil
}

func createKeyspace(ctx context.Context, cfg Config) error {
	admin, err := repo.NewSession(repo.SessionConfig{Hosts: cfg.Hosts, Datacenter: cfg.Datacenter, Timeout: 30 * time.Second})
	if err != nil {
		return err
	}
	defer admin.Close()
	k := schema.Keyspace{Name: cfg.Keyspace, Replication: map[string]int{cfg.Datacenter: 1}}
	if err := schema.CreateKeyspace(ctx, admin, k, schema.KeyspaceOptions{DropFirst: true}); err != nil {
		return fmt.Errorf("bench: create keyspace %s: %w", cfg.Keyspace, err)
	}
	return nil
}

func dropKeyspace(ctx context.Context, cfg Config) error {
	admin, err := repo.NewSession(repo.SessionConfig{Hosts: cfg.Hosts, Datacenter: cfg.Datacenter, Timeout: 30 * time.Second})
	if err != nil {
		return err
	}
	defer admin.Close()
	return admin.Query("DROP KEYSPACE IF EXISTS " + schema.Quote(cfg.Keyspace)).WithContext(ctx).Exec()
}

// open migrates the keyspace and opens the repositories.
func (e *env) open(ctx context.Context) error {
	ms, err := schema.LoadMigrations(refmodel.Migrations())
	if err != nil {
		return err
	}
	if _, err := schema.Migrate(ctx, e.ts, e.cfg.Keyspace, ms); err != nil {
		return fmt.Errorf("bench: migrate: %w", err)
	}
	m, err := metrics.New(e.reg, metrics.Config{})
	if err != nil {
		return err
	}
	ks, chat := e.cfg.Keyspace, refmodel.ChatViews()
	if e.chat, err = repo.Open[refmodel.Message](ctx, e.ts, ks, chat, repo.Options{Metrics: m}); err != nil {
		return err
	}
	// Coalescing is scenario 4's subject; elsewhere it would let a read ride
	// on another's walk and hide the cost of one read.
	if e.chatRead, err = repo.New[refmodel.Message](e.ts, ks, chat, repo.Options{Metrics: m, Read: repo.ReadOptions{NoCoalesce: true}}); err != nil {
		return err
	}
	if e.chatNoIdx, err = repo.New[refmodel.Message](e.ts, ks, chat, repo.Options{Metrics: m, Read: repo.ReadOptions{NoCoalesce: true}, Index: repo.IndexOptions{NoPresenceIndex: true}}); err != nil {
		return err
	}
	if e.iot, err = repo.Open[refmodel.Reading](ctx, e.ts, ks, refmodel.IoTViews(), repo.Options{Metrics: m}); err != nil {
		return err
	}
	// No metrics on the hot session's repositories: a statement observer
	// would replace the session's counter.
	if e.hotCo, err = repo.New[refmodel.Message](e.hotSess, ks, chat, repo.Options{}); err != nil {
		return err
	}
	if e.hotNo, err = repo.New[refmodel.Message](e.hotSess, ks, chat, repo.Options{Read: repo.ReadOptions{NoCoalesce: true}}); err != nil {
		return err
	}
	e.chatBare, err = repo.New[refmodel.Message](e.hotSess, ks, chat, repo.Options{})
	return err
}

// tsQueries is the number of requests the tsbucket repositories have sent,
// from tsbucket_cql_statement_attempts_total, less the reloads of the views'
// registry (once a SchemeRefresh, not part of any read or write).
func (e *env) tsQueries() int64 {
	mfs, err := e.reg.Gather()
	if err != nil {
		return -1
	}
	var n float64
	for _, mf := range mfs {
		if mf.GetName() != "tsbucket_cql_statement_attempts_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if !registryRead(m.GetLabel()) {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return int64(n)
}

// registryRead reports whether a statement series is a read of the views'
// registry (schema.MetadataTable, schema.HotKeysTable).
func registryRead(labels []*dto.LabelPair) bool {
	for _, l := range labels {
		if l.GetName() == "table" && (l.GetValue() == schema.MetadataTable || l.GetValue() == schema.HotKeysTable) {
			return true
		}
	}
	return false
}

func (e *env) close() {
	for _, s := range []*gocql.Session{e.ts, e.base, e.hotSess} {
		if s != nil {
			s.Close()
		}
	}
}

// serverVersion is the release of the node the sessions talk to.
func (e *env) serverVersion(ctx context.Context) string {
	var v string
	if err := e.base.Query("SELECT release_version FROM system.local").WithContext(ctx).Scan(&v); err != nil {
		return "unknown"
	}
	return v
}

func (e *env) logf(format string, args ...any) {
	fmt.Fprintf(e.cfg.Log, "bench: "+format+"\n", args...)
}
