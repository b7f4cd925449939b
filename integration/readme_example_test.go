package integration

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/idgen"
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// Example_readme is the README's "Using it", as written there (a test keeps
// the two equal): it needs a cluster at $TSBUCKET_HOSTS (127.0.0.1 by
// default), which the harness provides.
func Example_readme() {
	if err := chat(context.Background()); err != nil {
		fmt.Println(err)
	}
	// Output:
	// fine, thanks
	// how are you?
	// hello
}

// README:begin

// Message is your item type: fields map to columns by `db` tags.
type Message struct {
	ChannelID int64  `db:"channel_id"`
	MessageID int64  `db:"message_id"` // a Discord snowflake
	AuthorID  int64  `db:"author_id"`
	Body      string `db:"body"`
}

func chat(ctx context.Context) error {
	dc := cmp.Or(os.Getenv("TSBUCKET_DC"), "dc1")
	sess, err := repo.NewSession(repo.SessionConfig{
		Hosts:      strings.Split(cmp.Or(os.Getenv("TSBUCKET_HOSTS"), "127.0.0.1"), ","),
		Datacenter: dc,
	})
	if err != nil {
		return err
	}
	defer sess.Close()

	// One table per query: a channel's messages in ten-day buckets, newest
	// first, and a message by its ID.
	kind := bucket.DiscordSnowflake()
	tenDays, err := bucket.Fixed(10*24*time.Hour, kind.Epoch)
	if err != nil {
		return err
	}
	id := schema.Column{Name: "message_id", Type: "bigint"}
	author, body := schema.Column{Name: "author_id", Type: "bigint"}, schema.Column{Name: "body", Type: "text"}
	views := []schema.View{
		{Name: "messages_by_channel", Key: []schema.Column{{Name: "channel_id", Type: "bigint"}},
			Scheme: tenDays, ID: id, Kind: kind, Values: []schema.Column{author, body}},
		{Name: "message_by_id", Key: []schema.Column{id}, Unbucketed: "one row per message",
			ID: id, Kind: kind, Values: []schema.Column{{Name: "channel_id", Type: "bigint"}, author, body}},
	}
	// Creates the keyspace and tables if they do not exist, and records the
	// views in the cluster (tsbucket views, schema check and read use them).
	keyspace := schema.Keyspace{Name: "tsbucket_readme", Replication: map[string]int{dc: 1}}
	if err := schema.Apply(ctx, sess, keyspace, views); err != nil {
		return err
	}
	r, err := repo.Open[Message](ctx, sess, keyspace.Name, views, repo.Options{})
	if err != nil {
		return err
	}
	byChannel, err := r.View("messages_by_channel") // checked once, here
	if err != nil {
		return err
	}

	ids, err := idgen.New(kind)
	if err != nil {
		return err
	}
	channel, err := ids.NextInt64() // a new channel
	if err != nil {
		return err
	}
	for _, text := range []string{"hello", "how are you?", "fine, thanks"} {
		mid, err := ids.NextInt64()
		if err != nil {
			return err
		}
		m := Message{ChannelID: channel, MessageID: mid, AuthorID: 42, Body: text}
		if err := r.Put(ctx, &m); err != nil {
			// Retry with the first attempt's write timestamp: a retry then
			// never brings back a message deleted in between.
			if err := r.Put(ctx, &m, repo.RetryOf(err)); err != nil {
				return err
			}
		}
	}

	// The newest two messages of the channel, then the page after them.
	page, err := byChannel.Latest(ctx, &Message{ChannelID: channel}, 2)
	if err != nil {
		return err
	}
	older, err := byChannel.Read(ctx, &Message{ChannelID: channel}, repo.Params{Limit: 2, Cursor: page.Cursor})
	if err != nil {
		return err
	}
	for _, m := range append(page.Items, older.Items...) {
		fmt.Println(m.Body)
	}
	return nil
}

// README:end
