package cqltext

import "strings"

// IsSelect reports whether stmt is a SELECT.
func IsSelect(stmt string) bool {
	s := strings.TrimLeft(stmt, " \t\r\n(")
	return len(s) >= 6 && strings.EqualFold(s[:6], "select")
}

// IsConditionalDDL reports whether stmt is DDL with IF NOT EXISTS or IF
// EXISTS, which make running it twice the same as once. The clause comes
// before the name, so only the words before the first quote or
// parenthesis count, not a comment or a name that says as much.
func IsConditionalDDL(stmt string) bool {
	if i := strings.IndexAny(stmt, `"'(`); i >= 0 {
		stmt = stmt[:i]
	}
	u := " " + strings.ToUpper(strings.Join(strings.Fields(stmt), " ")) + " "
	return strings.Contains(u, " IF NOT EXISTS ") || strings.Contains(u, " IF EXISTS ")
}
