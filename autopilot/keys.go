package autopilot

import (
	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// keyValues reads a key text form (repo.Key.String) as the values of v's
// key columns, to bind in a COUNT of its partition.
func keyValues(v schema.View, text string) ([]any, error) {
	return repo.ParseKeyText(v, text)
}
