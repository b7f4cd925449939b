package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
)

const day = 24 * time.Hour

// durationFlag is a flag.Value for durations that also accepts whole days
// ("30d"), which time.ParseDuration does not.
type durationFlag struct{ d *time.Duration }

func (f durationFlag) String() string {
	if f.d == nil {
		return "0"
	}
	return fmtWidth(*f.d)
}

func (f durationFlag) Set(s string) error {
	d, err := parseDuration(s)
	if err != nil {
		return err
	}
	*f.d = d
	return nil
}

// maxDays is the most whole days a time.Duration holds (about 292 years).
const maxDays = int64(math.MaxInt64 / day)

func parseDuration(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bad number of days %q", s)
		}
		if n > maxDays || n < -maxDays {
			return 0, fmt.Errorf("%q is more than %d days", s, maxDays)
		}
		return time.Duration(n) * day, nil
	}
	return time.ParseDuration(s)
}

// durationsFlag is a comma-separated list of durations.
type durationsFlag struct{ ds *[]time.Duration }

func (f durationsFlag) String() string {
	if f.ds == nil {
		return ""
	}
	parts := make([]string, len(*f.ds))
	for i, d := range *f.ds {
		parts[i] = fmtWidth(d)
	}
	return strings.Join(parts, ",")
}

func (f durationsFlag) Set(s string) error {
	var ds []time.Duration
	for _, p := range splitList(s) {
		d, err := parseDuration(p)
		if err != nil {
			return err
		}
		ds = append(ds, d)
	}
	if len(ds) == 0 {
		return errors.New("empty list")
	}
	*f.ds = ds
	return nil
}

// fmtWidth writes a duration the way bucket widths are spoken of: 15m, 6h, 10d.
func fmtWidth(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d%day == 0:
		return strconv.FormatInt(int64(d/day), 10) + "d"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	return d.String()
}

// planFlags are the flags of tsbucket plan.
type planFlags struct {
	in                  bucket.PlanInput
	asJSON              bool
	viewsPath, viewName string
	cluster             clusterFlags
}

func (f *planFlags) register(fs *flag.FlagSet, e env) {
	in := &f.in
	fs.Float64Var(&in.PeakWritesPerSecond, "rate", 0, "peak rows per second written to the busiest key (required)")
	fs.IntVar(&in.AvgRowBytes, "row-bytes", 0, "average row size in bytes (required)")
	fs.Var(durationFlag{&in.Retention}, "retention", "TTL of the rows, e.g. 30d or 720h; 0 keeps them forever")
	fs.Int64Var(&in.MaxRowsPerPartition, "max-rows", bucket.DefaultMaxRowsPerPartition, "rows a partition may hold")
	fs.Int64Var(&in.MaxBytesPerPartition, "max-bytes", bucket.DefaultMaxBytesPerPartition, "bytes a partition may hold")
	fs.IntVar(&in.ReadSize, "read-size", bucket.DefaultReadSize, "rows of a \"latest N\" read")
	fs.Float64Var(&in.MaxFill, "max-fill", bucket.DefaultMaxFill, "most of each limit a recommended partition may fill at the peak rate, in (0, 1]: room for the key to grow (1: the widest width that fits)")
	fs.Var(durationsFlag{&in.Candidates}, "candidates", "comma-separated widths to consider, whole minutes (default 1m,5m,10m,15m,30m,1h,6h,12h,1d,7d,10d,30d)")
	fs.BoolVar(&f.asJSON, "json", false, "print the plan as JSON")
	fs.StringVar(&f.viewsPath, "views", "", "views file holding --view")
	fs.StringVar(&f.viewName, "view", "", "view of --views (or, without it, registered in --keyspace) to judge: its width joins the candidates, its ttl is the retention; exit 1 if its width does not fit")
	f.cluster.register(fs, e)
}

func runPlan(ctx context.Context, args []string, e env) error {
	var f planFlags
	fs := newFlags("plan", "plan --rate ROWS_PER_S --row-bytes BYTES [--views FILE --view V | --hosts H --keyspace K --view V] [flags]", e)
	f.register(fs, e)
	if err := parse(fs, args); err != nil {
		return err
	}
	if !isSet(fs, "rate") || !isSet(fs, "row-bytes") {
		return usageErr("--rate and --row-bytes are required")
	}
	var pv *planView
	if f.viewsPath != "" || f.viewName != "" {
		var err error
		if pv, err = loadPlanView(ctx, fs, f.cluster, f.viewsPath, f.viewName, &f.in); err != nil {
			return err
		}
	}
	res, err := plan(fs, f.in)
	if err != nil && !errors.Is(err, bucket.ErrNoFit) {
		return err
	}
	if pv != nil {
		pv.judge(res)
	}
	if werr := writePlan(e.stdout, res, pv, f.asJSON); werr != nil {
		return werr
	}
	if err != nil { // ErrNoFit: the table shows why
		return err
	}
	if pv != nil && !pv.fits {
		return fmt.Errorf("view %s: %s buckets do not fit: %s", pv.view.Name, fmtWidth(pv.width), pv.reason)
	}
	return nil
}

// plan validates in and plans it. Validation comes first: Plan would take
// an explicit --max-rows 0 for "the default" and pass it silently. Bad
// input is a usage error naming the flag; bucket.ErrNoFit comes with the
// plan, whose table shows why.
func plan(fs *flag.FlagSet, in bucket.PlanInput) (bucket.PlanResult, error) {
	if in.Candidates == nil {
		in.Candidates = bucket.DefaultCandidates()
	}
	if err := in.Validate(); err != nil {
		return bucket.PlanResult{}, planFlagErr(fs, err)
	}
	res, err := bucket.Plan(in)
	if errors.Is(err, bucket.ErrBadPlan) {
		return res, planFlagErr(fs, err)
	}
	return res, err
}

// writePlan prints the plan, and the verdict on pv's width when there is
// one, as a table or as JSON.
func writePlan(w io.Writer, res bucket.PlanResult, pv *planView, asJSON bool) error {
	if asJSON {
		return writePlanJSON(w, res, pv)
	}
	writePlanTable(w, res)
	if pv != nil {
		writeViewVerdict(w, pv, res)
	}
	return nil
}

// planFlag returns the flag that sets a bucket.PlanInput field, or "".
func planFlag(field string) string {
	switch field {
	case "PeakWritesPerSecond":
		return "rate"
	case "AvgRowBytes":
		return "row-bytes"
	case "Retention":
		return "retention"
	case "MaxRowsPerPartition":
		return "max-rows"
	case "MaxBytesPerPartition":
		return "max-bytes"
	case "ReadSize":
		return "read-size"
	case "MaxFill":
		return "max-fill"
	case "Candidates":
		return "candidates"
	}
	return ""
}

// planFlagErr turns a *bucket.PlanInputError into a usage error naming the
// flag and its value: "--rate 1e+300: want a rate in (0, 1e+09] rows/s".
// A bad candidate is named by itself, not by the whole list.
func planFlagErr(fs *flag.FlagSet, err error) error {
	var pe *bucket.PlanInputError
	if !errors.As(err, &pe) || planFlag(pe.Field) == "" {
		return usageErr("%v", err)
	}
	name := planFlag(pe.Field)
	value := fs.Lookup(name).Value.String()
	if w, isWidth := pe.Value.(time.Duration); isWidth && name == "candidates" {
		value = fmtWidth(w)
	}
	return usageErr("--%s %s: want %s", name, value, pe.Want)
}

// isSet reports whether the flag was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func writePlanTable(w io.Writer, res bucket.PlanResult) {
	in := res.Input
	retention := "forever"
	if in.Retention > 0 {
		retention = fmtWidth(in.Retention)
	}
	fmt.Fprintf(w, "busiest key: %g rows/s of %d B, retention %s, reads of %d rows; limits %d rows, %.1f MB per partition, "+
		"recommended at most %.0f%% full (--max-fill); never wider than the retention\n\n",
		in.PeakWritesPerSecond, in.AvgRowBytes, retention, in.ReadSize, in.MaxRowsPerPartition, float64(in.MaxBytesPerPartition)/1e6, in.MaxFill*100)
	sharded := res.Shards != 1 // no width fits one partition per bucket
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := "width\trows/partition\tMB/partition\tbuckets/read\tbuckets live\tday-aligned\t"
	if sharded {
		header += "shards to fit\t"
	}
	fmt.Fprintln(tw, header+"verdict")
	for _, c := range res.Candidates {
		fmt.Fprintln(tw, candidateRow(c, res, sharded))
	}
	tw.Flush()
	fmt.Fprintln(w)
	switch {
	case res.Recommended == 0:
		fmt.Fprintf(w, "no width fits, even over %d shards per bucket (the most a view may have): "+
			"shrink the rows or split the key (add a column to the partition key)\n", bucket.MaxPlanShards)
		return
	case sharded:
		writeShardedSummary(w, res)
	}
	if sharded {
		defer writePerKeyAlternative(w, res)
	}
	fmt.Fprintf(w, "recommended: %s buckets", fmtWidth(res.Recommended))
	if sharded {
		fmt.Fprintf(w, " x %d shards (shards: %d in the views file)", res.Shards, res.Shards)
	}
	fmt.Fprintf(w, ", TWCS window %s", res.TWCS)
	if res.TTL > 0 {
		fmt.Fprintf(w, " (%s), default_time_to_live %d", windowsText(res.TWCSWindows), int64(res.TTL/time.Second))
	}
	fmt.Fprintf(w, "\nper day: %.0f rows, %.1f MB\n", res.RowsPerDay, res.BytesPerDay/1e6)
}

// candidateRow is one line of the table, tab-separated; sharded adds the
// shards-to-fit column.
func candidateRow(c bucket.Candidate, res bucket.PlanResult, sharded bool) string {
	live, verdict := "-", c.Reason
	if res.Input.Retention > 0 {
		live = strconv.Itoa(c.BucketsInRetention)
	}
	row := fmt.Sprintf("%s\t%.0f\t%.1f\t%d\t%s\t%s\t", fmtWidth(c.Width), c.RowsPerPartition,
		c.BytesPerPartition/1e6, c.BucketsPerRead, live, yesNo(c.DayAligned))
	if sharded {
		toFit := "-" // more than bucket.MaxPlanShards
		if c.ShardsToFit > 0 {
			toFit = strconv.Itoa(c.ShardsToFit)
		}
		row += toFit + "\t"
	}
	if c.Width == res.Recommended {
		verdict += "  <- recommended"
		if sharded {
			verdict += fmt.Sprintf(" over %d shards", res.Shards)
		}
	}
	return row + verdict
}

// writeShardedSummary says what a sharded recommendation holds and costs:
// a page within one bucket reads every shard of it, in parallel.
func writeShardedSummary(w io.Writer, res bucket.PlanResult) {
	perRead := 1
	for _, c := range res.Candidates {
		if c.Width == res.Recommended {
			perRead = c.BucketsPerRead
		}
	}
	fmt.Fprintf(w, "no width fits one partition per bucket with room to grow: %s buckets x %d shards, %.0f rows / %.1f MB per shard partition; "+
		"a page read costs %d queries in parallel (one round trip)", fmtWidth(res.Recommended), res.Shards,
		res.PartitionRows, res.PartitionBytes/1e6, res.QueriesPerPage)
	if perRead > 1 {
		fmt.Fprintf(w, ", up to %d when it spans %d buckets", perRead*res.QueriesPerPage, perRead)
	}
	fmt.Fprintln(w)
}

// writePerKeyAlternative shows the other way to shard, next to sharding
// every key: shards cannot change once a view is applied, so the choice is
// made here.
func writePerKeyAlternative(w io.Writer, res bucket.PlanResult) {
	fmt.Fprintf(w, "\nshards are fixed once the view is applied; choose now:\n")
	fmt.Fprintf(w, "  every key sharded:  shards: %d\n"+
		"      every read of every key queries %d partitions per bucket; right when most keys are this hot\n", res.Shards, res.Shards)
	fmt.Fprintf(w, "  hot keys only:      shards: %d, per_key_shards: true\n"+
		"      a key stays one partition per bucket (one query) until promoted, automatically after repo.Options.Schemes.PromoteAfter rows\n"+
		"      to one partition or by tsbucket hotkeys --promote; right when a few keys are this hot and the rest are not.\n"+
		"      Size the width for the ordinary keys then: plan --rate with their rate, and check this width fits the hot ones sharded\n",
		res.Shards)
}

// windowsText is "1 window" or "n windows".
func windowsText(n int) string {
	if n == 1 {
		return "1 window"
	}
	return strconv.Itoa(n) + " windows"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// planJSON is the --json form of a plan: widths as text and as seconds.
type planJSON struct {
	PeakWritesPerSecond  float64         `json:"peak_writes_per_second"`
	AvgRowBytes          int             `json:"avg_row_bytes"`
	RetentionSeconds     int64           `json:"retention_seconds"`
	MaxRowsPerPartition  int64           `json:"max_rows_per_partition"`
	MaxBytesPerPartition int64           `json:"max_bytes_per_partition"`
	ReadSize             int             `json:"read_size"`
	MaxFill              float64         `json:"max_fill"`
	Recommended          string          `json:"recommended"` // "" when nothing fits
	RecommendedSeconds   int64           `json:"recommended_seconds"`
	Shards               int             `json:"shards"`           // partitions per (key, bucket); 0 when nothing fits
	QueriesPerPage       int             `json:"queries_per_page"` // a page within one bucket, in parallel
	PartitionRows        float64         `json:"partition_rows"`   // in one (shard) partition of the recommendation
	PartitionBytes       float64         `json:"partition_bytes"`
	TWCSWindowUnit       string          `json:"twcs_window_unit,omitempty"`
	TWCSWindowSize       int             `json:"twcs_window_size,omitempty"`
	TWCSWindows          int             `json:"twcs_windows,omitempty"` // windows the TTL spans
	TTLSeconds           int64           `json:"ttl_seconds"`
	RowsPerDay           float64         `json:"rows_per_day"`
	BytesPerDay          float64         `json:"bytes_per_day"`
	Candidates           []candidateJSON `json:"candidates"`
	View                 *viewPlanJSON   `json:"view,omitempty"` // with --view
}

type candidateJSON struct {
	Width              string  `json:"width"`
	WidthSeconds       int64   `json:"width_seconds"`
	RowsPerPartition   float64 `json:"rows_per_partition"`
	BytesPerPartition  float64 `json:"bytes_per_partition"`
	Fits               bool    `json:"fits"`
	DayAligned         bool    `json:"day_aligned"`
	BucketsPerRead     int     `json:"buckets_per_read"`
	BucketsInRetention int     `json:"buckets_in_retention"`
	ShardsToFit        int     `json:"shards_to_fit"` // 0: more than the most a view may have
	Reason             string  `json:"reason"`
}

func writePlanJSON(w io.Writer, res bucket.PlanResult, pv *planView) error {
	in := res.Input
	out := planJSON{
		PeakWritesPerSecond: in.PeakWritesPerSecond, AvgRowBytes: in.AvgRowBytes,
		RetentionSeconds: int64(in.Retention / time.Second), MaxRowsPerPartition: in.MaxRowsPerPartition,
		MaxBytesPerPartition: in.MaxBytesPerPartition, ReadSize: in.ReadSize, MaxFill: in.MaxFill,
		RecommendedSeconds: int64(res.Recommended / time.Second), Shards: res.Shards,
		QueriesPerPage: res.QueriesPerPage, PartitionRows: res.PartitionRows, PartitionBytes: res.PartitionBytes,
		TWCSWindowUnit: res.TWCS.Unit, TWCSWindowSize: res.TWCS.Size, TWCSWindows: res.TWCSWindows,
		TTLSeconds: int64(res.TTL / time.Second), RowsPerDay: res.RowsPerDay, BytesPerDay: res.BytesPerDay,
		Candidates: []candidateJSON{}, View: pv.json(),
	}
	if res.Recommended > 0 {
		out.Recommended = fmtWidth(res.Recommended)
	}
	for _, c := range res.Candidates {
		out.Candidates = append(out.Candidates, candidateJSON{
			Width: fmtWidth(c.Width), WidthSeconds: int64(c.Width / time.Second),
			RowsPerPartition: c.RowsPerPartition, BytesPerPartition: c.BytesPerPartition,
			Fits: c.Fits, DayAligned: c.DayAligned, BucketsPerRead: c.BucketsPerRead,
			BucketsInRetention: c.BucketsInRetention, ShardsToFit: c.ShardsToFit, Reason: c.Reason,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
