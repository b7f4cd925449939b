package integration

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeExample: the README's "Using it" code is exactly the part of
// readme_example_test.go between its README markers, so the README shows
// code that compiles and runs (as Example_readme).
func TestReadmeExample(t *testing.T) {
	src, err := os.ReadFile("readme_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok1 := strings.Cut(string(src), "// README:begin\n")
	want, _, ok2 := strings.Cut(rest, "// README:end")
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok3 := strings.Cut(string(readme), "## Using it\n")
	_, block, ok4 := strings.Cut(section, "```go\n")
	got, _, ok5 := strings.Cut(block, "```")
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		t.Fatal("README markers, or the go block under \"## Using it\", not found")
	}
	if strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Fatalf("README's \"Using it\" differs from readme_example_test.go; copy this into the README:\n%s", strings.TrimSpace(want))
	}
}
