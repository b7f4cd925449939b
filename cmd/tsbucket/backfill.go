package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

type backfillFlags struct {
	cluster    clusterFlags
	base       string
	targets    string
	afterToken int64
	keysPerSec float64
	progress   time.Duration
	rollups    string          // a views file whose rollups of the targets are marked (--rollups)
	declared   []schema.Rollup // the file's rollups, read before connecting
}

// runBackfill fills views added to a populated keyspace from a base view:
// every key its presence index holds, each repaired into the targets with
// the base rows' original write times and remaining TTLs (repo.Repair).
func runBackfill(ctx context.Context, args []string, e env) error {
	var f backfillFlags
	fs := newFlags("backfill", "backfill --hosts H --base VIEW --targets V[,V...] [--after-token T] [--keys-per-second N] [flags]", e)
	f.cluster.register(fs, e)
	fs.StringVar(&f.base, "base", "", "registered bucketed view holding the items (required); its presence index lists the keys")
	fs.StringVar(&f.targets, "targets", "", "comma-separated views of the base's group to fill (required)")
	fs.Int64Var(&f.afterToken, "after-token", math.MinInt64, "resume after this partition token (printed with the progress)")
	fs.Float64Var(&f.keysPerSec, "keys-per-second", 0, "most keys backfilled per second; 0 for no limit")
	fs.DurationVar(&f.progress, "progress", 10*time.Second, "how often to print progress")
	fs.StringVar(&f.rollups, "rollups", "", "views `file` whose rollups of the targets the rows written mark dirty (docs/commands.md)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := f.validate(); err != nil {
		return err
	}
	var err error
	if f.declared, err = declaredRollups(f.rollups); err != nil {
		return err
	}
	sum, err := backfill(ctx, f, e.stdout)
	return reportBackfill(e, sum, err)
}

// reportBackfill prints the summary of a backfill that ended with err
// (nil when it went through) and how to resume it, and returns err. A
// usage error (a --base or --targets the keyspace refuses) is found before
// any key is read: it is all there is to print.
func reportBackfill(e env, sum backfillSum, err error) error {
	if errors.Is(err, errUsage) {
		return err
	}
	fmt.Fprintln(e.stdout, sum.String())
	if err != nil {
		if sum.keys > 0 || sum.lastToken != math.MinInt64 {
			fmt.Fprintf(e.stderr, "tsbucket backfill: resume with --after-token %d\n", sum.lastToken)
		}
		return err
	}
	return nil
}

func (f backfillFlags) validate() error {
	if err := f.cluster.validate(true); err != nil {
		return err
	}
	switch {
	case f.base == "" || f.targets == "":
		return usageErr("--base and --targets are required")
	case f.keysPerSec < 0 || math.IsNaN(f.keysPerSec) || math.IsInf(f.keysPerSec, 0):
		return usageErr("--keys-per-second %v: want 0 (no limit) or a positive rate", f.keysPerSec)
	case f.progress <= 0:
		return usageErr("--progress %v: want a positive interval", f.progress)
	}
	return nil
}

// backfillSum is what a backfill did so far.
type backfillSum struct {
	keys, items, written, failed int
	lastToken                    int64 // of the last key done
}

func (s backfillSum) String() string {
	return fmt.Sprintf("backfill: %d key(s), %d item(s) read, %d row(s) written, %d failed; last token %d",
		s.keys, s.items, s.written, s.failed, s.lastToken)
}

func (s *backfillSum) add(rep repo.RepairReport) {
	s.items += rep.Items
	s.written += rep.Fixed()
	for _, v := range rep.Views {
		s.failed += v.Failed
	}
}

// backfill resolves the views, then walks the base's keys in token order.
func backfill(ctx context.Context, f backfillFlags, w io.Writer) (backfillSum, error) {
	sum := backfillSum{lastToken: f.afterToken}
	s, err := f.cluster.session("")
	if err != nil {
		return sum, err
	}
	defer s.Close()
	ks := f.cluster.keyspace
	views, err := registeredViews(ctx, s, ks)
	if err != nil {
		return sum, err
	}
	base, targets, err := backfillViews(views, f.base, splitList(f.targets), ks)
	if err != nil {
		return sum, err
	}
	r, err := openRecords(ctx, s, ks, append([]schema.View{base}, targets...), repo.Options{})
	if err != nil {
		return sum, err
	}
	if err := addTargetRollups(r, f.rollups, f.declared, targets); err != nil {
		return sum, err
	}
	fmt.Fprintf(w, "backfilling %s from %s, every key of %s after token %d\n", viewNames(targets), base.Name, base.PresenceTable(), f.afterToken)
	err = walkKeys(ctx, s, keyScan(ks, base, f.afterToken), f, w, &sum, func(key repo.Key) (repo.RepairReport, error) {
		return r.Repair(ctx, base.Name, key, time.Time{}, time.Time{})
	})
	return sum, err
}

// backfillViews checks the base (registered, bucketed: its presence index
// lists the keys) and the targets (other views of its group whose columns
// it holds; see repairTargets).
func backfillViews(views []schema.View, baseName string, names []string, ks string) (schema.View, []schema.View, error) {
	base, err := findView(views, "--base", baseName, "registered in keyspace "+ks)
	if err != nil {
		return base, nil, err
	}
	if !base.Bucketed() {
		return base, nil, usageErr("--base %s is unbucketed (%s): it has no presence index to list its keys; backfill from a bucketed view of its group",
			base.Name, unbucketedWhy(base))
	}
	targets, err := repairTargets(base, views, names)
	return base, targets, err
}

func viewNames(views []schema.View) string {
	names := make([]string, len(views))
	for i, v := range views {
		names[i] = v.Name
	}
	return strings.Join(names, ", ")
}

// keyScan is the statement listing the keys of v's presence index after a
// partition token, in token order, with each key's token last.
func keyScan(ks string, v schema.View, after int64) cqlStatement {
	cols := make([]string, len(v.Key))
	for i, c := range v.Key {
		cols[i] = schema.Quote(c.Name)
	}
	key := strings.Join(cols, ", ")
	return cqlStatement{
		cql: fmt.Sprintf("SELECT DISTINCT %s, token(%s) FROM %s.%s WHERE token(%s) > ?",
			key, key, schema.Quote(ks), schema.Quote(v.PresenceTable()), key),
		args: []any{after},
	}
}

// walkKeys runs fill for every key the scan lists, at most
// --keys-per-second, printing progress every --progress.
func walkKeys(ctx context.Context, s *gocql.Session, scan cqlStatement, f backfillFlags, w io.Writer, sum *backfillSum,
	fill func(repo.Key) (repo.RepairReport, error)) error {
	it := s.Query(scan.cql, scan.args...).WithContext(ctx).PageSize(500).Iter()
	rd, err := it.RowData()
	if err != nil {
		it.Close()
		return fmt.Errorf("list keys: %w", err)
	}
	pace := newPacer(f.keysPerSec)
	lastReport := time.Now()
	for sc := it.Scanner(); sc.Next(); {
		if err := sc.Scan(rd.Values...); err != nil {
			it.Close()
			return fmt.Errorf("list keys: %w", err)
		}
		key, token := scannedKey(rd.Values)
		if err := pace.wait(ctx); err != nil {
			it.Close()
			return err
		}
		rep, err := fill(key)
		sum.add(rep)
		if err != nil {
			it.Close()
			return fmt.Errorf("key %s: %w", key, err)
		}
		sum.keys, sum.lastToken = sum.keys+1, token
		if time.Since(lastReport) >= f.progress {
			fmt.Fprintf(w, "%s (resume with --after-token %d)\n", sum, sum.lastToken)
			lastReport = time.Now()
		}
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("list keys: %w", err)
	}
	return nil
}

// scannedKey splits a row of keyScan into the key values and the token.
func scannedKey(vals []any) (repo.Key, int64) {
	key := make(repo.Key, len(vals)-1)
	for i := range key {
		key[i] = deref(vals[i])
	}
	token, _ := deref(vals[len(vals)-1]).(int64)
	return key, token
}

// deref returns what a RowData pointer points to.
func deref(p any) any {
	switch v := p.(type) {
	case *string:
		return *v
	case *int64:
		return *v
	case *int32:
		return *v
	case *int16:
		return *v
	case *int8:
		return *v
	case *int:
		return *v
	case *bool:
		return *v
	case *[]byte:
		return *v
	case *gocql.UUID:
		return *v
	case *time.Time:
		return *v
	case *float64:
		return *v
	case *float32:
		return *v
	case **big.Int: // a varint: as an int64 where it fits, as a key value given by hand is
		if *v == nil {
			return nil
		}
		if (*v).IsInt64() {
			return (*v).Int64()
		}
		return *v
	}
	return p
}

// pacer spaces calls at most rate per second apart; rate 0 never waits.
type pacer struct {
	every time.Duration
	next  time.Time
}

func newPacer(rate float64) *pacer {
	if rate <= 0 {
		return &pacer{}
	}
	return &pacer{every: time.Duration(float64(time.Second) / rate)}
}

func (p *pacer) wait(ctx context.Context) error {
	if p.every == 0 {
		return nil
	}
	now := time.Now()
	if d := p.next.Sub(now); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
		now = p.next
	}
	p.next = now.Add(p.every)
	return nil
}
