package autopilot

import (
	"fmt"
	"math"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
)

// state places a p99 (rows, bytes) against the policy's bands, with its
// hysteresis: above when either dimension is above its band's top by more
// than the hysteresis, below when both are below their band's bottom by
// more than it.
func (p policy) state(rows, bytes float64) string {
	h := p.Hysteresis
	switch {
	case rows > float64(p.Rows.High)*(1+h) || bytes > float64(p.Bytes.High)*(1+h):
		return StateAbove
	case rows < float64(p.Rows.Low)*(1-h) && bytes < float64(p.Bytes.Low)*(1-h):
		return StateBelow
	}
	return StateInBand
}

// distance is how far (rows, bytes) is from the bands, in log units: zero
// inside. It ranks widths: a move must lower it.
func (p policy) distance(rows, bytes float64) float64 {
	rows, bytes = max(rows, 0.5), max(bytes, 0.5) // a zero is very far below, not infinitely
	above := max(0, math.Log(rows/float64(p.Rows.High)), math.Log(bytes/float64(p.Bytes.High)))
	below := max(0, min(math.Log(float64(p.Rows.Low)/rows), math.Log(float64(p.Bytes.Low)/bytes)))
	return above + below
}

// offCenter is how far rows is from the middle of the rows band (in log
// units): of several widths inside the band the one nearest the middle
// leaves the most room both ways.
func (p policy) offCenter(rows float64) float64 {
	mid := math.Sqrt(float64(max(p.Rows.Low, 1)) * float64(p.Rows.High))
	return math.Abs(math.Log(max(rows, 0.5) / mid))
}

// widthAction picks the allowed width whose expected p99 is nearest the
// band (of several inside it, the one nearest its middle), if it is
// strictly nearer than the width in force, and returns the change, taking effect at the first bucket
// boundary at least Lead ahead.
func (in Input) widthAction(rows, bytes float64, cur time.Duration) (Action, bool) {
	p := policy{in.Policy}
	best, bestD := cur, p.distance(rows, bytes)
	for _, w := range p.Widths {
		f := float64(w) / float64(cur)
		d := p.distance(rows*f, bytes*f)
		if d < bestD-1e-9 || (d < 1e-9 && bestD < 1e-9 && p.offCenter(rows*f) < p.offCenter(rows*float64(best)/float64(cur))) {
			best, bestD = w, d
		}
	}
	if best == cur || bestD >= p.distance(rows, bytes)-1e-9 {
		return Action{}, false
	}
	from, err := in.View.Scheme.Latest().StartAtOrAfter(in.Now.Add(in.Lead))
	if err != nil {
		return Action{}, false
	}
	f := float64(best) / float64(cur)
	a := Action{Kind: KindWidth, View: in.View.Name, From: from.UTC(), OldWidth: cur, NewWidth: best,
		Rows: int64(rows), Bytes: int64(bytes), PredRows: int64(rows * f), PredBytes: int64(bytes * f)}
	a.Reason = fmt.Sprintf("p99 partition %d rows / %d bytes at %v is %s the band rows [%d, %d] bytes [%d, %d]; at %v expect %d rows / %d bytes",
		a.Rows, a.Bytes, cur, p.state(rows, bytes), p.Rows.Low, p.Rows.High, p.Bytes.Low, p.Bytes.High, best, a.PredRows, a.PredBytes)
	return a, true
}

// NextScheme is the scheme an Action of KindWidth records: fixed buckets
// of NewWidth starting at From (a boundary of the scheme before it).
func (a Action) NextScheme() (bucket.Scheme, error) {
	return bucket.Fixed(a.NewWidth, a.From)
}
