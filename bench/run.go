package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Run loads the data and runs every scenario against the cluster of cfg. The
// keyspace cfg.Keyspace is dropped and recreated first, and dropped at the
// end unless cfg.Keep.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
	cfg = cfg.withDefaults()
	rep := Report{Started: time.Now().UTC().Truncate(time.Second), Machine: machine(), Settings: settingsOf(cfg)}
	start := time.Now()
	e, err := setup(ctx, cfg)
	if err != nil {
		return Report{}, err
	}
	defer e.close()
	rep.Machine.Server = "Apache Cassandra " + e.serverVersion(ctx)
	g := &ids{}
	if err := e.load(ctx, g); err != nil {
		return Report{}, err
	}
	steps := []struct {
		name string
		run  func(context.Context) ([]Scenario, error)
	}{
		{"dense", one(e.dense)},
		{"sparse", one(e.sparse)},
		{"empty", one(e.empty)},
		{"writes", func(ctx context.Context) ([]Scenario, error) { return e.writes(ctx, g) }},
		{"hot", one(e.hot)},
		{"deep", one(e.deep)},
	}
	for _, st := range steps {
		if len(cfg.Only) > 0 && !slices.Contains(cfg.Only, st.name) {
			continue
		}
		t := time.Now()
		var ss []Scenario
		var err error
		pprof.Do(ctx, pprof.Labels("step", st.name), func(ctx context.Context) { ss, err = st.run(ctx) })
		if err != nil {
			return Report{}, fmt.Errorf("bench: scenario %s: %w", st.name, err)
		}
		e.logf("scenario %s done in %v", st.name, time.Since(t).Round(time.Millisecond))
		rep.Scenarios = append(rep.Scenarios, ss...)
	}
	rep.Seconds = round3(time.Since(start).Seconds())
	if !cfg.Keep {
		if err := dropKeyspace(ctx, cfg); err != nil {
			return rep, fmt.Errorf("bench: drop keyspace: %w", err)
		}
	}
	return rep, nil
}

func one(f func(context.Context) (Scenario, error)) func(context.Context) ([]Scenario, error) {
	return func(ctx context.Context) ([]Scenario, error) {
		s, err := f(ctx)
		if err != nil {
			return nil, err
		}
		return []Scenario{s}, nil
	}
}

// machine describes this host from /proc where it can (Linux), else from
// the runtime alone.
func machine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, Go: runtime.Version()}
	m.CPU = procField("/proc/cpuinfo", "model name")
	if kb, err := strconv.ParseFloat(strings.Fields(procField("/proc/meminfo", "MemTotal") + " 0")[0], 64); err == nil {
		m.MemoryGiB = round3(kb / (1 << 20))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			m.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	return m
}

// procField returns the value of the first "key: value" line of file, or "".
func procField(file, key string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
