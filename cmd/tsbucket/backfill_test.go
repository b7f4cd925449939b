package main

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/schema"
)

func telemetryViews(t *testing.T) []schema.View {
	t.Helper()
	f, err := schema.LoadViewsFile("testdata/telemetry.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Views {
		f.Views[i] = f.Views[i].WithDefaults()
	}
	return f.Views
}

// The keys of a base view come from its presence index, in token order,
// after the token a resumed backfill names.
func TestKeyScan(t *testing.T) {
	v := telemetryViews(t)[0]
	st := keyScan("telemetry", v, math.MinInt64)
	want := `SELECT DISTINCT "device_id", token("device_id") FROM "telemetry"."readings_by_device_buckets" WHERE token("device_id") > ?`
	if st.cql != want || st.args[0] != int64(math.MinInt64) {
		t.Errorf("got %s %v\nwant %s", st.cql, st.args, want)
	}
}

func TestBackfillViews(t *testing.T) {
	views := telemetryViews(t)
	tests := []struct {
		name, base string
		targets    []string
		want       string
	}{
		{"one target", "readings_by_device", []string{"readings_by_site"}, "readings_by_site"},
		{"unbucketed base", "reading_by_id", []string{"readings_by_site"}, "error: --base reading_by_id is unbucketed"},
		{"another group", "readings_by_device", []string{"alerts_by_device"}, "error: --targets: view alerts_by_device is in group alerts"},
		{"unknown base", "nope", []string{"readings_by_site"}, `error: --base "nope" is not a view`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, targets, err := backfillViews(views, tt.base, tt.targets, "telemetry")
			got := viewNames(targets)
			if err != nil {
				got = "error: " + strings.TrimPrefix(err.Error(), "usage: ")
			}
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// The pacer spaces keys 1/rate apart; rate 0 never waits.
func TestPacer(t *testing.T) {
	p := newPacer(0)
	for range 3 {
		if err := p.wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	p = newPacer(100)
	start := time.Now()
	for range 4 {
		if err := p.wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d < 25*time.Millisecond {
		t.Errorf("4 keys at 100/s took %v, want at least 30ms", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p = newPacer(0.001)
	_ = p.wait(ctx) // the first call never waits
	if err := p.wait(ctx); err == nil {
		t.Error("a cancelled wait returned nil")
	}
}

// TestScannedVarintKey: the driver scans a varint into a **big.Int; the
// key value is an int64 where it fits, as a key value given by hand is, and
// a *big.Int beyond, both of which a varint key column takes.
func TestScannedVarintKey(t *testing.T) {
	small, huge := big.NewInt(-7), new(big.Int).Lsh(big.NewInt(1), 70)
	key, _ := scannedKey([]any{&small, new(int64)})
	if key[0] != int64(-7) {
		t.Fatalf("varint -7 scanned as %v (%T)", key[0], key[0])
	}
	key, _ = scannedKey([]any{&huge, new(int64)})
	if b, ok := key[0].(*big.Int); !ok || b.Cmp(huge) != 0 {
		t.Fatalf("varint 2^70 scanned as %v (%T)", key[0], key[0])
	}
}

// TestBackfillUsageErrorPrintsNoSummary: a usage error found once
// connected (a --base or --targets the keyspace refuses) is all a backfill
// prints: no summary of keys it never began, no resume hint. A failure
// along the way keeps both.
func TestBackfillUsageErrorPrintsNoSummary(t *testing.T) {
	var out, errOut bytes.Buffer
	e := env{stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	sum := backfillSum{lastToken: 42}
	err := reportBackfill(e, sum, usageErr(`--base "nope" is not a view registered in keyspace ks`))
	if code := exitCode(e, failed("backfill", err)); code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if out.String() != "" || strings.Contains(errOut.String(), "resume") {
		t.Errorf("usage error: stdout %q, stderr %q; want only the usage error", out.String(), errOut.String())
	}
	out.Reset()
	errOut.Reset()
	sum.keys = 3
	_ = reportBackfill(e, sum, errors.New("key k: timeout"))
	if !strings.Contains(out.String(), "backfill: 3 key(s)") || !strings.Contains(errOut.String(), "--after-token 42") {
		t.Errorf("failure: stdout %q, stderr %q; want the summary and the resume hint", out.String(), errOut.String())
	}
}
