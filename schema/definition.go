package schema

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// DefinitionVersion is the version of the view definition text RegisterViews
// stores. Version 1 is one view in its views-file form (docs/views-file.md),
// a YAML mapping: readable with cqlsh, and parsed by the same strict decoder
// as a views file.
const DefinitionVersion = 1

// encodeDefinition is the text RegisterViews stores for v.
func encodeDefinition(v View) (string, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(vfViewNode(v)); err != nil {
		return "", fmt.Errorf("encode definition: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("encode definition: %w", err)
	}
	return buf.String(), nil
}

// decodeDefinition parses a stored definition strictly and validates it.
func decodeDefinition(text string) (View, error) {
	d := &viewsDecoder{file: "definition"}
	root := d.document([]byte(text))
	if root == nil {
		return View{}, d.err()
	}
	v := d.view(root, vfViewLabel(root, 0))
	if err := d.err(); err != nil {
		return View{}, err
	}
	if err := v.Validate(); err != nil {
		return View{}, err
	}
	return v, nil
}
