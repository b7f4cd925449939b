package repo

import (
	"reflect"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/scylladb/go-reflectx"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
)

// The in-process hot paths of every read and write, without a database: what
// tsbucket adds on top of the driver per call. bench/ measures the same calls
// end to end against a real node.

// benchNow is a fixed clock: plans depend on now, and a benchmark must not.
var benchNow = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func benchRepo(b *testing.B, opts Options) *Repo[refmodel.Message] {
	b.Helper()
	opts.Now = func() time.Time { return benchNow }
	r, err := New[refmodel.Message](&gocql.Session{}, "chat", refmodel.ChatViews(), opts)
	if err != nil {
		b.Fatalf("New: %v", err)
	}
	return r
}

func benchMessage(b *testing.B) refmodel.Message {
	b.Helper()
	id, err := bucket.DiscordSnowflake().Make(benchNow.Add(-time.Minute), 1, 2)
	if err != nil {
		b.Fatalf("snowflake: %v", err)
	}
	return refmodel.Message{ChannelID: 7, MessageID: bucket.DiscordSnowflake().Int64(id), AuthorID: 42, Body: "hello, bucket"}
}

func benchCursor() cursor {
	var id bucket.ID
	id[15] = 1
	id[9] = 0x40
	return cursor{binding: readBinding("messages_by_channel", Key{int64(7)}, NewestFirst, 0, 0), last: id}
}

func BenchmarkCursorEncode(b *testing.B) {
	for _, tc := range []struct {
		name   string
		secret []byte
	}{{"unsigned", nil}, {"signed", []byte("0123456789abcdef")}} {
		b.Run(tc.name, func(b *testing.B) {
			c := benchCursor()
			b.ReportAllocs()
			for b.Loop() {
				_ = encodeCursor(c, tc.secret)
			}
		})
	}
}

func BenchmarkCursorDecode(b *testing.B) {
	for _, tc := range []struct {
		name   string
		secret []byte
	}{{"unsigned", nil}, {"signed", []byte("0123456789abcdef")}} {
		b.Run(tc.name, func(b *testing.B) {
			s := encodeCursor(benchCursor(), tc.secret)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeCursor(s, tc.secret); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadBinding is the hash every read computes to bind (or check) its cursor.
func BenchmarkReadBinding(b *testing.B) {
	k := Key{int64(7)}
	b.ReportAllocs()
	for b.Loop() {
		_ = readBinding("messages_by_channel", k, NewestFirst, 0, 0)
	}
}

func BenchmarkKeyEncode(b *testing.B) {
	for _, tc := range []struct {
		name string
		key  Key
	}{
		{"int64", Key{int64(1234567890)}},
		{"string", Key{"sensor-0042"}},
		{"composite", Key{"paris", int64(20260304)}},
		{"uuid", Key{gocql.UUID{1, 2, 3}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			for b.Loop() {
				buf = tc.key.encode(buf[:0])
			}
		})
	}
}

// BenchmarkBuildStatements builds every statement of the chat views, as New does once.
func BenchmarkBuildStatements(b *testing.B) {
	r := benchRepo(b, Options{})
	b.ReportAllocs()
	for b.Loop() {
		for _, v := range r.order {
			if _, err := buildStatements("chat", v.spec, v.columns, v.idInKey); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkPlan is the per-read planning: validation, cursor check, bounds and
// the choice of the prebuilt statement.
func BenchmarkPlan(b *testing.B) {
	r := benchRepo(b, Options{})
	next := encodeCursor(benchCursorFor(b, r), nil)
	for _, tc := range []struct {
		name string
		q    Query
	}{
		{"latest", Query{View: "messages_by_channel", Key: Key{int64(7)}, Limit: 50}},
		{"cursor", Query{View: "messages_by_channel", Key: Key{int64(7)}, Limit: 50, Cursor: next}},
		{"range", Query{View: "messages_by_channel", Key: Key{int64(7)}, Limit: 50, Direction: OldestFirst,
			From: benchNow.Add(-48 * time.Hour), To: benchNow}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.plan(tc.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchCursorFor is a cursor of a latest read of channel 7, valid for r.
func benchCursorFor(b *testing.B, r *Repo[refmodel.Message]) cursor {
	b.Helper()
	m := benchMessage(b)
	w, err := r.plan(Query{View: "messages_by_channel", Key: Key{int64(7)}, Limit: 50})
	if err != nil {
		b.Fatal(err)
	}
	return cursor{binding: w.binding, last: bucket.DiscordSnowflake().FromInt64(m.MessageID)}
}

func BenchmarkFlightKey(b *testing.B) {
	r := benchRepo(b, Options{})
	w, err := r.plan(Query{View: "messages_by_channel", Key: Key{int64(7)}, Limit: 50})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = w.flightKey()
	}
}

func BenchmarkCursorAfter(b *testing.B) {
	r := benchRepo(b, Options{})
	w, err := r.plan(Query{View: "messages_by_channel", Key: Key{int64(7)}, Limit: 50})
	if err != nil {
		b.Fatal(err)
	}
	m := benchMessage(b)
	b.ReportAllocs()
	for b.Loop() {
		if w.cursorAfter(&m) == "" {
			b.Fatal("no cursor")
		}
	}
}

// BenchmarkRowsOf derives the three chat rows of one message (IDs, buckets, keys,
// size checks): the validation every Put does before sending anything.
func BenchmarkRowsOf(b *testing.B) {
	r := benchRepo(b, Options{})
	m := benchMessage(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.rowsOf(&m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInsertArgs binds the insert of each chat view for one message.
func BenchmarkInsertArgs(b *testing.B) {
	r := benchRepo(b, Options{})
	m := benchMessage(b)
	rows, err := r.rowsOf(&m)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, rw := range rows {
			_ = rw.insertArgs(0, int64(1))
		}
	}
}

func BenchmarkPresenceCache(b *testing.B) {
	r := benchRepo(b, Options{})
	m := benchMessage(b)
	rows, err := r.rowsOf(&m)
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := r.writeConfig(nil)
	if err != nil {
		b.Fatal(err)
	}
	r.presence.add(rows[0].v.spec.Name, rows[0].partKey, never)
	b.Run("hit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, due := r.entryDue(rows[0], cfg); due {
				b.Fatal("cached entry reported missing")
			}
		}
	})
	b.Run("parallel-hit", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				_, _ = r.entryDue(rows[0], cfg)
			}
		})
	})
}

// BenchmarkDecodeRow is the in-process part of reading one row: what
// gocqlx's StructScan does per row once the driver has the bytes (field
// traversal by column, then gocql.Unmarshal into the field). The bytes are a
// messages_by_channel row as the server sends it.
func BenchmarkDecodeRow(b *testing.B) {
	r := benchRepo(b, Options{})
	v := r.views["messages_by_channel"]
	bigint := nativeType(gocql.TypeBigInt)
	text := nativeType(gocql.TypeText)
	m := benchMessage(b)
	cols := make([][]byte, len(v.columns))
	types := make([]gocql.TypeInfo, len(v.columns))
	src := reflect.ValueOf(&m).Elem()
	for i, p := range v.colPaths {
		f := reflectx.FieldByIndexesReadOnly(src, p).Interface()
		types[i] = bigint
		if _, ok := f.(string); ok {
			types[i] = text
		}
		data, err := gocql.Marshal(types[i], f)
		if err != nil {
			b.Fatal(err)
		}
		cols[i] = data
	}
	b.ReportAllocs()
	for b.Loop() {
		var got refmodel.Message
		dst := reflect.ValueOf(&got).Elem()
		for i, p := range v.colPaths {
			ptr := reflectx.FieldByIndexes(dst, p).Addr().Interface()
			if err := gocql.Unmarshal(types[i], cols[i], ptr); err != nil {
				b.Fatal(err)
			}
		}
		if got != m {
			b.Fatalf("got %+v, want %+v", got, m)
		}
	}
}
