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

// AutopilotChart draws each view's largest partition per bucket over the
// run (with the autopilot in tsbucket's color, without in the baseline's)
// against the band (grey lines). It returns the PNG.
func AutopilotChart(r AutopilotReport) ([]byte, error) {
	if len(r.Sides) == 0 {
		return nil, fmt.Errorf("bench: autopilot chart: no views")
	}
	const h = chartTop + 360
	c := canvas{image.NewRGBA(image.Rect(0, 0, ovW, h))}
	draw.Draw(c.img, c.img.Bounds(), image.White, image.Point{}, draw.Src)
	c.text(chartMargin, 20, "Autopilot: p99 partition of each bucket (rows; a promoted key per shard), 10x ramp at +6..10 s, a hot key from +26 s", colorInk)
	c.text(chartMargin, 38, fmt.Sprintf("%s  |  band %d..%d rows (grey)  |  BENCHMARKS.md", r.Started.Format("2006-01-02"), r.Band.Low, r.Band.High), colorOther)
	plot := image.Rect(ovLeft, chartTop+20, ovW-ovRight, h-50)
	top, end := float64(r.Band.High), 1.0
	for _, s := range r.Sides {
		for _, p := range s.Timeline {
			top, end = max(top, float64(p.P99Rows)), max(end, p.Seconds+1)
		}
	}
	scale := niceCeil(top * 1.05)
	c.axis(plot, scale)
	x := func(t float64) int { return plot.Min.X + int(t/end*float64(plot.Dx())) }
	y := func(v float64) int { return plot.Max.Y - int(math.Round(v/scale*float64(plot.Dy()))) }
	for _, v := range []int64{r.Band.Low, r.Band.High} {
		c.fill(image.Rect(plot.Min.X, y(float64(v)), plot.Max.X, y(float64(v))+1), colorOther)
	}
	for t := 0; t <= int(end); t += 5 {
		c.centered(x(float64(t)), plot.Max.Y+14, fmt.Sprintf("%ds", t), colorOther)
	}
	colors := []color.Color{colorTS, colorBase}
	for i := len(r.Sides) - 1; i >= 0; i-- { // the autopilot's line on top where they agree
		c.steps(r.Sides[i].Timeline, x, y, colors[i%2])
	}
	for i, s := range r.Sides {
		c.fill(image.Rect(chartMargin+300*i, h-20, chartMargin+300*i+10, h-10), colors[i%2])
		c.text(chartMargin+300*i+16, h-10, s.View, colorInk)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, c.img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// steps draws a timeline as steps: each bucket's value from its start to
// the next bucket's.
func (c canvas) steps(ps []AutopilotPoint, x func(float64) int, y func(float64) int, col color.Color) {
	for i, p := range ps {
		next := p.Seconds + 1
		if i+1 < len(ps) {
			next = ps[i+1].Seconds
		}
		c.line(x(p.Seconds), y(float64(p.P99Rows)), x(next), y(float64(p.P99Rows)), col)
		if i+1 < len(ps) {
			c.line(x(next), y(float64(p.P99Rows)), x(next), y(float64(ps[i+1].P99Rows)), col)
		}
	}
}
