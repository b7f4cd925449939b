package localcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// pom is the tiny project whose runtime dependencies are exactly Cassandra's lib/.
const pom = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.tsbucket</groupId><artifactId>cassandra-lib</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.cassandra</groupId><artifactId>cassandra-all</artifactId><version>` + Version + `</version></dependency>
  </dependencies>
</project>
`

// markerName is written after a complete fetch; its absence means lib/ may be
// half-filled and must be fetched again.
const markerName = "lib.complete"

// DefaultCacheDir is $TSBUCKET_CACHE, else $XDG_CACHE_HOME/tsbucket, else
// ~/.cache/tsbucket.
func DefaultCacheDir() (string, error) {
	return defaultCacheDir(os.Getenv, os.UserHomeDir)
}

func defaultCacheDir(getenv func(string) string, home func() (string, error)) (string, error) {
	if d := getenv("TSBUCKET_CACHE"); d != "" {
		return d, nil
	}
	if d := getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "tsbucket"), nil
	}
	h, err := home()
	if err != nil {
		return "", fmt.Errorf("localcluster: find cache dir: %w", err)
	}
	return filepath.Join(h, ".cache", "tsbucket"), nil
}

// EnsureJars makes sure cassandra-all 5.0.8 and its runtime dependencies are
// in cacheDir/cassandra-5.0.8/lib and returns that directory. cacheDir ""
// means DefaultCacheDir. The first call runs Maven (a few seconds when
// ~/.m2 already holds the artifacts, longer when they come from Maven
// Central); later calls only check the marker. Concurrent callers, in this or
// other processes, wait for one another on a lock file.
func EnsureJars(ctx context.Context, cacheDir string, log io.Writer) (string, error) {
	if log == nil {
		log = io.Discard
	}
	if cacheDir == "" {
		d, err := DefaultCacheDir()
		if err != nil {
			return "", err
		}
		cacheDir = d
	}
	base := filepath.Join(cacheDir, "cassandra-"+Version)
	lib := filepath.Join(base, "lib")
	if jarsComplete(base) {
		return lib, nil
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", fmt.Errorf("localcluster: create cache dir: %w", err)
	}
	unlock, err := lockFile(ctx, filepath.Join(base, ".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if jarsComplete(base) { // another process finished while we waited
		return lib, nil
	}
	return lib, fetchJars(ctx, base, log)
}

func jarsComplete(base string) bool {
	_, err := os.Stat(filepath.Join(base, markerName))
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(base, "lib", "cassandra-all-"+Version+".jar"))
	return err == nil
}

// lockFile takes an exclusive flock on path, polling so that ctx can cancel
// the wait. The lock dies with the process, so a crashed holder never wedges.
func lockFile(ctx context.Context, path string) (func(), error) {
	for {
		unlock, err := tryLock(path)
		if err == nil {
			return unlock, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("localcluster: wait for lock %s: %w", path, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// tryLock takes an exclusive flock on path or fails with EWOULDBLOCK.
func tryLock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("localcluster: open lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, err
		}
		return nil, fmt.Errorf("localcluster: lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil // closing the only descriptor releases the lock
}

// fetchJars runs Maven into a scratch directory and renames it into place, so
// lib/ is either absent, stale-without-marker, or complete.
func fetchJars(ctx context.Context, base string, log io.Writer) error {
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMavenMissing, err)
	}
	lib, tmp := filepath.Join(base, "lib"), filepath.Join(base, "lib.tmp")
	for _, p := range []string{filepath.Join(base, markerName), lib, tmp} {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("localcluster: clean cache: %w", err)
		}
	}
	pomPath := filepath.Join(base, "pom.xml")
	if err := os.WriteFile(pomPath, []byte(pom), 0o644); err != nil {
		return fmt.Errorf("localcluster: write pom: %w", err)
	}
	fmt.Fprintf(log, "fetching cassandra-all %s and dependencies with Maven into %s\n", Version, lib)
	start := time.Now()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, mvn, "-q", "-B", "-f", pomPath,
		"dependency:copy-dependencies", "-DoutputDirectory="+tmp, "-DincludeScope=runtime")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: mvn: %v\n%s", ErrFetch, err, lastLines(out.String(), 40))
	}
	jars, err := filepath.Glob(filepath.Join(tmp, "*.jar"))
	if err != nil || !slices.Contains(jars, filepath.Join(tmp, "cassandra-all-"+Version+".jar")) {
		return fmt.Errorf("%w: cassandra-all-%s.jar missing after mvn", ErrFetch, Version)
	}
	if err := os.Rename(tmp, lib); err != nil {
		return fmt.Errorf("%w: %v", ErrFetch, err)
	}
	if err := os.WriteFile(filepath.Join(base, markerName), []byte(strings.Join(baseNames(jars), "\n")+"\n"), 0o644); err != nil {
		return fmt.Errorf("%w: write marker: %v", ErrFetch, err)
	}
	fmt.Fprintf(log, "fetched %d jars in %.1fs\n", len(jars), time.Since(start).Seconds())
	return nil
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}
