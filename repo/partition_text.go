package repo

import (
	"strconv"
	"strings"

	"github.com/tsbucket/tsbucket/bucket"
)

// PartitionKeyText reads a partition of a bucketed view as the metrics
// name it (metrics.TopPartitionsOf: the key's in-memory form, '/', the
// bucket, and in a sharded view '/s' and the shard) back into the key text
// form (Key.String), the bucket and the shard (0 unsharded), for the
// autopilot, which merges the partitions every instance wrote and promotes
// keys by their text form. ok is false when partition is not of that form.
// Text, integer, UUID and blob values read back exactly; a value of another
// type (a timestamp) is read as the text the in-memory form shows, which
// is not its key text form, so a caller must check the result against the
// view's key column types (the autopilot parses it before using it).
func PartitionKeyText(partition string) (key string, b bucket.Bucket, shard int, ok bool) {
	i := strings.LastIndexByte(partition, '/')
	if i <= 0 {
		return "", 0, 0, false
	}
	if rest, isShard := strings.CutPrefix(partition[i+1:], "s"); isShard { // the bucket is a number, never s...
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 {
			return "", 0, 0, false
		}
		shard, partition = n, partition[:i]
		if i = strings.LastIndexByte(partition, '/'); i <= 0 {
			return "", 0, 0, false
		}
	}
	n, err := strconv.ParseInt(partition[i+1:], 10, 64)
	if err != nil {
		return "", 0, 0, false
	}
	parts := strings.Split(partition[:i], "/")
	out := make([]byte, 0, len(partition))
	for j, p := range parts {
		v, err := unescapeKeyValue(p) // the in-memory form escapes with the same %XX
		if err != nil {
			return "", 0, 0, false
		}
		if j > 0 {
			out = append(out, ',')
		}
		out = appendTextEscaped(out, v)
	}
	return string(out), bucket.Bucket(n), shard, true
}
