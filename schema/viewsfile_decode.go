package schema

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"go.yaml.in/yaml/v3"
)

// root decodes the root mapping; nodes are the views' mapping nodes.
func (d *viewsDecoder) root(root *yaml.Node) (f ViewsFile, nodes []*yaml.Node) {
	d.fields(root, "", []vfField{
		{"keyspace", true, func(n *yaml.Node) { f.Keyspace = d.keyspace(n) }},
		{"views", true, func(n *yaml.Node) { f.Views, nodes = d.views(n) }},
		{"rollups", false, func(n *yaml.Node) { f.Rollups, d.rollupNodes = d.rollups(n) }}, // viewsfile_rollup.go
		{"autopilot", false, func(n *yaml.Node) { f.Autopilot = d.autopilot(n) }},
	})
	return f, nodes
}

func (d *viewsDecoder) keyspace(n *yaml.Node) (k Keyspace) {
	const where = "keyspace"
	d.fields(n, where, []vfField{
		{"name", true, func(n *yaml.Node) { k.Name = d.keyspaceName(n, vfAt(where, "name")) }},
		{"replication", true, func(n *yaml.Node) { k.Replication = d.replication(n, vfAt(where, "replication")) }},
		{"durable_writes", false, func(n *yaml.Node) {
			b := d.boolean(n, vfAt(where, "durable_writes"))
			k.DurableWrites = &b
		}},
		{"no_tablets", false, func(n *yaml.Node) { k.NoTablets = d.boolean(n, vfAt(where, "no_tablets")) }},
	})
	return k
}

func (d *viewsDecoder) keyspaceName(n *yaml.Node, where string) string {
	s, ok := d.str(n, where)
	if ok {
		if err := validateKeyspace(s); err != nil {
			d.fail(n, "%s: %s", where, strings.TrimPrefix(err.Error(), "keyspace: "))
		}
	}
	return s
}

// replication decodes "datacenter: factor" pairs.
func (d *viewsDecoder) replication(n *yaml.Node, where string) map[string]int {
	if !d.kind(n, yaml.MappingNode, where, "a mapping of datacenter: replication factor") {
		return nil
	}
	if len(n.Content) == 0 {
		d.fail(n, "%s: no datacenter", where)
	}
	out := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		dc, ok := d.str(k, vfAt(where, "datacenter"))
		if !ok {
			continue
		}
		if _, dup := out[dc]; dup {
			d.fail(k, "%s: datacenter %q given twice", where, dc)
		} else if err := validateDatacenter(dc); err != nil {
			d.fail(k, "%s: %v", where, err)
		}
		out[dc] = d.factor(v, vfAt(where, dc))
	}
	return out
}

func (d *viewsDecoder) factor(n *yaml.Node, where string) int {
	var rf int
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&rf) != nil {
		d.fail(n, "%s: want a replication factor, got %s", where, vfDescribe(n))
		return 0
	}
	if rf < 1 || rf > maxReplicationFactor {
		d.fail(n, "%s: replication factor %d not in [1, %d]", where, rf, maxReplicationFactor)
	}
	return rf
}

func (d *viewsDecoder) views(n *yaml.Node) ([]View, []*yaml.Node) {
	if !d.kind(n, yaml.SequenceNode, "views", "a list of views") {
		return nil, nil
	}
	if len(n.Content) == 0 {
		d.fail(n, "views: no view")
	}
	views := make([]View, len(n.Content))
	for i, vn := range n.Content {
		views[i] = d.view(vn, vfViewLabel(vn, i))
	}
	return views, n.Content
}

// vfViewLabel names a view in messages by its name, or by its position
// while the name is missing or unusable.
func vfViewLabel(n *yaml.Node, i int) string {
	if n.Kind == yaml.MappingNode {
		for j := 0; j+1 < len(n.Content); j += 2 {
			k, v := n.Content[j], n.Content[j+1]
			if k.Value == "name" && v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" && ValidateIdentifier(v.Value) == nil {
				return fmt.Sprintf("view %q", v.Value)
			}
		}
	}
	return fmt.Sprintf("view #%d", i+1)
}

func (d *viewsDecoder) view(n *yaml.Node, where string) (v View) {
	var readOrder *Order
	seen, ok := d.fields(n, where, []vfField{
		{"name", true, func(n *yaml.Node) { v.Name = d.ident(n, vfAt(where, "name")) }},
		{"comment", false, func(n *yaml.Node) { v.Comment = d.comment(n, vfAt(where, "comment")) }},
		{"key", true, func(n *yaml.Node) { v.Key = d.columns(n, vfAt(where, "key"), true) }},
		{"bucket", false, func(n *yaml.Node) { v.BucketColumn, v.Scheme = d.bucket(n, vfAt(where, "bucket")) }},
		{"unbucketed", false, func(n *yaml.Node) { v.Unbucketed = d.reason(n, vfAt(where, "unbucketed")) }},
		{"id", true, func(n *yaml.Node) { v.ID, v.Kind = d.id(n, vfAt(where, "id")) }},
		{"order", false, func(n *yaml.Node) { v.Order = d.order(n, vfAt(where, "order")) }},
		{"read_order", false, func(n *yaml.Node) {
			o := d.order(n, vfAt(where, "read_order"))
			readOrder = &o
		}},
		{"values", false, func(n *yaml.Node) { v.Values = d.columns(n, vfAt(where, "values"), false) }},
		{"ttl", false, func(n *yaml.Node) { v.TTL = d.duration(n, vfAt(where, "ttl")) }},
		{"gc_grace", false, func(n *yaml.Node) { v.GCGrace = d.duration(n, vfAt(where, "gc_grace")) }},
		{"compaction_window", false, func(n *yaml.Node) { v.CompactionWindow = d.duration(n, vfAt(where, "compaction_window")) }},
		{"low_cardinality_key", false, func(n *yaml.Node) { v.LowCardinalityKey = d.boolean(n, vfAt(where, "low_cardinality_key")) }},
		{"shards", false, func(n *yaml.Node) { v.Shards = d.shards(n, vfAt(where, "shards")) }},
		{"per_key_shards", false, func(n *yaml.Node) { v.PerKeyShards = d.boolean(n, vfAt(where, "per_key_shards")) }},
		{"group", false, func(n *yaml.Node) { v.Group = d.ident(n, vfAt(where, "group")) }},
		{"latest_of", false, func(n *yaml.Node) { v.LatestOf = d.ident(n, vfAt(where, "latest_of")) }},
	})
	v.ReadOrder = v.Order
	if readOrder != nil {
		v.ReadOrder = *readOrder
	}
	switch {
	case !ok:
	case seen["bucket"] && seen["unbucketed"]:
		d.fail(n, "%s: give bucket or unbucketed, not both", where)
	case !seen["bucket"] && !seen["unbucketed"] && !seen["latest_of"]:
		d.fail(n, "%s: missing bucket (or unbucketed: why its partitions stay bounded)", where)
	}
	return v
}

func (d *viewsDecoder) comment(n *yaml.Node, where string) string {
	s, ok := d.str(n, where)
	if ok {
		if err := validateComment(s); err != nil {
			d.fail(n, "%s: %v", where, err)
		}
	}
	return s
}

func (d *viewsDecoder) reason(n *yaml.Node, where string) string {
	s, ok := d.str(n, where)
	if ok && strings.TrimSpace(s) == "" {
		d.fail(n, "%s: the reason must not be empty", where)
	}
	return s
}

// columns decodes a list of one-pair mappings, "- name: type".
func (d *viewsDecoder) columns(n *yaml.Node, where string, key bool) []Column {
	if !d.kind(n, yaml.SequenceNode, where, "a list of name: type") {
		return nil
	}
	if key && len(n.Content) == 0 {
		d.fail(n, "%s: at least one key column is required", where)
	}
	var cols []Column
	for _, cn := range n.Content {
		if cn.Kind != yaml.MappingNode || len(cn.Content) != 2 {
			d.fail(cn, "%s: want one name: type pair, got %s", where, vfDescribePair(cn))
			continue
		}
		cols = append(cols, d.column(cn.Content[0], cn.Content[1], where, key))
	}
	return cols
}

func vfDescribePair(n *yaml.Node) string {
	if n.Kind == yaml.MappingNode {
		return fmt.Sprintf("a mapping of %d pairs", len(n.Content)/2)
	}
	return vfDescribe(n)
}

func (d *viewsDecoder) column(kn, tn *yaml.Node, where string, key bool) Column {
	c := Column{Name: d.ident(kn, where)}
	typ, ok := d.str(tn, vfAt(where, c.Name))
	c.Type = typ
	if ok && ValidateIdentifier(c.Name) == nil {
		if err := validateColumn(c, key); err != nil {
			d.fail(tn, "%s: %v", where, err)
		}
	}
	return c
}

func (d *viewsDecoder) id(n *yaml.Node, where string) (c Column, k bucket.Kind) {
	d.fields(n, where, []vfField{
		{"name", true, func(n *yaml.Node) { c.Name = d.ident(n, vfAt(where, "name")) }},
		{"kind", true, func(n *yaml.Node) { k = d.idKind(n, vfAt(where, "kind")) }},
		{"type", false, func(n *yaml.Node) { c.Type = d.idType(n, vfAt(where, "type")) }},
	})
	return c, k
}

func (d *viewsDecoder) idType(n *yaml.Node, where string) string {
	s, ok := d.str(n, where)
	if ok {
		if _, err := NormalizeType(s); err != nil {
			d.fail(n, "%s: %v", where, err)
		}
	}
	return s
}

// vfKinds are the kind names a views file accepts besides ParseKind's.
var vfKinds = map[string]bucket.Kind{
	"discord_snowflake": bucket.DiscordSnowflake(),
	"twitter_snowflake": bucket.TwitterSnowflake(),
}

func (d *viewsDecoder) idKind(n *yaml.Node, where string) bucket.Kind {
	s, ok := d.str(n, where)
	if !ok {
		return nil
	}
	if k, ok := vfKinds[s]; ok {
		return k
	}
	k, err := bucket.ParseKind(s)
	if errors.Is(err, bucket.ErrBadKind) {
		d.fail(n, "%s: %q: bad ID kind parameters: %v", where, s, err)
	} else if err != nil {
		d.fail(n, "%s: %q: unknown ID kind (want timeuuid, uuidv7, ulid, timestamp, discord_snowflake, "+
			"twitter_snowflake or snowflake(epoch=<unix ms>,worker=<bits>,seq=<bits>)): %v", where, s, err)
	}
	return k
}

func (d *viewsDecoder) order(n *yaml.Node, where string) Order {
	s, ok := d.str(n, where)
	switch strings.ToLower(s) {
	case "desc":
		return Desc
	case "asc":
		return Asc
	}
	if ok {
		d.fail(n, "%s: %q: want desc or asc", where, s)
	}
	return Desc
}

// duration reads a Go duration (90m, 36h) or whole days or weeks (30d, 2w);
// a plain 0 is zero. Negative values are refused.
func (d *viewsDecoder) duration(n *yaml.Node, where string) time.Duration {
	v, _ := d.durationOK(n, where)
	return v
}

func (d *viewsDecoder) durationOK(n *yaml.Node, where string) (time.Duration, bool) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!str" && n.ShortTag() != "!!int") {
		d.fail(n, "%s: want a duration (30d, 2w, 36h, 90m), got %s", where, vfDescribe(n))
		return 0, false
	}
	v, ok := parseVFDuration(n.Value)
	switch {
	case !ok:
		d.fail(n, "%s: %q: not a duration (30d, 2w, 36h, 90m)", where, n.Value)
		return 0, false
	case v < 0:
		d.fail(n, "%s: %q: must not be negative", where, n.Value)
		return 0, false
	}
	return v, true
}

func parseVFDuration(s string) (time.Duration, bool) {
	if v, err := time.ParseDuration(s); err == nil {
		return v, true
	}
	body, neg := strings.CutPrefix(s, "-")
	if len(body) < 2 {
		return 0, false
	}
	var per time.Duration
	switch digits := body[:len(body)-1]; {
	case strings.Trim(digits, "0123456789") != "":
		return 0, false
	case body[len(body)-1] == 'd':
		per = 24 * time.Hour
	case body[len(body)-1] == 'w':
		per = 7 * 24 * time.Hour
	default:
		return 0, false
	}
	k, err := strconv.ParseInt(body[:len(body)-1], 10, 64)
	if err != nil || k > math.MaxInt64/int64(per) {
		return 0, false
	}
	if neg {
		k = -k
	}
	return time.Duration(k) * per, true
}

// formatVFDuration writes the shortest form parseVFDuration reads back:
// whole days as "10d", else Go's form without zero minutes and seconds.
func formatVFDuration(v time.Duration) string {
	const day = 24 * time.Hour
	if v > 0 && v%day == 0 {
		return strconv.FormatInt(int64(v/day), 10) + "d"
	}
	s := v.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// bucket decodes the bucket column and scheme: scheme (ParseScheme text),
// or width and epoch for a fixed scheme.
func (d *viewsDecoder) bucket(n *yaml.Node, where string) (column string, s bucket.Scheme) {
	var width, epoch, changes *yaml.Node
	seen, ok := d.fields(n, where, []vfField{
		{"scheme", false, func(n *yaml.Node) { s = d.scheme(n, vfAt(where, "scheme")) }},
		{"width", false, func(n *yaml.Node) { width = n }},
		{"epoch", false, func(n *yaml.Node) { epoch = n }},
		{"column", false, func(n *yaml.Node) { column = d.ident(n, vfAt(where, "column")) }},
		{"changes", false, func(n *yaml.Node) { changes = n }},
	})
	defer func() {
		if changes != nil && !s.IsZero() {
			s = d.changes(s, changes, vfAt(where, "changes"))
		}
	}()
	switch {
	case !ok:
	case seen["scheme"] && (width != nil || epoch != nil):
		d.fail(n, "%s: give scheme, or width and epoch, not both", where)
	case seen["scheme"]:
	case width == nil && epoch == nil:
		d.fail(n, "%s: missing scheme (hour, day, isoweek, month) or width and epoch", where)
	case width == nil:
		d.fail(n, "%s: missing width (e.g. 10d)", where)
	case epoch == nil:
		d.fail(n, "%s: missing epoch (discord, twitter, unix or an RFC 3339 time)", where)
	default:
		s = d.fixed(width, epoch, where)
	}
	return column, s
}

// changes applies a bucket's list of scheme changes to s, in order: each a
// mapping of from (RFC 3339) and the new scheme, as scheme text or as a
// width (a fixed scheme whose buckets start at from).
func (d *viewsDecoder) changes(s bucket.Scheme, n *yaml.Node, where string) bucket.Scheme {
	if !d.kind(n, yaml.SequenceNode, where, "a list of changes (from, and width or scheme)") {
		return s
	}
	for i, cn := range n.Content {
		at := vfAt(where, strconv.Itoa(i))
		var from time.Time
		var fromOK bool
		var next bucket.Scheme
		var width *yaml.Node
		seen, ok := d.fields(cn, at, []vfField{
			{"from", true, func(n *yaml.Node) { from, fromOK = d.instant(n, vfAt(at, "from")) }},
			{"width", false, func(n *yaml.Node) { width = n }},
			{"scheme", false, func(n *yaml.Node) { next = d.scheme(n, vfAt(at, "scheme")) }},
		})
		switch {
		case !ok || !fromOK:
			continue
		case seen["scheme"] == (width != nil):
			d.fail(cn, "%s: give width or scheme, one of them", at)
			continue
		case width != nil:
			w, okW := d.durationOK(width, vfAt(at, "width"))
			if !okW {
				continue
			}
			var err error
			if next, err = bucket.Fixed(w, from); err != nil {
				d.fail(width, "%s: %v", at, err)
				continue
			}
		}
		if next.IsZero() {
			continue
		}
		h, err := s.Then(from, next)
		if err != nil {
			d.fail(cn, "%s: %v", at, err)
			continue
		}
		s = h
	}
	return s
}

// instant reads an RFC 3339 time; YAML tags an unquoted time !!timestamp.
func (d *viewsDecoder) instant(n *yaml.Node, where string) (time.Time, bool) {
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!str" || n.ShortTag() == "!!timestamp") {
		if t, err := time.Parse(time.RFC3339Nano, n.Value); err == nil {
			return t.UTC(), true
		}
	}
	d.fail(n, "%s: want an RFC 3339 time, got %s", where, vfDescribe(n))
	return time.Time{}, false
}

func (d *viewsDecoder) scheme(n *yaml.Node, where string) bucket.Scheme {
	text, ok := d.str(n, where)
	if !ok {
		return bucket.Scheme{}
	}
	s, err := bucket.ParseScheme(text)
	if err != nil {
		d.fail(n, "%s: %q: want hour, day, isoweek, month or fixed(width=...,epoch=...): %v", where, text, err)
	}
	return s
}

func (d *viewsDecoder) fixed(wn, en *yaml.Node, where string) bucket.Scheme {
	w, okW := d.durationOK(wn, vfAt(where, "width"))
	e, okE := d.epoch(en, vfAt(where, "epoch"))
	if okW && w == 0 {
		d.fail(wn, "%s: width: must be positive", where)
		okW = false
	}
	if !okW || !okE {
		return bucket.Scheme{}
	}
	s, err := bucket.Fixed(w, e)
	if err != nil {
		node := wn
		if errors.Is(err, bucket.ErrBadScheme) {
			node = en
		}
		d.fail(node, "%s: %v", where, err)
	}
	return s
}

// vfEpochs are the named epochs of fixed schemes.
var vfEpochs = map[string]time.Time{
	"discord": bucket.DiscordSnowflake().Epoch,
	"twitter": bucket.TwitterSnowflake().Epoch,
	"unix":    time.Unix(0, 0).UTC(),
}

// epoch reads a preset name or an RFC 3339 time; YAML tags an unquoted
// time !!timestamp, which is accepted as written.
func (d *viewsDecoder) epoch(n *yaml.Node, where string) (time.Time, bool) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!str" && n.ShortTag() != "!!timestamp") {
		d.fail(n, "%s: want discord, twitter, unix or an RFC 3339 time, got %s", where, vfDescribe(n))
		return time.Time{}, false
	}
	if e, ok := vfEpochs[n.Value]; ok {
		return e, true
	}
	e, err := time.Parse(time.RFC3339Nano, n.Value)
	if err != nil {
		d.fail(n, "%s: %q: want discord, twitter, unix or an RFC 3339 time", where, n.Value)
		return time.Time{}, false
	}
	return e, true
}

// shards reads a view's shard count: an integer in [1, MaxShards].
func (d *viewsDecoder) shards(n *yaml.Node, where string) int {
	if !d.kind(n, yaml.ScalarNode, where, "an integer") {
		return 0
	}
	k, err := strconv.Atoi(n.Value)
	if err != nil || n.ShortTag() != "!!int" || k < 1 || k > MaxShards {
		d.fail(n, "%s: %s: want an integer in [1, %d]", where, vfDescribe(n), MaxShards)
		return 0
	}
	return k
}
