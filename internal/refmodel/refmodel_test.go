package refmodel

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/tsbucket/tsbucket/schema"
)

var update = flag.Bool("update", false, "rewrite migrations/ from the specs")

func TestMigrationsUpToDate(t *testing.T) {
	for _, m := range MigrationFiles() {
		t.Run(m.Name, func(t *testing.T) {
			want, err := m.Render()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("migrations", m.Name)
			if *update {
				if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("%s is stale: run go generate ./internal/refmodel\ngot:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}

func TestMigrationsLoad(t *testing.T) {
	ms, err := schema.LoadMigrations(Migrations())
	if err != nil {
		t.Fatal(err)
	}
	wantStatements := []int{1 + 3 + 2, 4, 4} // metadata + chat (2 bucketed, 1 not), IoT, rides
	if len(ms) != len(wantStatements) {
		t.Fatalf("got %d migrations, want %d", len(ms), len(wantStatements))
	}
	for i, m := range ms {
		if m.Version != i+1 || len(m.Statements) != wantStatements[i] {
			t.Errorf("migration %d: got version %d with %d statements, want %d with %d",
				i, m.Version, len(m.Statements), i+1, wantStatements[i])
		}
		for _, s := range m.Statements {
			if err := schema.LintStatement(s); err != nil {
				t.Errorf("migration %d: %v", m.Version, err)
			}
		}
	}
}

func TestViewsAreClean(t *testing.T) {
	if got := schema.Lint(Views()); len(got) != 0 {
		t.Errorf("got findings %v, want none", got)
	}
	if _, err := schema.DDL("tsbucket", Views()); err != nil {
		t.Errorf("DDL of all views together: %v", err)
	}
}

func TestViewsDoNotShareSlices(t *testing.T) {
	a, b := ChatViews(), ChatViews()
	a[0].Values[0].Name = "changed"
	if b[0].Values[0].Name == "changed" {
		t.Error("ChatViews returned shared slices")
	}
}
