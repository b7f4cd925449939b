package faults

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/localcluster"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

// minorityAddr is the partitioned client's source address: the one
// address still allowed to reach the cut-off node.
const minorityAddr = "127.0.0.9"

// TestPartitionedNode: node 3 is cut off by iptables from nodes 1 and 2 and
// from the application's client for 15 s, in both directions; a second
// client, bound to minorityAddr, still reaches node 3 alone. The
// application's Puts and reads keep succeeding through nodes 1 and 2; the
// minority client's all fail, each with a server error that says quorum is
// out of reach (Unavailable, WriteTimeout, ReadTimeout), none acknowledged.
// After the partition heals, reads recover, a Put through node 3 succeeds
// and the hints written for node 3 are all delivered.
func TestPartitionedNode(t *testing.T) {
	lc := useCluster(t, localcluster.Config{Nodes: 3})
	ensureIptables(t, lc)
	cfg := grayConfig(lc)
	r, cfg := openRepo(t, cfg)
	const node = 2
	host := lc.Hosts()[node]
	minority := minorityRepo(t, cfg, host)
	var (
		stop    context.CancelFunc
		done    sync.WaitGroup
		ops     []sample
		rejoin  = make(chan rejoined, 1)
		offsets = logOffsets(lc)
	)
	sc := scenario{fault: "partitioned", node: node, hints: true,
		inject: func(t *testing.T) {
			isolate(t, lc, node, minorityAddr)
			var ctx context.Context
			ctx, stop = context.WithCancel(context.Background())
			done.Go(func() { ops = minorityLoad(ctx, minority) })
		},
		heal: func(t *testing.T) {
			must(t, healAll())
			if *brokenHeal {
				must(t, leaveRule(lc, node))
			}
			healed := time.Now()
			stop()
			done.Wait()
			// A new session: the question is whether node3 serves quorum
			// writes again, not how soon the old session's pool reconnects
			// (gocql retries a lost host every ReconnectInterval, 60 s).
			go func() { rejoin <- rejoinAfter(t.Context(), cfg, host, healed) }()
		},
	}
	o := sc.run(t, lc, r)
	rj := <-rejoin
	report(t, "Partitioned node (TestPartitionedNode)", append(o.samples, ops...),
		fmt.Sprintf("node3 cut off, in both directions, from nodes 1 and 2 and from the application's client (iptables DROP on lo: packets to 127.0.0.3, and packets from node3's JVM by its group ID) for %v; "+
			"a minority client bound to %s still reaches node3 (phase \"minority\", a Put and a Latest every 100 ms). Session: %s.",
			*grayFault, minorityAddr, settings(cfg)),
		o.String()+"; "+rj.String())
	o.check(t)
	checkReads(t, o, "partitioned", frozenReadP99)
	checkMinority(t, ops)
	if rj.err != nil {
		t.Errorf("no Put through node3 within %v of the heal: %v", rejoinLimit, rj.err)
	}
	if t.Failed() {
		nodeLogLines(t, lc, offsets, regexp.MustCompile(`(?i)hint|is now (UP|DOWN)|convict|Interrupted outbound`))
	}
}

// minorityRepo opens the repository through host alone, over connections
// from minorityAddr, closed at test end.
func minorityRepo(t *testing.T, cfg repo.SessionConfig, host string) *repo.Repo[refmodel.Message] {
	t.Helper()
	r, closeRepo, err := openMinority(t.Context(), cfg, host)
	if err != nil {
		t.Fatalf("minority session: %v", err)
	}
	t.Cleanup(closeRepo)
	return r
}

func openMinority(ctx context.Context, cfg repo.SessionConfig, host string) (*repo.Repo[refmodel.Message], func(), error) {
	cfg.Hosts = []string{host}
	cc, err := cfg.ClusterConfig()
	if err != nil {
		return nil, nil, err
	}
	// Pools to host alone. The initial host lookup stays on: without it
	// (DisableInitialHostLookup) the session knows host only as a contact
	// point without its host ID, and the ring refresh that the nodes' UP
	// events start when the partition heals replaced it and closed its
	// connections, failing the request in flight with "connection closed
	// waiting for response" (2 of 3 runs
	// before this change; gocql v1.7.0).
	cc.HostFilter = gocql.WhiteListHostFilter(host)
	// One host: nothing to route by token (gocql v1.7.0's token-aware plan
	// was seen to panic on a retry of a session without host lookup) and
	// nothing to speculate on.
	cc.PoolConfig.HostSelectionPolicy = gocql.RoundRobinHostPolicy()
	cc.Dialer = &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(minorityAddr)}, Timeout: cc.ConnectTimeout}
	s, err := cc.CreateSession()
	if err != nil {
		return nil, nil, err
	}
	r, err := repo.Open[refmodel.Message](ctx, s, cfg.Keyspace, refmodel.ChatViews(), repo.Options{})
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return r, s.Close, nil
}

// minorityLoad puts and reads through the minority client until ctx ends;
// its channels (1001..) are apart from the main load's.
func minorityLoad(ctx context.Context, r *repo.Repo[refmodel.Message]) []sample {
	var ops []sample
	for n := 1; ctx.Err() == nil; n++ {
		m := minorityMessage(n)
		start := time.Now()
		err := r.Put(context.Background(), &m)
		ops = append(ops, newSample("minority", true, start, time.Since(start), err))
		if ctx.Err() != nil {
			break // healed meanwhile: what starts now is not cut off
		}
		start = time.Now()
		_, err = r.Latest(context.Background(), "messages_by_channel", repo.Key{m.ChannelID}, 20)
		ops = append(ops, newSample("minority", false, start, time.Since(start), err))
		sleepCtx(ctx, 100*time.Millisecond)
	}
	return ops
}

func minorityMessage(n int) refmodel.Message {
	id, err := bucket.DiscordSnowflake().Make(time.Now(), 1023, uint64(n)%4096)
	if err != nil {
		panic(err) // the clock is past the epoch and the numbers in range
	}
	return refmodel.Message{ChannelID: 1000 + int64(n%4), MessageID: idInt(id), AuthorID: 1000, Body: fmt.Sprintf("minority %d", n)}
}

// checkMinority: the cut-off side acknowledged nothing, and every failure
// is a server error naming the consistency it could not reach.
func checkMinority(t *testing.T, ops []sample) {
	t.Helper()
	w := summarize(writes(ops))
	if w.n == 0 || w.failed() != w.n {
		t.Errorf("minority: %d Puts, %d failed (%s); want all to fail", w.n, w.failed(), w.errorText())
	}
	for _, s := range ops {
		switch s.class {
		case "", "unavailable", "write-timeout", "read-timeout":
		default:
			t.Errorf("minority: an operation failed with %s after %v (%s); want Unavailable, WriteTimeout or ReadTimeout", s.class, s.took, s.err)
		}
	}
}

// rejoinLimit bounds the time from the heal to the first Put that
// succeeds through the formerly cut-off node, from a new session (measured
// 7-12 s: the first attempts still time out while node3's connections to
// its peers come back); the bound is that of the reads.
const rejoinLimit = recoveryLimit

// rejoined is what rejoinAfter saw.
type rejoined struct {
	after time.Duration // heal -> first Put through the node that succeeded
	tries int
	err   error // the last error when none succeeded within rejoinLimit
}

func (r rejoined) String() string {
	if r.err != nil {
		return fmt.Sprintf("no Put through node3 succeeded within %v of the heal (%d tries)", rejoinLimit, r.tries)
	}
	return fmt.Sprintf("a Put through node3 (a new session) succeeded %v after the partition healed (attempt %d)", r.after.Round(100*time.Millisecond), r.tries)
}

// rejoinAfter opens a session to host alone and puts until a Put succeeds,
// at most rejoinLimit after healed.
func rejoinAfter(ctx context.Context, cfg repo.SessionConfig, host string, healed time.Time) rejoined {
	var out rejoined
	ctx, cancel := context.WithDeadline(ctx, healed.Add(rejoinLimit))
	defer cancel()
	for ctx.Err() == nil {
		out.tries++
		r, closeRepo, err := openMinority(ctx, cfg, host)
		if err == nil {
			m := minorityMessage(10000 + out.tries)
			err = r.Put(ctx, &m)
			closeRepo()
		}
		if err == nil {
			out.after, out.err = time.Since(healed), nil
			return out
		}
		out.err = err
		sleepCtx(ctx, 500*time.Millisecond)
	}
	if out.err == nil {
		out.err = ctx.Err()
	}
	return out
}

// The iptables chains holding the partition rules: faultChain hangs off
// INPUT (every loopback packet traverses it) and drops what is addressed to
// the cut-off node; faultChainOut hangs off OUTPUT and drops what the
// cut-off node's JVM sends, matched by its group ID (owner match works only
// there). Both are needed: on loopback a node's outbound connections leave
// from 127.0.0.1 whatever its own address, so an address rule alone cuts one
// direction only (an earlier version did, and node3 kept sending gossip and
// mutations to nodes 1 and 2 while hearing nothing back). Removing the
// jumps and the chains heals everything this package ever cut.
const (
	faultChain    = "TSBUCKET-FAULTS"
	faultChainOut = "TSBUCKET-FAULTS-OUT"
)

// iptables runs iptables -w (wait for the xtables lock) with args.
func iptables(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := osexec.CommandContext(ctx, "iptables", append([]string{"-w"}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("iptables %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// ensureIptables makes iptables available: as root on Debian or Ubuntu
// (CI, this project's reference machine) it installs the package when it is
// missing. Without it the partition test cannot run: a failure under
// TSBUCKET_REQUIRE_DB=1, a skip otherwise.
func ensureIptables(t *testing.T, lc *localcluster.Cluster) {
	t.Helper()
	if lc.GroupID(0) == 0 {
		failOrSkip(t, "network partition needs root: the nodes run with their own group IDs (localcluster.Config.OwnGroups) only then")
	}
	_, err := osexec.LookPath("iptables")
	if err != nil && os.Geteuid() == 0 {
		if _, aptErr := osexec.LookPath("apt-get"); aptErr == nil {
			cmd := osexec.CommandContext(t.Context(), "apt-get", "install", "-y", "-q", "iptables")
			cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
			out, installErr := cmd.CombinedOutput()
			t.Logf("apt-get install iptables: %v\n%s", installErr, lastLines(string(out), 5))
			_, err = osexec.LookPath("iptables")
		}
	}
	if err == nil {
		err = healAll() // also checks that we may change the rules
	}
	if err != nil {
		failOrSkip(t, fmt.Sprintf("network partition needs iptables as root: %v", err))
	}
}

// failOrSkip fails under TSBUCKET_REQUIRE_DB=1 (CI), else skips.
func failOrSkip(t *testing.T, why string) {
	t.Helper()
	if requireDB {
		t.Fatal(why)
	}
	t.Skip(why)
}

// isolate cuts node off from every other loopback address, in both
// directions, except from allow (a client address that stays on node's side
// of the partition). Packets are dropped, not rejected: the peers and the
// client see a silent node, not a refused connection. The rules go when the
// test ends.
func isolate(t *testing.T, lc *localcluster.Cluster, node int, allow string) {
	t.Helper()
	t.Cleanup(func() {
		if err := healAll(); err != nil {
			t.Errorf("heal partition: %v", err)
		}
	})
	host, gid := lc.Hosts()[node], strconv.Itoa(lc.GroupID(node))
	rules := [][]string{
		{"-N", faultChain},
		{"-A", faultChain, "-s", allow, "-d", host, "-j", "RETURN"},
		{"-A", faultChain, "-d", host, "-j", "DROP"},
		{"-N", faultChainOut},
		{"-A", faultChainOut, "-m", "owner", "--gid-owner", gid, "-d", allow, "-j", "RETURN"},
		{"-A", faultChainOut, "-m", "owner", "--gid-owner", gid, "-j", "DROP"},
		{"-I", "OUTPUT", "-j", faultChainOut},
		{"-I", "INPUT", "-j", faultChain},
	}
	for _, r := range rules {
		if err := iptables(r...); err != nil {
			t.Fatal(err)
		}
	}
}

// healAll removes the chains and their jumps, if there.
func healAll() error {
	for _, c := range []struct{ from, chain string }{{"INPUT", faultChain}, {"OUTPUT", faultChainOut}} {
		if iptables("-n", "-L", c.chain) != nil {
			if err := iptables("-n", "-L", c.from); err != nil {
				return err // we may not read the rules at all
			}
			continue
		}
		for iptables("-D", c.from, "-j", c.chain) == nil {
		}
		if err := iptables("-F", c.chain); err != nil {
			return err
		}
		if err := iptables("-X", c.chain); err != nil {
			return err
		}
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// brokenHeal demonstrates the suite's precondition (issue 22): the
// partition's heal leaves one rule in place, node 3's outbound traffic
// still dropped, and the next scenario must fail with "cluster not healthy
// before the scenario", not with an unrelated error. TestMain removes the
// rule at the end.
var brokenHeal = flag.Bool("faults.brokenheal", false, "leave one partition rule in place after TestPartitionedNode's heal (demonstrates the health precondition)")

// leftRule is the rule a broken heal leaves, straight in OUTPUT, where
// healAll does not look; its comment makes leftoverRules report it.
func leftRule(gid int) []string {
	return []string{"OUTPUT", "-m", "owner", "--gid-owner", strconv.Itoa(gid), "-m", "comment", "--comment", faultChain + "-LEFT", "-j", "DROP"}
}

func leaveRule(lc *localcluster.Cluster, node int) error {
	return iptables(append([]string{"-I"}, leftRule(lc.GroupID(node))...)...)
}

// clearStaleFaults removes the fault rules a run of this package that was
// killed mid-scenario left on the machine (a partitioned node 3 then stops
// every later cluster from forming), and returns what it removed
// (the rules, as iptables -S prints them) or "". It does so only while ifNoCluster finds no
// local cluster running: a live scenario's rules belong to that cluster, and
// local clusters hold a machine-wide lock for as long as they run. Without
// iptables or root there is nothing this package could have left.
func clearStaleFaults(ifNoCluster func(func()) (bool, error)) (string, error) {
	if _, err := osexec.LookPath("iptables"); err != nil || os.Geteuid() != 0 {
		return "", nil
	}
	var removed string
	var err error
	_, lockErr := ifNoCluster(func() {
		if removed = strings.TrimPrefix(leftoverRules(), leftoverPrefix); removed != "" {
			removeLeftRule()
			err = healAll()
		}
	})
	return removed, errors.Join(lockErr, err)
}

// removeLeftRule undoes leaveRule for every node group, if there.
func removeLeftRule() {
	for i := range 3 {
		for iptables(append([]string{"-D"}, leftRule(localcluster.NodeGroupBase+i+1)...)...) == nil {
		}
	}
}

// TestStaleFaultRulesCleared: a partition rule an interrupted earlier run
// left (here one for an address no node uses) is removed before any
// scenario, so it cannot keep the next cluster from forming (CI run D of
// the 26th session failed so on a developer's machine).
func TestStaleFaultRulesCleared(t *testing.T) {
	if testing.Short() {
		t.Skip("changes the machine's iptables rules; skipped under -short")
	}
	if _, err := osexec.LookPath("iptables"); err != nil || os.Geteuid() != 0 {
		failOrSkip(t, fmt.Sprintf("needs iptables as root (uid %d): %v", os.Geteuid(), err))
	}
	t.Cleanup(func() {
		if err := healAll(); err != nil {
			t.Errorf("heal: %v", err)
		}
	})
	for _, r := range [][]string{{"-N", faultChain}, {"-A", faultChain, "-d", "127.0.0.254", "-j", "DROP"}, {"-I", "INPUT", "-j", faultChain}} {
		if err := iptables(r...); err != nil {
			t.Fatal(err)
		}
	}
	// The test's own process may hold the lock for its current cluster: the
	// lock is stood in for by one that finds no cluster.
	removed, err := clearStaleFaults(func(fn func()) (bool, error) { fn(); return true, nil })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(removed, "127.0.0.254") {
		t.Errorf("clearStaleFaults reported %q, want the stale rule", removed)
	}
	if left := leftoverRules(); left != "" {
		t.Errorf("rules still in place after clearStaleFaults%s", left)
	}
	held, err := clearStaleFaults(func(func()) (bool, error) { return false, nil })
	if held != "" || err != nil {
		t.Errorf("clearStaleFaults with a cluster running = %q, %v; want nothing done", held, err)
	}
}
