package demo

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

// Views the workload reads.
const (
	viewChannel = "messages_by_channel"
	viewAuthor  = "messages_by_author"
	viewSensor  = "readings_by_sensor"
	viewSite    = "readings_by_site"
)

const (
	authorPage = 20            // messages of an author feed
	sensorPage = 20            // readings of a sensor's "latest"
	rangePage  = 500           // readings of a site range read
	rangeSpan  = 6 * time.Hour // span of a site range read: several hourly buckets
	purgeShare = 0.02          // share of channel openings that land on the purged channel
	recentSize = 1024          // messages remembered for the moderator
	loggedErrs = 3             // errors logged per operation before going quiet
)

// workload holds what the operations share.
type workload struct {
	cfg    Config
	chat   *repo.Repo[refmodel.Message]
	iot    *repo.Repo[refmodel.Reading]
	ids    *idGen
	stats  map[string]*opStats
	recent *recent
	text   string // bodies are windows of it: no allocation per message
	purged int64  // the purged channel, or 0
	log    io.Writer
	logMu  sync.Mutex
}

// worker is one goroutine's random state: math/rand sources and Zipf
// generators are not safe for concurrent use.
type worker struct {
	rng               *rand.Rand
	channels, authors *rand.Zipf
}

func (wl *workload) newWorker(stream uint64) *worker {
	rng := rand.New(rand.NewPCG(wl.cfg.Seed, stream))
	return &worker{
		rng:      rng,
		channels: rand.NewZipf(rng, wl.cfg.Skew, 1, uint64(wl.cfg.Channels-1)),
		authors:  rand.NewZipf(rng, wl.cfg.Skew, 1, uint64(wl.cfg.Authors-1)),
	}
}

// Channel and author IDs start at 1; 1 is the hottest.
func (w *worker) channel() int64 { return int64(w.channels.Uint64()) + 1 }
func (w *worker) author() int64  { return int64(w.authors.Uint64()) + 1 }

func sensorName(i int) string { return fmt.Sprintf("sensor-%04d", i) }
func siteName(i int) string   { return fmt.Sprintf("site-%02d", i) }

func (wl *workload) message(w *worker, t time.Time, channel int64) (refmodel.Message, error) {
	id, err := wl.ids.snowflake(t)
	if err != nil {
		return refmodel.Message{}, err
	}
	at := w.rng.IntN(len(wl.text) - wl.cfg.BodyBytes + 1)
	return refmodel.Message{ChannelID: channel, MessageID: id, AuthorID: w.author(), Body: wl.text[at : at+wl.cfg.BodyBytes]}, nil
}

func (wl *workload) reading(w *worker, t time.Time) (refmodel.Reading, error) {
	id, err := wl.ids.timeUUID(t)
	if err != nil {
		return refmodel.Reading{}, err
	}
	s := w.rng.IntN(wl.cfg.Sensors)
	return refmodel.Reading{SensorID: sensorName(s), SiteID: siteName(s % wl.cfg.Sites), ReadingID: id,
		Value: 20 + 3*w.rng.NormFloat64(), Unit: "C"}, nil
}

// done records the outcome of one operation that started at start. A failure
// caused by the run stopping is not the cluster's fault: it is dropped.
func (wl *workload) done(ctx context.Context, st *opStats, start time.Time, err error) {
	if err != nil && ctx.Err() != nil {
		return
	}
	if err != nil {
		if n := st.errors.Add(1); n <= loggedErrs {
			wl.logf("%s error: %v", st.name, err)
		}
		return
	}
	st.latency.record(time.Since(start))
}

func (wl *workload) readDone(ctx context.Context, st *opStats, start time.Time, s repo.ReadStats, err error) {
	wl.done(ctx, st, start, err)
	if err != nil {
		return
	}
	st.readsWithStat.Add(1)
	st.buckets.Add(uint64(s.Buckets))
	st.empty.Add(uint64(s.EmptyBuckets))
	if s.Coalesced {
		st.coalesced.Add(1)
	}
}

func (wl *workload) logf(format string, args ...any) {
	wl.logMu.Lock()
	defer wl.logMu.Unlock()
	fmt.Fprintf(wl.log, "demo: "+format+"\n", args...)
}

// chatWrite writes one message now. A FaultRate share of writes first runs
// with an injected write timeout on messages_by_author (faultInjector); the
// partial write is retried whole with repo.RetryOf (the first attempt's
// write timestamp, so the retry cannot undo the moderator's delete) and
// counted as a fault.
func (wl *workload) chatWrite(ctx context.Context, w *worker) {
	st := wl.stats[OpChatWrite]
	start := time.Now()
	m, err := wl.message(w, start, w.channel())
	if err != nil {
		wl.done(ctx, st, start, err)
		return
	}
	if w.rng.Float64() < wl.cfg.FaultRate {
		err = wl.chat.Put(withFault(ctx), &m)
		if err != nil && ctx.Err() == nil {
			st.faults.Add(1)
			err = wl.chat.Put(ctx, &m, repo.RetryOf(err))
		}
	} else {
		err = wl.chat.Put(ctx, &m)
	}
	wl.done(ctx, st, start, err)
	if err == nil {
		wl.recent.add(m)
	}
}

func (wl *workload) iotWrite(ctx context.Context, w *worker) {
	start := time.Now()
	r, err := wl.reading(w, start)
	if err == nil {
		err = wl.iot.Put(ctx, &r)
	}
	wl.done(ctx, wl.stats[OpIoTWrite], start, err)
}

// chatLatest opens a channel as Viewers clients at once: identical
// concurrent reads, which the repository coalesces into one walk.
func (wl *workload) chatLatest(ctx context.Context, w *worker) {
	ch := w.channel()
	if wl.purged != 0 && w.rng.Float64() < purgeShare {
		ch = wl.purged
	}
	st := wl.stats[OpChatLatest]
	var wg sync.WaitGroup
	for range wl.cfg.Viewers {
		wg.Go(func() {
			start := time.Now()
			p, err := wl.chat.Latest(ctx, viewChannel, repo.Key{ch}, wl.cfg.PageSize)
			wl.readDone(ctx, st, start, p.Stats, err)
		})
	}
	wg.Wait()
}

// chatPage pages back through a channel's history, following cursors across
// buckets, for up to Pages pages.
func (wl *workload) chatPage(ctx context.Context, w *worker) {
	st := wl.stats[OpChatPage]
	q := repo.Query{View: viewChannel, Key: repo.Key{w.channel()}, Limit: wl.cfg.PageSize}
	for range wl.cfg.Pages {
		start := time.Now()
		p, err := wl.chat.Read(ctx, q)
		wl.readDone(ctx, st, start, p.Stats, err)
		if err != nil || p.Cursor == "" {
			return
		}
		q.Cursor = p.Cursor
	}
}

func (wl *workload) chatAuthor(ctx context.Context, w *worker) {
	start := time.Now()
	p, err := wl.chat.Latest(ctx, viewAuthor, repo.Key{w.author()}, authorPage)
	wl.readDone(ctx, wl.stats[OpChatAuthor], start, p.Stats, err)
}

func (wl *workload) iotLatest(ctx context.Context, w *worker) {
	start := time.Now()
	p, err := wl.iot.Latest(ctx, viewSensor, repo.Key{sensorName(w.rng.IntN(wl.cfg.Sensors))}, sensorPage)
	wl.readDone(ctx, wl.stats[OpIoTLatest], start, p.Stats, err)
}

// iotRange reads a site's last six hours oldest-first, as a chart would.
func (wl *workload) iotRange(ctx context.Context, w *worker) {
	start := time.Now()
	site := siteName(w.rng.IntN(wl.cfg.Sites))
	p, err := wl.iot.Range(ctx, viewSite, repo.Key{site}, start.Add(-rangeSpan), start, repo.OldestFirst, rangePage)
	wl.readDone(ctx, wl.stats[OpIoTRange], start, p.Stats, err)
}

// chatDelete is the moderator: it deletes the most recent message written.
func (wl *workload) chatDelete(ctx context.Context, _ *worker) {
	m, ok := wl.recent.take()
	if !ok {
		return
	}
	start := time.Now()
	err := wl.chat.Delete(ctx, &m)
	wl.done(ctx, wl.stats[OpChatDelete], start, err)
}

// recent remembers the last messages written, for the moderator.
type recent struct {
	mu   sync.Mutex
	ring [recentSize]refmodel.Message
	n    int // held, <= recentSize
	next int // slot of the next add
}

func (r *recent) add(m refmodel.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ring[r.next] = m
	r.next = (r.next + 1) % recentSize
	r.n = min(r.n+1, recentSize)
}

// take removes and returns the newest message.
func (r *recent) take() (refmodel.Message, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		return refmodel.Message{}, false
	}
	r.next = (r.next + recentSize - 1) % recentSize
	r.n--
	return r.ring[r.next], true
}

// bodyText is the text message bodies are cut from.
func bodyText(n int) string {
	const lorem = "tsbucket keeps every partition bounded: items are grouped by key and time bucket, " +
		"written to one table per query and read newest first, bucket by bucket. "
	return strings.Repeat(lorem, 2*n/len(lorem)+2)
}
