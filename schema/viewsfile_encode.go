package schema

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"go.yaml.in/yaml/v3"
)

// vfMap builds a block mapping in insertion order.
type vfMap struct{ n *yaml.Node }

func newVFMap() vfMap { return vfMap{&yaml.Node{Kind: yaml.MappingNode}} }

func (m vfMap) add(key string, v *yaml.Node) vfMap {
	m.n.Content = append(m.n.Content, vfStr(key), v)
	return m
}

func (m vfMap) str(key, v string) vfMap {
	if v != "" {
		m.add(key, vfStr(v))
	}
	return m
}

func (m vfMap) duration(key string, v time.Duration) vfMap {
	if v != 0 {
		m.add(key, vfStr(formatVFDuration(v)))
	}
	return m
}

func vfStr(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func vfScalar(tag, v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v}
}

func (f ViewsFile) node() *yaml.Node {
	views := &yaml.Node{Kind: yaml.SequenceNode}
	for _, v := range f.Views {
		views.Content = append(views.Content, vfViewNode(v))
	}
	m := newVFMap().add("keyspace", vfKeyspaceNode(f.Keyspace)).add("views", views)
	if len(f.Rollups) > 0 {
		m.add("rollups", vfRollupsNode(f.Rollups)) // viewsfile_rollup.go
	}
	if len(f.Autopilot) > 0 {
		m.add("autopilot", vfAutopilotNode(f.Autopilot))
	}
	return m.n
}

func vfKeyspaceNode(k Keyspace) *yaml.Node {
	repl := newVFMap()
	for _, dc := range slices.Sorted(maps.Keys(k.Replication)) {
		repl.add(dc, vfScalar("!!int", strconv.Itoa(k.Replication[dc])))
	}
	m := newVFMap().str("name", k.Name).add("replication", repl.n)
	if k.DurableWrites != nil {
		m.add("durable_writes", vfScalar("!!bool", strconv.FormatBool(*k.DurableWrites)))
	}
	if k.NoTablets {
		m.add("no_tablets", vfScalar("!!bool", "true"))
	}
	return m.n
}

func vfViewNode(v View) *yaml.Node {
	m := newVFMap().str("name", v.Name).str("comment", v.Comment).add("key", vfColumnsNode(v.Key))
	if v.Bucketed() || v.BucketColumn != "" {
		m.add("bucket", vfBucketNode(v))
	}
	m.str("unbucketed", v.Unbucketed).add("id", vfIDNode(v))
	if v.Order != Desc {
		m.str("order", strings.ToLower(v.Order.String()))
	}
	if v.ReadOrder != v.Order {
		m.str("read_order", strings.ToLower(v.ReadOrder.String()))
	}
	if len(v.Values) > 0 {
		m.add("values", vfColumnsNode(v.Values))
	}
	m.duration("ttl", v.TTL).duration("gc_grace", v.GCGrace).duration("compaction_window", v.CompactionWindow)
	if v.LowCardinalityKey {
		m.add("low_cardinality_key", vfScalar("!!bool", "true"))
	}
	if v.Shards != 0 { // 1 too: it reads back as 1, not as the 0 of an omitted field
		m.add("shards", vfScalar("!!int", strconv.Itoa(v.Shards)))
	}
	if v.PerKeyShards {
		m.add("per_key_shards", vfScalar("!!bool", "true"))
	}
	m.str("group", v.Group).str("latest_of", v.LatestOf)
	return m.n
}

func vfColumnsNode(cols []Column) *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, c := range cols {
		seq.Content = append(seq.Content, newVFMap().add(c.Name, vfStr(c.Type)).n)
	}
	return seq
}

func vfBucketNode(v View) *yaml.Node {
	m := newVFMap()
	s := v.Scheme
	if !s.IsZero() {
		s = s.Changes()[0].Scheme
	}
	if s.IsZero() || s.Width() == 0 || s.String() != vfFixedText(s) {
		m.str("scheme", s.String())
	} else {
		m.str("width", formatVFDuration(s.Width())).str("epoch", vfEpochName(s.Epoch()))
	}
	m.str("column", v.BucketColumn)
	if v.Scheme.HasChanges() {
		m.add("changes", vfChangesNode(v.Scheme))
	}
	return m.n
}

func vfChangesNode(s bucket.Scheme) *yaml.Node {
	changes := &yaml.Node{Kind: yaml.SequenceNode}
	for _, c := range s.Changes()[1:] {
		cm := newVFMap().str("from", c.From.Format(time.RFC3339Nano))
		if c.Scheme.String() == vfFixedText(c.Scheme) && c.Scheme.Epoch().Equal(c.From) {
			cm.str("width", formatVFDuration(c.Scheme.Width()))
		} else {
			cm.str("scheme", c.Scheme.String())
		}
		changes.Content = append(changes.Content, cm.n)
	}
	return changes
}

// ChangesYAML is the "changes:" entry of a views file's bucket mapping that
// records the changes of s (docs/views-file.md), indented by indent
// spaces: what to paste into a file naming only s's first scheme, so it
// says what the cluster recorded (schema rebucket). "" when s has no
// change.
func ChangesYAML(s bucket.Scheme, indent int) (string, error) {
	if s.IsZero() || !s.HasChanges() {
		return "", nil
	}
	root := newVFMap().add("changes", vfChangesNode(s)).n
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return "", fmt.Errorf("encode changes: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("encode changes: %w", err)
	}
	pad := strings.Repeat(" ", indent)
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = pad + l
	}
	return strings.Join(lines, "\n") + "\n", nil
}

// vfFixedText is the String of s were it a fixed scheme; it differs from
// s.String() for the calendar schemes.
func vfFixedText(s bucket.Scheme) string {
	return "fixed(width=" + s.Width().String() + ",epoch=" + s.Epoch().Format(time.RFC3339Nano) + ")"
}

func vfEpochName(e time.Time) string {
	for name, p := range vfEpochs {
		if e.Equal(p) {
			return name
		}
	}
	return e.Format(time.RFC3339Nano)
}

func vfIDNode(v View) *yaml.Node {
	return newVFMap().str("name", v.ID.Name).str("kind", vfKindName(v.Kind)).str("type", v.ID.Type).n
}

func vfKindName(k bucket.Kind) string {
	if k == nil {
		return ""
	}
	for name, p := range vfKinds {
		if k.String() == p.String() { // String, not ==: a Kind outside bucket may not be comparable
			return name
		}
	}
	return k.String()
}
