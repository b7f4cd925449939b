package localcluster_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/tsbucket/tsbucket/internal/localcluster"
)

// ExampleStart shows the usual test set-up: one node, stopped when done.
// It is not run here because it starts a JVM; see TestSingleNode.
func ExampleStart() {
	ctx := context.Background()
	c, err := localcluster.Start(ctx, localcluster.Config{Auth: true, Log: os.Stderr})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Stop()
	sess, err := c.ClusterConfig().CreateSession()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sess.Close()
	fmt.Println(c.Hosts(), c.Datacenter(0), c.Version())
}

// Config is validated before anything is fetched or started.
func ExampleStart_badConfig() {
	_, err := localcluster.Start(context.Background(), localcluster.Config{Nodes: 2})
	fmt.Println(errors.Is(err, localcluster.ErrBadConfig))
	fmt.Println(err)
	// Output:
	// true
	// localcluster: bad config: Nodes must be 1 or 3, got 2
}
