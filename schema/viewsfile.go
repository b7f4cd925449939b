package schema

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

// ErrBadViewsFile means a views file is not valid YAML, breaks the
// documented format (docs/views-file.md), or declares a keyspace or view
// that Validate or Lint refuses. Each problem is a *ViewsFileError naming
// the line and column; several are joined with errors.Join.
var ErrBadViewsFile = errors.New("schema: bad views file")

// ViewsFile is what a views file declares: one keyspace and its views, in
// file order. Views hold the values as written, without defaults applied
// (an omitted id type stays "", as in a View literal).
type ViewsFile struct {
	Keyspace Keyspace
	Views    []View
	Rollups  []Rollup // the optional rollups section (schema.Rollup)
	// Autopilot holds the policies of the views the autopilot may resize
	// (AutopilotPolicy), as written: defaults are not applied.
	Autopilot []AutopilotPolicy
}

// ViewsFileError is one problem in a views file.
type ViewsFileError struct {
	File   string // the name given to ParseViewsFile, or the path
	Line   int    // 1-based
	Column int    // 1-based; 0 when the YAML parser gives only a line
	Msg    string // what is wrong, prefixed by where: `view "x": ttl: ...`
}

// Error returns "file:line:col: msg", the form editors jump to.
func (e *ViewsFileError) Error() string {
	if e.Column == 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// Unwrap makes errors.Is(err, ErrBadViewsFile) true.
func (e *ViewsFileError) Unwrap() error { return ErrBadViewsFile }

// maxViewsFileErrors bounds the problems reported for one file: the first
// ones in the file. maxViewsFileProblems bounds those collected to choose
// them from.
const (
	maxViewsFileErrors   = 20
	maxViewsFileProblems = 1000
)

// LoadViewsFile reads and parses the views file at path (ParseViewsFile).
// A file that cannot be read is an error wrapping the fs error.
func LoadViewsFile(path string) (ViewsFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return ViewsFile{}, fmt.Errorf("load views file: %w", err)
	}
	return ParseViewsFile(path, data)
}

// ParseViewsFile decodes a views file strictly: unknown or repeated fields,
// wrong YAML types, aliases and values out of range are errors, then every
// view must pass Validate and Lint (as repo.Open requires) and no two tables
// may share a name. It is all or nothing: on any error the ViewsFile is
// zero. name is only used in error messages.
func ParseViewsFile(name string, data []byte) (ViewsFile, error) {
	d := &viewsDecoder{file: name}
	root := d.document(data)
	if root == nil {
		return ViewsFile{}, d.err()
	}
	f, nodes := d.root(root)
	if len(d.errs) == 0 {
		d.check(f, nodes)
	}
	if len(d.errs) == 0 {
		d.checkAutopilot(f)
	}
	if err := d.err(); err != nil {
		return ViewsFile{}, err
	}
	return f, nil
}

// Marshal writes f in the canonical form of a views file: fields in the
// documented order, defaults and zero values left out, fixed schemes as
// width and epoch, preset names for the Discord and Twitter kinds and
// epochs. ParseViewsFile reads it back to an equal ViewsFile. A ViewsFile
// that ParseViewsFile would refuse (an invalid view, a Lint finding, a kind
// outside package bucket) is an error wrapping ErrBadViewsFile.
func (f ViewsFile) Marshal() ([]byte, error) {
	doc := &yaml.Node{Kind: yaml.DocumentNode, HeadComment: "tsbucket views file: see docs/views-file.md",
		Content: []*yaml.Node{f.node()}}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("marshal views file: %w: %v", ErrBadViewsFile, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("marshal views file: %w: %v", ErrBadViewsFile, err)
	}
	if _, err := ParseViewsFile("marshal", buf.Bytes()); err != nil {
		return nil, fmt.Errorf("marshal views file: %w", err)
	}
	return buf.Bytes(), nil
}

// check applies the rules that need a whole view or the whole file: Validate,
// Lint (every finding refuses the file, as repo.Open refuses it), and
// table names used twice.
func (d *viewsDecoder) check(f ViewsFile, nodes []*yaml.Node) {
	tables := map[string]vfTable{MetadataTable: {}, MigrationsTable: {}}
	for i, v := range f.Views {
		n := nodes[i]
		if err := v.WithDefaults().validate(); err != nil {
			d.fail(n, "view %q: %v", v.Name, err)
			continue
		}
		for _, fd := range lintView(v) {
			d.fail(n, "view %q: lint %s: %s", v.Name, fd.Rule, fd.Message)
		}
		d.claimTables(tables, v, n)
	}
	if len(d.errs) > 0 || len(nodes) == 0 {
		return
	}
	d.checkLatest(f.Views, nodes)
	d.checkRollups(f, d.rollupNodes) // viewsfile_rollup.go
	if len(d.errs) > 0 {
		return
	}
	if _, err := DDL(f.Keyspace.Name, f.Views); err != nil {
		d.failAt(nodes[0].Line, nodes[0].Column, err.Error()) // claimTables should have caught it
	}
}

// vfTable is the view whose table (or presence table) took a name; the
// zero value is tsbucket itself.
type vfTable struct {
	view string
	line int
}

// claimTables records the view's table and presence table names, refusing
// a name another view (or tsbucket itself) already uses.
func (d *viewsDecoder) claimTables(tables map[string]vfTable, v View, n *yaml.Node) {
	names := []string{v.Name}
	if v.Bucketed() {
		names = append(names, v.PresenceTable())
	}
	for _, t := range names {
		owner, dup := tables[t]
		switch {
		case !dup:
			tables[t] = vfTable{v.Name, n.Line}
		case owner.view == "":
			d.fail(n, "view %q: table name %q is used by tsbucket itself", v.Name, t)
		case owner.view == v.Name:
			d.fail(n, "view %q: name given twice (first at line %d)", v.Name, owner.line)
		default:
			d.fail(n, "view %q: table name %q is already used by view %q (line %d)", v.Name, t, owner.view, owner.line)
		}
	}
}

// checkLatest checks each latest-value view against its source (CheckLatest),
// failing at the latest-value view's place in the file.
func (d *viewsDecoder) checkLatest(views []View, nodes []*yaml.Node) {
	for i, v := range views {
		if !v.IsLatest() {
			continue
		}
		byName := map[string]View{}
		if src, ok := sourceOf(views, v); ok {
			byName[src.Name] = src.WithDefaults()
		}
		if err := checkLatestSource(v.WithDefaults(), byName); err != nil {
			d.fail(nodes[i], "view %q: latest_of %q: %v", v.Name, v.LatestOf, err)
		}
	}
}

// sourceOf returns the view v is the latest value of.
func sourceOf(views []View, v View) (View, bool) {
	for _, s := range views {
		if s.Name == v.LatestOf {
			return s, true
		}
	}
	return View{}, false
}
