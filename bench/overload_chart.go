package bench

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
)

const (
	ovW      = 1100
	ovPanelH = 300
	ovLeft   = 70
	ovRight  = 20
)

// OverloadChart draws the open-loop stretches over time, both sides on
// each panel: calls answered per second (with the offered rate), and the
// p99 of the calls answered each second on a log scale. It returns the PNG.
func OverloadChart(r OverloadReport) ([]byte, error) {
	if len(r.Sides) == 0 {
		return nil, fmt.Errorf("bench: overload chart: no sides")
	}
	h := chartTop + 2*ovPanelH + 40
	c := canvas{image.NewRGBA(image.Rect(0, 0, ovW, h))}
	draw.Draw(c.img, c.img.Bounds(), image.White, image.Point{}, draw.Src)
	s := r.Settings
	c.text(chartMargin, 20, fmt.Sprintf("Overload: open-loop mixed load, %.1fx capacity, %.0fx for %.0f s, %.1fx again (capacity %.0f calls/s, deadline %.0f ms)",
		s.Calm, s.Multiple, s.BurstSeconds, s.Calm, r.Capacity, s.DeadlineMs), colorInk)
	c.text(chartMargin, 38, fmt.Sprintf("%s  |  %s, %d CPUs  |  %s  |  RELIABILITY.md", r.Started.Format("2006-01-02"),
		orUnknown(r.Machine.CPU), r.Machine.CPUs, orUnknown(r.Machine.Server)), colorOther)
	plot := image.Rect(ovLeft, chartTop+30, ovW-ovRight, chartTop+ovPanelH-30)
	c.goodputPanel(plot, r)
	c.latencyPanel(plot.Add(image.Pt(0, ovPanelH)), r)
	for i, x := range r.Sides {
		lx := chartMargin + 300*i
		c.fill(image.Rect(lx, h-20, lx+10, h-10), overloadColors[i%2])
		c.text(lx+16, h-10, x.Side, colorInk)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, c.img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// overloadColors are the sides' colors: tsbucket's, then the baseline's.
var overloadColors = []color.Color{colorTS, colorBase}

// goodputPanel draws the calls answered per second of each side, over the
// offered rate in grey.
func (c canvas) goodputPanel(plot image.Rectangle, r OverloadReport) {
	n := len(r.Sides[0].Timeline)
	top := 0.0
	for _, x := range r.Sides {
		for _, sec := range x.Timeline {
			top = max(top, float64(sec.Offered), float64(sec.OK))
		}
	}
	c.text(chartMargin, plot.Min.Y-14, "calls answered within the deadline per second (grey: offered)", colorInk)
	scale := niceCeil(top * 1.05)
	c.axis(plot, scale)
	c.phases(plot, r.Settings, n)
	y := func(v float64) int { return plot.Max.Y - int(math.Round(v/scale*float64(plot.Dy()))) }
	c.series(plot, n, r.Sides[0].Timeline, func(sec Second) (float64, bool) { return float64(sec.Offered), true }, y, colorOther)
	for i, x := range r.Sides {
		c.series(plot, n, x.Timeline, func(sec Second) (float64, bool) { return float64(sec.OK), true }, y, overloadColors[i%2])
	}
}

// latencyPanel draws the p99 of the calls answered in each arrival second
// of each side, on a log scale from 0.1 ms.
func (c canvas) latencyPanel(plot image.Rectangle, r OverloadReport) {
	n := len(r.Sides[0].Timeline)
	c.text(chartMargin, plot.Min.Y-14, "p99 latency of the calls answered, by arrival second (ms, log scale)", colorInk)
	hi := 1.0
	for _, x := range r.Sides {
		for _, sec := range x.Timeline {
			hi = max(hi, sec.P99Ms)
		}
	}
	decades := math.Ceil(math.Log10(hi)) + 1 // from 0.1 ms
	ly := func(v float64) int {
		v = max(v, 0.1)
		return plot.Max.Y - int(math.Round((math.Log10(v)+1)/decades*float64(plot.Dy())))
	}
	for k := 0; k <= int(decades); k++ {
		v := math.Pow(10, float64(k-1))
		yy := ly(v)
		c.fill(image.Rect(plot.Min.X, yy, plot.Max.X, yy+1), colorGrid)
		label := num(v)
		c.text(plot.Min.X-6-len(label)*charW, yy+4, label, colorOther)
	}
	c.phases(plot, r.Settings, n)
	for i, x := range r.Sides {
		// A second that answered nothing has no p99: a gap in the line.
		c.series(plot, n, x.Timeline, func(sec Second) (float64, bool) { return sec.P99Ms, sec.OK > 0 }, ly, overloadColors[i%2])
	}
}

// phases marks where the burst starts and ends, and labels the seconds.
func (c canvas) phases(plot image.Rectangle, s OverloadSettings, n int) {
	x := func(t float64) int { return plot.Min.X + int(t/float64(max(n, 1))*float64(plot.Dx())) }
	for _, t := range []float64{s.BeforeSeconds, s.BeforeSeconds + s.BurstSeconds} {
		c.fill(image.Rect(x(t), plot.Min.Y, x(t)+1, plot.Max.Y), colorInk)
	}
	c.fill(image.Rect(plot.Min.X, plot.Max.Y, plot.Max.X, plot.Max.Y+1), colorInk)
	for t := 0; t <= n; t += 10 {
		c.centered(x(float64(t)), plot.Max.Y+14, fmt.Sprintf("%ds", t), colorOther)
	}
}

// series draws v of each second as a 2-pixel line, with a gap where v
// has no value.
func (c canvas) series(plot image.Rectangle, n int, secs []Second, v func(Second) (float64, bool), y func(float64) int, col color.Color) {
	px := func(i int) int { return plot.Min.X + int((float64(i)+0.5)/float64(max(n, 1))*float64(plot.Dx())) }
	for i := 1; i < len(secs); i++ {
		va, oka := v(secs[i-1])
		vb, okb := v(secs[i])
		if !oka || !okb || (va == 0 && vb == 0) {
			continue
		}
		c.line(px(i-1), y(va), px(i), y(vb), col)
	}
}

// line draws a 2-pixel line from (x0, y0) to (x1, y1).
func (c canvas) line(x0, y0, x1, y1 int, col color.Color) {
	steps := max(abs(x1-x0), abs(y1-y0), 1)
	for k := 0; k <= steps; k++ {
		x := x0 + (x1-x0)*k/steps
		y := y0 + (y1-y0)*k/steps
		c.fill(image.Rect(x, y, x+2, y+2), col)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
