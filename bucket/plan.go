package bucket

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Planner defaults: the Cassandra data-modelling guideline of at most
// 100,000 rows and 100 MB per partition, and a 50-row page.
const (
	DefaultMaxRowsPerPartition  = 100_000
	DefaultMaxBytesPerPartition = 100_000_000
	DefaultReadSize             = 50
	// DefaultMaxFill is the most of each limit a recommended partition
	// fills at the peak rate: two thirds, so the busiest key can grow by
	// half before one of its partitions reaches a limit.
	DefaultMaxFill = 2.0 / 3
	// MaxTTL is the longest TTL CQL accepts: 20 years.
	MaxTTL = 630_720_000 * time.Second
)

// Planner input bounds. No real key comes near them; they keep every
// product the planner forms (rate x width x row size) a finite float64 and
// every width sum a valid time.Duration, so absurd input is refused by name
// instead of printing +Inf or wrapping around.
const (
	// MaxPlanRate is the largest PeakWritesPerSecond: a billion rows a
	// second into one key, more than whole clusters take.
	MaxPlanRate = 1e9
	// MaxPlanRowBytes is the largest AvgRowBytes: 2 GiB - 1, the longest
	// value CQL's native protocol can carry.
	MaxPlanRowBytes = math.MaxInt32
	// MaxPlanWidth is the widest candidate: a bucket longer than the longest
	// TTL would never expire as a whole.
	MaxPlanWidth = MaxTTL
)

// PlanInput describes the busiest key of one view. Zero optional fields take
// the defaults; Plan never modifies the caller's value.
type PlanInput struct {
	PeakWritesPerSecond  float64       // rows per second into the busiest key at peak
	AvgRowBytes          int           // average encoded row size
	Retention            time.Duration // TTL; 0 keeps data forever
	MaxRowsPerPartition  int64         // 0 means DefaultMaxRowsPerPartition
	MaxBytesPerPartition int64         // 0 means DefaultMaxBytesPerPartition
	ReadSize             int           // rows in a "latest N" read; 0 means DefaultReadSize
	// MaxFill is the most of each limit (rows and bytes) a partition of the
	// recommendation may fill at the peak rate, in (0, 1]; 0 means
	// DefaultMaxFill. 1 recommends the widest width that fits at all.
	MaxFill    float64
	Candidates []time.Duration // whole minutes; nil means DefaultCandidates()
}

// DefaultCandidates returns a fresh copy of the default ladder of widths:
// 1m, 5m, 10m, 15m, 30m, 1h, 6h, 12h, 1d, 7d, 10d, 30d.
func DefaultCandidates() []time.Duration {
	const d = 24 * time.Hour
	return []time.Duration{time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
		30 * time.Minute, time.Hour, 6 * time.Hour, 12 * time.Hour, d, 7 * d, 10 * d, 30 * d}
}

// Candidate is the sizing of one bucket width at the peak write rate.
type Candidate struct {
	Width             time.Duration
	RowsPerPartition  float64 // rows the busiest key writes into one bucket
	BytesPerPartition float64 // RowsPerPartition times AvgRowBytes
	Fits              bool    // within both limits, and no wider than the TTL
	// Fill is the larger of RowsPerPartition/MaxRowsPerPartition and
	// BytesPerPartition/MaxBytesPerPartition: how much of the tighter limit
	// one unsharded partition fills at the peak rate.
	Fill float64
	// WiderThanTTL says the width exceeds the retention: a bucket would
	// outlive its rows, and one TWCS window would span all live data.
	WiderThanTTL bool
	DayAligned   bool   // divides a day evenly, or is whole days
	Reason       string // why it fits or not, with the numbers
	// BucketsPerRead is the most buckets a "latest ReadSize" read of the
	// busiest key touches: the read starts just after a bucket boundary and
	// its rows span ReadSize/PeakWritesPerSecond seconds.
	BucketsPerRead int
	// BucketsInRetention is the most buckets holding live data for one key
	// at any moment (0 when Retention is 0, i.e. unbounded).
	BucketsInRetention int
	// ShardsToFit is the fewest write shards (a power of two up to
	// MaxPlanShards) over which one partition of this width fills at most
	// MaxFill of both limits: 1 when it does unsharded, 0 when even
	// MaxPlanShards are too few or the width is wider than the TTL.
	ShardsToFit int
}

// PlanResult is the planner's recommendation and the table behind it.
type PlanResult struct {
	Input       PlanInput     // the input with defaults applied
	Recommended time.Duration // 0 when no candidate fits, even sharded
	// Shards is how many partitions per (key, bucket) the recommendation
	// needs (schema.View.Shards): 1 when a width fits one partition per
	// bucket, a power of two up to MaxPlanShards when only sharding makes
	// one fit, 0 when nothing fits.
	Shards int
	// QueriesPerPage is what a page read within one bucket of the
	// recommendation costs: one query per shard, issued in parallel (one
	// round trip). A page that crosses a bucket boundary costs this per
	// bucket. 0 when nothing fits.
	QueriesPerPage int
	// PartitionRows and PartitionBytes are what the busiest key writes into
	// one partition of the recommendation: one bucket divided by Shards.
	PartitionRows  float64
	PartitionBytes float64
	Candidates     []Candidate // ascending width
	// TWCS is the TimeWindowCompactionStrategy window for Recommended
	// buckets kept for TTL: the bucket width, widened when the TTL would span
	// more than MaxCompactionWindows windows (see CompactionWindow).
	TWCS TWCSWindow
	// TWCSWindows is how many windows the TTL spans; 0 without a TTL.
	TWCSWindows int
	TTL         time.Duration // Retention rounded up to whole seconds (CQL TTLs are seconds)
	RowsPerDay  float64
	BytesPerDay float64
}

// Plan sizes the buckets of a view from its busiest key.
//
// Recommendation rule: a width is recommendable when it is no wider than
// the TTL (a wider bucket outlives its rows, and its TWCS window spans all
// live data) and one partition of it fills at most MaxFill (two thirds by
// default) of each limit at the peak rate, so the key can grow by half
// before a partition reaches one. Among those, the widest day-aligned one
// (it divides 24h evenly or is whole days, so buckets line up with calendar
// days and TWCS windows); failing that, the widest. The widest because it
// gives the fewest buckets per read and the fewest partitions per key. For
// the textbook chat channel (100 rows/s of 200 B) that is 10 minutes:
// 60,000 rows and 12 MB (60% of the row limit); 15 minutes (90,000 rows)
// fits but leaves no room to grow, an hour (360,000 rows) does not fit.
// Shards is then 1.
//
// When no candidate is recommendable with one partition per bucket, Plan
// shards the bucket (see schema.View.Shards): the fewest shards, a power
// of two up to MaxPlanShards, at which some candidate fills at most
// MaxFill, and among the candidates that do at that count the same rule
// picks the width. Shards come first because they are the read cost (one
// query per shard for every bucket a page reads) while a narrower width
// costs nothing extra for a key this hot: a page of it lies within one or
// two buckets whatever the width. For a hot chat channel of 10,000 rows/s
// of 200 B that is 1-minute buckets over 16 shards: 37,500 rows and 7.5 MB
// per shard partition, 16 queries per page. A view can also shard only its
// hot keys (schema.View.PerKeyShards): the command shows that alternative.
//
// A *PlanInputError wrapping ErrBadPlan for invalid input (see Validate).
// ErrNoFit, returned with the filled candidate table, when even the
// narrowest candidate is too big over MaxPlanShards shards.
func Plan(in PlanInput) (PlanResult, error) {
	in = in.withDefaults()
	if err := in.Validate(); err != nil {
		return PlanResult{}, err
	}
	res := PlanResult{
		Input:       in,
		TTL:         in.Retention.Round(time.Second),
		RowsPerDay:  in.PeakWritesPerSecond * 86400,
		BytesPerDay: in.PeakWritesPerSecond * 86400 * float64(in.AvgRowBytes),
	}
	if res.TTL < in.Retention {
		res.TTL += time.Second
	}
	for _, w := range in.Candidates {
		res.Candidates = append(res.Candidates, in.candidate(w))
	}
	if res.Recommended = recommend(res.Candidates, 1); res.Recommended != 0 {
		res.Shards = 1
	} else {
		res.recommendSharded()
	}
	if res.Recommended == 0 {
		return res, fmt.Errorf("plan %v rows/s of %d B over up to %d shards: %w",
			in.PeakWritesPerSecond, in.AvgRowBytes, MaxPlanShards, ErrNoFit)
	}
	res.setPartition()
	res.TWCS = CompactionWindow(res.Recommended, res.TTL)
	if res.TTL > 0 {
		res.TWCSWindows = int(ceilDiv(res.TTL, res.TWCS.Duration()))
	}
	return res, nil
}

// withDefaults fills zero fields and returns sorted, deduplicated candidates
// in a new slice.
func (in PlanInput) withDefaults() PlanInput {
	if in.MaxRowsPerPartition == 0 {
		in.MaxRowsPerPartition = DefaultMaxRowsPerPartition
	}
	if in.MaxBytesPerPartition == 0 {
		in.MaxBytesPerPartition = DefaultMaxBytesPerPartition
	}
	if in.ReadSize == 0 {
		in.ReadSize = DefaultReadSize
	}
	if in.MaxFill == 0 {
		in.MaxFill = DefaultMaxFill
	}
	if in.Candidates == nil {
		in.Candidates = DefaultCandidates()
	} else {
		in.Candidates = slices.Clone(in.Candidates)
	}
	slices.Sort(in.Candidates)
	in.Candidates = slices.Compact(in.Candidates)
	return in
}

// PlanInputError reports the PlanInput field that Validate (and so Plan)
// refused, before any arithmetic used it. It wraps ErrBadPlan.
type PlanInputError struct {
	Field string // the PlanInput field, e.g. "PeakWritesPerSecond"
	Value any    // the refused value; for Candidates, the offending width (or the empty list)
	Want  string // the accepted range, e.g. "a rate in (0, 1e+09] rows/s"
}

// Error reads "plan PeakWritesPerSecond 1e+300: want a rate in (0, 1e+09]
// rows/s: bucket: invalid plan input".
func (e *PlanInputError) Error() string {
	return fmt.Sprintf("plan %s %v: want %s: %v", e.Field, e.Value, e.Want, ErrBadPlan)
}

// Unwrap returns ErrBadPlan.
func (e *PlanInputError) Unwrap() error { return ErrBadPlan }

// Validate reports a *PlanInputError (wrapping ErrBadPlan) for the first
// field outside its range: PeakWritesPerSecond in (0, MaxPlanRate],
// AvgRowBytes in [1, MaxPlanRowBytes], Retention in [0, MaxTTL], positive
// limits and ReadSize, MaxFill in (0, 1], and at least one candidate, each whole minutes in
// [1m, MaxPlanWidth]. Zero optional fields are invalid here; Plan defaults
// them before validating.
func (in PlanInput) Validate() error {
	bad := func(field string, v any, want string) error { return &PlanInputError{field, v, want} }
	r := in.PeakWritesPerSecond
	switch {
	case !(r > 0 && r <= MaxPlanRate): // also NaN
		return bad("PeakWritesPerSecond", r, fmt.Sprintf("a rate in (0, %g] rows/s", float64(MaxPlanRate)))
	case in.AvgRowBytes <= 0 || in.AvgRowBytes > MaxPlanRowBytes:
		return bad("AvgRowBytes", in.AvgRowBytes, fmt.Sprintf("a row size in [1, %d] bytes", MaxPlanRowBytes))
	case in.Retention < 0 || in.Retention > MaxTTL:
		return bad("Retention", in.Retention, "0 (forever) up to 20 years (630720000s, CQL's longest TTL)")
	case in.MaxRowsPerPartition <= 0:
		return bad("MaxRowsPerPartition", in.MaxRowsPerPartition, "a positive number of rows")
	case in.MaxBytesPerPartition <= 0:
		return bad("MaxBytesPerPartition", in.MaxBytesPerPartition, "a positive number of bytes")
	case in.ReadSize <= 0:
		return bad("ReadSize", in.ReadSize, "a positive number of rows")
	case !(in.MaxFill > 0 && in.MaxFill <= 1): // also NaN
		return bad("MaxFill", in.MaxFill, "a fraction of the limits in (0, 1]")
	case len(in.Candidates) == 0:
		return bad("Candidates", in.Candidates, "at least one width")
	}
	for _, w := range in.Candidates {
		if w < time.Minute || w > MaxPlanWidth || w%time.Minute != 0 {
			return bad("Candidates", w, "widths of whole minutes (TWCS's smallest unit) from 1m to 20 years")
		}
	}
	return nil
}

// candidate sizes one width.
func (in PlanInput) candidate(w time.Duration) Candidate {
	rows := in.PeakWritesPerSecond * w.Seconds()
	bytes := rows * float64(in.AvgRowBytes)
	c := Candidate{
		Width:             w,
		RowsPerPartition:  rows,
		BytesPerPartition: bytes,
		Fill:              max(rows/float64(in.MaxRowsPerPartition), bytes/float64(in.MaxBytesPerPartition)),
		WiderThanTTL:      in.Retention > 0 && w > in.Retention,
		DayAligned:        (24*time.Hour)%w == 0 || w%(24*time.Hour) == 0,
		BucketsPerRead:    bucketsSpanned(float64(in.ReadSize)/in.PeakWritesPerSecond, w.Seconds()),
	}
	if in.Retention > 0 {
		c.BucketsInRetention = bucketsSpanned(in.Retention.Seconds(), w.Seconds())
	}
	rowsOK := rows <= float64(in.MaxRowsPerPartition)
	bytesOK := bytes <= float64(in.MaxBytesPerPartition)
	c.Fits = rowsOK && bytesOK && !c.WiderThanTTL
	c.Reason = reason(rowsOK, bytesOK, rows, bytes, in)
	switch {
	case c.WiderThanTTL:
		c.Reason = "wider than the TTL " + fmtSpan(in.Retention) + ": a bucket would outlive its rows"
	case c.Fits && c.Fill > in.MaxFill:
		c.Reason = fmt.Sprintf("fits, little headroom: %s, %s full (recommended: at most %s)",
			strings.TrimPrefix(c.Reason, "fits: "), fmtPercent(c.Fill), fmtPercent(in.MaxFill))
	}
	c.ShardsToFit = in.shardsToFit(c)
	return c
}

// fmtSpan writes whole days as days (14d), anything else as Go does.
func fmtSpan(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	return d.String()
}

// fmtPercent writes a fraction as a whole percentage.
func fmtPercent(f float64) string {
	return strconv.FormatFloat(math.Round(f*100), 'f', 0, 64) + "%"
}

// bucketsSpanned is the most buckets of width w an interval of length span
// can overlap: it may start just before a boundary.
func bucketsSpanned(span, w float64) int {
	n := math.Ceil(span/w) + 1
	if n > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(n)
}

func reason(rowsOK, bytesOK bool, rows, bytes float64, in PlanInput) string {
	r := fmtCount(rows) + " rows"
	b := fmtMB(bytes)
	maxR, maxB := fmtCount(float64(in.MaxRowsPerPartition)), fmtMB(float64(in.MaxBytesPerPartition))
	switch {
	case rowsOK && bytesOK:
		return "fits: " + r + " <= " + maxR + ", " + b + " <= " + maxB
	case !rowsOK && !bytesOK:
		return "too many rows and bytes: " + r + " > " + maxR + ", " + b + " > " + maxB
	case !rowsOK:
		return "too many rows: " + r + " > " + maxR
	}
	return "too many bytes: " + b + " > " + maxB
}

// fmtCount writes a row count to at most three decimals: the product of a
// rate and a width carries binary noise (0.001 x 604800 is
// 604.8000000000001), which is no part of the count.
func fmtCount(v float64) string {
	if v >= 1e15 {
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// fmtMB writes decimal megabytes, as the modelling guideline counts them.
func fmtMB(v float64) string { return strconv.FormatFloat(v/1e6, 'f', 1, 64) + " MB" }

// recommend applies the rule documented on Plan to the candidates whose
// ShardsToFit is shards; candidates are ascending.
func recommend(cs []Candidate, shards int) time.Duration {
	var widest, widestAligned time.Duration
	for _, c := range cs {
		if c.ShardsToFit != shards {
			continue
		}
		widest = c.Width
		if c.DayAligned {
			widestAligned = c.Width
		}
	}
	if widestAligned != 0 {
		return widestAligned
	}
	return widest
}
