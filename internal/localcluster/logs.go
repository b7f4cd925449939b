package localcluster

import (
	"io"
	"os"
	"strings"
)

// tailLines is how much of a node's log a StartError carries.
const tailLines = 40

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// tailFile returns the last n lines of the file at path, reading at most its
// last 64 KiB, or "" when it cannot be read.
func tailFile(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const window = 64 << 10
	if st, err := f.Stat(); err == nil && st.Size() > window {
		if _, err := f.Seek(st.Size()-window, io.SeekStart); err != nil {
			return ""
		}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return ""
	}
	return lastLines(string(b), n)
}

// logTail is the tail of system.log and, when the JVM wrote anything to its
// stdout or stderr (flag errors, crashes before logging starts), of that too.
func logTail(n nodeSpec) string {
	tail := tailFile(n.systemLog(), tailLines)
	if out := tailFile(n.outputLog(), tailLines/2); strings.TrimSpace(out) != "" {
		tail += "\n--- " + n.outputLog() + " ---\n" + out
	}
	if strings.TrimSpace(tail) == "" {
		return "(no log output in " + n.logDir() + ")"
	}
	return tail
}
