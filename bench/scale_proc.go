package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tsbucket/tsbucket/internal/localcluster"
)

// clockTick is the unit of /proc/<pid>/stat and /proc/stat times (USER_HZ,
// 100 on every Linux this runs on).
const clockTick = 10 * time.Millisecond

// procCPU is the user plus system CPU time of process pid so far, from
// /proc/<pid>/stat; 0 where there is no /proc.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: fields count from
	// the last ')'. After it: state (0), ..., utime (11), stime (12).
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * clockTick
}

// procReadBytes is what process pid has read from storage so far (not from
// the page cache), from /proc/<pid>/io; 0 where unreadable.
func procReadBytes(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "read_bytes:"); ok {
			n, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// machineCPU is the busy and iowait CPU time of the whole machine so far,
// every process of every user, from /proc/stat.
func machineCPU() (busy, iowait time.Duration) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return 0, 0
	}
	var total int64
	vals := make([]int64, len(f)-1)
	for i, s := range f[1:] {
		vals[i], _ = strconv.ParseInt(s, 10, 64)
		if i < 8 { // user nice system idle iowait irq softirq steal; guest is in user
			total += vals[i]
		}
	}
	idle, wait := vals[3], vals[4]
	return time.Duration(total-idle-wait) * clockTick, time.Duration(wait) * clockTick
}

// LocalNodetool returns a ScaleConfig.Nodetool for the nodes of a cluster
// started by internal/localcluster: org.apache.cassandra.tools.NodeTool from
// the same cassandra-all jars the nodes run, over each node's local JMX port
// (7100, 7200, 7300: see internal/localcluster). Only its standard output
// is kept; its history goes to a temporary directory.
func LocalNodetool(ctx context.Context, nodes int) (func(ctx context.Context, args ...string) ([]string, error), error) {
	java, err := localcluster.FindJava(ctx)
	if err != nil {
		return nil, err
	}
	lib, err := localcluster.EnsureJars(ctx, "", nil)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, args ...string) ([]string, error) {
		out := make([]string, nodes)
		for i := range nodes {
			cmd := localcluster.NodetoolCommand(ctx, java, lib, 7100+100*i, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				tail := stderr.String()
				if len(tail) > 600 {
					tail = tail[len(tail)-600:]
				}
				return nil, fmt.Errorf("bench: nodetool %s on node%d: %w: %s", strings.Join(args, " "), i+1, err, tail)
			}
			out[i] = stdout.String()
		}
		return out, nil
	}, nil
}

// tableStats is what `nodetool tablestats` says of one table, summed over
// the nodes (the tombstone average is the largest node's).
type tableStats struct {
	SSTables         int     `json:"sstables"`
	LiveBytes        int64   `json:"live_bytes"`
	TombstonesSlice  float64 `json:"avg_tombstones_per_slice"`
	LiveCellsSlice   float64 `json:"avg_live_cells_per_slice"`
	LocalReadLatency float64 `json:"local_read_latency_ms"`
}

// parseTableStats reads the figures of tableStats from each node's
// `nodetool tablestats ks.table` output.
func parseTableStats(outs []string) tableStats {
	var t tableStats
	for _, out := range outs {
		for _, line := range strings.Split(out, "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
			if !ok {
				continue
			}
			v = strings.TrimSpace(v)
			f, _ := strconv.ParseFloat(strings.TrimSuffix(v, " ms"), 64)
			switch k {
			case "SSTable count":
				t.SSTables += int(f)
			case "Space used (live)":
				t.LiveBytes += int64(f)
			case "Average tombstones per slice (last five minutes)":
				t.TombstonesSlice = max(t.TombstonesSlice, f)
			case "Average live cells per slice (last five minutes)":
				t.LiveCellsSlice = max(t.LiveCellsSlice, f)
			case "Local read latency":
				t.LocalReadLatency = max(t.LocalReadLatency, f)
			}
		}
	}
	return t
}
