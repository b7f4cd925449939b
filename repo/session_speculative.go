package repo

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
)

// speculating returns p itself when c turns speculative execution off, else
// p wrapped so that every idempotent statement it routes gets c's
// speculative execution policy.
func speculating(p gocql.HostSelectionPolicy, c SessionConfig) gocql.HostSelectionPolicy {
	if c.SpeculativeAttempts <= 0 {
		return p
	}
	return &speculativePolicy{HostSelectionPolicy: p, attempts: c.SpeculativeAttempts, delay: c.SpeculativeDelay, up: map[*gocql.HostInfo]bool{}}
}

// speculativePolicy sets a session-wide speculative execution policy, which
// gocql only offers per query (Query.SetSpeculativeExecutionPolicy): both
// gocql and its ScyllaDB fork ask the host selection policy for a query plan
// (Pick) on the caller's goroutine before they read the query's speculative
// policy, so setting it in Pick reaches every statement of the session,
// including the repository's. gocql itself never speculates a statement that
// is not idempotent; Pick leaves those alone too.
//
// A speculative execution takes the next host of the query plan, and when
// there is none the driver answers at once with ErrNoConnections, which wins
// over the execution still running. So a statement speculates at most once
// per other host that is up: never on a single node, or with all but one
// node down, where it would turn every slow answer into an error.
type speculativePolicy struct {
	gocql.HostSelectionPolicy
	attempts int
	delay    time.Duration

	mu sync.Mutex
	// up holds the hosts the driver told the policy about, keyed as the
	// driver keeps them (one *HostInfo per host, from AddHost to RemoveHost:
	// host IDs are typed differently by gocql and its fork).
	up map[*gocql.HostInfo]bool
	// nUp counts the true values of up, kept with it under mu: Pick runs
	// on every statement from every goroutine, and reads it without the lock.
	nUp atomic.Int64
}

func (p *speculativePolicy) Pick(q gocql.ExecutableQuery) gocql.NextHost {
	if q.IsIdempotent() {
		var sp gocql.SpeculativeExecutionPolicy = gocql.NonSpeculativeExecution{}
		if n := min(p.attempts, p.upHosts()-1); n > 0 {
			sp = &gocql.SimpleSpeculativeExecution{NumAttempts: n, TimeoutDelay: p.delay}
		}
		switch q := q.(type) {
		case *gocql.Query:
			q.SetSpeculativeExecutionPolicy(sp)
		case *gocql.Batch:
			q.SpeculativeExecutionPolicy(sp)
		}
	}
	return p.HostSelectionPolicy.Pick(q)
}

func (p *speculativePolicy) upHosts() int { return int(p.nUp.Load()) }

func (p *speculativePolicy) mark(h *gocql.HostInfo, up bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.set(h, up, true)
}

// set records h as up or down (present) or forgets it; the caller holds mu.
func (p *speculativePolicy) set(h *gocql.HostInfo, up, present bool) {
	if p.up[h] {
		p.nUp.Add(-1)
	}
	if !present {
		delete(p.up, h)
		return
	}
	p.up[h] = up
	if up {
		p.nUp.Add(1)
	}
}

// The host notifications reach the wrapped policy unchanged; the count of
// hosts up is taken on the way.
func (p *speculativePolicy) AddHost(h *gocql.HostInfo) {
	p.HostSelectionPolicy.AddHost(h)
	p.mark(h, h.IsUp())
}

func (p *speculativePolicy) HostUp(h *gocql.HostInfo) {
	p.HostSelectionPolicy.HostUp(h)
	p.mark(h, true)
}

func (p *speculativePolicy) HostDown(h *gocql.HostInfo) {
	p.HostSelectionPolicy.HostDown(h)
	p.mark(h, false)
}

func (p *speculativePolicy) RemoveHost(h *gocql.HostInfo) {
	p.HostSelectionPolicy.RemoveHost(h)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.set(h, false, false)
}

// AddHosts and Ready forward the optional interfaces the driver looks for
// on a policy (bulk host registration, readiness).
func (p *speculativePolicy) AddHosts(hosts []*gocql.HostInfo) {
	if b, ok := p.HostSelectionPolicy.(interface{ AddHosts([]*gocql.HostInfo) }); ok {
		b.AddHosts(hosts)
	} else {
		for _, h := range hosts {
			p.HostSelectionPolicy.AddHost(h)
		}
	}
	for _, h := range hosts {
		p.mark(h, h.IsUp())
	}
}

func (p *speculativePolicy) Ready() bool {
	r, ok := p.HostSelectionPolicy.(gocql.ReadyPolicy)
	return !ok || r.Ready()
}
