package localcluster

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestParseJavaMajor(t *testing.T) {
	tests := []struct {
		name, out string
		want      int
	}{
		{"debian 17", "openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime Environment", 17},
		{"bare 21", "openjdk version \"21\" 2023-09-19", 21},
		{"temurin 25", "openjdk version \"25.0.1\" 2025-10-21 LTS", 25},
		{"legacy 8", "java version \"1.8.0_402\"", 8},
		{"early access", "openjdk version \"17-ea\" 2021-09-14", 17},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseJavaMajor(tt.out)
			if err != nil || got != tt.want {
				t.Errorf("got %d, %v; want %d", got, err, tt.want)
			}
		})
	}
	if _, err := parseJavaMajor("command not found"); err == nil {
		t.Error("garbage parsed without error")
	}
}

func TestJavaCandidatesOrder(t *testing.T) {
	dir := t.TempDir()
	mk := func(p string) string {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	home, path, jvm := mk("home/bin/java"), mk("usr/bin/java"), mk("jvm/java-17-openjdk-amd64/bin/java")
	tests := []struct {
		name     string
		javaHome string
		onPath   string
		globbed  []string
		want     []string
	}{
		{"all three", filepath.Join(dir, "home"), path, []string{jvm}, []string{home, path, jvm}},
		{"no JAVA_HOME", "", path, []string{jvm}, []string{path, jvm}},
		{"duplicates dropped", "", jvm, []string{jvm}, []string{jvm}},
		{"JAVA_HOME without java skipped", filepath.Join(dir, "nowhere"), "", []string{jvm}, []string{jvm}},
		{"nothing", "", "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "JAVA_HOME" {
					return tt.javaHome
				}
				return ""
			}
			lookPath := func(string) (string, error) {
				if tt.onPath == "" {
					return "", errors.New("not found")
				}
				return tt.onPath, nil
			}
			glob := func(string) ([]string, error) { return tt.globbed, nil }
			if got := javaCandidates(getenv, lookPath, glob); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestFindJava needs the machine's OpenJDK 17: a missing java fails the test.
func TestFindJava(t *testing.T) {
	java, err := FindJava(t.Context())
	if err != nil {
		t.Fatalf("FindJava: %v", err)
	}
	major, err := javaMajor(t.Context(), java)
	if err != nil || major != 17 {
		t.Errorf("%s is version %d (%v), want 17", java, major, err)
	}
}

func fakeJava(t *testing.T, version string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "java")
	script := "#!/bin/sh\necho 'openjdk version \"" + version + "\" 2024-01-16' >&2\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPickJava(t *testing.T) {
	j21, j17, j11 := fakeJava(t, "21.0.2"), fakeJava(t, "17.0.9"), fakeJava(t, "11.0.1")
	broken := filepath.Join(t.TempDir(), "java") // does not exist
	tests := []struct {
		name    string
		cands   []string
		want    string
		wantErr error
	}{
		{"first 17 wins", []string{j21, j17, j11}, j17, nil},
		{"skips broken", []string{broken, j17}, j17, nil},
		{"none is 17", []string{j21, j11}, "", ErrJavaVersion},
		{"no candidates", nil, "", ErrJavaMissing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pickJava(t.Context(), tt.cands)
			if got != tt.want || !errors.Is(err, tt.wantErr) {
				t.Errorf("got %q, %v; want %q, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
