package faults

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

// Load shape of the node-failure test: a few paced writers and one reader.
const (
	loadWriters  = 4
	loadPace     = 20 * time.Millisecond
	loadReadPace = 20 * time.Millisecond
	loadChannels = 20
	loadAuthors  = 50
)

// phaseStats counts what happened to the operations started in one phase.
type phaseStats struct {
	name      string
	began     time.Time
	attempted int
	acked     int
	failed    map[string]int // error class -> count
	maxPut    time.Duration  // slowest Put, success or failure
	// The first Unavailable, and the Puts started after it returned: once
	// the coordinator knows, they must all fail fast.
	firstUnavl    time.Time
	afterUnavl    int
	afterOther    int // of those, how many ended otherwise
	maxAfterUnavl time.Duration
	reads         int
	readsFailed   int
	readErr       error // first read failure
	otherErr      error // first Put failure of class "other"
	inflight      int   // operations started in this phase and not finished
}

func (p *phaseStats) String() string {
	var fails []string
	for class, n := range p.failed {
		fails = append(fails, fmt.Sprintf("%s %d", class, n))
	}
	sort.Strings(fails)
	s := fmt.Sprintf("%-10s puts: attempted %d, acknowledged %d, failed %d [%s], slowest %v; reads %d, failed %d",
		p.name, p.attempted, p.acked, p.attempted-p.acked, strings.Join(fails, ", "), p.maxPut.Round(time.Millisecond), p.reads, p.readsFailed)
	if p.otherErr != nil {
		s += fmt.Sprintf("; first other error: %v", p.otherErr)
	}
	if !p.firstUnavl.IsZero() {
		s += fmt.Sprintf("; first Unavailable after %v, then %d Puts (%d not Unavailable), slowest %v",
			p.firstUnavl.Sub(p.began).Round(time.Millisecond), p.afterUnavl, p.afterOther, p.maxAfterUnavl.Round(time.Millisecond))
	}
	return s
}

// load runs writers and a reader against r and records every acknowledged
// message and the outcome of every operation, by phase.
type load struct {
	r      *repo.Repo[refmodel.Message]
	seq    atomic.Uint64
	mu     sync.Mutex
	acked  []refmodel.Message
	phases []*phaseStats
	// samples is every operation's outcome, for the latency timeline.
	samples []sample
	stop    context.CancelFunc
	wg      sync.WaitGroup
}

func startLoad(r *repo.Repo[refmodel.Message], first string) *load {
	return startMixedLoad(r, first, 1)
}

// startMixedLoad is startLoad with readers concurrent readers.
func startMixedLoad(r *repo.Repo[refmodel.Message], first string, readers int) *load {
	l := &load{r: r}
	l.phase(first)
	ctx, cancel := context.WithCancel(context.Background())
	l.stop = cancel
	for w := range loadWriters {
		l.wg.Go(func() { l.write(ctx, w) })
	}
	for i := range readers {
		l.wg.Go(func() { l.read(ctx, uint64(i)) })
	}
	return l
}

// phase starts a new phase: operations started from now count toward it.
func (l *load) phase(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.phases = append(l.phases, &phaseStats{name: name, began: time.Now(), failed: map[string]int{}})
}

// begin returns the phase an operation starting now belongs to and counts it
// in flight until done.
func (l *load) begin() *phaseStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.phases[len(l.phases)-1]
	p.inflight++
	return p
}

// settle waits until no operation of an earlier phase is in flight, so that
// a fault injected next is seen only by the current phase.
func (l *load) settle() {
	for {
		l.mu.Lock()
		busy := 0
		for _, p := range l.phases[:len(l.phases)-1] {
			busy += p.inflight
		}
		l.mu.Unlock()
		if busy == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// halt stops the load and waits for every operation in flight.
func (l *load) halt() {
	l.stop()
	l.wg.Wait()
}

func (l *load) write(ctx context.Context, w int) {
	for ctx.Err() == nil {
		n := l.seq.Add(1)
		id, err := bucket.DiscordSnowflake().Make(time.Now(), (n/4096)%1024, n%4096)
		if err != nil {
			panic(err) // the clock is past the epoch and the numbers in range
		}
		m := refmodel.Message{
			ChannelID: 1 + int64(n%loadChannels),
			MessageID: idInt(id),
			AuthorID:  1 + int64(n%loadAuthors),
			Body:      fmt.Sprintf("writer %d message %d", w, n),
		}
		p := l.begin()
		start := time.Now()
		// No deadline of our own: the bound under test is the session's.
		err = l.r.Put(context.Background(), &m)
		l.record(p, m, start, err)
		sleepCtx(ctx, loadPace)
	}
}

func (l *load) record(p *phaseStats, m refmodel.Message, start time.Time, err error) {
	took := time.Since(start)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.samples = append(l.samples, newSample(p.name, true, start, took, err))
	p.inflight--
	p.attempted++
	if !p.firstUnavl.IsZero() && start.After(p.firstUnavl) {
		p.afterUnavl++
		p.maxAfterUnavl = max(p.maxAfterUnavl, took)
		if err == nil || errorClass(err) != "unavailable" {
			p.afterOther++
		}
	}
	p.maxPut = max(p.maxPut, took)
	if err == nil {
		p.acked++
		l.acked = append(l.acked, m)
		return
	}
	class := errorClass(err)
	p.failed[class]++
	if class == "other" && p.otherErr == nil {
		p.otherErr = err
	}
	if class == "unavailable" && p.firstUnavl.IsZero() {
		p.firstUnavl = time.Now()
	}
}

func (l *load) read(ctx context.Context, seed uint64) {
	rng := rand.New(rand.NewPCG(1, 2+seed))
	for ctx.Err() == nil {
		p := l.begin()
		start := time.Now()
		_, err := l.r.Latest(context.Background(), "messages_by_channel", repo.Key{1 + rng.Int64N(loadChannels)}, 20)
		took := time.Since(start)
		l.mu.Lock()
		l.samples = append(l.samples, newSample(p.name, false, start, took, err))
		p.inflight--
		if l.phases[len(l.phases)-1] == p { // only reads that began and ended in p
			p.reads++
			if err != nil {
				p.readsFailed++
				if p.readErr == nil {
					p.readErr = err
				}
			}
		}
		l.mu.Unlock()
		sleepCtx(ctx, loadReadPace)
	}
}

// errorClass names the kind of a failed Put for the report.
func errorClass(err error) string {
	var (
		unavailable *gocql.RequestErrUnavailable
		timeout     *gocql.RequestErrWriteTimeout
		readTimeout *gocql.RequestErrReadTimeout
	)
	switch {
	case errors.As(err, &unavailable):
		return "unavailable"
	case errors.As(err, &timeout):
		return "write-timeout"
	case errors.As(err, &readTimeout):
		return "read-timeout"
	case errors.Is(err, gocql.ErrTimeoutNoResponse):
		return "client-timeout"
	case errors.Is(err, gocql.ErrNoConnections):
		return "no-connections"
	}
	return "other"
}

// timeline returns a copy of every operation's sample so far.
func (l *load) timeline() []sample {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.samples)
}

// snapshot returns the acknowledged messages and a copy of every phase.
func (l *load) snapshot() ([]refmodel.Message, []phaseStats) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ps := make([]phaseStats, len(l.phases))
	for i, p := range l.phases {
		ps[i] = *p
	}
	return append([]refmodel.Message(nil), l.acked...), ps
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func idInt(id bucket.ID) int64 {
	var n int64
	for _, b := range id[8:] {
		n = n<<8 | int64(b)
	}
	return n
}

// verifyAcked reads every acknowledged message back at QUORUM from all three
// views and returns how many were found everywhere; it reports each loss.
func verifyAcked(t *testing.T, r *repo.Repo[refmodel.Message], acked []refmodel.Message) int {
	t.Helper()
	byChannel := readKeys(t, r, "messages_by_channel", loadChannels)
	byAuthor := readKeys(t, r, "messages_by_author", loadAuthors)
	byID := readByID(t, r, acked)
	verified, lost := 0, 0
	for _, m := range acked {
		ok := byChannel[m.ChannelID][m.MessageID] == m && byAuthor[m.AuthorID][m.MessageID] == m && byID[m.MessageID] == m
		if ok {
			verified++
			continue
		}
		if lost++; lost <= 10 {
			t.Errorf("acknowledged %+v lost: by channel %+v, by author %+v, by id %+v",
				m, byChannel[m.ChannelID][m.MessageID], byAuthor[m.AuthorID][m.MessageID], byID[m.MessageID])
		}
	}
	return verified
}

// readKeys reads every item of keys 1..n of view at QUORUM.
func readKeys(t *testing.T, r *repo.Repo[refmodel.Message], view string, n int) map[int64]map[int64]refmodel.Message {
	t.Helper()
	out := map[int64]map[int64]refmodel.Message{}
	for k := int64(1); k <= int64(n); k++ {
		out[k] = map[int64]refmodel.Message{}
		q := repo.Query{View: view, Key: repo.Key{k}, Limit: 1000, Consistency: gocql.Quorum}
		for m, err := range r.All(t.Context(), q) {
			if err != nil {
				t.Fatalf("read %s key %d at QUORUM: %v", view, k, err)
			}
			out[k][m.MessageID] = m
		}
	}
	return out
}

// readByID looks every message up in message_by_id at QUORUM, 8 at a time.
func readByID(t *testing.T, r *repo.Repo[refmodel.Message], ms []refmodel.Message) map[int64]refmodel.Message {
	t.Helper()
	var mu sync.Mutex
	out := make(map[int64]refmodel.Message, len(ms))
	errs := make(chan error, len(ms))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for _, m := range ms {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			p, err := r.Read(t.Context(), repo.Query{View: "message_by_id", Key: repo.Key{m.MessageID}, Limit: 1, Consistency: gocql.Quorum})
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, it := range p.Items {
				out[it.MessageID] = it
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("read message_by_id at QUORUM: %v", err)
	}
	return out
}
