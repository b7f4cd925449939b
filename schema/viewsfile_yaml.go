package schema

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// viewsDecoder walks the yaml.Node tree and collects problems, so one run
// reports every independent mistake in the file.
type viewsDecoder struct {
	file        string
	errs        []error
	rollupNodes []*yaml.Node // the rollups' mapping nodes
	// policyNodes are the autopilot policies' mapping nodes, checked against
	// the views once both are decoded.
	policyNodes []*yaml.Node
}

func (d *viewsDecoder) fail(n *yaml.Node, format string, args ...any) {
	d.failAt(n.Line, n.Column, fmt.Sprintf(format, args...))
}

func (d *viewsDecoder) failAt(line, col int, msg string) {
	if len(d.errs) == maxViewsFileProblems {
		return // bound the work on a file of nothing but mistakes
	}
	d.errs = append(d.errs, &ViewsFileError{File: d.file, Line: line, Column: col, Msg: msg})
}

// err returns the problems in file order, the first maxViewsFileErrors of
// them, then "too many errors" if there were more. Some are found only
// after what follows them (a missing field, once its mapping is read), so
// they are sorted here, by line and column, the order of discovery kept
// within one place.
func (d *viewsDecoder) err() error {
	if len(d.errs) == 0 {
		return nil
	}
	errs := slices.Clone(d.errs)
	slices.SortStableFunc(errs, func(a, b error) int {
		x, y := a.(*ViewsFileError), b.(*ViewsFileError)
		return cmp.Or(cmp.Compare(x.Line, y.Line), cmp.Compare(x.Column, y.Column))
	})
	if len(errs) > maxViewsFileErrors {
		next := *errs[maxViewsFileErrors].(*ViewsFileError)
		next.Msg = "too many errors"
		errs = append(errs[:maxViewsFileErrors], &next)
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// vfYAMLLine finds the line in the YAML parser's messages.
var vfYAMLLine = regexp.MustCompile(`^yaml: line (\d+): `)

// document parses exactly one YAML document and returns its root node.
func (d *viewsDecoder) document(data []byte) (root *yaml.Node) {
	defer func() {
		// The YAML library turns its failures into errors; should one
		// escape as a panic, it is still a file we cannot read.
		if r := recover(); r != nil {
			d.failAt(1, 1, fmt.Sprintf("yaml: %v", r))
			root = nil
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		d.yamlError(err, "the file is empty")
		return nil
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		d.fail(&next, "a views file holds one YAML document, found a second")
		return nil
	} else if err != io.EOF {
		d.yamlError(err, "")
		return nil
	}
	return doc.Content[0]
}

func (d *viewsDecoder) yamlError(err error, eof string) {
	if err == io.EOF {
		d.failAt(1, 1, eof)
		return
	}
	msg, line := err.Error(), 1
	if m := vfYAMLLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = "yaml: " + msg[len(m[0]):]
	}
	d.failAt(line, 0, msg)
}

// vfField is one known key of a mapping and how to decode its value.
type vfField struct {
	name     string
	required bool
	decode   func(*yaml.Node)
}

// fields decodes mapping n field by field and returns the keys present;
// ok is false when n is not a mapping.
func (d *viewsDecoder) fields(n *yaml.Node, where string, fs []vfField) (seen map[string]bool, ok bool) {
	if !d.kind(n, yaml.MappingNode, where, "a mapping") {
		return nil, false
	}
	seen = make(map[string]bool)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name, ok := d.str(k, vfAt(where, "field name"))
		if !ok {
			continue
		}
		f := vfFindField(fs, name)
		switch {
		case f == nil:
			d.fail(k, "%sunknown field %q (want %s)", vfPrefix(where), name, vfFieldNames(fs))
		case seen[name]:
			d.fail(k, "%s: given twice", vfAt(where, name))
		default:
			seen[name] = true
			f.decode(v)
		}
	}
	for _, f := range fs {
		if f.required && !seen[f.name] {
			d.fail(n, "%smissing required field %q", vfPrefix(where), f.name)
		}
	}
	return seen, true
}

func vfFindField(fs []vfField, name string) *vfField {
	for i := range fs {
		if fs[i].name == name {
			return &fs[i]
		}
	}
	return nil
}

func vfFieldNames(fs []vfField) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

// vfAt joins a location and a field name: `view "x"` + "ttl".
func vfAt(where, name string) string {
	if where == "" {
		return name
	}
	return where + ": " + name
}

func vfPrefix(where string) string {
	if where == "" {
		return ""
	}
	return where + ": "
}

// kind checks the node kind; want describes it for the message.
func (d *viewsDecoder) kind(n *yaml.Node, k yaml.Kind, where, want string) bool {
	if n.Kind == k {
		return true
	}
	d.fail(n, "%swant %s, got %s", vfPrefix(where), want, vfDescribe(n))
	return false
}

// vfDescribe names what a node is, for "want X, got Y".
func vfDescribe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias (*" + n.Value + "): aliases are not supported, write the value out"
	case yaml.DocumentNode:
		return "a document"
	}
	switch n.ShortTag() {
	case "!!null":
		return "nothing"
	case "!!int", "!!float":
		return fmt.Sprintf("the number %s (quote it to make it a string)", n.Value)
	case "!!bool":
		return fmt.Sprintf("the boolean %s (quote it to make it a string)", n.Value)
	case "!!str":
		return fmt.Sprintf("the string %q", n.Value)
	}
	return fmt.Sprintf("%q tagged %s", n.Value, n.Tag)
}

func (d *viewsDecoder) str(n *yaml.Node, where string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.fail(n, "%swant a string, got %s", vfPrefix(where), vfDescribe(n))
		return "", false
	}
	return n.Value, true
}

func (d *viewsDecoder) boolean(n *yaml.Node, where string) bool {
	var b bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
		d.fail(n, "%swant true or false, got %s", vfPrefix(where), vfDescribe(n))
	}
	return b
}

func (d *viewsDecoder) ident(n *yaml.Node, where string) string {
	s, ok := d.str(n, where)
	if !ok {
		return ""
	}
	if err := ValidateIdentifier(s); err != nil {
		d.fail(n, "%s: %v", where, err)
	}
	return s
}
