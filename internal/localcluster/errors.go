package localcluster

import (
	"errors"
	"fmt"
)

// Sentinel errors. Callers test them with errors.Is.
var (
	// ErrJavaMissing means no java executable was found at all.
	ErrJavaMissing = errors.New("localcluster: java not found (set JAVA_HOME to an OpenJDK 17)")
	// ErrJavaVersion means java was found but none of the candidates is Java 17,
	// the only version Cassandra 5.0 runs on here.
	ErrJavaVersion = errors.New("localcluster: Cassandra 5.0 needs Java 17")
	// ErrMavenMissing means mvn is not on PATH, so the jars cannot be fetched.
	ErrMavenMissing = errors.New("localcluster: mvn not found on PATH")
	// ErrFetch means Maven failed to fetch the Cassandra jars.
	ErrFetch = errors.New("localcluster: fetch cassandra jars")
	// ErrBadConfig means Config failed validation.
	ErrBadConfig = errors.New("localcluster: bad config")
	// ErrNotReady means a node did not accept CQL in time or died trying.
	ErrNotReady = errors.New("localcluster: node not ready")
	// ErrExited means a node's JVM exited while it was expected to run.
	ErrExited = errors.New("localcluster: node process exited")
	// ErrPortBusy means a port a node needs is taken, usually by a Cassandra
	// started outside this package.
	ErrPortBusy = errors.New("localcluster: port in use")
	// ErrStopped means the cluster was already stopped.
	ErrStopped = errors.New("localcluster: cluster stopped")
	// ErrNoNode means a node index is out of range.
	ErrNoNode = errors.New("localcluster: no such node")
)

// StartError reports a node that failed to become ready, with the last lines
// of its logs so the cause is visible in a test failure without digging.
type StartError struct {
	Node    int // 0-based node index
	Err     error
	LogTail string
}

// Error prints the cause followed by the log tail.
func (e *StartError) Error() string {
	return fmt.Sprintf("localcluster: node%d: %v\n--- last log lines ---\n%s", e.Node+1, e.Err, e.LogTail)
}

// Unwrap exposes the cause to errors.Is and errors.As.
func (e *StartError) Unwrap() error { return e.Err }
