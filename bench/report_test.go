package bench

import (
	"bytes"
	"errors"
	"image/color"
	"image/png"
	"strings"
	"testing"
	"time"
)

func sampleReport() Report {
	v := func(name string, baseline bool, p50, p99 float64) Variant {
		return Variant{Name: name, Baseline: baseline, Ops: 100, Latency: Latency{Count: 100, P50: p50, P99: p99, Max: p99 * 2}, Throughput: 250, QueriesPerOp: 2, AllocsPerOp: 150, BytesPerOp: 2048}
	}
	return Report{
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Seconds: 200,
		Machine:  Machine{CPU: "Test CPU", CPUs: 2, MemoryGiB: 8, LoadAvg: "1 1 1", OS: "linux/amd64", Go: "go1.26", Server: "Apache Cassandra 5.0.8", Cluster: "local"},
		Settings: Settings{Consistency: "LOCAL_QUORUM"},
		Scenarios: []Scenario{
			{ID: "dense", Title: "Dense key, latest 50", Mode: "open loop", Unit: "one read",
				Variants: []Variant{v("tsbucket", false, 2, 4), v("hand-written gocql", true, 1, 2), v("tsbucket, no presence index", false, 1, 2)},
				Targets:  []Target{atMost("p50 vs baseline", 2, 1.1, "x")}},
			{ID: "deep", Title: "Deep history", Mode: "closed loop", Unit: "one page",
				Variants: []Variant{v("tsbucket", false, 3, 6), v("hand-written cursor", true, 2, 4)},
				Targets:  []Target{atMost("flat", 1.1, 1.5, "x")},
				Depth: []DepthRow{
					{Pages: "1-20", Variant: "tsbucket", P50: 3, P99: 6, QueriesPage: 2.4},
					{Pages: "1-20", Variant: "hand-written cursor", P50: 2, P99: 4, QueriesPage: 1.4},
				},
				Notes: []string{"a note"}},
		},
	}
}

func TestMarkdown(t *testing.T) {
	md := sampleReport().Markdown()
	for _, want := range []string{
		"| dense | p50 vs baseline | <= 1.1 x | 2.00 x | **no** |",
		"| deep | flat | <= 1.5 x | 1.10 x | yes |",
		"| tsbucket | 100 | 2.00 | 4.00 | 8.00 | 250 | 2.00 | 150 | 2.00 | 2.00x | 2.00x |",
		"| hand-written gocql (baseline) | 100 | 1.00 | 2.00 |",
		"| 1-20 | 3.00 | 6.00 | 2.40 | 2.00 | 4.00 | 1.40 |",
		"- a note",
		"Test CPU, 2 CPUs",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestMarkdownOptionalColumns: a scenario whose node CPU was measured, or
// whose client CPU was split into user and system time, gets the columns
// of each; one without keeps the table it had.
func TestMarkdownOptionalColumns(t *testing.T) {
	for _, tc := range []struct {
		name   string
		set    func(deep []Variant)
		want   []string
		column string // in the deep table alone
	}{
		{"node CPU", func(deep []Variant) { deep[0].NodeCPUPerOp, deep[1].NodeCPUPerOp = 210, 200 }, []string{
			"| CPU µs/op | CPU vs baseline | allocs vs baseline | node CPU µs/op | node CPU vs baseline |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
			"| 0 | 0x | 1.00x | 210 | 1.05x |",
			"| 0 | 0x | 1.00x | 200 | 1.00x |",
		}, "node CPU"},
		{"user and system", func(deep []Variant) {
			deep[0].CPUPerOp, deep[0].SysCPUPerOp = 50, 12.5
			deep[1].CPUPerOp, deep[1].SysCPUPerOp = 40, 10
		}, []string{
			"| CPU µs/op | CPU vs baseline | allocs vs baseline | of CPU µs/op, user : sys |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
			"| 50.0 | 1.25x | 1.00x | 37.5 : 12.5 |",
			"| 40.0 | 1.00x | 1.00x | 30.0 : 10.0 |",
		}, "user : sys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sampleReport()
			tc.set(r.Scenarios[1].Variants)
			md := r.Markdown()
			for _, want := range tc.want {
				if !strings.Contains(md, want) {
					t.Errorf("markdown lacks %q:\n%s", want, md)
				}
			}
			if dense := md[:strings.Index(md, "#### Deep")]; strings.Contains(dense, tc.column) {
				t.Errorf("the dense scenario, without the figures, has the %q column:\n%s", tc.column, dense)
			}
		})
	}
}

func TestUpdateMarkdown(t *testing.T) {
	r := sampleReport()
	doc := "# Title\n\nprose\n\n" + BeginMarker + "\nold numbers\n" + EndMarker + "\n\nmore prose\n"
	got, err := UpdateMarkdown(doc, r)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Title\n\nprose\n\n" + BeginMarker + "\n" + r.Markdown() + EndMarker + "\n\nmore prose\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	again, err := UpdateMarkdown(got, r)
	if err != nil || again != got {
		t.Errorf("second update changed the document (err %v)", err)
	}
	for _, bad := range []string{"no markers", EndMarker + " " + BeginMarker, BeginMarker + " only"} {
		if _, err := UpdateMarkdown(bad, r); !errors.Is(err, ErrNoMarkers) {
			t.Errorf("UpdateMarkdown(%q): got %v, want ErrNoMarkers", bad, err)
		}
	}
}

func TestReportMet(t *testing.T) {
	r := sampleReport()
	if r.Met() {
		t.Error("got met with a missed target, want not met")
	}
	r.Scenarios[0].Targets = nil
	if !r.Met() {
		t.Error("got not met with every target met, want met")
	}
}

func TestChart(t *testing.T) {
	b, err := Chart(sampleReport())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if got, want := img.Bounds().Dx(), chartCols*panelW+2*chartMargin; got != want {
		t.Errorf("width: got %d, want %d", got, want)
	}
	count := map[color.RGBA]int{}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, a := img.At(x, y).RGBA()
			count[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}]++
		}
	}
	// The tsbucket bars are twice the baseline's in both panels, so they
	// cover about twice the pixels (legend squares aside).
	ts, base := count[colorTS], count[colorBase]
	if base == 0 || ts < base*3/2 || ts > base*5/2 {
		t.Errorf("got %d tsbucket and %d baseline pixels, want about twice as many tsbucket", ts, base)
	}
	if count[colorOther] == 0 {
		t.Error("third variant not drawn")
	}
	if _, err := Chart(Report{}); err == nil {
		t.Error("empty report: got no error")
	}
}

func TestNiceCeil(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{
		{0, 1}, {-3, 1}, {0.7, 1}, {1, 1}, {1.1, 2}, {2.2, 2.5}, {3, 5}, {7, 10}, {11, 20}, {2400, 2500}, {0.013, 0.02},
	} {
		if got := niceCeil(tc.in); got != tc.want {
			t.Errorf("niceCeil(%v): got %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestWrap(t *testing.T) {
	got := wrap("Sparse key (1 item every 50 buckets), latest 50", 20)
	want := []string{"Sparse key (1 item", "every 50 buckets),", "latest 50"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}
