package schema

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tsbucket/tsbucket/bucket"
)

// maxComment bounds a table comment; it is a note, not a document.
const maxComment = 1000

// Validate checks every identifier, type and structural rule of the view
// (with defaults applied) and returns the first problem found, wrapping
// ErrBadIdentifier, ErrBadType or ErrBadView. Lint adds the modelling
// rules on top; Validate only refuses specs that cannot be made into a
// correct table.
func (v View) Validate() error {
	v = v.WithDefaults()
	if err := v.validate(); err != nil {
		return fmt.Errorf("view %q: %w", v.Name, err)
	}
	return nil
}

func (v View) validate() error {
	checks := []func() error{
		v.validateName, v.validateKey, v.validateID, v.validateBucket,
		v.validateValues, v.validateUnique, v.validateOptions, v.validateLatest,
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (v View) validateName() error {
	if err := ValidateIdentifier(v.Name); err != nil {
		return err
	}
	if reservedTable(v.Name) {
		return fmt.Errorf("%w: the name %q: names beginning %q are kept for tsbucket's own tables", ErrBadView, v.Name, reservedPrefix)
	}
	if v.Bucketed() {
		if err := ValidateIdentifier(v.PresenceTable()); err != nil {
			return fmt.Errorf("presence table: %w", err)
		}
	}
	if v.Group != "" {
		if err := ValidateIdentifier(v.Group); err != nil {
			return fmt.Errorf("group: %w", err)
		}
	}
	return nil
}

func (v View) validateKey() error {
	if len(v.Key) == 0 {
		return fmt.Errorf("%w: at least one key column is required", ErrBadView)
	}
	for _, c := range v.Key {
		if err := validateColumn(c, true); err != nil {
			return fmt.Errorf("key: %w", err)
		}
	}
	return nil
}

func (v View) validateID() error {
	want := CQLTypeOf(v.Kind)
	if want == "" {
		return fmt.Errorf("%w: an ID kind is required (snowflake, timeuuid, uuidv7, ulid or timestamp)", ErrBadView)
	}
	if err := validateColumn(v.ID, true); err != nil {
		return fmt.Errorf("id: %w", err)
	}
	got, _ := NormalizeType(v.ID.Type) // validated just above
	if got != want {
		return fmt.Errorf("%w: id %q has type %s but %s IDs are stored as %s to keep their order",
			ErrBadType, v.ID.Name, got, v.Kind.Name(), want)
	}
	if v.idInKey() {
		for _, c := range v.Key {
			if t, _ := NormalizeType(c.Type); c.Name == v.ID.Name && t != want {
				return fmt.Errorf("%w: key column %q is the ID and must be %s", ErrBadType, c.Name, want)
			}
		}
	}
	if v.Order != Desc && v.Order != Asc || v.ReadOrder != Desc && v.ReadOrder != Asc {
		return fmt.Errorf("%w: order must be Desc or Asc", ErrBadView)
	}
	return nil
}

func (v View) validateBucket() error {
	if !v.Bucketed() {
		if v.Unbucketed == "" && !v.IsLatest() {
			return fmt.Errorf("%w: an unbucketed view must say why its partitions stay bounded (Unbucketed)", ErrBadView)
		}
		if v.BucketColumn != "" {
			return fmt.Errorf("%w: BucketColumn %q set on an unbucketed view", ErrBadView, v.BucketColumn)
		}
		return nil
	}
	if v.Unbucketed != "" {
		return fmt.Errorf("%w: Unbucketed reason given but the view has a bucket scheme", ErrBadView)
	}
	if v.idInKey() {
		return fmt.Errorf("%w: the ID %q is in the partition key, so a bucket adds nothing", ErrBadView, v.ID.Name)
	}
	if w := v.Scheme.Width(); w <= 0 {
		return fmt.Errorf("%w: bucket scheme %s has no width", ErrBadView, v.Scheme)
	}
	return ValidateIdentifier(v.BucketColumn)
}

func (v View) validateValues() error {
	for _, c := range v.Values {
		if err := validateColumn(c, false); err != nil {
			return fmt.Errorf("value: %w", err)
		}
	}
	return nil
}

// validateUnique refuses a column name used twice (the ID may repeat a key
// column: that is how a one-row-per-ID view is declared).
func (v View) validateUnique() error {
	seen := make(map[string]bool)
	for _, name := range v.Columns() {
		if seen[name] {
			return fmt.Errorf("%w: column %q declared twice", ErrBadView, name)
		}
		seen[name] = true
	}
	return nil
}

func (v View) validateShards() error {
	switch {
	case v.Shards < 0 || v.Shards > MaxShards:
		return fmt.Errorf("%w: Shards %d not in [0, %d]", ErrBadView, v.Shards, MaxShards)
	case v.Sharded() && !v.Bucketed():
		return fmt.Errorf("%w: only a bucketed view can be sharded", ErrBadView)
	case v.PerKeyShards && !v.Sharded():
		return fmt.Errorf("%w: PerKeyShards needs Shards > 1: the count a promoted key gets", ErrBadView)
	}
	return nil
}

func (v View) validateOptions() error {
	if err := v.validateShards(); err != nil {
		return err
	}
	if err := validateSeconds("TTL", v.TTL, 0, MaxTTL); err != nil {
		return err
	}
	if err := validateSeconds("GCGrace", v.GCGrace, MinGCGrace, math.MaxInt32*time.Second); err != nil {
		return err
	}
	if err := v.validateCompactionWindow(); err != nil {
		return err
	}
	return validateComment(v.Comment)
}

// maxCompactionWindow bounds an explicit TWCS window: a window longer than
// the longest TTL would never expire as a whole.
const maxCompactionWindow = MaxTTL

func (v View) validateCompactionWindow() error {
	w := v.CompactionWindow
	switch {
	case w == 0:
		return nil
	case v.IsLatest():
		return fmt.Errorf("%w: CompactionWindow set on a latest-value view (it uses Leveled compaction)", ErrBadView)
	case !v.Bucketed():
		return fmt.Errorf("%w: CompactionWindow set on an unbucketed view (it uses SizeTiered compaction)", ErrBadView)
	case w < time.Minute || w > maxCompactionWindow || w%time.Minute != 0:
		return fmt.Errorf("%w: CompactionWindow %s must be whole minutes in [1m, %s] (TWCS's smallest unit is a minute)",
			ErrBadView, w, maxCompactionWindow)
	}
	// A multiple of the width keeps each bucket in as few windows as it can
	// be; so does a multiple of the derived window (the width rounded up to
	// whole minutes, what the view gets without CompactionWindow).
	width := v.Scheme.Width()
	base := bucket.CompactionWindow(width, 0).Duration()
	if w%width == 0 || w%base == 0 {
		return nil
	}
	also := ""
	if base != width {
		also = fmt.Sprintf(" nor of %s (the width in whole minutes, the window it gets by default)", base)
	}
	return fmt.Errorf("%w: CompactionWindow %s is not a whole multiple of the bucket width %s%s: "+
		"a bucket would be spread over more windows than it needs, each read of it touching every one", ErrBadView, w, width, also)
}

func validateSeconds(what string, d, lo, hi time.Duration) error {
	if d < lo || d > hi || d%time.Second != 0 {
		return fmt.Errorf("%w: %s %s must be whole seconds in [%s, %s]", ErrBadView, what, d, lo, hi)
	}
	return nil
}

// validateComment keeps comments printable: the literal is escaped anyway,
// but control characters in DDL only hide things from whoever reads it.
func validateComment(s string) error {
	if len(s) > maxComment || !utf8.ValidString(s) {
		return fmt.Errorf("%w: comment must be valid UTF-8 of at most %d bytes", ErrBadView, maxComment)
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return fmt.Errorf("%w: comment contains control character %U", ErrBadView, r)
		}
	}
	return nil
}

// reservedPrefix begins the names of tsbucket's own tables (MetadataTable,
// MigrationsTable, BlockedKeysTable, HotKeysTable, the autopilot's): a view
// or rollup of such a name would be taken for one of them, or they for it.
const reservedPrefix = "tsbucket_"

func reservedTable(name string) bool { return strings.HasPrefix(name, reservedPrefix) }

// validateColumn checks the name and type; key columns must also have a
// type Cassandra accepts in a primary key.
func validateColumn(c Column, key bool) error {
	if err := ValidateIdentifier(c.Name); err != nil {
		return err
	}
	t, err := parseType(c.Type)
	if err != nil {
		return fmt.Errorf("column %q: %w", c.Name, err)
	}
	if key {
		switch {
		case t.isMultiCell():
			return fmt.Errorf("%w: column %q: a key column cannot be a non-frozen collection", ErrBadType, c.Name)
		case t.holds("duration") || t.name == "vector":
			// Cassandra refuses a duration anywhere in a key column's type
			// (frozen<list<duration>> too): durations have no order.
			return fmt.Errorf("%w: column %q: %s cannot be part of a primary key", ErrBadType, c.Name, c.Type)
		}
	}
	return nil
}

// validateLatest checks what a latest-value view can be on its own;
// CheckLatest checks it against its source.
func (v View) validateLatest() error {
	if !v.IsLatest() {
		return nil
	}
	switch {
	case ValidateIdentifier(v.LatestOf) != nil:
		return fmt.Errorf("latest_of: %w", ValidateIdentifier(v.LatestOf))
	case v.LatestOf == v.Name:
		return fmt.Errorf("%w: a latest-value view cannot be its own source", ErrBadView)
	case v.Bucketed():
		return fmt.Errorf("%w: a latest-value view has no bucket: its partition holds one live row per key", ErrBadView)
	case v.Unbucketed != "":
		return fmt.Errorf("%w: a latest-value view needs no Unbucketed reason: it holds one live row per key", ErrBadView)
	case v.Shards > 1:
		return fmt.Errorf("%w: a latest-value view is not sharded: it takes one write per item of its key", ErrBadView)
	case v.idInKey():
		return fmt.Errorf("%w: the ID %q of a latest-value view cannot be in its key", ErrBadView, v.ID.Name)
	case v.Order != Desc:
		return fmt.Errorf("%w: a latest-value view is stored newest first (order desc)", ErrBadView)
	}
	return nil
}
