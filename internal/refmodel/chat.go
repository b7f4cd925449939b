package refmodel

import (
	"time"

	"github.com/tsbucket/tsbucket/bucket"
	"github.com/tsbucket/tsbucket/schema"
)

// Message is a chat message; MessageID is a Discord snowflake.
type Message struct {
	ChannelID int64  `db:"channel_id"`
	MessageID int64  `db:"message_id"`
	AuthorID  int64  `db:"author_id"`
	Body      string `db:"body"`
}

// ChatWidth is the chat bucket width: Discord's ten days, counted from the
// Discord epoch, keeps a hot channel's bucket under the partition limits.
const ChatWidth = 10 * 24 * time.Hour

// ChatScheme returns the chat bucket scheme: fixed ten days from the
// Discord epoch (2015-01-01T00:00:00Z).
func ChatScheme() bucket.Scheme { return mustFixed(ChatWidth, bucket.DiscordSnowflake().Epoch) }

// ChatViews returns messages_by_channel, messages_by_author and
// message_by_id, as declared in views/chat.yaml.
func ChatViews() []schema.View { return loadViews("chat.yaml") }
