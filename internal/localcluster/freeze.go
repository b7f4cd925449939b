package localcluster

import (
	"fmt"
	"syscall"
)

// Freeze sends SIGSTOP to node i's process group: the JVM stops dead, as in
// a long GC pause, while its sockets stay open, so peers and clients see a
// node that is up but does not answer. Thaw resumes it. Freezing a frozen
// node, or one that is not running, is a no-op; Kill, Restart and Stop work
// on a frozen node.
func (c *Cluster) Freeze(i int) error { return c.signalNode(i, syscall.SIGSTOP, "frozen") }

// Thaw sends SIGCONT to node i's process group, resuming a frozen node.
// Thawing a running node, or one that is not running, is a no-op.
func (c *Cluster) Thaw(i int) error { return c.signalNode(i, syscall.SIGCONT, "") }

func (c *Cluster) signalNode(i int, sig syscall.Signal, what string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.checkNode(i); err != nil {
		return err
	}
	if p := c.procs[i]; p != nil {
		p.signal(sig)
		if what != "" {
			fmt.Fprintf(c.cfg.Log, "%s %s\n", c.specs[i].name(), what)
		}
	}
	return nil
}
