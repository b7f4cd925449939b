package bench

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// The views of the sharding benchmark: the reference messages_by_channel and
// the same view spread over ShardConfig.Shards partitions per (channel,
// bucket). Both keep the reference 10-day width, so the only difference
// measured is the sharding.
const (
	viewPlain   = "messages_by_channel"
	viewSharded = "messages_by_channel_sharded"
	hotChannel  = int64(5_000_001)
)

// Variant names of the sharding benchmark.
const (
	nameUnsharded = "unsharded"
	nameSharded   = "sharded"
)

// shardEnv is what the phases of RunShards share: one session per variant,
// each with its per-node counter, and a repository per view.
type shardEnv struct {
	cfg ShardConfig
	now time.Time

	load           *gocql.Session // loads both views; not counted
	plainS, shardS *gocql.Session
	plainC, shardC *hostCounter

	both  *repo.Repo[refmodel.Message] // both views: identical data for the reads
	plain *repo.Repo[refmodel.Message] // NoCoalesce: every read is its own walk
	shard *repo.Repo[refmodel.Message]
	nodes []string // every node of the cluster, by the address the driver uses
}

// shardViews returns the unsharded and the sharded view.
func shardViews(shards int) (plain, sharded schema.View) {
	plain = refmodel.ChatViews()[0]
	sharded = plain
	sharded.Name, sharded.Shards = viewSharded, shards
	sharded.Comment = fmt.Sprintf("messages_by_channel over %d write shards per (channel, bucket)", shards)
	return plain, sharded
}

// setupShards recreates the keyspace with both views and opens the sessions
// and repositories.
func setupShards(ctx context.Context, cfg ShardConfig) (*shardEnv, error) {
	e := &shardEnv{cfg: cfg, now: cfg.Now(), plainC: newHostCounter(), shardC: newHostCounter()}
	plain, sharded := shardViews(cfg.Shards)
	views := []schema.View{plain, sharded}
	if err := e.open(ctx, views); err != nil {
		e.close()
		return nil, err
	}
	return e, nil
}

func (e *shardEnv) open(ctx context.Context, views []schema.View) error {
	var err error
	if e.load, err = e.session("", nil); err != nil {
		return err
	}
	ks := schema.Keyspace{Name: e.cfg.Keyspace, Replication: map[string]int{e.cfg.Datacenter: 1}}
	if err := e.load.Query("DROP KEYSPACE IF EXISTS " + schema.Quote(ks.Name)).WithContext(ctx).Exec(); err != nil {
		return fmt.Errorf("bench: drop keyspace: %w", err)
	}
	if err := schema.Apply(ctx, e.load, ks, views); err != nil {
		return fmt.Errorf("bench: apply views: %w", err)
	}
	if e.plainS, err = e.session(ks.Name, e.plainC); err != nil {
		return err
	}
	if e.shardS, err = e.session(ks.Name, e.shardC); err != nil {
		return err
	}
	if e.both, err = repo.Open[refmodel.Message](ctx, e.load, ks.Name, views, repo.Options{}); err != nil {
		return err
	}
	// No metrics: a statement observer would replace the session's counter.
	opts := repo.Options{Read: repo.ReadOptions{NoCoalesce: true}}
	if e.plain, err = repo.New[refmodel.Message](e.plainS, ks.Name, views[:1], opts); err != nil {
		return err
	}
	if e.shard, err = repo.New[refmodel.Message](e.shardS, ks.Name, views[1:], opts); err != nil {
		return err
	}
	e.nodes, err = e.clusterNodes(ctx)
	return err
}

// session opens a session on keyspace ("" for none); c, when set, counts
// every request it sends per node.
func (e *shardEnv) session(keyspace string, c *hostCounter) (*gocql.Session, error) {
	sc := repo.SessionConfig{Hosts: e.cfg.Hosts, Datacenter: e.cfg.Datacenter, Keyspace: keyspace, Timeout: 10 * time.Second}
	cc, err := sc.ClusterConfig()
	if err != nil {
		return nil, err
	}
	if c != nil {
		cc.QueryObserver, cc.BatchObserver = c, c
	}
	s, err := cc.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("bench: connect: %w", err)
	}
	return s, nil
}

// clusterNodes lists the client address of every node, sorted, as one node
// sees them: system.local and system.peers must come from the same node.
func (e *shardEnv) clusterNodes(ctx context.Context) ([]string, error) {
	sc := repo.SessionConfig{Hosts: e.cfg.Hosts[:1], Datacenter: e.cfg.Datacenter, Timeout: 10 * time.Second}
	cc, err := sc.ClusterConfig()
	if err != nil {
		return nil, err
	}
	cc.HostFilter = gocql.WhiteListHostFilter(e.cfg.Hosts[0]) // talk to that node only
	s, err := cc.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("bench: connect: %w", err)
	}
	defer s.Close()
	var nodes []string
	for _, q := range []string{"SELECT rpc_address FROM system.local", "SELECT rpc_address FROM system.peers"} {
		it := s.Query(q).WithContext(ctx).Iter()
		var addr string
		for it.Scan(&addr) {
			nodes = append(nodes, addr)
		}
		if err := it.Close(); err != nil {
			return nil, fmt.Errorf("bench: list nodes: %w", err)
		}
	}
	slices.Sort(nodes)
	return nodes, nil
}

func (e *shardEnv) close() {
	for _, s := range []*gocql.Session{e.load, e.plainS, e.shardS} {
		if s != nil {
			s.Close()
		}
	}
}

func (e *shardEnv) dropKeyspace(ctx context.Context) error {
	return e.load.Query("DROP KEYSPACE IF EXISTS " + schema.Quote(e.cfg.Keyspace)).WithContext(ctx).Exec()
}

func (e *shardEnv) serverVersion(ctx context.Context) string {
	var v string
	if err := e.load.Query("SELECT release_version FROM system.local").WithContext(ctx).Scan(&v); err != nil {
		return "unknown"
	}
	return v
}

func (e *shardEnv) logf(format string, args ...any) {
	fmt.Fprintf(e.cfg.Log, "bench: "+format+"\n", args...)
}
