package repo

import (
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
)

// row is one item as one view stores it: everything a write needs, derived and
// validated before any statement is sent.
type row struct {
	v       *view
	item    reflect.Value
	id      bucket.ID
	bucket  bucket.Bucket
	key     Key
	shard   int    // write shard of a sharded view, else 0
	fields  []any  // the item's columns boxed once for every view, by slot (fields.go); nil: read from item
	keyText string // key.String() of a per-key sharded view's row, else ""
	partKey string // view key, bucket and shard: the partition, for grouping and metrics
	presKey string // view key and bucket: the presence-index entry
	bytes   int    // estimated payload
	unset   bool   // derived loosely (rowsOfLoose) from an item missing this view's ID
}

// derivation is what deriveRows checks of an item besides its IDs.
type derivation uint8

const (
	// forWrite: key values set and valid, and every value within
	// Options.Write.MaxValueBytes (its size estimated: row.bytes).
	forWrite derivation = iota
	// forStored: key values set and valid; values neither checked nor
	// sized: rows of a stored item, addressed by their primary keys (a
	// Delete, a read of a row's write time). An item stored under a
	// larger MaxValueBytes (another instance's, or an earlier setting)
	// must still be deletable.
	forStored
	// loose: forStored without refusing empty key values, for a Delete
	// that may name the item by its ID alone (a text or blob key left
	// empty).
	loose
)

// rowsOf derives the rows of item for every view, or the first reason it cannot be
// written. Nothing is sent when this fails.
func (r *Repo[T]) rowsOf(item *T) ([]row, error) { return r.deriveRows(item, forWrite) }

// rowsOfLoose derives the rows of item for a Delete that may name the item
// by its ID alone (derivation loose).
func (r *Repo[T]) rowsOfLoose(item *T) ([]row, error) { return r.deriveRows(item, loose) }

func (r *Repo[T]) deriveRows(item *T, d derivation) ([]row, error) {
	if item == nil {
		return nil, fmt.Errorf("%w: nil item", ErrBadItem)
	}
	iv := reflect.ValueOf(item).Elem()
	if rec, ok := any(item).(*Record); ok && d == forWrite {
		if err := r.checkRecord(*rec); err != nil {
			return nil, err
		}
	}
	rows := make([]row, 0, len(r.order))
	var fields []any
	var facts []fieldFacts
	var factsBuf [8]fieldFacts // on the stack: only the rows' payloads read them
	nf := len(r.fields.paths)
	keys := make(Key, r.keyValues, r.keyValues+nf) // every row's key and the item's fields: one allocation
	if d == forWrite && nf > 0 {
		// A write binds every column: each field read and boxed once. A
		// Delete binds the keys alone, and reads them per view.
		fields, facts = keys[r.keyValues:cap(keys)], factsBuf[:]
		if nf > len(factsBuf) {
			facts = make([]fieldFacts, nf)
		}
		r.fields.load(iv, fields, facts[:nf], r.opts.Write.MaxValueBytes)
	}
	for _, v := range r.order {
		n := len(v.spec.Key)
		rw, err := r.unnamedRowOf(v, iv, d, keys[:n:n], fields, facts, sameID(rows, v))
		keys = keys[n:]
		if err != nil && d == loose && !v.idInKey {
			// Loosely, an unset ID of a view not keyed by it (only the
			// ID-keyed view's ID filled in) is one more unset value.
			rw, err = row{v: v, item: iv, unset: true}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("view %s: %w", v.spec.Name, err)
		}
		rows = append(rows, rw)
	}
	nameRows(rows)
	return rows, nil
}

// sameID is the row already derived (in rows) whose ID v's row shares
// (view.idFrom), or nil.
func sameID(rows []row, v *view) *row {
	if v.idFrom == nil {
		return nil
	}
	for i := range rows {
		if rows[i].v == v.idFrom && !rows[i].unset {
			return &rows[i]
		}
	}
	return nil
}

// rowOf derives the row of iv in v, its key in key (len(v.spec.Key) values),
// from fields and facts (fieldSet.load; nil: read from iv), with the ID
// (and the bucket, under the same scheme) of same when it is not nil,
// checked as d says, and named (name).
// Two parameters, not one struct: the row keeps fields, and a struct
// holding both would have taken facts off the stack with it.
func (r *Repo[T]) rowOf(v *view, iv reflect.Value, d derivation, key Key, fields []any, facts []fieldFacts, same *row) (row, error) {
	rw, err := r.unnamedRowOf(v, iv, d, key, fields, facts, same)
	if err == nil {
		rw.name()
	}
	return rw, err
}

// unnamedRowOf is rowOf without the row's presKey and partKey, which
// deriveRows names for all its rows at once (nameRows).
func (r *Repo[T]) unnamedRowOf(v *view, iv reflect.Value, d derivation, key Key, fields []any, facts []fieldFacts, same *row) (row, error) {
	rw := row{v: v, item: iv, fields: fields}
	if err := rw.identify(same); err != nil {
		return rw, err
	}
	rw.key = key
	for i := range rw.key {
		rw.key[i] = rw.keyColumn(i)
	}
	if err := rw.key.validate(v.spec.Key); err != nil && d != loose {
		return rw, err
	}
	if v.keyRangeChecked {
		if err := rw.key.checkRange(v.spec.Key); err != nil {
			return rw, err
		}
	}
	if d == forWrite {
		bytes, err := r.payload(v, iv, facts)
		if err != nil {
			return rw, err
		}
		rw.bytes = bytes
	}
	rw.pickShard()
	return rw, nil
}

// identify sets the row's ID and bucket: those of same, a row of the
// same ID (sameID), when it has them, else read and checked.
func (rw *row) identify(same *row) error {
	v := rw.v
	if same != nil {
		rw.id = same.id
		if !v.spec.Bucketed() {
			return nil
		}
		if sch := v.scheme(); same.v.spec.Bucketed() && sch == same.v.scheme() {
			rw.bucket = same.bucket
			return nil
		}
	} else {
		idv := v.col(rw.item, v.idIdx)
		if !idv.IsValid() {
			return fmt.Errorf("%w: no value for %s", ErrBadID, v.spec.ID.Name)
		}
		id, err := idFromValue(v, idv)
		if err != nil {
			return err
		}
		rw.id = id
		if !v.spec.Bucketed() {
			return nil
		}
	}
	b, err := v.scheme().OfID(v.spec.Kind, rw.id)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadID, err)
	}
	rw.bucket = b
	return nil
}

// payload is the estimated size of item iv's columns in v, or
// ErrValueTooLarge for a value over Options.Write.MaxValueBytes; from
// facts (by slot) when the item's fields were read once for every view.
//
// It also refuses what the server would refuse in this view alone, which
// would leave the item in the others (bad input half-written): a text
// value that is not valid UTF-8 (ASCII for an ascii column), ErrBadItem,
// and a partition key over the 65,535 bytes a cluster accepts,
// ErrValueTooLarge.
func (r *Repo[T]) payload(v *view, iv reflect.Value, facts []fieldFacts) (int, error) {
	bytes, keyBytes := 0, 0
	for i := range v.columns {
		var ft fieldFacts
		if facts != nil {
			ft = facts[v.slots[i]]
		} else if f := v.col(iv, i); f.IsValid() { // invalid: a Record without the column, null
			ft.over = oversized(f, r.opts.Write.MaxValueBytes)
			if !ft.over {
				ft.size = valueSize(f)
				ft.badText = invalidText(f, v.texts[i])
			}
		}
		switch {
		case ft.over:
			return 0, fmt.Errorf("%w: column %s over %d bytes", ErrValueTooLarge, v.columns[i], r.opts.Write.MaxValueBytes)
		case ft.badText != textNone:
			return 0, fmt.Errorf("%w: column %s: not valid %s", ErrBadItem, v.columns[i], ft.badText)
		}
		bytes += ft.size
		if i < len(v.spec.Key) {
			keyBytes += ft.size
		}
	}
	if n := partitionKeyBytes(v, keyBytes); n > maxPartitionKeyBytes {
		return 0, fmt.Errorf("%w: the partition key of view %s is %d bytes, over the %d a cluster accepts", ErrValueTooLarge, v.spec.Name, n, maxPartitionKeyBytes)
	}
	return bytes, nil
}

// maxPartitionKeyBytes is the most a serialized partition key may hold
// (Cassandra and ScyllaDB: an unsigned 16-bit length).
const maxPartitionKeyBytes = 1<<16 - 1

// partitionKeyBytes is the serialized size of a partition key of v whose
// key values hold keyBytes: one component as it is; several each with a
// 2-byte length and an end byte, the bucket (bigint) and shard (int) among
// them.
func partitionKeyBytes(v *view, keyBytes int) int {
	comps := len(v.spec.Key)
	if v.spec.Bucketed() {
		comps, keyBytes = comps+1, keyBytes+8
	}
	if v.spec.Sharded() {
		comps, keyBytes = comps+1, keyBytes+4
	}
	if comps == 1 {
		return keyBytes
	}
	return keyBytes + 3*comps
}

// pickShard picks the row's shard in a sharded view.
func (rw *row) pickShard() {
	v := rw.v
	if !v.spec.Sharded() {
		return
	}
	var at time.Time
	if v.spec.PerKeyShards {
		rw.keyText = rw.key.String()
		at, _ = v.spec.Kind.Time(rw.id) // valid: its bucket was found
	}
	rw.shard = v.shardOf(rw.keyText, rw.id, at)
}

// name sets the row's presKey and partKey from one string.
func (rw *row) name() {
	var stack [64]byte
	text, pres := rw.appendPartition(stack[:0])
	all := string(text)
	rw.presKey, rw.partKey = all[:pres], all
}

// nameRows names every row of rows (name) from one string: a Put of three
// views converted three texts, three allocations for names that live as
// long as the call. A row derived loosely without its ID (unset) has no
// partition, and is left unnamed.
func nameRows(rows []row) {
	var stack [256]byte
	var spansInline [8][2]int
	spans := spansInline[:0]
	text := stack[:0]
	for i := range rows {
		start, pres := len(text), len(text)
		if !rows[i].unset { // loosely derived without its ID: no partition
			text, pres = rows[i].appendPartition(text)
		}
		spans = append(spans, [2]int{start, pres})
	}
	all := string(text)
	for i, sp := range spans {
		end := len(all)
		if i+1 < len(spans) {
			end = spans[i+1][0]
		}
		rows[i].presKey, rows[i].partKey = all[sp[0]:sp[1]], all[sp[0]:end]
	}
}

// appendPartition appends to buf the text naming the row's partition: the
// key's encoding, then '/' and the bucket (room-42/19834), which names its
// presence entry and ends at pres, then '/s' and the shard in a sharded
// view (room-42/19834/s3).
func (rw *row) appendPartition(buf []byte) (text []byte, pres int) {
	buf = appendPartitionKey(buf, rw.key, rw.v.spec.Bucketed(), rw.bucket)
	pres = len(buf)
	if rw.v.spec.Sharded() {
		buf = strconv.AppendInt(append(buf, "/s"...), int64(rw.shard), 10)
	}
	return buf, pres
}

// partitionKey names one partition of a view in memory and in metrics: the
// key's encoding, then '/' and the bucket (room-42/19834).
func partitionKey(k Key, bucketed bool, b bucket.Bucket) string {
	var stack [64]byte
	return string(appendPartitionKey(stack[:0], k, bucketed, b))
}

// appendPartitionKey appends partitionKey's text to buf.
func appendPartitionKey(buf []byte, k Key, bucketed bool, b bucket.Bucket) []byte {
	buf = k.encode(buf)
	if bucketed {
		buf = append(buf, '/')
		buf = strconv.AppendInt(buf, int64(b), 10)
	}
	return buf
}

// derefValue returns the value v holds, following pointers; a nil pointer is
// returned as nil (an unset key value).
func derefValue(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	return v.Interface()
}
