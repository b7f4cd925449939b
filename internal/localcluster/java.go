package localcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// FindJava returns a Java 17 executable: $JAVA_HOME/bin/java, then java on
// PATH, then /usr/lib/jvm/java-17-openjdk-*/bin/java, the first that reports
// version 17. ErrJavaMissing means none exists; ErrJavaVersion means some do,
// but none is 17 (the error lists what was found).
func FindJava(ctx context.Context) (string, error) {
	return pickJava(ctx, javaCandidates(os.Getenv, exec.LookPath, filepath.Glob))
}

// pickJava returns the first candidate that reports version 17.
func pickJava(ctx context.Context, cands []string) (string, error) {
	if len(cands) == 0 {
		return "", ErrJavaMissing
	}
	var found []string
	for _, c := range cands {
		major, err := javaMajor(ctx, c)
		if err != nil {
			found = append(found, fmt.Sprintf("%s (%v)", c, err))
			continue
		}
		if major == 17 {
			return c, nil
		}
		found = append(found, fmt.Sprintf("%s (version %d)", c, major))
	}
	return "", fmt.Errorf("%w; found: %s", ErrJavaVersion, strings.Join(found, ", "))
}

// javaCandidates lists existing java executables in search order, without
// duplicates.
func javaCandidates(getenv func(string) string, lookPath func(string) (string, error), glob func(string) ([]string, error)) []string {
	var cands []string
	add := func(p string) {
		if p == "" {
			return
		}
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return
		}
		for _, c := range cands {
			if c == p {
				return
			}
		}
		cands = append(cands, p)
	}
	if h := getenv("JAVA_HOME"); h != "" {
		add(filepath.Join(h, "bin", "java"))
	}
	if p, err := lookPath("java"); err == nil {
		add(p)
	}
	if ms, err := glob("/usr/lib/jvm/java-17-openjdk-*/bin/java"); err == nil {
		for _, m := range ms {
			add(m)
		}
	}
	return cands
}

func javaMajor(ctx context.Context, java string) (int, error) {
	out, err := exec.CommandContext(ctx, java, "-version").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("run -version: %w", err)
	}
	return parseJavaMajor(string(out))
}

var javaVersionRE = regexp.MustCompile(`version "([0-9]+)(?:\.([0-9]+))?`)

// parseJavaMajor reads the major version from `java -version` output:
// "17.0.15" -> 17, "21" -> 21, and the old "1.8.0_402" -> 8.
func parseJavaMajor(out string) (int, error) {
	m := javaVersionRE.FindStringSubmatch(out)
	if m == nil {
		return 0, errors.New("no version in java -version output")
	}
	major, _ := strconv.Atoi(m[1])
	if major == 1 && m[2] != "" {
		major, _ = strconv.Atoi(m[2])
	}
	return major, nil
}
