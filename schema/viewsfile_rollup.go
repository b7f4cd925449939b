package schema

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// The rollups section of a views file (docs/views-file.md, "Rollups"):
//
//	rollups:
//	  - name: readings_hourly
//	    source: readings_by_device
//	    every: 1h
//	    columns: [temp, humidity]
//	    functions: [count, avg, min, max]   # optional: all by default

func (d *viewsDecoder) rollups(n *yaml.Node) ([]Rollup, []*yaml.Node) {
	if !d.kind(n, yaml.SequenceNode, "rollups", "a list of rollups") {
		return nil, nil
	}
	out := make([]Rollup, len(n.Content))
	for i, rn := range n.Content {
		out[i] = d.rollup(rn, fmt.Sprintf("rollup #%d", i+1))
	}
	return out, n.Content
}

func (d *viewsDecoder) rollup(n *yaml.Node, where string) (r Rollup) {
	d.fields(n, where, []vfField{
		{"name", true, func(n *yaml.Node) { r.Name = d.ident(n, vfAt(where, "name")) }},
		{"source", true, func(n *yaml.Node) { r.Source = d.ident(n, vfAt(where, "source")) }},
		{"every", true, func(n *yaml.Node) { r.Every = d.duration(n, vfAt(where, "every")) }},
		{"columns", true, func(n *yaml.Node) { r.Columns = d.idents(n, vfAt(where, "columns")) }},
		{"functions", false, func(n *yaml.Node) { r.Functions = d.idents(n, vfAt(where, "functions")) }},
	})
	return r
}

// idents decodes a list of identifiers.
func (d *viewsDecoder) idents(n *yaml.Node, where string) []string {
	if !d.kind(n, yaml.SequenceNode, where, "a list of names") {
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		out = append(out, d.ident(c, where))
	}
	return out
}

// checkRollups applies CheckRollups, failing at the refused rollup's place
// in the file.
func (d *viewsDecoder) checkRollups(f ViewsFile, nodes []*yaml.Node) {
	for i, r := range f.Rollups {
		err := CheckRollups(f.Views, f.Rollups[:i+1])
		var re *RollupError
		if errors.As(err, &re) && re.Rollup == r.Name {
			d.fail(nodes[i], "rollup %q: %s: %s", r.Name, re.Field, re.Reason)
			return
		}
	}
}

func vfRollupsNode(rs []Rollup) *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, r := range rs {
		m := newVFMap().str("name", r.Name).str("source", r.Source).duration("every", r.Every)
		m.add("columns", vfNamesNode(r.Columns))
		if len(r.Functions) > 0 {
			m.add("functions", vfNamesNode(r.Functions))
		}
		seq.Content = append(seq.Content, m.n)
	}
	return seq
}

func vfNamesNode(names []string) *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range names {
		seq.Content = append(seq.Content, vfStr(s))
	}
	return seq
}
