package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// planView is a view of a views file judged by the planner: its current
// bucket width, TTL and compaction window, and whether the width fits.
type planView struct {
	file   string
	view   schema.View
	width  time.Duration
	window bucket.TWCSWindow
	fits   bool
	reason string
}

// loadPlanView reads the view --view of --views, or of the views
// registered in --keyspace without --views, and sets the planner input from
// it: the retention is the view's TTL, and its width joins the candidates
// so that the table shows it.
func loadPlanView(ctx context.Context, fs *flag.FlagSet, c clusterFlags, path, name string, in *bucket.PlanInput) (*planView, error) {
	if name == "" {
		return nil, usageErr("--views goes with --view")
	}
	if isSet(fs, "retention") {
		return nil, usageErr("--retention comes from the view's ttl with --view")
	}
	views, source, err := planViews(ctx, c, path)
	if err != nil {
		return nil, err
	}
	v, err := findView(views, "--view", name, source)
	if err != nil {
		return nil, err
	}
	if !v.Bucketed() {
		return nil, usageErr("--view %s is unbucketed (%s): it has no bucket width to size", v.Name, unbucketedWhy(v))
	}
	// A view whose scheme changed is judged by its latest width: the one
	// its partitions are cut to from now on (the history is printed).
	label := path
	if path == "" {
		label = "keyspace " + c.keyspace
	}
	pv := &planView{file: label, view: v, width: v.Scheme.Latest().Width(), window: compactionWindow(v)}
	in.Retention = v.TTL
	if in.Candidates == nil {
		in.Candidates = bucket.DefaultCandidates()
	}
	if !slices.Contains(in.Candidates, pv.width) {
		in.Candidates = append(in.Candidates, pv.width)
	}
	return pv, nil
}

// planViews are the views of the file at path, or without one the views
// registered in the keyspace of c; source says where, for messages.
func planViews(ctx context.Context, c clusterFlags, path string) ([]schema.View, string, error) {
	if path != "" {
		f, err := loadViewsFile("--views", path)
		return f.Views, "of " + path, err
	}
	if err := c.validate(true); err != nil {
		return nil, "", usageErr("--view without --views judges a registered view: %v", strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
	}
	s, err := c.session("")
	if err != nil {
		return nil, "", err
	}
	defer s.Close()
	views, err := registeredViews(ctx, s, c.keyspace)
	return views, "registered in keyspace " + c.keyspace, err
}

// judge finds the view's width among the planned candidates; a sharded
// view is judged by one of its shard partitions.
func (pv *planView) judge(res bucket.PlanResult) {
	for _, c := range res.Candidates {
		if c.Width != pv.width {
			continue
		}
		pv.fits, pv.reason = c.Fits, c.Reason
		if n := pv.view.Shards; n > 1 {
			pv.judgeShards(res.Input, c, n)
		}
		return
	}
	pv.reason = "not sized"
}

// judgeShards judges one of n shard partitions of candidate c.
func (pv *planView) judgeShards(in bucket.PlanInput, c bucket.Candidate, n int) {
	rows, bytes := c.RowsPerPartition/float64(n), c.BytesPerPartition/float64(n)
	pv.fits = rows <= float64(in.MaxRowsPerPartition) && bytes <= float64(in.MaxBytesPerPartition)
	cmp := map[bool]string{true: "<=", false: ">"}
	pv.reason = fmt.Sprintf("%d shards: %.0f rows %s %d, %.1f MB %s %.1f MB per shard partition", n,
		rows, cmp[rows <= float64(in.MaxRowsPerPartition)], in.MaxRowsPerPartition,
		bytes/1e6, cmp[bytes <= float64(in.MaxBytesPerPartition)], float64(in.MaxBytesPerPartition)/1e6)
	if pv.fits {
		pv.reason = "fits over " + pv.reason
	}
}

// recommendation names the planned width, with its shards when it needs them.
func recommendation(res bucket.PlanResult) string {
	if res.Shards > 1 {
		return fmt.Sprintf("%s x %d shards", fmtWidth(res.Recommended), res.Shards)
	}
	return fmtWidth(res.Recommended)
}

// windows is how many compaction windows the view's TTL spans (0 without one).
func (pv *planView) windows() int {
	d := pv.window.Duration()
	if pv.view.TTL == 0 || d == 0 {
		return 0
	}
	return int((pv.view.TTL + d - 1) / d)
}

func (pv *planView) verdict() string {
	if pv.fits {
		return "fits"
	}
	return "does not fit"
}

func writeViewVerdict(w io.Writer, pv *planView, res bucket.PlanResult) {
	fmt.Fprintf(w, "\nview %s (%s): %s buckets (%s), ttl %s, TWCS window %s", pv.view.Name, pv.file,
		fmtWidth(pv.width), pv.view.Scheme, ttlText(pv.view.TTL), pv.window)
	if n := pv.windows(); n > 0 {
		fmt.Fprintf(w, " (%s)", windowsText(n))
	}
	if pv.fits {
		fmt.Fprintf(w, "\nverdict: %s", pv.reason) // "fits: ..."
	} else {
		fmt.Fprintf(w, "\nverdict: does not fit: %s", pv.reason)
	}
	switch {
	case res.Recommended == 0:
		fmt.Fprintln(w, "; no width fits")
	case res.Recommended == pv.width && max(pv.view.Shards, 1) == res.Shards:
		fmt.Fprintln(w, "; it is the recommended width")
	default:
		fmt.Fprintf(w, "; recommended: %s\n", recommendation(res))
	}
}

// viewPlanJSON is the view's part of plan --json.
type viewPlanJSON struct {
	Name             string `json:"name"`
	Width            string `json:"width"`
	WidthSeconds     int64  `json:"width_seconds"`
	Scheme           string `json:"scheme"`
	TTLSeconds       int64  `json:"ttl_seconds"`
	CompactionWindow string `json:"compaction_window"`
	Windows          int    `json:"windows"`
	Shards           int    `json:"shards"`
	Fits             bool   `json:"fits"`
	Verdict          string `json:"verdict"`
	Reason           string `json:"reason"`
}

func (pv *planView) json() *viewPlanJSON {
	if pv == nil {
		return nil
	}
	return &viewPlanJSON{
		Name: pv.view.Name, Width: fmtWidth(pv.width), WidthSeconds: int64(pv.width / time.Second),
		Scheme: pv.view.Scheme.String(), TTLSeconds: int64(pv.view.TTL / time.Second),
		CompactionWindow: pv.window.String(), Windows: pv.windows(), Shards: max(pv.view.Shards, 1), Fits: pv.fits, Verdict: pv.verdict(), Reason: pv.reason,
	}
}
