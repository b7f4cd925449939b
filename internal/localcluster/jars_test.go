package localcluster

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestDefaultCacheDir(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"explicit", map[string]string{"TSBUCKET_CACHE": "/c", "XDG_CACHE_HOME": "/x"}, "/c"},
		{"xdg", map[string]string{"XDG_CACHE_HOME": "/x"}, "/x/tsbucket"},
		{"home", nil, "/home/u/.cache/tsbucket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := defaultCacheDir(func(k string) string { return tt.env[k] }, func() (string, error) { return "/home/u", nil })
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	_, err := defaultCacheDir(func(string) string { return "" }, func() (string, error) { return "", errors.New("no home") })
	if err == nil {
		t.Error("no error without any cache location")
	}
}

func TestLockFileExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	unlock, err := lockFile(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tryLock(path); !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Errorf("second tryLock err = %v, want EWOULDBLOCK", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if _, err := lockFile(ctx, path); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting lockFile err = %v, want DeadlineExceeded", err)
	}
	unlock()
	again, err := tryLock(path)
	if err != nil {
		t.Fatalf("tryLock after unlock: %v", err)
	}
	again()
}

// TestEnsureJars fetches into a fresh cache with Maven (from ~/.m2 or Maven
// Central), twice at once, then checks reuse and recovery from a half-done
// fetch.
func TestEnsureJars(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Maven")
	}
	cache := t.TempDir()
	libs := make([]string, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range libs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			libs[i], errs[i] = EnsureJars(t.Context(), cache, nil)
		}()
	}
	wg.Wait()
	want := filepath.Join(cache, "cassandra-5.0.8", "lib")
	for i := range libs {
		if errs[i] != nil || libs[i] != want {
			t.Fatalf("caller %d: got %q, %v; want %q", i, libs[i], errs[i], want)
		}
	}
	assertLib(t, want)

	// A complete cache is reused: no Maven run, so nothing is logged.
	var log bytes.Buffer
	if _, err := EnsureJars(t.Context(), cache, &log); err != nil {
		t.Fatal(err)
	}
	if log.Len() != 0 {
		t.Errorf("EnsureJars on a complete cache fetched again: %q", log.String())
	}

	// A fetch that died before writing the marker is redone.
	marker := filepath.Join(cache, "cassandra-5.0.8", markerName)
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(want, "jamm-0.4.0.jar")); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureJars(t.Context(), cache, nil); err != nil {
		t.Fatal(err)
	}
	assertLib(t, want)
}

func assertLib(t *testing.T, lib string) {
	t.Helper()
	jars, err := filepath.Glob(filepath.Join(lib, "*.jar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(jars) < 90 {
		t.Errorf("%d jars in %s, want the full lib (about 100)", len(jars), lib)
	}
	for _, j := range []string{"cassandra-all-5.0.8.jar", "jamm-0.4.0.jar", "netty-transport-native-epoll-4.1.130.Final-linux-x86_64.jar"} {
		if _, err := os.Stat(filepath.Join(lib, j)); err != nil {
			t.Errorf("missing %s: %v", j, err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(lib), markerName)); err != nil {
		t.Errorf("no marker: %v", err)
	}
}

// TestIfNoCluster runs its function only while no cluster holds the lock,
// and holds the lock while it runs.
func TestIfNoCluster(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // a lock of the test's own
	ran, err := IfNoCluster(func() {
		if _, err := tryLock(clusterLockPath()); !errors.Is(err, syscall.EWOULDBLOCK) {
			t.Errorf("lock not held while fn runs: tryLock err = %v", err)
		}
	})
	if !ran || err != nil {
		t.Fatalf("IfNoCluster with no cluster = %v, %v; want true, nil", ran, err)
	}
	unlock, err := lockCluster(t.Context(), io.Discard) // a running cluster's hold
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ran, err = IfNoCluster(func() { t.Error("fn ran while a cluster held the lock") })
	if ran || err != nil {
		t.Errorf("IfNoCluster while held = %v, %v; want false, nil", ran, err)
	}
}
