package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/tsbucket/tsbucket/aggregate"
	"github.com/tsbucket/tsbucket/repo"
)

// aggFlags are the flags of an aggregate read: tsbucket read --every 1h
// --agg avg(temp),max(temp).
type aggFlags struct {
	every, aggs  string
	calendarZone string
	csvOutput    bool
	rollups      string // a views file whose rollups of the view the read may use (rollup.go)
}

func (a *aggFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&a.every, "every", "", "aggregate per interval of this length (10s, 15m, 1h, 1d), aligned to the epoch in UTC; needs --agg")
	fs.StringVar(&a.aggs, "agg", "", "aggregates per interval, e.g. avg(temp),max(temp),count(*): count, sum, min, max, avg, first, last of numeric value columns; needs --every")
	fs.StringVar(&a.calendarZone, "calendar-days", "", "with --every in whole days: calendar days of this time zone (UTC, Europe/Paris), midnight to midnight")
	fs.BoolVar(&a.csvOutput, "csv", false, "print the aggregates as CSV (with --every)")
	fs.StringVar(&a.rollups, "rollups", "", "views file whose rollups of --view the read may use where they answer exactly (needs --from and --to)")
}

func (a aggFlags) requested() bool {
	return a.every != "" || a.aggs != "" || a.calendarZone != "" || a.csvOutput || a.rollups != ""
}

// runAggregate reads aggregates per interval instead of a page of items.
func runAggregate(ctx context.Context, f readFlags, fs *flag.FlagSet, e env) error {
	q, err := f.aggregateQuery(fs)
	if err != nil {
		return err
	}
	s, err := f.cluster.session("")
	if err != nil {
		return err
	}
	defer s.Close()
	v, with, key, err := resolveKey(ctx, s, f.cluster.keyspace, "--view", f.view, f.key)
	if err != nil {
		return err
	}
	q.View, q.Key = v.Name, repo.Key(key)
	r, err := openRecords(ctx, s, f.cluster.keyspace, with, repo.Options{Read: repo.ReadOptions{NoCoalesce: true, MaxLimit: aggregate.DefaultPageSize}})
	if err != nil {
		return err
	}
	if q.UseRollups, err = useRollups(r, v, f.agg.rollups); err != nil {
		return err
	}
	var st aggregate.Stats
	q.Stats = &st
	rows, err := aggregate.Collect(ctx, r, q)
	if errors.Is(err, aggregate.ErrBadQuery) || errors.Is(err, repo.ErrBadKey) || errors.Is(err, repo.ErrBadRange) {
		return usageErr("%s", aggFlagError(err))
	}
	if err != nil {
		return err
	}
	if err := f.agg.write(e.stdout, f.jsonOutput, q.Aggs, rows); err != nil {
		return err
	}
	if q.UseRollups {
		reportRollup(e.stderr, st)
	}
	return nil
}

// reportRollup says, on stderr (the rows on stdout stay as they are),
// whether a rollup of --rollups answered the read, and why not when none did.
func reportRollup(w io.Writer, st aggregate.Stats) {
	if st.Rollup != "" {
		fmt.Fprintf(w, "-- answered from rollup %s where it could: %d rollup row(s) read, %d item(s) read raw (ragged ends, intervals not rolled yet)\n",
			st.Rollup, st.RollupRows, st.Rows-st.RollupRows)
		return
	}
	fmt.Fprintf(w, "-- no rollup answered (%s): %d item(s) read raw\n", st.NoRollup, st.Rows)
}

// aggregateQuery checks the aggregate flags, before any connection.
func (f readFlags) aggregateQuery(fs *flag.FlagSet) (aggregate.Query, error) {
	var q aggregate.Query
	if err := f.cluster.validate(true); err != nil {
		return q, err
	}
	switch {
	case f.view == "" || f.key == "":
		return q, usageErr("--view and --key are required")
	case f.agg.every == "" || f.agg.aggs == "":
		return q, usageErr("an aggregate read needs both --every and --agg")
	case f.jsonOutput && f.agg.csvOutput:
		return q, usageErr("--json and --csv: choose one")
	case flagSet(fs, "limit") || f.cursor != "":
		return q, usageErr("--limit and --cursor read pages of items: an aggregate read (--every) reads its whole range")
	}
	every, err := parseDuration(f.agg.every)
	if err != nil {
		return q, usageErr("--every %q: %v", f.agg.every, err)
	}
	q.Step = aggregate.Step{Every: every}
	if f.agg.calendarZone != "" {
		if q.Step.Location, err = time.LoadLocation(f.agg.calendarZone); err != nil {
			return q, usageErr("--calendar-days %q: %v", f.agg.calendarZone, err)
		}
		q.Step.Calendar = true
	}
	if err := q.Step.Validate(); err != nil {
		return q, usageErr("%s", aggFlagError(err))
	}
	if q.Aggs, err = aggregate.Parse(f.agg.aggs); err != nil {
		return q, usageErr("--agg: %v", err)
	}
	if _, err := declaredRollups(f.agg.rollups); err != nil { // read again once the view is known
		return q, err
	}
	if f.oldestFirst {
		q.Direction = repo.OldestFirst
	}
	q.From, q.To, err = parseRange(f.from, f.to)
	return q, err
}

// aggFlagError names the flag behind a refused aggregate query.
func aggFlagError(err error) string {
	var qe *aggregate.QueryError
	if !errors.As(err, &qe) {
		return err.Error()
	}
	flagOf := map[string]string{"Step.Every": "--every", "Step.Location": "--calendar-days", "From": "--from"}
	name, ok := flagOf[qe.Field]
	if !ok {
		name = "--agg" // Aggs, Aggs[i]
	}
	return name + ": " + qe.Reason
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func (a aggFlags) write(w io.Writer, jsonOutput bool, aggs []aggregate.Agg, rows []aggregate.Row) error {
	switch {
	case jsonOutput:
		return writeAggJSON(w, aggs, rows)
	case a.csvOutput:
		return writeAggCSV(w, aggs, rows)
	}
	return writeAggTable(w, aggs, rows)
}

func aggHeader(aggs []aggregate.Agg) []string {
	h := []string{"start", "end", "items"}
	for _, a := range aggs {
		h = append(h, a.String())
	}
	return h
}

func aggCells(row aggregate.Row, null string) []string {
	cells := []string{formatValue(row.Start), formatValue(row.End), strconv.FormatInt(row.Items, 10)}
	for _, v := range row.Values {
		if v.IsNull() {
			cells = append(cells, null)
		} else {
			cells = append(cells, v.String())
		}
	}
	return cells
}

// writeAggTable prints one line per interval; a * after the end marks an
// interval the range cuts (its aggregates cover part of it).
func writeAggTable(w io.Writer, aggs []aggregate.Agg, rows []aggregate.Row) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	writeCells(tw, aggHeader(aggs))
	partial := false
	for _, row := range rows {
		cells := aggCells(row, "null")
		if row.Partial {
			cells[1] += " *"
			partial = true
		}
		writeCells(tw, cells)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d intervals", len(rows))
	if partial {
		fmt.Fprint(w, "; * the range covers part of the interval")
	}
	_, err := fmt.Fprintln(w)
	return err
}

func writeCells(w io.Writer, cells []string) {
	for i, c := range cells {
		if i > 0 {
			fmt.Fprint(w, "\t")
		}
		fmt.Fprint(w, c)
	}
	fmt.Fprintln(w)
}

// writeAggCSV writes a header and one record per interval: RFC 3339
// bounds, "partial" true or false, empty cells for null.
func writeAggCSV(w io.Writer, aggs []aggregate.Agg, rows []aggregate.Row) error {
	cw := csv.NewWriter(w)
	h := aggHeader(aggs)
	if err := cw.Write(append(h[:3:3], append([]string{"partial"}, h[3:]...)...)); err != nil {
		return err
	}
	for _, row := range rows {
		cells := aggCells(row, "")
		rec := append(cells[:3:3], append([]string{strconv.FormatBool(row.Partial)}, cells[3:]...)...)
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeAggJSON writes {"aggregates": [...], "rows": [{start, end, partial,
// items, values: [...]}]}, values in the order of aggregates, null for none.
func writeAggJSON(w io.Writer, aggs []aggregate.Agg, rows []aggregate.Row) error {
	type jsonRow struct {
		Start   time.Time         `json:"start"`
		End     time.Time         `json:"end"`
		Partial bool              `json:"partial"`
		Items   int64             `json:"items"`
		Values  []aggregate.Value `json:"values"`
	}
	out := struct {
		Aggregates []string  `json:"aggregates"`
		Rows       []jsonRow `json:"rows"`
	}{Rows: []jsonRow{}}
	for _, a := range aggs {
		out.Aggregates = append(out.Aggregates, a.String())
	}
	for _, r := range rows {
		out.Rows = append(out.Rows, jsonRow{r.Start.UTC(), r.End.UTC(), r.Partial, r.Items, r.Values})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
