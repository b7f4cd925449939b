package integration

import (
	"context"
	"fmt"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/internal/refmodel"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// Example_chat is the chat model in a few lines: define the views, write messages
// to every view with Put, read the latest page, then the next page with its
// cursor. It runs against the test cluster (examples need a database here).
func Example_chat() {
	ctx := context.Background()
	ks, sess, done := exampleKeyspace(ctx)
	defer done()

	// The views: messages_by_channel, messages_by_author, message_by_id.
	views := refmodel.ChatViews()
	ms, _ := schema.LoadMigrations(refmodel.Migrations())
	if _, err := schema.Migrate(ctx, sess, ks, ms); err != nil {
		fmt.Println(err)
		return
	}
	messages, err := repo.Open[refmodel.Message](ctx, sess, ks, views, repo.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}

	// Five messages a day apart, with Discord snowflake IDs.
	kind := bucket.DiscordSnowflake()
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range 5 {
		id, _ := kind.Make(start.Add(time.Duration(i)*24*time.Hour), 1, 0)
		msg := refmodel.Message{ChannelID: 42, MessageID: kind.Int64(id), AuthorID: 7, Body: fmt.Sprintf("message %d", i)}
		if err := messages.Put(ctx, &msg); err != nil {
			fmt.Println(err)
			return
		}
	}

	page, _ := messages.Latest(ctx, "messages_by_channel", repo.Key{int64(42)}, 3)
	for _, m := range page.Items {
		fmt.Println(m.Body)
	}
	next, _ := messages.Read(ctx, repo.Query{View: "messages_by_channel", Key: repo.Key{int64(42)}, Limit: 3, Cursor: page.Cursor})
	for _, m := range next.Items {
		fmt.Println(m.Body)
	}
	fmt.Println("more:", next.Cursor != "")
	// Output:
	// message 4
	// message 3
	// message 2
	// message 1
	// message 0
	// more: false
}
