package schema_test

import (
	"fmt"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

func ExampleCreateTable() {
	scheme, _ := bucket.Fixed(10*24*time.Hour, bucket.DiscordSnowflake().Epoch)
	v := schema.View{
		Name:   "messages_by_channel",
		Key:    []schema.Column{{Name: "channel_id", Type: "bigint"}},
		Scheme: scheme,
		ID:     schema.Column{Name: "message_id"},
		Kind:   bucket.DiscordSnowflake(),
		Values: []schema.Column{{Name: "author_id", Type: "bigint"}, {Name: "body", Type: "text"}},
		TTL:    90 * 24 * time.Hour,
	}
	cql, err := schema.CreateTable("chat", v)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cql)
	// Output:
	// CREATE TABLE IF NOT EXISTS "chat"."messages_by_channel" (
	//     "channel_id" bigint,
	//     "bucket" bigint,
	//     "message_id" bigint,
	//     "author_id" bigint,
	//     "body" text,
	//     PRIMARY KEY (("channel_id", "bucket"), "message_id")
	// ) WITH CLUSTERING ORDER BY ("message_id" DESC)
	//     AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': '10'}
	//     AND default_time_to_live = 7776000
	//     AND gc_grace_seconds = 86400
}

func ExampleKeyspace_CQL() {
	ks := schema.Keyspace{Name: "chat", Replication: map[string]int{"eu": 3, "us": 3}}
	cql, _ := ks.CQL()
	fmt.Println(cql)
	// Output:
	// CREATE KEYSPACE IF NOT EXISTS "chat" WITH replication = {'class': 'NetworkTopologyStrategy', 'eu': 3, 'us': 3} AND durable_writes = true
}

func ExampleLint() {
	v := schema.View{
		Name:       "events_by_status",
		Key:        []schema.Column{{Name: "status", Type: "text"}},
		Unbucketed: "there are few events",
		ID:         schema.Column{Name: "event_id"},
		Kind:       bucket.TimeUUID{},
		Order:      schema.Asc,
		Values:     []schema.Column{{Name: "tags", Type: "set<text>"}},

		LowCardinalityKey: true,
	}
	for _, f := range schema.Lint([]schema.View{v}) {
		fmt.Println(f.Rule)
	}
	// Output:
	// unbucketed_growing
	// read_order
	// low_cardinality_key
	// unbounded_collection
}

func ExampleLintStatement() {
	fmt.Println(schema.LintStatement(`SELECT * FROM t WHERE k = ? AND bucket = ?`))
	fmt.Println(schema.LintStatement(`SELECT * FROM t WHERE body = 'x' ALLOW FILTERING`) != nil)
	// Output:
	// <nil>
	// true
}

func ExampleDrift_String() {
	d := schema.Drift{Table: "messages_by_channel", Column: "body", Kind: schema.DriftType, Want: "text", Got: "int"}
	fmt.Println(d)
	// Output:
	// messages_by_channel.body: type: want text, got int
}
