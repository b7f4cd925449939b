package metrics

import "github.com/prometheus/client_golang/prometheus"

type walkVecs struct {
	buckets   *prometheus.HistogramVec
	empty     *prometheus.HistogramVec
	rows      *prometheus.HistogramVec
	queries   *prometheus.HistogramVec
	coalesced *prometheus.CounterVec
}

func newWalkVecs() walkVecs {
	// Counts per read: 0 is its own bucket for empty buckets (the common
	// case with a presence index), then roughly doubling.
	small := []float64{0, 1, 2, 4, 8, 16, 32, 64, 128, 256}
	histogram := func(name, help string, b []float64) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: b},
			[]string{"table"})
	}
	return walkVecs{
		buckets: histogram("tsbucket_read_buckets_visited",
			"Buckets a read walked (queried or skipped) to fill one page.", small[1:]),
		empty: histogram("tsbucket_read_empty_buckets",
			"Buckets a read queried that returned no row.", small),
		rows: histogram("tsbucket_read_rows",
			"Rows returned by one read (one page).", []float64{0, 1, 10, 25, 50, 100, 250, 500, 1000, 5000}),
		queries: histogram("tsbucket_read_queries_per_page",
			"CQL queries one read issued to fill one page.", small[1:]),
		coalesced: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tsbucket_read_coalesced_total",
			Help: "Reads served by joining an identical read already in flight.",
		}, []string{"table"}),
	}
}

func (v walkVecs) collectors() []prometheus.Collector {
	return []prometheus.Collector{v.buckets, v.empty, v.rows, v.queries, v.coalesced}
}

// ReadWalk records one read (one page) of view, labelled with the view's
// table (its name): the buckets it visited, how many of them were empty,
// the rows it returned and the queries it issued.
func (m *Metrics) ReadWalk(view string, buckets, emptyBuckets, rows, queries int) {
	o, ok := m.walks.snapshot()[view]
	if !ok {
		o = m.walks.loadOrStore(view, func() *walkObservers {
			v := m.walk
			return &walkObservers{v.buckets.WithLabelValues(view), v.empty.WithLabelValues(view), v.rows.WithLabelValues(view), v.queries.WithLabelValues(view)}
		})
	}
	o.buckets.Observe(float64(buckets))
	o.empty.Observe(float64(emptyBuckets))
	o.rows.Observe(float64(rows))
	o.queries.Observe(float64(queries))
}

// walkObservers are one view's read histograms, resolved on its first read:
// every page observes all four, and a label lookup each cost more than the
// observations.
type walkObservers struct {
	buckets, empty, rows, queries prometheus.Observer
}

// Coalesced counts one read of view (label table) that joined an identical
// read in flight instead of querying.
func (m *Metrics) Coalesced(view string) {
	m.walk.coalesced.WithLabelValues(view).Inc()
}
