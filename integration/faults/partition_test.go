//go:build partition

package faults

import (
	"context"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
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
// from the application's client for 15 s; a second client, bound to
// minorityAddr, still reaches node 3 alone. The application's Puts and reads
// keep succeeding through nodes 1 and 2; the minority client's all fail,
// each with a server error that says quorum is out of reach (Unavailable,
// WriteTimeout, ReadTimeout), none acknowledged. After the partition heals,
// reads recover, hints reach node 3 and a Put through node 3 succeeds.
func TestPartitionedNode(t *testing.T) {
	lc := useCluster(t, localcluster.Config{Nodes: 3})
	ensureIptables(t)
	cfg := grayConfig(lc)
	r, cfg := openRepo(t, cfg)
	const node = 2
	host := lc.Hosts()[node]
	minority := minorityRepo(t, cfg, host)
	var (
		stop context.CancelFunc
		done sync.WaitGroup
		ops  []sample
	)
	sc := scenario{fault: "partitioned", node: node, hints: true,
		inject: func(t *testing.T) {
			isolate(t, host, minorityAddr)
			var ctx context.Context
			ctx, stop = context.WithCancel(context.Background())
			done.Go(func() { ops = minorityLoad(ctx, minority) })
		},
		heal: func(t *testing.T) {
			must(t, healAll())
			stop()
			done.Wait()
		},
	}
	o := sc.run(t, lc, r)
	// A new session: the question is whether node3 serves quorum writes
	// again, not how soon the old session's pool reconnects (once in six
	// runs it had no connection 45 s after the heal; gocql retries a lost
	// host every ReconnectInterval, 60 s).
	rejoined := rejoin(t, minorityRepo(t, cfg, host), o.healed)
	report(t, "Partitioned node (TestPartitionedNode)", append(o.samples, ops...),
		fmt.Sprintf("node3 cut off from nodes 1 and 2 and from the application's client (iptables DROP on lo) for %v; "+
			"a minority client bound to %s still reaches node3 (phase \"minority\", a Put and a Latest every 100 ms). Session: %s.",
			grayFault, minorityAddr, settings(cfg)),
		o.String()+fmt.Sprintf("; a Put through node3 succeeded %v after the partition healed", rejoined.Round(100*time.Millisecond)))
	o.check(t)
	checkReads(t, o, "partitioned", frozenReadP99)
	checkMinority(t, ops)
}

// minorityRepo opens the repository through host alone, over connections
// from minorityAddr.
func minorityRepo(t *testing.T, cfg repo.SessionConfig, host string) *repo.Repo[refmodel.Message] {
	t.Helper()
	cfg.Hosts = []string{host}
	cc, err := cfg.ClusterConfig()
	if err != nil {
		t.Fatal(err)
	}
	cc.HostFilter = gocql.WhiteListHostFilter(host)
	cc.DisableInitialHostLookup = true
	// One host: nothing to route by token (gocql v1.7.0's token-aware plan
	// was seen to panic on a retry here, its ring knowing one node of three)
	// and nothing to speculate on.
	cc.PoolConfig.HostSelectionPolicy = gocql.RoundRobinHostPolicy()
	cc.Dialer = &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(minorityAddr)}, Timeout: cc.ConnectTimeout}
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatalf("minority session: %v", err)
	}
	t.Cleanup(s.Close)
	r, err := repo.Open[refmodel.Message](t.Context(), s, cfg.Keyspace, refmodel.ChatViews(), repo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
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

// rejoin returns how long after healed a Put through the formerly cut-off
// node first succeeds; run has waited for reads and hints by then.
func rejoin(t *testing.T, r *repo.Repo[refmodel.Message], healed time.Time) time.Duration {
	t.Helper()
	deadline := healed.Add(hintLimit)
	if d := time.Now().Add(recoveryLimit); d.After(deadline) {
		deadline = d
	}
	for n := 1; ; n++ {
		m := minorityMessage(10000 + n)
		err := r.Put(t.Context(), &m)
		if err == nil {
			return time.Since(healed)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no Put through the healed node %v after the heal: %v", time.Since(healed), err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// faultChain is the iptables chain holding the partition rules; it hangs off
// INPUT, which every loopback packet traverses, so removing the jump and the
// chain heals everything this package ever cut.
const faultChain = "TSBUCKET-FAULTS"

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
func ensureIptables(t *testing.T) {
	t.Helper()
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
		if requireDB {
			t.Fatalf("network partition needs iptables as root: %v", err)
		}
		t.Skipf("network partition needs iptables as root: %v", err)
	}
}

// isolate cuts host off from every other loopback address, in both
// directions, except from allow (a client address that stays on host's side
// of the partition). Packets are dropped, not rejected: the peers and the
// client see a silent node, not a refused connection. The rules go when the
// test ends.
func isolate(t *testing.T, host, allow string) {
	t.Helper()
	t.Cleanup(func() {
		if err := healAll(); err != nil {
			t.Errorf("heal partition: %v", err)
		}
	})
	rules := [][]string{
		{"-A", faultChain, "-s", allow, "-d", host, "-j", "RETURN"},
		{"-A", faultChain, "-s", host, "-d", allow, "-j", "RETURN"},
		{"-A", faultChain, "-s", host, "!", "-d", host, "-j", "DROP"},
		{"-A", faultChain, "-d", host, "!", "-s", host, "-j", "DROP"},
	}
	for _, r := range append([][]string{{"-N", faultChain}, {"-I", "INPUT", "-j", faultChain}}, rules...) {
		if err := iptables(r...); err != nil {
			t.Fatal(err)
		}
	}
}

// healAll removes the chain and its jump, if there.
func healAll() error {
	if iptables("-n", "-L", faultChain) != nil {
		return iptables("-n", "-L", "INPUT") // nothing to heal; can we read the rules at all?
	}
	for iptables("-D", "INPUT", "-j", faultChain) == nil {
	}
	if err := iptables("-F", faultChain); err != nil {
		return err
	}
	return iptables("-X", faultChain)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
