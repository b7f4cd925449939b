package repo

import (
	"reflect"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// The requests of the repository, one function per kind of operation: query
// a bucket (bucketQuery; lookupByID for a view keyed by the ID, stampRead
// for Repair), list the presence index (indexListing), write rows
// (insertWrite, presenceWrite, in a batchOf or alone) and delete rows
// (deleteWrite). Reads and writes ask these for the Statement
// they send and never build one themselves: this is where a second storage
// API (DynamoDB, ScyllaDB Alternator) would plug in, one function at a time.
// The CQL text itself is built once per view, by New (statements.go).

// bucketQuery reads up to limit rows of key in shard of bucket b of v, in
// direction dir, within the ID bounds ids: one single-partition query.
// sel is the view's selects, or those of the read's Query.Columns.
func (v *view) bucketQuery(sel *selects, key Key, b bucket.Bucket, shard int, dir Direction, ids idBounds, limit int, cl gocql.Consistency) Statement {
	st := sel[dir][ids.lo][ids.hi]
	args := make([]any, len(st.names))
	for i, name := range st.names {
		switch {
		case i < len(key):
			args[i] = key[i]
		case name == bindLo:
			args[i] = ids.loVal
		case name == bindHi:
			args[i] = ids.hiVal
		case name == bindLimit:
			args[i] = limit
		case name == schema.ShardColumn && v.spec.Sharded():
			args[i] = shard
		default: // the bucket column
			args[i] = int64(b)
		}
	}
	return Statement{Table: v.spec.Name, Op: "select", CQL: st.cql, Names: st.names,
		Args: args, Consistency: cl, PageSize: limit, Traceable: true, tableMetrics: v.metrics}
}

// lookupByID reads the row stored under id in v, a view keyed by the ID alone.
func (v *view) lookupByID(id bucket.ID, cl gocql.Consistency) Statement {
	st := v.stmts.selects[NewestFirst][noLower][noUpper]
	return Statement{Table: v.spec.Name, Op: "select", CQL: st.cql, Names: st.names,
		Args: []any{idToCQL(v.idCQL, id), 1}, Consistency: cl, PageSize: 1, tableMetrics: v.metrics}
}

// stampRead reads the write time and remaining TTL of this row's value
// cells (Repair): one single-partition query of its primary key.
func (rw row) stampRead(sq stampQuery, cl gocql.Consistency) Statement {
	return Statement{Table: rw.v.spec.Name, Op: "select", CQL: sq.cql, Args: rw.primaryKey(), Consistency: cl, tableMetrics: rw.v.metrics}
}

// indexListing lists up to limit buckets of key in [lo, hi] that v's
// presence index holds entries for, in direction dir.
func (v *view) indexListing(key Key, dir Direction, lo, hi bucket.Bucket, limit int, cl gocql.Consistency) Statement {
	st := v.stmts.presence[dir]
	args := make([]any, 0, len(st.names))
	args = append(args, key...)
	args = append(args, int64(lo), int64(hi), limit)
	return Statement{Table: v.spec.PresenceTable(), Op: "select", CQL: st.cql, Names: st.names,
		Args: args, Consistency: cl, PageSize: limit}
}

// insertWrite is the Statement writing this row with a TTL of ttl seconds
// at timestamp ts: its insert, or for a latest-value view appendWrites in one
// single-partition batch.
func (rw row) insertWrite(cl gocql.Consistency, ttl int, ts int64) Statement {
	return rw.insertBound(cl, ttl, ts)
}

// insertBound is insertWrite with the timestamp as bound: an int64, or an
// int64 boxed once for every row of a call (writeConfig.tsArg). For a
// latest-value view it is appendWrites in one single-partition batch.
func (rw row) insertBound(cl gocql.Consistency, ttl int, ts any) Statement {
	return rw.insertBoundIn(nil, cl, ttl, ts)
}

// insertBoundIn is insertBound with the insert's values in args when it
// holds them (insertArgsLen; nil: a new slice): a Put's fan-out keeps every
// row's in one allocation. A latest-value view's batch binds its own.
func (rw row) insertBoundIn(args []any, cl gocql.Consistency, ttl int, ts any) Statement {
	if !rw.v.spec.IsLatest() {
		return rw.v.own(write(rw.v.spec.Name, "insert", rw.v.stmts.insert, cl, rw.insertArgsIn(args, ttl, ts)))
	}
	b := batchOf(rw.v.spec.Name, gocql.UnloggedBatch, cl)
	b.Entries = rw.appendWrites(nil, cl, ttl, ts)
	return rw.v.own(b)
}

// appendWrites appends to dst the statements that write this row, for a
// batch: its insert and, for a latest-value view, the range delete of the
// key's rows older than it, at the same timestamp. The newest item's insert
// thus retires the ones before it, whatever order they arrive in; an older
// item arriving late retires only older ones, and the newest stays first.
func (rw row) appendWrites(dst []Statement, cl gocql.Consistency, ttl int, ts any) []Statement {
	dst = append(dst, write(rw.v.spec.Name, "insert", rw.v.stmts.insert, cl, rw.insertArgs(ttl, ts)))
	if !rw.v.spec.IsLatest() {
		return dst
	}
	args := make([]any, 0, len(rw.key)+2)
	args = append(append(append(args, ts), rw.key...), idToCQL(rw.v.idCQL, rw.id))
	return append(dst, write(rw.v.spec.Name, "delete", rw.v.stmts.prune, cl, args))
}

// presenceWrite is the Statement writing this row's presence-index entry,
// with a TTL of ttl seconds (0: none) at timestamp ts (Repo.presenceOf: its
// expiry, or the largest timestamp for an entry that never expires).
// Entries of one (key, bucket) written by different calls then settle on
// the one that lives longest, whatever the write timestamps of their rows:
// with the row's timestamp, a row written with an older one (a retry, a
// writer whose clock is behind) would lose to the entry of a short-lived
// row, and be unreadable once that entry expired. Writes take it from
// Repo.entry (presence.go), never from here.
func (rw row) presenceWrite(cl gocql.Consistency, ttl int, ts int64) Statement {
	return write(rw.v.spec.PresenceTable(), "insert", rw.v.stmts.presenceInsert, cl, rw.presenceArgs(ttl, ts))
}

// deleteWrite is the Statement deleting this row at timestamp ts.
func (rw row) deleteWrite(cl gocql.Consistency, ts int64) Statement {
	return rw.v.own(write(rw.v.spec.Name, "delete", rw.v.stmts.delete, cl, rw.deleteArgs(ts)))
}

// own marks s, a statement on v's own table, with the table's metrics.
func (v *view) own(s Statement) Statement {
	s.tableMetrics = v.metrics
	return s
}

// batchOf is an empty batch of kind to fill with insertWrite and
// presenceWrite statements: a logged one across views (Options.Write.Atomic),
// an unlogged one within one partition (PutMany).
func batchOf(table string, kind gocql.BatchType, cl gocql.Consistency) Statement {
	return Statement{Table: table, Op: "batch", Consistency: cl, Batch: kind}
}

// write is the Statement of one idempotent write.
func write(table, op string, st stmt, cl gocql.Consistency, args []any) Statement {
	return Statement{Table: table, Op: op, CQL: st.cql, Names: st.names, Args: args, Consistency: cl}
}

// insertArgs binds the view's insert statement for this row, at timestamp
// ts (an int64).
func (rw row) insertArgs(ttl int, ts any) []any { return rw.insertArgsIn(nil, ttl, ts) }

// insertArgsLen is how many values v's insert binds: the length
// insertArgsIn wants.
func (v *view) insertArgsLen() int { return len(v.stmts.insert.names) }

// insertArgsIn is insertArgs in args when it holds insertArgsLen values
// (else in a new slice).
func (rw row) insertArgsIn(args []any, ttl int, ts any) []any {
	names := rw.v.stmts.insert.names
	if len(args) != len(names) {
		args = make([]any, len(names))
	}
	for i, name := range names {
		switch {
		case i < len(rw.v.columns) && rw.fields != nil:
			args[i] = rw.fields[rw.v.slots[i]] // boxed once for every view
		case i < len(rw.v.columns):
			f := rw.v.col(rw.item, i)
			switch {
			case !f.IsValid():
				args[i] = nil // null
			case i < len(rw.key) && f.Kind() != reflect.Pointer && f.Kind() != reflect.Interface:
				args[i] = rw.key[i] // the same value, boxed once by rowOf
			default:
				args[i] = f.Interface()
			}
		case name == bindTTL:
			args[i] = ttl
		case name == bindTS:
			args[i] = ts
		case name == schema.ShardColumn && rw.v.spec.Sharded():
			args[i] = rw.shard
		default: // the bucket column
			args[i] = int64(rw.bucket)
		}
	}
	return args
}

// primaryKey is the values of the row's full primary key, in WHERE order.
func (rw row) primaryKey() []any {
	args := make([]any, 0, len(rw.key)+3)
	args = append(args, rw.key...)
	if rw.v.spec.Bucketed() {
		args = append(args, int64(rw.bucket))
	}
	if rw.v.spec.Sharded() {
		args = append(args, rw.shard)
	}
	if rw.v.idInKey {
		return args
	}
	return append(args, idToCQL(rw.v.idCQL, rw.id))
}

// deleteArgs binds the view's delete statement: the timestamp, then the
// full primary key.
func (rw row) deleteArgs(ts int64) []any {
	return append([]any{ts}, rw.primaryKey()...)
}

// presenceArgs bind the presence-index insert of this row's (key, bucket).
func (rw row) presenceArgs(ttl int, ts int64) []any {
	names := rw.v.stmts.presenceInsert.names
	args := make([]any, len(names))
	for i, name := range names {
		switch {
		case i < len(rw.key):
			args[i] = rw.key[i]
		case name == bindTTL:
			args[i] = ttl
		case name == bindTS:
			args[i] = ts
		default: // the bucket column
			args[i] = int64(rw.bucket)
		}
	}
	return args
}
