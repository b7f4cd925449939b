package localcluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// A node accepts CQL before its failure detector has marked its peers alive,
// and its peers mark it alive only after a gossip round; until both happen a
// QUORUM query through it fails with "Cannot achieve consistency level".
// Like ccm, we wait for Gossiper's "is now UP" lines in the logs.

// upLine is what Gossiper logs when it marks host alive.
func upLine(host string) []byte {
	return []byte("InetAddress /" + host + ":" + strconv.Itoa(StoragePort) + " is now UP")
}

// logSizes records where each node's system.log ends now, so that later
// searches only look at what was written after this point.
func (c *Cluster) logSizes() []int64 {
	sizes := make([]int64, len(c.specs))
	for i, n := range c.specs {
		if st, err := os.Stat(n.systemLog()); err == nil {
			sizes[i] = st.Size()
		}
	}
	return sizes
}

// loggedSince reports whether node n's system.log holds line after offset.
func loggedSince(n nodeSpec, offset int64, line []byte) bool {
	f, err := os.Open(n.systemLog())
	if err != nil {
		return false
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return false
	}
	b, err := io.ReadAll(f)
	return err == nil && bytes.Contains(b, line)
}

// waitAlive waits until node i and every other running node have marked each
// other alive in the logs written after sizes were taken.
func (c *Cluster) waitAlive(ctx context.Context, i int, sizes []int64) error {
	deadline := time.Now().Add(c.cfg.StartTimeout)
	for {
		missing := c.notYetAlive(i, sizes)
		if missing == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return &StartError{Node: i, LogTail: logTail(c.specs[i]),
				Err: fmt.Errorf("%w: after %s, %s", ErrNotReady, c.cfg.StartTimeout, missing)}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// notYetAlive describes the first missing "is now UP" pair, or returns "".
func (c *Cluster) notYetAlive(i int, sizes []int64) string {
	me := c.specs[i]
	for j, peer := range c.specs {
		if j == i || c.PID(j) == 0 {
			continue
		}
		if !loggedSince(me, sizes[i], upLine(peer.host)) {
			return fmt.Sprintf("%s has not marked %s up", me.name(), peer.name())
		}
		if !loggedSince(peer, sizes[j], upLine(me.host)) {
			return fmt.Sprintf("%s has not marked %s up", peer.name(), me.name())
		}
	}
	return ""
}
