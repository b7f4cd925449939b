package schema

import (
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// autopilot decodes the autopilot section: a list of policies, one per view.
func (d *viewsDecoder) autopilot(n *yaml.Node) []AutopilotPolicy {
	if !d.kind(n, yaml.SequenceNode, "autopilot", "a list of policies") {
		return nil
	}
	out := make([]AutopilotPolicy, len(n.Content))
	for i, pn := range n.Content {
		out[i] = d.policy(pn, "autopilot: "+vfPolicyLabel(pn, i))
	}
	d.policyNodes = n.Content
	return out
}

// vfPolicyLabel names a policy by its view, or by its position.
func vfPolicyLabel(n *yaml.Node, i int) string {
	if n.Kind == yaml.MappingNode {
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == "view" && n.Content[j+1].Kind == yaml.ScalarNode {
				return strconv.Quote(n.Content[j+1].Value)
			}
		}
	}
	return "policy #" + strconv.Itoa(i+1)
}

func (d *viewsDecoder) policy(n *yaml.Node, where string) (p AutopilotPolicy) {
	d.fields(n, where, []vfField{
		{"view", true, func(n *yaml.Node) { p.View = d.ident(n, vfAt(where, "view")) }},
		{"rows", false, func(n *yaml.Node) { p.Rows = d.band(n, vfAt(where, "rows")) }},
		{"bytes", false, func(n *yaml.Node) { p.Bytes = d.band(n, vfAt(where, "bytes")) }},
		{"widths", false, func(n *yaml.Node) { p.Widths = d.widths(n, vfAt(where, "widths")) }},
		{"max_shards", false, func(n *yaml.Node) { p.MaxShards = d.shards(n, vfAt(where, "max_shards")) }},
		{"min_period", false, func(n *yaml.Node) { p.MinPeriod = d.duration(n, vfAt(where, "min_period")) }},
		{"hysteresis", false, func(n *yaml.Node) { p.Hysteresis = d.fraction(n, vfAt(where, "hysteresis")) }},
		{"block_above_rows", false, func(n *yaml.Node) { p.BlockAboveRows = d.count(n, vfAt(where, "block_above_rows")) }},
	})
	return p
}

// band decodes {low: N, high: N}; the order of the two is checked with the
// view (AutopilotPolicy.Validate).
func (d *viewsDecoder) band(n *yaml.Node, where string) (b Band) {
	d.fields(n, where, []vfField{
		{"low", true, func(n *yaml.Node) { b.Low = d.count(n, vfAt(where, "low")) }},
		{"high", true, func(n *yaml.Node) { b.High = d.count(n, vfAt(where, "high")) }},
	})
	return b
}

func (d *viewsDecoder) count(n *yaml.Node, where string) int64 {
	k, err := strconv.ParseInt(n.Value, 10, 64)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || err != nil || k < 0 {
		d.fail(n, "%s: want a whole number at least 0, got %s", where, vfDescribe(n))
		return 0
	}
	return k
}

func (d *viewsDecoder) fraction(n *yaml.Node, where string) float64 {
	f, err := strconv.ParseFloat(n.Value, 64)
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!float" && n.ShortTag() != "!!int") || err != nil {
		d.fail(n, "%s: want a number in [0, 1), got %s", where, vfDescribe(n))
		return 0
	}
	return f
}

func (d *viewsDecoder) widths(n *yaml.Node, where string) []time.Duration {
	if !d.kind(n, yaml.SequenceNode, where, "a list of widths") {
		return nil
	}
	if len(n.Content) == 0 {
		d.fail(n, "%s: no width", where)
	}
	out := make([]time.Duration, 0, len(n.Content))
	for _, wn := range n.Content {
		if w, ok := d.durationOK(wn, where); ok {
			out = append(out, w)
		}
	}
	return out
}

// checkAutopilot checks each policy against its view in the file
// (AutopilotPolicy.Validate); a view named twice or not in the file fails.
func (d *viewsDecoder) checkAutopilot(f ViewsFile) {
	seen := map[string]bool{}
	for i, p := range f.Autopilot {
		n := d.policyNodes[i]
		v, ok := viewNamed(f.Views, p.View)
		switch {
		case !ok:
			d.fail(n, "%v", &PolicyError{View: p.View, Field: "view", Msg: "no such view in the file"})
		case seen[p.View]:
			d.fail(n, "%v", &PolicyError{View: p.View, Field: "view", Msg: "a second policy for the view"})
		default:
			if _, err := p.Validate(v); err != nil {
				d.fail(n, "%v", err)
			}
		}
		seen[p.View] = true
	}
}

func viewNamed(views []View, name string) (View, bool) {
	for _, v := range views {
		if v.Name == name {
			return v, true
		}
	}
	return View{}, false
}

// vfAutopilotNode writes the policies as written (zero fields left out).
func vfAutopilotNode(ps []AutopilotPolicy) *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, p := range ps {
		m := newVFMap().str("view", p.View)
		for _, b := range []struct {
			name string
			band Band
		}{{"rows", p.Rows}, {"bytes", p.Bytes}} {
			if b.band != (Band{}) {
				m.add(b.name, newVFMap().add("low", vfScalar("!!int", strconv.FormatInt(b.band.Low, 10))).
					add("high", vfScalar("!!int", strconv.FormatInt(b.band.High, 10))).n)
			}
		}
		if len(p.Widths) > 0 {
			ws := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, w := range p.Widths {
				ws.Content = append(ws.Content, vfStr(formatVFDuration(w)))
			}
			m.add("widths", ws)
		}
		if p.MaxShards != 0 {
			m.add("max_shards", vfScalar("!!int", strconv.Itoa(p.MaxShards)))
		}
		m.duration("min_period", p.MinPeriod)
		if p.Hysteresis != 0 {
			m.add("hysteresis", vfScalar("!!float", strconv.FormatFloat(p.Hysteresis, 'g', -1, 64)))
		}
		if p.BlockAboveRows != 0 {
			m.add("block_above_rows", vfScalar("!!int", strconv.FormatInt(p.BlockAboveRows, 10)))
		}
		seq.Content = append(seq.Content, m.n)
	}
	return seq
}
