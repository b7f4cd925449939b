package localcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"
)

// Health is what every node of a cluster says about the cluster: whom its
// failure detector holds up, which schema version it and its peers have, and
// how many hint files it still holds. Problems lists, in words, each finding
// that makes the cluster unhealthy; none means healthy.
type Health struct {
	// Status maps each node's name to nodetool status's view from it:
	// address -> "UN", "DN", ... ("?" when the node did not list it).
	Status map[string]map[string]string
	// Schemas maps each schema version to the "nodeX" (own, system.local)
	// and "nodeX->host" (a peer, as nodeX's system.peers_v2 has it) that
	// report it. Healthy is one version.
	Schemas map[string][]string
	// HintFiles counts each node's *.hints files: hints not yet delivered.
	HintFiles map[string]int
	Problems  []string
}

// Healthy reports whether no problem was found.
func (h Health) Healthy() bool { return len(h.Problems) == 0 }

// String is a one-line summary followed by the problems.
func (h Health) String() string {
	if h.Healthy() {
		return "healthy: every node up as seen by every node, one schema version, no hint pending"
	}
	return strings.Join(h.Problems, "; ")
}

// ErrUnhealthy means the cluster did not become healthy in time: a node not
// running, a node that another holds down, more than one schema version, or
// hints not yet delivered. The *HealthError wrapping it has the findings.
var ErrUnhealthy = errors.New("localcluster: cluster not healthy")

// HealthError is the last Health seen by WaitHealthy before it gave up.
type HealthError struct {
	Waited time.Duration
	Last   Health
}

// Error names each problem.
func (e *HealthError) Error() string {
	return fmt.Sprintf("%v after %v: %v", ErrUnhealthy, e.Waited.Round(100*time.Millisecond), e.Last)
}

// Unwrap exposes ErrUnhealthy.
func (e *HealthError) Unwrap() error { return ErrUnhealthy }

// CheckHealth asks every node once. Nodes are asked in parallel: nodetool
// status over JMX (the failure detector's view, which CQL does not expose),
// system.local and system.peers_v2 for schema versions, and the node's hints
// directory. A node that does not answer within 20 s is a problem, not an
// error; the error is for a cluster that cannot be asked at all (stopped,
// ctx done).
func (c *Cluster) CheckHealth(ctx context.Context) (Health, error) {
	if err := c.checkRunning(); err != nil {
		return Health{}, err
	}
	h := Health{Status: map[string]map[string]string{}, Schemas: map[string][]string{}, HintFiles: map[string]int{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range c.specs {
		wg.Go(func() {
			v := c.nodeView(ctx, i)
			mu.Lock()
			defer mu.Unlock()
			h.add(c.specs[i].name(), v)
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return h, err
	}
	h.judge(c.Hosts())
	return h, nil
}

// WaitHealthy polls CheckHealth until the cluster is healthy or within has
// passed; then it returns a *HealthError (wrapping ErrUnhealthy) with the
// last findings.
func (c *Cluster) WaitHealthy(ctx context.Context, within time.Duration) (Health, error) {
	start := time.Now()
	for {
		h, err := c.CheckHealth(ctx)
		if err != nil {
			return h, err
		}
		if h.Healthy() {
			return h, nil
		}
		if time.Since(start) >= within {
			return h, &HealthError{Waited: time.Since(start), Last: h}
		}
		select {
		case <-ctx.Done():
			return h, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func (c *Cluster) checkRunning() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return ErrStopped
	}
	return nil
}

// nodeView is what one node says.
type nodeView struct {
	running   bool
	status    map[string]string // address -> UN/DN/...
	statusErr error
	local     string            // own schema version
	peers     map[string]string // peer address -> schema version
	schemaErr error
	hintFiles int
}

// nodeAnswerTimeout bounds what one node is asked in one health check: a
// node cut off or frozen would otherwise hold nodetool (its JMX connect) and
// the CQL session for minutes.
const nodeAnswerTimeout = 20 * time.Second

func (c *Cluster) nodeView(ctx context.Context, i int) nodeView {
	v := nodeView{running: c.PID(i) != 0}
	if !v.running {
		return v
	}
	ctx, cancel := context.WithTimeout(ctx, nodeAnswerTimeout)
	defer cancel()
	v.hintFiles = countHintFiles(c.HintsDir(i))
	var wg sync.WaitGroup
	wg.Go(func() { v.status, v.statusErr = c.status(ctx, i) })
	v.local, v.peers, v.schemaErr = c.schemaView(ctx, c.specs[i].host)
	wg.Wait()
	return v
}

// add records node's view.
func (h *Health) add(node string, v nodeView) {
	switch {
	case !v.running:
		h.Problems = append(h.Problems, node+" is not running")
		return
	case v.statusErr != nil:
		h.Problems = append(h.Problems, fmt.Sprintf("%s: nodetool status: %v", node, v.statusErr))
	default:
		h.Status[node] = v.status
	}
	if v.schemaErr != nil {
		h.Problems = append(h.Problems, fmt.Sprintf("%s: schema versions: %v", node, v.schemaErr))
	} else {
		h.Schemas[v.local] = append(h.Schemas[v.local], node)
		for peer, ver := range v.peers {
			h.Schemas[ver] = append(h.Schemas[ver], node+"->"+peer)
		}
	}
	h.HintFiles[node] = v.hintFiles
}

// judge adds the problems found across the views: a host some node does not
// hold UN, schema versions that differ, hints pending.
func (h *Health) judge(hosts []string) {
	for _, node := range sortedKeys(h.Status) {
		for _, host := range hosts {
			if s := h.Status[node][host]; s != "UN" {
				h.Problems = append(h.Problems, fmt.Sprintf("%s sees %s as %s", node, host, cmpStr(s, "absent")))
			}
		}
	}
	if len(h.Schemas) > 1 {
		var parts []string
		for _, v := range sortedKeys(h.Schemas) {
			who := slices.Clone(h.Schemas[v])
			sort.Strings(who)
			parts = append(parts, fmt.Sprintf("%s: %s", v[:min(8, len(v))], strings.Join(who, ",")))
		}
		h.Problems = append(h.Problems, fmt.Sprintf("%d schema versions [%s]", len(h.Schemas), strings.Join(parts, " | ")))
	}
	for _, node := range sortedKeys(h.HintFiles) {
		if n := h.HintFiles[node]; n > 0 {
			h.Problems = append(h.Problems, fmt.Sprintf("%s holds %d undelivered hint files", node, n))
		}
	}
}

// status runs nodetool status on node i and maps each listed address to its
// two-letter state.
func (c *Cluster) status(ctx context.Context, i int) (map[string]string, error) {
	out, err := c.Nodetool(ctx, i, "status")
	if err != nil {
		return nil, err
	}
	return parseStatus(out), nil
}

// parseStatus reads the node lines of nodetool status: "UN  127.0.0.1  ...".
func parseStatus(out string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && len(f[0]) == 2 && strings.ContainsRune("UD", rune(f[0][0])) {
			m[f[1]] = f[0]
		}
	}
	return m
}

// schemaView reads host's own schema version and its peers' as it knows
// them, the two tables gocql compares when it awaits schema agreement.
func (c *Cluster) schemaView(ctx context.Context, host string) (string, map[string]string, error) {
	sess, err := c.client.singleHostSession(host, 5*time.Second)
	if err != nil {
		return "", nil, err
	}
	defer sess.Close()
	var local gocql.UUID
	if err := sess.Query("SELECT schema_version FROM system.local").WithContext(ctx).Consistency(gocql.One).Scan(&local); err != nil {
		return "", nil, err
	}
	peers := map[string]string{}
	iter := sess.Query("SELECT peer, schema_version FROM system.peers_v2").WithContext(ctx).Consistency(gocql.One).Iter()
	var (
		peer string
		v    gocql.UUID
	)
	for iter.Scan(&peer, &v) {
		peers[peer] = v.String()
	}
	return local.String(), peers, iter.Close()
}

// countHintFiles counts the hint files in dir; a missing dir holds none.
func countHintFiles(dir string) int {
	files, _ := filepath.Glob(filepath.Join(dir, "*.hints"))
	n := 0
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			n++
		}
	}
	return n
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func cmpStr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
