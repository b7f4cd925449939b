package localcluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// nodetoolFlags are conf/jvm17-clients.options of Cassandra 5.0: without them
// nodetool fails on Java 17's module boundaries.
var nodetoolFlags = []string{
	"--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
	"--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
	"--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
	"--add-exports=java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED",
	"--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
	"--add-exports=java.rmi/sun.rmi.server=ALL-UNNAMED",
	"--add-exports=java.sql/java.sql=ALL-UNNAMED",
	"--add-opens=java.base/java.lang.module=ALL-UNNAMED",
	"--add-opens=java.base/jdk.internal.loader=ALL-UNNAMED",
	"--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
	"--add-opens=java.base/jdk.internal.reflect=ALL-UNNAMED",
	"--add-opens=java.base/jdk.internal.math=ALL-UNNAMED",
	"--add-opens=java.base/jdk.internal.module=ALL-UNNAMED",
	"--add-opens=java.base/jdk.internal.util.jar=ALL-UNNAMED",
	"--add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED",
	"--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
}

// NodetoolCommand returns the java command line that runs nodetool with args
// against the node whose local JMX port is jmxPort, from the cassandra-all
// jars in lib: a small client JVM (128 MiB, C1 only, serial GC) that starts
// in about two seconds. Its history file goes to the temporary directory.
func NodetoolCommand(ctx context.Context, java, lib string, jmxPort int, args ...string) *exec.Cmd {
	cmdArgs := append([]string{"-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"}, nodetoolFlags...)
	cmdArgs = append(cmdArgs, "-Dcassandra.logdir.tools="+os.TempDir(), "-cp", filepath.Join(lib, "*"),
		"org.apache.cassandra.tools.NodeTool", "-h", "127.0.0.1", "-p", strconv.Itoa(jmxPort))
	return exec.CommandContext(ctx, java, append(cmdArgs, args...)...)
}

// Nodetool runs nodetool with args against node i (0-based) and returns its
// standard output; a failure carries the end of its standard error.
func (c *Cluster) Nodetool(ctx context.Context, i int, args ...string) (string, error) {
	c.mu.Lock()
	err := c.checkNode(i)
	c.mu.Unlock()
	if err != nil {
		return "", err
	}
	cmd := NodetoolCommand(ctx, c.java, c.lib, c.specs[i].jmxPort, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("localcluster: nodetool %s on %s: %w: %s",
			strings.Join(args, " "), c.specs[i].name(), err, lastLines(stderr.String(), 3))
	}
	return stdout.String(), nil
}
