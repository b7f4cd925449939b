package schema

import "regexp"

// tableHead matches the head of a statement that names one table, index or
// type of a keyspace, up to and including that name: CREATE TABLE [IF NOT
// EXISTS], ALTER TABLE [IF EXISTS], DROP TABLE [IF EXISTS], TRUNCATE [TABLE],
// INSERT INTO, UPDATE, DELETE [columns] FROM, CREATE [CUSTOM] INDEX [IF NOT
// EXISTS] [name] ON (the table), DROP INDEX [IF EXISTS], and CREATE TYPE [IF
// NOT EXISTS], ALTER TYPE [IF EXISTS], DROP TYPE [IF EXISTS]. Group 2 is the
// name, group 3 what follows it ('.' when the name was a keyspace).
var tableHead = regexp.MustCompile(`(?is)^(\s*(?:` +
	`create\s+table(?:\s+if\s+not\s+exists)?|alter\s+table(?:\s+if\s+exists)?|drop\s+table(?:\s+if\s+exists)?|` +
	`truncate(?:\s+table)?|insert\s+into|update|delete(?:\s+(?:"(?:[^"]|"")*"|'(?:[^']|'')*'|[^"';])*?)?\s+from|` +
	`create\s+(?:custom\s+)?index(?:\s+if\s+not\s+exists)?(?:\s+(?:"(?:[^"]|"")+"|\w+))?\s+on|drop\s+index(?:\s+if\s+exists)?|` +
	`create\s+type(?:\s+if\s+not\s+exists)?|alter\s+type(?:\s+if\s+exists)?|drop\s+type(?:\s+if\s+exists)?` +
	`)\s+)("(?:[^"]|"")+"|\w+)(\s*\.?)`)

// qualifyTable returns stmt with its table (index, type) name qualified by
// keyspace when the statement names it bare, so migration files written with bare
// names (as DDL("") produces) run in the keyspace Migrate is given, through
// any session, bound to a keyspace or not. Qualified names, statements that
// name no table, and an empty keyspace leave stmt unchanged.
func qualifyTable(keyspace, stmt string) string {
	if keyspace == "" {
		return stmt
	}
	m := tableHead.FindStringSubmatchIndex(stmt)
	if m == nil {
		return stmt
	}
	if rest := stmt[m[6]:m[7]]; len(rest) > 0 && rest[len(rest)-1] == '.' {
		return stmt // keyspace.table already
	}
	return stmt[:m[4]] + Quote(keyspace) + "." + stmt[m[4]:]
}
