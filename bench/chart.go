package bench

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Chart geometry, in pixels. The font is 7x13, so text is placed by
// character counts.
const (
	chartCols   = 3
	panelW      = 400
	panelH      = 330
	chartTop    = 48
	chartMargin = 10
	charW       = 7
	plotLeft    = 56 // room for the y labels
	plotTop     = 44 // room for the two title lines
	plotBottom  = 72 // room for group labels and the legend
	maxBars     = 3
)

// Colours: tsbucket blue, the baseline orange, a third variant grey.
var (
	colorTS    = color.RGBA{0x1f, 0x77, 0xb4, 0xff}
	colorBase  = color.RGBA{0xff, 0x7f, 0x0e, 0xff}
	colorOther = color.RGBA{0x8c, 0x8c, 0x8c, 0xff}
	colorInk   = color.RGBA{0x22, 0x22, 0x22, 0xff}
	colorGrid  = color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
)

// Chart draws one panel per scenario: the p50 and p99 latency of each of its
// variants, on the panel's own linear scale (the scenarios differ by orders
// of magnitude). It returns the PNG.
func Chart(r Report) ([]byte, error) {
	if len(r.Scenarios) == 0 {
		return nil, fmt.Errorf("bench: chart: no scenarios")
	}
	rows := (len(r.Scenarios) + chartCols - 1) / chartCols
	w := chartCols*panelW + 2*chartMargin
	h := chartTop + rows*panelH + chartMargin
	c := canvas{image.NewRGBA(image.Rect(0, 0, w, h))}
	draw.Draw(c.img, c.img.Bounds(), image.White, image.Point{}, draw.Src)
	c.text(chartMargin, 20, "tsbucket against the code a user would write: latency in ms (lower is better), p50 and p99", colorInk)
	c.text(chartMargin, 38, fmt.Sprintf("%s  |  %s, %d CPUs  |  %s  |  ratios in BENCHMARKS.md",
		r.Started.Format("2006-01-02"), orUnknown(r.Machine.CPU), r.Machine.CPUs, orUnknown(r.Machine.Server)), colorOther)
	for i, s := range r.Scenarios {
		x := chartMargin + (i%chartCols)*panelW
		y := chartTop + (i/chartCols)*panelH
		c.panel(image.Rect(x, y, x+panelW, y+panelH).Inset(6), s)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, c.img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type canvas struct{ img *image.RGBA }

func (c canvas) fill(r image.Rectangle, col color.Color) {
	draw.Draw(c.img, r, image.NewUniform(col), image.Point{}, draw.Src)
}

// text draws s with its baseline at y.
func (c canvas) text(x, y int, s string, col color.Color) {
	d := font.Drawer{Dst: c.img, Src: image.NewUniform(col), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

// centered draws s centred on x.
func (c canvas) centered(x, y int, s string, col color.Color) {
	c.text(x-len(s)*charW/2, y, s, col)
}

func (c canvas) panel(r image.Rectangle, s Scenario) {
	lines := wrap(s.Title, r.Dx()/charW)
	for i, l := range lines[:min(2, len(lines))] {
		c.text(r.Min.X, r.Min.Y+13+15*i, l, colorInk)
	}
	vs := s.Variants[:min(len(s.Variants), maxBars)]
	top := 0.0
	for _, v := range vs {
		top = max(top, v.Latency.P99)
	}
	scale := niceCeil(top * 1.1)
	plot := image.Rect(r.Min.X+plotLeft, r.Min.Y+plotTop, r.Max.X-8, r.Max.Y-plotBottom)
	c.axis(plot, scale)
	groupW := plot.Dx() / 2
	barW := min(40, (groupW-20)/len(vs))
	for g, label := range []string{"p50", "p99"} {
		gx := plot.Min.X + g*groupW + (groupW-barW*len(vs))/2
		for i, v := range vs {
			val := v.Latency.P50
			if g == 1 {
				val = v.Latency.P99
			}
			x0 := gx + i*barW
			bh := int(math.Round(val / scale * float64(plot.Dy())))
			c.fill(image.Rect(x0+2, plot.Max.Y-bh, x0+barW-2, plot.Max.Y), variantColor(i, v))
			c.centered(x0+barW/2, plot.Max.Y-bh-3, num(val), colorInk)
		}
		c.centered(plot.Min.X+g*groupW+groupW/2, plot.Max.Y+16, label, colorInk)
	}
	for i, v := range vs {
		ly := plot.Max.Y + 34 + 15*i
		c.fill(image.Rect(r.Min.X, ly-9, r.Min.X+10, ly+1), variantColor(i, v))
		c.text(r.Min.X+16, ly, truncate(v.Name+ratioNote(v, vs), r.Dx()/charW-3), colorInk)
	}
}

// axis draws four grid lines with their labels, and the baseline.
func (c canvas) axis(plot image.Rectangle, scale float64) {
	for k := 0; k <= 4; k++ {
		y := plot.Max.Y - k*plot.Dy()/4
		col := colorGrid
		if k == 0 {
			col = colorInk
		}
		c.fill(image.Rect(plot.Min.X, y, plot.Max.X, y+1), col)
		label := num(scale * float64(k) / 4)
		c.text(plot.Min.X-6-len(label)*charW, y+4, label, colorOther)
	}
}

// ratioNote is ", p50 1.23x baseline" for variants other than the baseline.
func ratioNote(v Variant, vs []Variant) string {
	if v.Baseline {
		return " (baseline)"
	}
	for _, b := range vs {
		if b.Baseline && b.Latency.P50 > 0 {
			return fmt.Sprintf(": p50 %sx baseline", num(ratio(v.Latency.P50, b.Latency.P50)))
		}
	}
	return ""
}

func variantColor(i int, v Variant) color.Color {
	switch {
	case v.Baseline:
		return colorBase
	case i == 0:
		return colorTS
	default:
		return colorOther
	}
}

// niceCeil is the smallest 1, 2, 2.5 or 5 times a power of ten at or above x.
func niceCeil(x float64) float64 {
	if x <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= x*(1-1e-12) {
			return m * p
		}
	}
	return 10 * p
}

// wrap splits s into lines of at most width characters, at spaces.
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

func truncate(s string, n int) string {
	if len(s) <= n || n < 4 {
		return s
	}
	return s[:n-3] + "..."
}
