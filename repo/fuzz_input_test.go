package repo

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/schema"
)

// Every test here runs the public API on a tripwire session (see
// tripwireSession): bad input must come back as a typed error, and any
// statement sent would panic the test. Inputs the API accepts are checked
// through the same validation it runs (plan, rowsOf) and never sent.

var inputSentinels = []error{ErrUnknownView, ErrBadKey, ErrBadLimit, ErrBadCursor, ErrBadID,
	ErrBadRange, ErrValueTooLarge, ErrBadItem, ErrBadOptions, ErrBadTTL}

func isInputError(err error) bool {
	for _, s := range inputSentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

var fuzzSecret = []byte("0123456789abcdef")

// fuzzTime maps a fuzzed int64 to a time; 0 stays the zero (open) time.
func fuzzTime(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// fuzzKey builds keys of several shapes, right and wrong, from fuzzed values.
func fuzzKey(shape uint8, n int64, s string) Key {
	switch shape % 6 {
	case 0:
		return Key{n}
	case 1:
		return nil
	case 2:
		return Key{}
	case 3:
		return Key{n, s}
	case 4:
		return Key{s}
	default:
		return Key{nil}
	}
}

var chatViewNames = []string{"messages_by_channel", "messages_by_author", "message_by_id"}

func chatQuery(view string, shape uint8, keyN int64, keyS string, limit int, dir int8, from, to int64, cursor string) Query {
	return Query{View: view, Key: fuzzKey(shape, keyN, keyS), Limit: limit, Direction: Direction(dir),
		From: fuzzTime(from), To: fuzzTime(to), Cursor: cursor}
}

// checkAcceptedQuery states what an accepted query must satisfy.
func checkAcceptedQuery(t *testing.T, r *Repo[refmodel.Message], q Query) {
	t.Helper()
	v, ok := r.views[q.View]
	switch {
	case !ok:
		t.Fatalf("accepted unknown view %q", q.View)
	case len(q.Key) != len(v.spec.Key):
		t.Fatalf("accepted key %v for %d key column(s)", q.Key, len(v.spec.Key))
	case q.Limit < 1 || q.Limit > r.opts.Read.MaxLimit:
		t.Fatalf("accepted limit %d", q.Limit)
	case q.Direction != NewestFirst && q.Direction != OldestFirst:
		t.Fatalf("accepted direction %d", q.Direction)
	case !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To):
		t.Fatalf("accepted range %v..%v", q.From, q.To)
	}
	for i, k := range q.Key {
		if isEmptyKeyValue(k) {
			t.Fatalf("accepted empty key value %d", i)
		}
	}
}

// FuzzReadInput: views, keys, limits, directions, time ranges and cursors.
func FuzzReadInput(f *testing.F) {
	now := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	good := readBinding("messages_by_channel", Key{int64(7)}, NewestFirst, 0, 0)
	id, _ := bucket.DiscordSnowflake().MinID(now.Add(-time.Hour))
	valid := encodeCursor(cursor{binding: good, last: id}, nil)
	f.Add(uint8(0), uint8(0), int64(7), "", 50, int8(0), int64(0), int64(0), "", false)
	f.Add(uint8(0), uint8(0), int64(7), "", 50, int8(0), int64(0), int64(0), valid, false)
	f.Add(uint8(0), uint8(0), int64(7), "", 50, int8(0), int64(0), int64(0), encodeCursor(cursor{binding: good, last: id}, fuzzSecret), true)
	f.Add(uint8(1), uint8(4), int64(0), "x", 0, int8(1), now.UnixNano(), now.UnixNano(), "!!", true)
	f.Add(uint8(2), uint8(3), int64(-1), "", 1001, int8(2), int64(math.MinInt64), int64(math.MaxInt64), strings.Repeat("A", 36), false)
	f.Add(uint8(9), uint8(0), int64(1), "' OR 1=1 --", -1, int8(-1), int64(1), int64(-1), "AQ", false)
	f.Fuzz(func(t *testing.T, viewIdx, shape uint8, keyN int64, keyS string, limit int, dir int8, from, to int64, cursor string, signed bool) {
		opts := Options{Now: func() time.Time { return now }}
		if signed {
			opts.Read.CursorSecret = fuzzSecret
		}
		r := tripwireChat(t, opts)
		view := keyS
		if int(viewIdx) < len(chatViewNames) {
			view = chatViewNames[viewIdx]
		}
		q := chatQuery(view, shape, keyN, keyS, limit, dir, from, to, cursor)
		if _, err := r.plan(q); err == nil {
			checkAcceptedQuery(t, r, q)
			return
		}
		_, err := r.Read(t.Context(), q)
		if !isInputError(err) {
			t.Fatalf("Read(%+v) = %v, want a typed input error", q, err)
		}
		for _, err := range r.All(t.Context(), q) {
			if !isInputError(err) {
				t.Fatalf("All(%+v) yielded %v, want a typed input error", q, err)
			}
		}
	})
}

// FuzzWriteInput: IDs, keys and values of a chat message, with a small value cap.
func FuzzWriteInput(f *testing.F) {
	now := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	id, _ := bucket.DiscordSnowflake().MinID(now)
	good := int64(id[8])<<56 | int64(id[9])<<48 | int64(id[10])<<40 | int64(id[11])<<32 | int64(id[12])<<24 | int64(id[13])<<16 | int64(id[14])<<8 | int64(id[15])
	f.Add(int64(1), good, int64(2), "hello", int64(0))
	f.Add(int64(1), int64(-1), int64(2), "", int64(-1))
	f.Add(int64(0), int64(0), int64(0), strings.Repeat("x", 65), int64(1500))
	f.Add(int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MinInt64), "\x00", int64(math.MaxInt64))
	f.Fuzz(func(t *testing.T, channel, msgID, author int64, body string, ttlMillis int64) {
		r := tripwireChat(t, Options{Now: func() time.Time { return now }, Write: WriteOptions{MaxValueBytes: 64}})
		m := refmodel.Message{ChannelID: channel, MessageID: msgID, AuthorID: author, Body: body}
		opts := []WriteOption{WithTTL(time.Duration(ttlMillis) * time.Millisecond)}
		rows, rowsErr := r.rowsOf(&m)
		_, cfgErr := r.writeConfig(opts)
		if rowsErr == nil && cfgErr == nil {
			checkAcceptedRows(t, r, rows, body)
			return
		}
		ctx := t.Context()
		for name, call := range map[string]func() error{
			"Put":     func() error { return r.Put(ctx, &m, opts...) },
			"PutMany": func() error { return r.PutMany(ctx, []refmodel.Message{m}, opts...) },
			"Delete":  func() error { return r.Delete(ctx, &m, opts...) },
		} {
			if err := call(); !isInputError(err) {
				t.Fatalf("%s(%+v) = %v, want a typed input error", name, m, err)
			}
		}
	})
}

// checkAcceptedRows states what an accepted item must satisfy in every view.
func checkAcceptedRows(t *testing.T, r *Repo[refmodel.Message], rows []row, body string) {
	t.Helper()
	if len(rows) != len(r.order) {
		t.Fatalf("%d rows for %d views", len(rows), len(r.order))
	}
	if len(body) > r.opts.Write.MaxValueBytes {
		t.Fatalf("accepted a %d-byte body over the %d-byte cap", len(body), r.opts.Write.MaxValueBytes)
	}
	for _, rw := range rows {
		at, err := rw.v.spec.Kind.Time(rw.id)
		if err != nil {
			t.Fatalf("accepted ID %x the kind rejects: %v", rw.id, err)
		}
		if !rw.v.spec.Bucketed() {
			continue
		}
		if b, err := rw.v.spec.Scheme.Of(at); err != nil || b != rw.bucket {
			t.Fatalf("%s: bucket %d, want %d (%v)", rw.v.spec.Name, rw.bucket, b, err)
		}
	}
}

// FuzzReadingID: TimeUUID IDs from arbitrary bytes, text keys of any content.
func FuzzReadingID(f *testing.F) {
	f.Add(gocql.UUIDFromTime(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)).Bytes(), "sensor-1", "site-1", "C")
	f.Add(make([]byte, 16), "", "site", "")
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0}, "s", "\x00", "k")
	f.Fuzz(func(t *testing.T, idBytes []byte, sensor, site, unit string) {
		r, err := New[refmodel.Reading](tripwireSession(), "ks", refmodel.IoTViews(), Options{Write: WriteOptions{MaxValueBytes: 32}})
		if err != nil {
			t.Fatal(err)
		}
		var id gocql.UUID
		copy(id[:], idBytes)
		m := refmodel.Reading{SensorID: sensor, SiteID: site, ReadingID: id, Value: 1, Unit: unit}
		if _, err := r.rowsOf(&m); err == nil {
			if sensor == "" || site == "" || len(unit) > 32 {
				t.Fatalf("accepted %+v", m)
			}
			return
		}
		if err := r.Put(t.Context(), &m); !isInputError(err) {
			t.Fatalf("Put(%+v) = %v, want a typed input error", m, err)
		}
	})
}

// fuzzItem is the item type of FuzzViewSpec: a key, an ID and one value.
type fuzzItem struct {
	K  string `db:"k"`
	ID int64  `db:"id"`
	V  string `db:"v"`
}

// FuzzViewSpec: hostile identifiers and types in the keyspace and view specs.
// New must refuse them with a typed error, or accept only names that are
// valid identifiers and statements that pass the lint.
func FuzzViewSpec(f *testing.F) {
	f.Add("ks", "v", "k", "text", "v", "text")
	f.Add("ks", "v\"; DROP KEYSPACE ks; --", "k", "text", "v", "text")
	f.Add("system", "V", "k) WITH x", "text", "v", "blob")
	f.Add("ks", "v", "k", "text>; DROP", "v", "list<text")
	f.Add(strings.Repeat("k", 49), "select", "tsb_ttl", "bigint", "ttl", "frozen<map<text,int>>")
	f.Fuzz(func(t *testing.T, keyspace, name, keyCol, keyType, valCol, valType string) {
		spec := schema.View{
			Name:       name,
			Key:        []schema.Column{{Name: keyCol, Type: keyType}},
			Unbucketed: "fuzz",
			ID:         schema.Column{Name: "id", Type: "bigint"},
			Kind:       bucket.DiscordSnowflake(),
			Values:     []schema.Column{{Name: valCol, Type: valType}},
		}
		r, err := New[fuzzItem](tripwireSession(), keyspace, []schema.View{spec}, Options{})
		if err != nil {
			if !isInputError(err) && !errors.Is(err, schema.ErrBadIdentifier) && !errors.Is(err, schema.ErrBadType) && !errors.Is(err, schema.ErrBadView) {
				t.Fatalf("New: untyped error %v", err)
			}
			return
		}
		for _, ident := range []string{keyspace, name, keyCol, valCol} {
			if err := schema.ValidateIdentifier(ident); err != nil {
				t.Fatalf("accepted identifier %q: %v", ident, err)
			}
		}
		if got := r.Views(); len(got) != 1 || got[0] != name {
			t.Fatalf("views %v", got)
		}
	})
}

// FuzzSessionConfigSecret: the password never changes what is printed or
// returned as an error, so it can never leak through either.
func FuzzSessionConfigSecret(f *testing.F) {
	f.Add("127.0.0.1", "dc1", "ks", "user", "s3cret", int64(0))
	f.Add("", "", "", "", "p", int64(-1))
	f.Add("h", "dc1", "", "", "only-password", int64(time.Second))
	f.Fuzz(func(t *testing.T, host, dc, ks, user, password string, timeout int64) {
		c := SessionConfig{Datacenter: dc, Keyspace: ks, Username: user, Password: password, Timeout: time.Duration(timeout)}
		if host != "" {
			c.Hosts = []string{host}
		}
		other := c
		other.Password = strings.Repeat("*", len(password)) // same emptiness, other text
		if c.String() != other.String() {
			t.Fatalf("String depends on the password: %q vs %q", c.String(), other.String())
		}
		err, otherErr := c.Validate(), other.Validate()
		if (err == nil) != (otherErr == nil) || (err != nil && err.Error() != otherErr.Error()) {
			t.Fatalf("Validate depends on the password text: %v vs %v", err, otherErr)
		}
		if err != nil && !errors.Is(err, ErrBadSessionConfig) {
			t.Fatalf("untyped error %v", err)
		}
	})
}

// TestBadInputNeverReachesDatabase is the table of the fuzz targets' classes,
// run through every public entry point that takes them.
func TestBadInputNeverReachesDatabase(t *testing.T) {
	now := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	r := tripwireChat(t, Options{Now: func() time.Time { return now }, Read: ReadOptions{CursorSecret: fuzzSecret}, Write: WriteOptions{MaxValueBytes: 16}})
	ok := refmodel.Message{ChannelID: 1, MessageID: snowflakeFor(t, now), AuthorID: 2, Body: "fine"}
	big, badID := ok, ok
	big.Body = strings.Repeat("x", 17)
	badID.MessageID = -5
	unsigned := encodeCursor(cursor{binding: readBinding("messages_by_channel", Key{int64(1)}, NewestFirst, 0, 0)}, nil)
	ctx := t.Context()
	latest := func(view string, k Key, limit int) func() error {
		return func() error { _, err := r.Latest(ctx, view, k, limit); return err }
	}
	read := func(q Query) func() error { return func() error { _, err := r.Read(ctx, q); return err } }
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"unknown view", latest("messages_by_channel_buckets", Key{int64(1)}, 1), ErrUnknownView},
		{"quoted view", latest(`"messages_by_channel"`, Key{int64(1)}, 1), ErrUnknownView},
		{"missing key", latest("messages_by_channel", nil, 1), ErrBadKey},
		{"extra key value", latest("messages_by_channel", Key{int64(1), int64(2)}, 1), ErrBadKey},
		{"nil byte key", latest("messages_by_channel", Key{[]byte(nil)}, 1), ErrBadKey},
		{"zero limit", latest("messages_by_channel", Key{int64(1)}, 0), ErrBadLimit},
		{"negative limit", latest("messages_by_channel", Key{int64(1)}, -1), ErrBadLimit},
		{"limit over max", latest("messages_by_channel", Key{int64(1)}, 1001), ErrBadLimit},
		{"huge limit", latest("messages_by_channel", Key{int64(1)}, math.MaxInt), ErrBadLimit},
		{"garbage cursor", read(Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 1, Cursor: "%%%"}), ErrBadCursor},
		{"unsigned cursor", read(Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 1, Cursor: unsigned}), ErrBadCursor},
		{"oversized cursor", read(Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 1, Cursor: strings.Repeat("A", 1<<20)}), ErrBadCursor},
		{"unknown direction", read(Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 1, Direction: 7}), ErrBadRange},
		{"inverted range", func() error {
			_, err := r.Range(ctx, "messages_by_channel", Key{int64(1)}, now, now.Add(-time.Hour), NewestFirst, 10)
			return err
		}, ErrBadRange},
		{"oldest-first without a floor or an index", func() error {
			r := tripwireChat(t, Options{Index: IndexOptions{NoPresenceIndex: true}})
			_, err := r.Read(ctx, Query{View: "messages_by_channel", Key: Key{int64(1)}, Limit: 1, Direction: OldestFirst})
			return err
		}, ErrBadRange},
		{"nil pointer key", latest("messages_by_channel", Key{(*int64)(nil)}, 1), ErrBadKey},
		{"key pointer of the wrong type", latest("messages_by_channel", Key{new("x")}, 1), ErrBadKey},
		{"TTL longer than the view's", func() error {
			r := tripwireIoT(t, Options{})
			return r.Put(ctx, &refmodel.Reading{SensorID: "s", SiteID: "x", ReadingID: gocql.UUIDFromTime(now)}, WithTTL(31*24*time.Hour))
		}, ErrBadTTL},
		{"no expiry on a view with a TTL", func() error {
			r := tripwireIoT(t, Options{})
			return r.Put(ctx, &refmodel.Reading{SensorID: "s", SiteID: "x", ReadingID: gocql.UUIDFromTime(now)}, WithTTL(0))
		}, ErrBadTTL},
		{"stamped too far ahead without the index", func() error {
			r := tripwireChat(t, Options{Now: func() time.Time { return now }, Index: IndexOptions{NoPresenceIndex: true}})
			future := ok
			future.MessageID = snowflakeFor(t, now.Add(2*time.Hour))
			return r.Put(ctx, &future)
		}, ErrBadID},
		{"PutMany with one item stamped too far ahead without the index", func() error {
			r := tripwireChat(t, Options{Now: func() time.Time { return now }, Index: IndexOptions{NoPresenceIndex: true}})
			future := ok
			future.MessageID = snowflakeFor(t, now.Add(2*time.Hour))
			return r.PutMany(ctx, []refmodel.Message{ok, future})
		}, ErrBadID},
		{"negative timestamp", func() error { return r.Put(ctx, &ok, WithTimestamp(-1)) }, ErrBadOptions},
		{"Delete with no key and no ID view", func() error {
			r := tripwireIoT(t, Options{})
			return r.Delete(ctx, &refmodel.Reading{SensorID: "s", ReadingID: gocql.UUIDFromTime(now)})
		}, ErrBadKey},
		{"oversized value", func() error { return r.Put(ctx, &big) }, ErrValueTooLarge},
		{"negative snowflake", func() error { return r.Put(ctx, &badID) }, ErrBadID},
		{"nil item", func() error { return r.Put(ctx, nil) }, ErrBadItem},
		{"negative TTL", func() error { return r.Put(ctx, &ok, WithTTL(-time.Second)) }, ErrBadTTL},
		{"fractional TTL", func() error { return r.Put(ctx, &ok, WithTTL(1500*time.Millisecond)) }, ErrBadTTL},
		// One bad item among good ones: nothing at all is sent (no half write).
		{"PutMany with one bad item", func() error { return r.PutMany(ctx, []refmodel.Message{ok, ok, big}) }, ErrValueTooLarge},
		{"Delete with a bad ID", func() error { return r.Delete(ctx, &badID) }, ErrBadID},
		{"Repair of an unknown view", func() error { _, err := r.Repair(ctx, "x", Key{int64(1)}, time.Time{}, time.Time{}); return err }, ErrUnknownView},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func snowflakeFor(t *testing.T, at time.Time) int64 {
	t.Helper()
	id, err := bucket.DiscordSnowflake().MinID(at)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, b := range id[8:] {
		n = n<<8 | int64(b)
	}
	return n
}

func TestBadOptionsAndSessionConfig(t *testing.T) {
	opts := []struct {
		name string
		o    Options
	}{
		{"negative TTL", Options{Write: WriteOptions{TTL: -time.Second}}},
		{"fractional TTL", Options{Write: WriteOptions{TTL: time.Millisecond}}},
		{"negative limit", Options{Read: ReadOptions{MaxLimit: -1}}},
		{"negative lookback", Options{Read: ReadOptions{MaxLookback: -time.Hour}}},
		{"short secret", Options{Read: ReadOptions{CursorSecret: []byte("short")}}},
	}
	for _, tc := range opts {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New[refmodel.Message](tripwireSession(), "ks", refmodel.ChatViews(), tc.o); !errors.Is(err, ErrBadOptions) {
				t.Fatalf("got %v, want ErrBadOptions", err)
			}
		})
	}
	sessions := []struct {
		name string
		c    SessionConfig
	}{
		{"no hosts", SessionConfig{Datacenter: "dc1"}},
		{"no datacenter", SessionConfig{Hosts: []string{"h"}}},
		{"negative timeout", SessionConfig{Hosts: []string{"h"}, Datacenter: "dc1", Timeout: -1}},
		{"negative retries", SessionConfig{Hosts: []string{"h"}, Datacenter: "dc1", Retries: -1}},
		{"password without user", SessionConfig{Hosts: []string{"h"}, Datacenter: "dc1", Password: "hunter2"}},
	}
	for _, tc := range sessions {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewSession(tc.c)
			if !errors.Is(err, ErrBadSessionConfig) {
				t.Fatalf("got %v, want ErrBadSessionConfig", err)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("error %q shows the password", err)
			}
		})
	}
}
