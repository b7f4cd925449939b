package localcluster

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/gocql/gocql"
)

// checkNode validates index i; callers hold c.mu.
func (c *Cluster) checkNode(i int) error {
	if i < 0 || i >= len(c.specs) {
		return fmt.Errorf("%w: %d (cluster has %d)", ErrNoNode, i, len(c.specs))
	}
	if c.stopped {
		return ErrStopped
	}
	return nil
}

// PID returns node i's JVM process id, or 0 when it is not running.
func (c *Cluster) PID(i int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.checkNode(i) != nil || c.procs[i] == nil || c.procs[i].exited() {
		return 0
	}
	return c.procs[i].pid()
}

// Kill sends SIGKILL to node i (0-based) and waits until it has exited; its
// data stays for Restart. Killing a node that is not running is a no-op.
func (c *Cluster) Kill(i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.checkNode(i); err != nil {
		return err
	}
	if p := c.procs[i]; p != nil {
		p.kill()
		c.procs[i] = nil
		fmt.Fprintf(c.cfg.Log, "%s killed\n", c.specs[i].name())
	}
	return nil
}

// Restart starts node i again on the same data directory and waits for CQL.
// A node that is still running is first stopped cleanly.
func (c *Cluster) Restart(ctx context.Context, i int) error {
	c.mu.Lock()
	err := c.checkNode(i)
	if err == nil && c.procs[i] != nil {
		c.procs[i].stop(c.cfg.StopTimeout)
		c.procs[i] = nil
	}
	c.mu.Unlock()
	if err != nil {
		return err
	}
	sizes := c.logSizes()
	if _, err = c.startNode(ctx, i); err != nil {
		return err
	}
	if err := c.waitAlive(ctx, i, sizes); err != nil {
		return err
	}
	return c.waitSchemaAgreement(ctx)
}

// Stop stops every node (SIGTERM, then SIGKILL after StopTimeout), removes
// the data directory if Start created it and releases the cluster lock. It is
// idempotent and safe on a partly started cluster.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil
	}
	c.stopped = true
	done := make(chan struct{})
	for i, p := range c.procs { // stop together: each JVM's shutdown takes seconds
		go func() {
			if p != nil {
				p.stop(c.cfg.StopTimeout)
			}
			done <- struct{}{}
		}()
		c.procs[i] = nil
	}
	for range c.procs {
		<-done
	}
	var err error
	if c.ownDir {
		err = os.RemoveAll(c.dataDir)
	}
	if c.unlock != nil {
		c.unlock()
	}
	fmt.Fprintf(c.cfg.Log, "cluster stopped\n")
	return err
}

// waitRing waits until every node lists all the others, with their tokens,
// in system.peers_v2, so that queries right after Start see the whole ring.
func (c *Cluster) waitRing(ctx context.Context) error {
	if len(c.specs) < 2 {
		return nil
	}
	deadline := time.Now().Add(c.cfg.StartTimeout)
	for _, n := range c.specs {
		for {
			got, err := c.peersWithTokens(ctx, n.host)
			if err == nil && got == len(c.specs)-1 {
				break
			}
			if time.Now().After(deadline) {
				return &StartError{Node: n.index, LogTail: logTail(n),
					Err: fmt.Errorf("%w: sees %d of %d peers (%v)", ErrNotReady, got, len(c.specs)-1, err)}
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
	return c.waitSchemaAgreement(ctx)
}

// waitSchemaAgreement waits until every running node reports the same
// schema_version in system.local. A node restarted after Kill may have lost
// recent schema changes (system tables are not flushed, see unsafesystem)
// and pulls them from its peers within seconds; until then queries through
// it fail with "keyspace does not exist".
func (c *Cluster) waitSchemaAgreement(ctx context.Context) error {
	if len(c.specs) < 2 {
		return nil
	}
	deadline := time.Now().Add(c.cfg.StartTimeout)
	for {
		versions, err := c.schemaVersions(ctx)
		if err == nil && len(versions) == 1 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: no schema agreement after %s: versions %v (%v)", ErrNotReady, c.cfg.StartTimeout, versions, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// schemaVersions maps each schema version reported by a running node to the
// hosts reporting it.
func (c *Cluster) schemaVersions(ctx context.Context) (map[string][]string, error) {
	versions := map[string][]string{}
	for i, n := range c.specs {
		if c.PID(i) == 0 {
			continue
		}
		sess, err := c.client.singleHostSession(n.host, 5*time.Second)
		if err != nil {
			return versions, err
		}
		var v gocql.UUID
		err = sess.Query("SELECT schema_version FROM system.local").WithContext(ctx).Consistency(gocql.One).Scan(&v)
		sess.Close()
		if err != nil {
			return versions, err
		}
		versions[v.String()] = append(versions[v.String()], n.host)
	}
	return versions, nil
}

func (c *Cluster) peersWithTokens(ctx context.Context, host string) (int, error) {
	sess, err := c.client.singleHostSession(host, 5*time.Second)
	if err != nil {
		return 0, err
	}
	defer sess.Close()
	iter := sess.Query("SELECT peer, tokens FROM system.peers_v2").WithContext(ctx).Consistency(gocql.One).Iter()
	var (
		peer   string
		toks   []string
		counts int
	)
	for iter.Scan(&peer, &toks) {
		if len(toks) > 0 {
			counts++
		}
	}
	return counts, iter.Close()
}
