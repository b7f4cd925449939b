package refmodel

import (
	"embed"

	"github.com/tsbucket/tsbucket/schema"
)

//go:embed views/*.yaml
var viewFiles embed.FS

// ViewsFile returns the embedded views file name ("chat.yaml", "iot.yaml"
// or "rides.yaml") parsed: the keyspace the demo uses and the views.
func ViewsFile(name string) (schema.ViewsFile, error) {
	data, err := viewFiles.ReadFile("views/" + name)
	if err != nil {
		return schema.ViewsFile{}, err
	}
	return schema.ParseViewsFile("internal/refmodel/views/"+name, data)
}

// loadViews parses an embedded views file on every call, so each caller
// gets views that share no slices with anyone else's.
func loadViews(name string) []schema.View {
	f, err := ViewsFile(name)
	if err != nil {
		panic("refmodel: " + err.Error()) // embedded and tested: cannot happen
	}
	return f.Views
}
