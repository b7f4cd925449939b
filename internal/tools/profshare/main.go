package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

func main() {
	scenario := flag.String("scenario", "put", "the scenario IDs in results.json, comma-separated: the variant's samples and operations in those alone (put is the closed-loop Put; a profile from before the scenario label needs every scenario whose calls -focus selects, put,put-paced for a Put variant)")
	variant := flag.String("variant", "tsbucket", "the variant's name, as in results.json and the profile's variant label")
	focus := flag.String("focus", "", "go tool pprof -focus: only samples under a frame matching it (the variant's calls, not another scenario's of the same name)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: profshare [-scenario ID] [-variant NAME] [-focus REGEXP] DIR...")
		os.Exit(2)
	}
	shares, ops, err := measure(flag.Args(), *scenario, *variant, *focus)
	if err != nil {
		fmt.Fprintln(os.Stderr, "profshare:", err)
		os.Exit(1)
	}
	report(shares, ops)
}

// measure sums the variant's seconds by category, and its operations,
// over dirs.
func measure(dirs []string, scenario, variant, focus string) (map[string]float64, int64, error) {
	shares := map[string]float64{}
	var ops int64
	for _, dir := range dirs {
		n, others, err := opsOf(filepath.Join(dir, "results.json"), scenario, variant)
		if err != nil {
			return nil, 0, err
		}
		ops += n
		top, err := pprofTop(filepath.Join(dir, "cpu.prof"), variant, others, focus)
		if err != nil {
			return nil, 0, err
		}
		for name, seconds := range parseTop(top) {
			shares[category(name)] += seconds
		}
	}
	if ops == 0 {
		return nil, 0, fmt.Errorf("variant %q of scenario %q has no operations in %v", variant, scenario, dirs)
	}
	return shares, ops, nil
}

// opsOf is the operations of variant in the scenarios (comma-separated
// IDs), from a results.json, and the other scenarios that have a variant
// of that name, whose samples are to be left out. The blocks of a
// variant carry its name in their variant label, whatever their
// scenario, and their scenario's ID in their scenario label (bench's
// tally.measure), which the profile's samples are filtered by. Profiles
// of runs from before that label have none to filter by: there the
// scenarios named must be those whose calls -focus selects (put and
// put-paced for a Put variant), or the time of some would be divided by
// the operations of others.
func opsOf(path, scenarios, variant string) (ops int64, others []string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, err
	}
	var r struct {
		Scenarios []struct {
			ID       string `json:"id"`
			Variants []struct {
				Name string `json:"name"`
				Ops  int64  `json:"ops"`
			} `json:"variants"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return 0, nil, fmt.Errorf("%s: %w", path, err)
	}
	want := strings.Split(scenarios, ",")
	var labelled []string // the scenarios that have the variant
	for _, s := range r.Scenarios {
		for _, v := range s.Variants {
			if v.Name == variant {
				labelled = append(labelled, s.ID)
				if slices.Contains(want, s.ID) {
					ops += v.Ops
				} else {
					others = append(others, s.ID)
				}
			}
		}
	}
	for _, id := range want {
		if !slices.Contains(labelled, id) {
			return 0, nil, fmt.Errorf("%s: no variant %q in scenario %q", path, variant, id)
		}
	}
	return ops, others, nil
}

// pprofTop is `go tool pprof -top` of every function's own samples in the
// variant's goroutines, but for those labelled with one of the scenarios
// others.
func pprofTop(profile, variant string, others []string, focus string) (string, error) {
	args := []string{"tool", "pprof", "-top", "-nodecount=1000000", "-nodefraction=0", "-edgefraction=0",
		"-tagfocus=variant=" + tagPattern(variant)}
	if len(others) > 0 {
		args = append(args, "-tagignore=scenario="+anyOf(others))
	}
	if focus != "" {
		args = append(args, "-focus="+focus)
	}
	out, err := exec.Command("go", append(args, profile)...).Output()
	if err != nil {
		return "", fmt.Errorf("go tool pprof %s: %w", profile, err)
	}
	return string(out), nil
}

// tagPattern matches exactly the label value name. pprof splits -tagfocus at
// commas, so a comma in the name is matched by any character.
func tagPattern(name string) string {
	return "^" + strings.ReplaceAll(regexp.QuoteMeta(name), ",", ".") + "$"
}

// anyOf matches exactly any of names (pprof's -tagignore takes a list of
// patterns separated by commas, any of which may match).
func anyOf(names []string) string {
	pats := make([]string, len(names))
	for i, n := range names {
		pats[i] = tagPattern(n)
	}
	return strings.Join(pats, ",")
}

// topLine is a line of `go tool pprof -top`: flat, flat%, sum%, cum,
// cum%, function.
var topLine = regexp.MustCompile(`^\s*([\d.]+)(ns|us|µs|ms|s|min|hrs)\s+[\d.]+%\s+[\d.]+%\s+[\d.]+(?:ns|us|µs|ms|s|min|hrs)\s+[\d.]+%\s+(.+)$`)

var unitSeconds = map[string]float64{"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "min": 60, "hrs": 3600}

// parseTop is the flat seconds of each function of a -top listing.
func parseTop(top string) map[string]float64 {
	flat := map[string]float64{}
	for _, line := range strings.Split(top, "\n") {
		m := topLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			continue
		}
		flat[strings.TrimSuffix(m[3], " (inline)")] += v * unitSeconds[m[2]]
	}
	return flat
}

// pkgOf is the package path of a function name as pprof prints it
// ("github.com/gocql/gocql.(*Query).attempt", "runtime.mallocgc"): up to
// the first dot after the last slash, ignoring type arguments; "" for an
// assembly routine without one ("aeshashbody").
func pkgOf(name string) string {
	if i := strings.IndexAny(name, "[("); i >= 0 {
		name = name[:i]
	}
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return ""
	}
	return name[:slash+1+dot]
}

// runtimeKinds sort the runtime's own functions (and the assembly routines
// it calls) by what they do, first match wins.
var runtimeKinds = []struct {
	kind string
	re   *regexp.Regexp
}{
	{"clock", regexp.MustCompile(`nanotime|walltime|runtimeNow|vdso`)},
	{"map lookups", regexp.MustCompile(`^runtime\.map|^internal/runtime/maps\.|aeshash|memhash|strhash`)},
	{"allocation", regexp.MustCompile(`malloc|nextFree|newobject|makeslice|growslice|mspan|mcache|mcentral|mheap|heapSet|memclr|makeSpan|HeapBits|newarray|tryDefer|deductAssist|gcAssist|roundupsize|spanSet|fixalloc|sweep`)},
	{"memory copy and compare", regexp.MustCompile(`memmove|memeq|cmpbody|concatstring|rawstring|slicebytetostring|stringtoslice|indexbyte`)},
	{"locks and atomics", regexp.MustCompile(`^internal/runtime/atomic\.|lock2|unlock2|^runtime\.lock|^runtime\.unlock|futex|sema|cansemacquire|procyield|osyield`)},
	{"scheduling, stacks and system calls", regexp.MustCompile(`.`)},
}

// category is where a function's time counts.
func category(name string) string {
	pkg := pkgOf(name)
	const own = "github.com/tsbucket/tsbucket/"
	switch {
	case strings.HasPrefix(pkg, own+"internal/hashtab"):
		return "tsbucket internal/hashtab"
	case strings.HasPrefix(pkg, own+"internal/refmodel"), strings.HasPrefix(pkg, own+"bench"):
		return "the benchmark"
	case strings.HasPrefix(pkg, own):
		return "tsbucket " + strings.SplitN(strings.TrimPrefix(pkg, own), "/", 2)[0]
	case strings.HasPrefix(pkg, "github.com/prometheus/"):
		return "tsbucket metrics"
	case pkg == "reflect", strings.HasPrefix(pkg, "github.com/scylladb/go-reflectx"), strings.HasPrefix(pkg, "internal/reflectlite"):
		return "reflection"
	case strings.HasPrefix(pkg, "github.com/gocql/"), strings.HasPrefix(pkg, "github.com/scylladb/"):
		return "the driver (gocql)"
	case pkg == "time":
		return "clock"
	case pkg == "sync", pkg == "sync/atomic", pkg == "internal/sync":
		return "locks and atomics"
	case pkg == "runtime", pkg == "", strings.HasPrefix(pkg, "internal/runtime/"):
		for _, k := range runtimeKinds {
			if k.re.MatchString(name) {
				return k.kind
			}
		}
	}
	return "other standard library"
}

// report writes the shares in µs per op, largest first, and their total.
func report(shares map[string]float64, ops int64) {
	names := make([]string, 0, len(shares))
	total := 0.0
	for name, s := range shares {
		names = append(names, name)
		total += s
	}
	sort.Slice(names, func(i, j int) bool { return shares[names[i]] > shares[names[j]] })
	for _, name := range names {
		fmt.Printf("%-40s %8.2f µs/op\n", name, shares[name]*1e6/float64(ops))
	}
	fmt.Printf("%-40s %8.2f µs/op (%d ops)\n", "total", total*1e6/float64(ops), ops)
}
