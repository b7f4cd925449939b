package cqltext

import "strings"

// IsSelect reports whether stmt is a SELECT.
func IsSelect(stmt string) bool {
	s := strings.TrimLeft(stmt, " \t\r\n(")
	return len(s) >= 6 && strings.EqualFold(s[:6], "select")
}

// IsConditionalDDL reports whether stmt is DDL (CREATE, DROP or ALTER)
// with IF NOT EXISTS or IF EXISTS, which make running it twice the same as
// once. The clause comes
// before the name, so only the words before the first quote or
// parenthesis count, not a comment or a name that says as much.
func IsConditionalDDL(stmt string) bool {
	if i := strings.IndexAny(stmt, `"'(`); i >= 0 {
		stmt = stmt[:i]
	}
	words := strings.Fields(strings.ToUpper(stmt))
	if len(words) == 0 || words[0] != "CREATE" && words[0] != "DROP" && words[0] != "ALTER" {
		// An UPDATE, DELETE or BATCH ... IF EXISTS is a lightweight
		// transaction: a retry may apply it twice.
		return false
	}
	u := " " + strings.Join(words, " ") + " "
	return strings.Contains(u, " IF NOT EXISTS ") || strings.Contains(u, " IF EXISTS ")
}
