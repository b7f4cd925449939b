package schema

import (
	"slices"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
)

// Order is a clustering order.
type Order int8

const (
	// Desc stores the newest ID first. It is the zero value and the default,
	// because "latest N" is the read every time-ordered view serves first.
	Desc Order = iota
	// Asc stores the oldest ID first.
	Asc
)

// String returns the CQL keyword.
func (o Order) String() string {
	if o == Asc {
		return "ASC"
	}
	return "DESC"
}

// Column is a named, typed column. Type is CQL type text checked against an
// allow-list grammar (see NormalizeType); it is never copied into CQL raw.
type Column struct {
	Name string
	Type string
}

// DefaultBucketColumn names the bucket column when View.BucketColumn is empty.
const DefaultBucketColumn = "bucket"

// BucketType is the CQL type of the bucket column: bucket.Bucket is an int64.
const BucketType = "bigint"

// DefaultGCGrace is the gc_grace_seconds of generated tables when
// View.GCGrace is zero: one day. Cassandra's default of ten days guards
// deletes against a replica that stays down and unrepaired for up to ten
// days; views here expire data by TTL and delete rarely, and a fully expired
// TWCS window can only be dropped gc_grace after its last cell expired, so
// ten days would keep ten days of dead windows on disk (Discord cut theirs to
// two days for the same reason; Jaeger uses three hours). One day stays well
// above the three hour max_hint_window, so hints for a briefly down replica
// still land before the tombstones they carry may be purged. The price: a
// replica down for longer than the hint window must be repaired within a
// day, or it may resurrect deleted rows. Set View.GCGrace to change it.
const DefaultGCGrace = 24 * time.Hour

// MinGCGrace is the smallest accepted GCGrace: Cassandra's default
// max_hint_window. Hints are written with a TTL of the table's
// gc_grace_seconds, so below this a replica that was down for less than the
// hint window silently loses the deletes meant for it.
const MinGCGrace = 3 * time.Hour

// MaxTTL is Cassandra's largest TTL (20 years).
const MaxTTL = 630720000 * time.Second

// View is a declarative spec of one denormalized, bucketed table: one per
// access pattern. Its partition key is (Key..., BucketColumn) and its
// clustering key the time-sortable ID in Order. A view is unbucketed only
// when Scheme is zero, and then Unbucketed must say why its partitions stay
// bounded; when the ID is itself a Key column the table has no clustering
// column at all (one row per ID, e.g. message_by_id).
type View struct {
	Name         string
	Key          []Column      // view key: the partition key columns before the bucket, >= 1
	BucketColumn string        // default "bucket"; type bigint
	Scheme       bucket.Scheme // zero => unbucketed
	Unbucketed   string        // required reason iff Scheme is zero
	ID           Column        // the time-sortable ID; Type "" => CQLTypeOf(Kind)
	Kind         bucket.Kind   // the ID's kind, required
	Order        Order         // clustering order, default Desc
	ReadOrder    Order         // the direction the view is mostly read; Lint wants == Order
	Values       []Column      // non-key columns
	TTL          time.Duration // default_time_to_live, whole seconds; 0 = none
	GCGrace      time.Duration // gc_grace_seconds, whole seconds; 0 => DefaultGCGrace
	// CompactionWindow is the TWCS window of a bucketed view: whole minutes
	// and a whole multiple of the bucket width, so a bucket stays in one
	// window. 0 derives it from the width and the TTL (bucket.CompactionWindow:
	// the width, widened when the TTL would span more than 50 windows).
	CompactionWindow  time.Duration
	LowCardinalityKey bool   // declared low-cardinality key: Lint refuses it
	Comment           string // table comment
	// Shards spreads the writes of one (key, bucket) over that many
	// partitions, for keys too hot for one partition per bucket: the
	// partition key gains ShardColumn, an item's shard is
	// bucket.ShardOf(its ID, Shards), and reads query the shards of a bucket
	// concurrently and merge them in ID order. 0 or 1: not sharded. Only a
	// bucketed view may be sharded; at most MaxShards.
	Shards int
	// PerKeyShards limits Shards to the keys promoted as hot (HotKeysTable:
	// repo.Repo.PromoteKey, automatic with repo.Options.Schemes.PromoteAfter): other
	// keys keep one partition, one query, per bucket. A promoted key's items
	// from the promotion's instant on go to bucket.ShardOf(ID, Shards), its
	// earlier ones stayed in shard 0; reads of its buckets from the one
	// holding that instant query every shard. Needs Shards > 1.
	PerKeyShards bool
	// Group names the item type the view belongs to: the views of one group
	// are the denormalized copies of one kind of item, written together by
	// one repository (Group hands it exactly those), and repaired or
	// backfilled from one another, never from another group's views. ""
	// is no group. It places no row, so it may change.
	Group string
	// LatestOf makes the view a latest-value view of the named view (its
	// source): one live row per key, the item with the newest ID time the
	// source holds for that key, whatever order items arrive in. Its key
	// and ID are the source's, its values a subset of the source's, and it
	// has no bucket (nor Unbucketed reason, nor shards): its partition is
	// (Key...) and holds the newest item plus, for a while, the tombstones
	// that retired older ones (docs/design.md, "Latest values").
	LatestOf string
}

// IsLatest reports whether the view is a latest-value view (LatestOf).
func (v View) IsLatest() bool { return v.LatestOf != "" }

// Group returns the views of views whose Group is name, in their order;
// name "" returns the views in no group.
func Group(views []View, name string) []View {
	var out []View
	for _, v := range views {
		if v.Group == name {
			out = append(out, v)
		}
	}
	return out
}

// Groups names the groups of views, in order of first appearance; views in
// no group are not named.
func Groups(views []View) []string {
	var out []string
	for _, v := range views {
		if v.Group != "" && !slices.Contains(out, v.Group) {
			out = append(out, v.Group)
		}
	}
	return out
}

// HotKeysTable records the keys of PerKeyShards views promoted to their
// view's shards, and from when.
const HotKeysTable = "tsbucket_hot_keys"

// ShardColumn names the shard column of a sharded view (type int).
const ShardColumn = "shard"

// MaxShards bounds View.Shards: a read of a bucket costs one query per shard.
const MaxShards = 256

// Sharded reports whether the view spreads a bucket over several shards.
func (v View) Sharded() bool { return v.Shards > 1 }

// WithDefaults returns a copy with defaults filled in: BucketColumn for a
// bucketed view, ID.Type from Kind, GCGrace. The copy owns its slices, so
// the caller's View is never changed through it.
func (v View) WithDefaults() View {
	v.Key = append([]Column(nil), v.Key...)
	v.Values = append([]Column(nil), v.Values...)
	if v.Bucketed() && v.BucketColumn == "" {
		v.BucketColumn = DefaultBucketColumn
	}
	if v.ID.Type == "" {
		v.ID.Type = CQLTypeOf(v.Kind)
	}
	if v.GCGrace == 0 {
		v.GCGrace = DefaultGCGrace
	}
	return v
}

// Bucketed reports whether the view has a bucket scheme.
func (v View) Bucketed() bool { return !v.Scheme.IsZero() }

// idInKey reports whether the ID is a partition key column, which makes the
// view one row per partition with no clustering column.
func (v View) idInKey() bool {
	for _, c := range v.Key {
		if c.Name == v.ID.Name {
			return true
		}
	}
	return false
}

// bucketColumn returns the bucket column name with its default applied.
func (v View) bucketColumn() string {
	if v.BucketColumn == "" {
		return DefaultBucketColumn
	}
	return v.BucketColumn
}

// PartitionKey returns the partition key columns: the key columns, then the
// bucket column if the view is bucketed.
func (v View) PartitionKey() []string {
	names := make([]string, 0, len(v.Key)+1)
	for _, c := range v.Key {
		names = append(names, c.Name)
	}
	if v.Bucketed() {
		names = append(names, v.bucketColumn())
	}
	if v.Sharded() {
		names = append(names, ShardColumn)
	}
	return names
}

// ClusteringKey returns the clustering columns: the ID, or none when the ID
// is part of the partition key.
func (v View) ClusteringKey() []string {
	if v.idInKey() {
		return nil
	}
	return []string{v.ID.Name}
}

// Columns returns every column in table order: key, bucket, ID, values.
func (v View) Columns() []string {
	names := append(v.PartitionKey(), v.ClusteringKey()...)
	for _, c := range v.Values {
		names = append(names, c.Name)
	}
	return names
}

// PresenceTable names the view's bucket-presence index: which buckets of a
// key hold data, PRIMARY KEY ((key...), bucket) newest bucket first.
func (v View) PresenceTable() string { return v.Name + PresenceSuffix }

// PresenceSuffix is appended to a view name to name its presence table.
const PresenceSuffix = "_buckets"
