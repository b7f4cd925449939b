package schema

import (
	"fmt"
	"strings"
)

// maxIdentifier is Cassandra's limit for keyspace and table names
// (SchemaConstants.NAME_LENGTH); applying it to columns too keeps one rule.
const maxIdentifier = 48

// ValidateIdentifier reports whether name may be used as a keyspace, table
// or column name: [a-z_][a-z0-9_]{0,47} and not a reserved CQL keyword.
// Lower case only, because Cassandra folds unquoted names to lower case and
// a name that differs only by case from another is an accident waiting to
// happen. The error wraps ErrBadIdentifier.
func ValidateIdentifier(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty name", ErrBadIdentifier)
	}
	if len(name) > maxIdentifier {
		return fmt.Errorf("%w: %q is longer than %d bytes", ErrBadIdentifier, name, maxIdentifier)
	}
	for i := 0; i < len(name); i++ {
		if !identByte(name[i], i == 0) {
			return fmt.Errorf("%w: %q: only [a-z_][a-z0-9_]* is allowed", ErrBadIdentifier, name)
		}
	}
	if isReserved(name) {
		return fmt.Errorf("%w: %q is a reserved CQL keyword", ErrBadIdentifier, name)
	}
	return nil
}

func identByte(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c == '_':
		return true
	case c >= '0' && c <= '9':
		return !first
	}
	return false
}

// validateKeyspace also refuses the system keyspaces, which user code must
// never create tables in.
func validateKeyspace(name string) error {
	if err := ValidateIdentifier(name); err != nil {
		return fmt.Errorf("keyspace: %w", err)
	}
	if strings.HasPrefix(name, "system") {
		return fmt.Errorf("keyspace: %w: %q is reserved for Cassandra", ErrBadIdentifier, name)
	}
	return nil
}

// Quote returns the always-quoted form of an identifier for generated CQL.
// Generated statements quote every name so that a non-reserved keyword
// (key, ttl, type) can never change how a statement parses; embedded double
// quotes are doubled as CQL requires, although validated names have none.
func Quote(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// quoteString returns a CQL string literal.
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// qualified returns "ks"."table", or "table" alone when keyspace is empty,
// which makes the statement use the session's keyspace.
func qualified(keyspace, table string) string {
	if keyspace == "" {
		return Quote(table)
	}
	return Quote(keyspace) + "." + Quote(table)
}

// isReserved reports Cassandra 5's reserved keywords (cql3.ReservedKeywords)
// plus the older ones ScyllaDB and earlier Cassandra still reserve. A switch,
// not a map, so the package holds no mutable state.
func isReserved(name string) bool {
	switch name {
	case "add", "allow", "alter", "and", "any", "apply", "asc", "authorize", "batch",
		"begin", "by", "columnfamily", "create", "default", "delete", "desc", "describe",
		"drop", "each_quorum", "entries", "execute", "for", "from", "full", "grant",
		"if", "in", "index", "infinity", "insert", "into", "is", "keyspace", "limit",
		"local_one", "local_quorum", "materialized", "mbean", "mbeans", "modify",
		"nan", "norecursive", "not", "null", "of", "on", "one", "or", "order", "primary",
		"quorum", "rename", "replace", "restrict", "revoke", "schema", "select",
		"set", "table", "three", "to", "token", "truncate", "two", "unlogged", "unrestrict",
		"unset", "update", "use", "using", "view", "where", "with":
		return true
	}
	return false
}
