package schema

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tsbucket/tsbucket/bucket"
)

// Column types are parsed, never passed through: a type string is accepted
// only if it matches this grammar, and the generated CQL prints the parsed
// tree in the canonical form Cassandra itself reports in
// system_schema.columns.type, so the drift check can compare texts.
//
//	type   = native | frozen<coll> | list<type> | set<type> | map<type, type>
//	       | tuple<type, ...> | vector<type, N>
//	native = ascii | bigint | blob | boolean | date | decimal | double
//	       | duration | float | inet | int | smallint | text | time
//	       | timestamp | timeuuid | tinyint | uuid | varchar | varint
//
// counter is left out on purpose: counter tables cannot hold other value
// columns nor a TTL. A duration cannot be a set's element nor a map's key
// (the server refuses both: durations have no order). User-defined types are not supported.

const (
	maxTypeLen   = 256 // longer type texts are refused before parsing
	maxTypeDepth = 8
)

// cqlType is one parsed type.
type cqlType struct {
	name   string    // native name, or list|set|map|tuple|vector
	args   []cqlType // element types of a collection or tuple
	dim    int       // vector dimension
	frozen bool      // frozen<...> around a collection
}

func isNative(name string) bool {
	switch name {
	case "ascii", "bigint", "blob", "boolean", "date", "decimal", "double", "duration",
		"float", "inet", "int", "smallint", "text", "time", "timestamp", "timeuuid",
		"tinyint", "uuid", "varchar", "varint":
		return true
	}
	return false
}

// isMultiCell reports a collection whose elements are stored one cell each
// and can therefore be appended to forever.
func (t cqlType) isMultiCell() bool {
	switch t.name {
	case "list", "set", "map":
		return !t.frozen
	}
	return false
}

// holds reports whether t is the native type name or has it among its
// element types, at any depth.
func (t cqlType) holds(name string) bool {
	if t.name == name {
		return true
	}
	for _, a := range t.args {
		if a.holds(name) {
			return true
		}
	}
	return false
}

// String prints the canonical form. Cassandra prints nested collections and
// every tuple as frozen, and varchar as text.
func (t cqlType) String() string {
	var b strings.Builder
	t.write(&b, false)
	return b.String()
}

func (t cqlType) write(b *strings.Builder, nested bool) {
	switch t.name {
	case "varchar":
		b.WriteString("text")
		return
	case "vector":
		b.WriteString("vector<")
		t.args[0].write(b, true)
		b.WriteString(", " + strconv.Itoa(t.dim) + ">")
		return
	case "list", "set", "map", "tuple":
	default:
		b.WriteString(t.name)
		return
	}
	frozen := t.frozen || nested || t.name == "tuple"
	if frozen {
		b.WriteString("frozen<")
	}
	b.WriteString(t.name + "<")
	for i, a := range t.args {
		if i > 0 {
			b.WriteString(", ")
		}
		a.write(b, true)
	}
	b.WriteString(">")
	if frozen {
		b.WriteString(">")
	}
}

// parseType parses a type text; errors wrap ErrBadType.
func parseType(s string) (cqlType, error) {
	if len(s) > maxTypeLen {
		return cqlType{}, fmt.Errorf("%w: type text longer than %d bytes", ErrBadType, maxTypeLen)
	}
	p := typeParser{toks: tokenizeType(s)}
	t, err := p.parse(0)
	if err == nil && p.pos != len(p.toks) {
		err = fmt.Errorf("unexpected %q", p.toks[p.pos])
	}
	if err != nil {
		return cqlType{}, fmt.Errorf("%w: %q: %v", ErrBadType, s, err)
	}
	return t, nil
}

// NormalizeType returns the canonical text of a CQL type (lower case,
// varchar as text, nested collections frozen), the form Cassandra reports
// in system_schema. The error wraps ErrBadType.
func NormalizeType(s string) (string, error) {
	t, err := parseType(s)
	if err != nil {
		return "", err
	}
	return t.String(), nil
}

// tokenizeType splits into words, numbers and the punctuation < > ,.
// Any other byte becomes its own token, which the parser then rejects.
func tokenizeType(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			toks = append(toks, strings.ToLower(s[i:j]))
			i = j
		default:
			toks = append(toks, s[i:i+1])
			i++
		}
	}
	return toks
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

type typeParser struct {
	toks []string
	pos  int
}

func (p *typeParser) next() string {
	if p.pos >= len(p.toks) {
		return ""
	}
	p.pos++
	return p.toks[p.pos-1]
}

func (p *typeParser) expect(tok string) error {
	if got := p.next(); got != tok {
		return fmt.Errorf("want %q, got %q", tok, got)
	}
	return nil
}

func (p *typeParser) parse(depth int) (cqlType, error) {
	if depth > maxTypeDepth {
		return cqlType{}, fmt.Errorf("nested deeper than %d", maxTypeDepth)
	}
	name := p.next()
	switch {
	case isNative(name):
		return cqlType{name: name}, nil
	case name == "frozen":
		return p.parseFrozen(depth)
	case name == "list":
		return p.parseArgs(name, 1, depth)
	case name == "set" || name == "map":
		return p.parseSorted(name, depth)
	case name == "tuple":
		return p.parseArgs(name, -1, depth)
	case name == "vector":
		return p.parseVector(depth)
	case name == "counter":
		return cqlType{}, fmt.Errorf("counter columns are not supported (no TTL, no other values)")
	case name == "":
		return cqlType{}, fmt.Errorf("missing type")
	}
	return cqlType{}, fmt.Errorf("unknown type %q", name)
}

func (p *typeParser) parseFrozen(depth int) (cqlType, error) {
	if err := p.expect("<"); err != nil {
		return cqlType{}, err
	}
	t, err := p.parse(depth + 1)
	if err != nil {
		return cqlType{}, err
	}
	switch t.name {
	case "list", "set", "map", "tuple":
	default:
		return cqlType{}, fmt.Errorf("frozen<%s>: only collections and tuples can be frozen", t)
	}
	t.frozen = true
	return t, p.expect(">")
}

// parseSorted reads a set or a map, whose elements (keys) are kept sorted:
// Cassandra and ScyllaDB refuse a duration there, frozen or not, since
// durations have no order.
func (p *typeParser) parseSorted(name string, depth int) (cqlType, error) {
	n := 1
	if name == "map" {
		n = 2
	}
	t, err := p.parseArgs(name, n, depth)
	if err == nil && t.args[0].name == "duration" {
		return t, fmt.Errorf("durations are not allowed inside sets nor as map keys")
	}
	return t, err
}

// parseArgs reads <type, ...> with n arguments, or at least one if n < 0.
func (p *typeParser) parseArgs(name string, n, depth int) (cqlType, error) {
	t := cqlType{name: name}
	if err := p.expect("<"); err != nil {
		return t, err
	}
	for {
		a, err := p.parse(depth + 1)
		if err != nil {
			return t, err
		}
		t.args = append(t.args, a)
		if n > 0 && len(t.args) == n {
			return t, p.expect(">")
		}
		switch tok := p.next(); tok {
		case ",":
		case ">":
			if n < 0 {
				return t, nil
			}
			return t, fmt.Errorf("%s takes %d types", name, n)
		default:
			return t, fmt.Errorf("want \",\" or \">\", got %q", tok)
		}
	}
}

func (p *typeParser) parseVector(depth int) (cqlType, error) {
	t, err := p.parseHead("vector", depth)
	if err != nil {
		return t, err
	}
	if err := p.expect(","); err != nil {
		return t, err
	}
	dim, err := strconv.Atoi(p.next())
	if err != nil || dim < 1 || dim > 1<<16 {
		return t, fmt.Errorf("vector dimension must be 1..65536")
	}
	t.dim = dim
	return t, p.expect(">")
}

func (p *typeParser) parseHead(name string, depth int) (cqlType, error) {
	if err := p.expect("<"); err != nil {
		return cqlType{}, err
	}
	a, err := p.parse(depth + 1)
	return cqlType{name: name, args: []cqlType{a}}, err
}

// CQLTypeOf returns the CQL type that stores IDs of kind k in the order the
// kind defines, from the table of package bucket (bucket.CQLOf): snowflake
// bigint, timeuuid timeuuid, uuidv7 uuid, and blob for ulid and timestamp.
// It returns "" for a nil or unknown kind.
func CQLTypeOf(k bucket.Kind) string {
	m, _ := bucket.CQLOf(k)
	return m.Type
}
