package demo

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
)

const (
	seedChunk     = 250            // items per PutMany
	iotHistory    = 48 * time.Hour // span of seeded readings: 48 hourly site buckets
	seedNewest    = time.Minute    // seeded items are at least this old
	purgeWindow   = time.Hour      // purged messages are spread over the last hour
	purgeParallel = 8
)

// seed writes the history and the purge; see the package doc.
func (wl *workload) seed(ctx context.Context, w *worker, now time.Time) (SeedSummary, error) {
	start := time.Now()
	var s SeedSummary
	var err error
	if s.Messages, err = wl.seedMessages(ctx, w, now); err != nil {
		return s, err
	}
	if s.Readings, err = wl.seedReadings(ctx, w, now); err != nil {
		return s, err
	}
	if s.Purged, err = wl.purge(ctx, w, now); err != nil {
		return s, err
	}
	s.Seconds = time.Since(start).Seconds()
	return s, nil
}

// past returns an instant between now-span and now-seedNewest.
func past(w *worker, now time.Time, span time.Duration) time.Time {
	if span <= seedNewest {
		return now.Add(-seedNewest)
	}
	return now.Add(-seedNewest - time.Duration(w.rng.Int64N(int64(span-seedNewest))))
}

func (wl *workload) seedMessages(ctx context.Context, w *worker, now time.Time) (int, error) {
	written := 0
	for written < wl.cfg.SeedMessages {
		items := make([]refmodel.Message, min(seedChunk, wl.cfg.SeedMessages-written))
		for i := range items {
			m, err := wl.message(w, past(w, now, wl.cfg.History), w.channel())
			if err != nil {
				return written, err
			}
			items[i] = m
		}
		if err := wl.chat.PutMany(ctx, items); err != nil {
			return written, fmt.Errorf("demo: seed messages: %w", err)
		}
		written += len(items)
	}
	return written, nil
}

func (wl *workload) seedReadings(ctx context.Context, w *worker, now time.Time) (int, error) {
	written := 0
	span := min(wl.cfg.History, iotHistory)
	for written < wl.cfg.SeedReadings {
		items := make([]refmodel.Reading, min(seedChunk, wl.cfg.SeedReadings-written))
		for i := range items {
			r, err := wl.reading(w, past(w, now, span))
			if err != nil {
				return written, err
			}
			items[i] = r
		}
		if err := wl.iot.PutMany(ctx, items); err != nil {
			return written, fmt.Errorf("demo: seed readings: %w", err)
		}
		written += len(items)
	}
	return written, nil
}

// purge writes Purge messages to a channel of its own and deletes them all:
// a spam wave cleaned up. Every later read of that channel steps over their
// tombstones until gc_grace_seconds pass, which the server reports as
// tombstone warnings once they exceed its tombstone_warn_threshold.
func (wl *workload) purge(ctx context.Context, w *worker, now time.Time) (int, error) {
	if wl.cfg.Purge == 0 {
		return 0, nil
	}
	ch := int64(wl.cfg.Channels) + 1
	items := make([]refmodel.Message, wl.cfg.Purge)
	for i := range items {
		m, err := wl.message(w, past(w, now, purgeWindow), ch)
		if err != nil {
			return 0, err
		}
		items[i] = m
	}
	if err := wl.chat.PutMany(ctx, items); err != nil {
		return 0, fmt.Errorf("demo: purge: write: %w", err)
	}
	if err := wl.deleteAll(ctx, items); err != nil {
		return 0, fmt.Errorf("demo: purge: %w", err)
	}
	wl.purged = ch
	// Read it once now, so the first warning does not wait for a reader.
	if _, err := wl.chat.Latest(ctx, viewChannel, repo.Key{ch}, wl.cfg.PageSize); err != nil {
		return len(items), fmt.Errorf("demo: purge: read back: %w", err)
	}
	return len(items), nil
}

func (wl *workload) deleteAll(ctx context.Context, items []refmodel.Message) error {
	errs := make([]error, purgeParallel)
	var wg sync.WaitGroup
	for g := range purgeParallel {
		wg.Go(func() {
			for i := g; i < len(items) && errs[g] == nil; i += purgeParallel {
				errs[g] = wl.chat.Delete(ctx, &items[i])
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
