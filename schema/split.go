package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// Migration is one numbered schema change, loaded from a file named
// "<version>_<name>.cql".
type Migration struct {
	Version    int
	Name       string
	Statements []string // comments removed, trimmed, without the ';'
	// Checksum is the hex SHA-256 of the statements. Comments and blank
	// lines between statements, and whitespace around them, do not change
	// it; a comment or a line break inside a statement does (it is part
	// of the statement's text as applied).
	Checksum string
}

// LoadMigrations reads the *.cql files at the root of fsys, ordered by
// version. Other files are ignored; a .cql file with a bad name, a version
// used twice, a file without statements or a statement left unterminated
// (quote, comment) is an error wrapping ErrBadMigration.
func LoadMigrations(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	var ms []Migration
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".cql") {
			continue
		}
		m, err := loadMigration(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("load migrations: %w", err)
		}
		ms = append(ms, m)
	}
	slices.SortFunc(ms, func(a, b Migration) int { return a.Version - b.Version })
	for i := 1; i < len(ms); i++ {
		if ms[i].Version == ms[i-1].Version {
			return nil, fmt.Errorf("load migrations: %w: version %d used by %q and %q",
				ErrBadMigration, ms[i].Version, ms[i-1].Name, ms[i].Name)
		}
	}
	return ms, nil
}

func loadMigration(fsys fs.FS, file string) (Migration, error) {
	version, name, ok := parseMigrationName(file)
	if !ok {
		return Migration{}, fmt.Errorf("%w: %q: want <version>_<name>.cql: version 1..999999999, name [a-z0-9_]+",
			ErrBadMigration, file)
	}
	text, err := fs.ReadFile(fsys, file)
	if err != nil {
		return Migration{}, err
	}
	stmts, err := SplitStatements(string(text))
	if err != nil {
		return Migration{}, fmt.Errorf("%q: %w", file, err)
	}
	if len(stmts) == 0 {
		return Migration{}, fmt.Errorf("%w: %q has no statement", ErrBadMigration, file)
	}
	return Migration{Version: version, Name: name, Statements: stmts, Checksum: checksum(stmts)}, nil
}

// parseMigrationName splits "0001_chat.cql" into 1 and "chat".
func parseMigrationName(file string) (version int, name string, ok bool) {
	base, ok := strings.CutSuffix(file, ".cql")
	digits, name, found := strings.Cut(base, "_")
	if !ok || !found || name == "" || len(digits) == 0 || len(digits) > 9 {
		return 0, "", false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, "", false
		}
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !identByte(c, false) {
			return 0, "", false
		}
	}
	version, _ = strconv.Atoi(digits) // nine digits at most: cannot fail
	return version, name, version > 0
}

func checksum(stmts []string) string {
	sum := sha256.Sum256([]byte(strings.Join(stmts, ";\n")))
	return hex.EncodeToString(sum[:])
}

// SplitStatements splits CQL text into statements at each ';' outside
// string literals ('...'), quoted identifiers ("..."), $$-bodies and
// comments (-- and // to the end of the line, /* ... */). Comments are
// removed; statements are trimmed and empty ones dropped. Unterminated
// quotes or comments are an error wrapping ErrBadMigration.
func SplitStatements(text string) ([]string, error) {
	var stmts []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			stmts = append(stmts, s)
		}
		cur.Reset()
	}
	for i := 0; i < len(text); {
		n, keep, err := scanToken(text[i:])
		if err != nil {
			return nil, fmt.Errorf("%w: at byte %d: %v", ErrBadMigration, i, err)
		}
		if text[i] == ';' {
			flush()
		} else {
			cur.WriteString(keep)
		}
		i += n
	}
	flush()
	return stmts, nil
}

// scanToken reads one lexical unit at the start of s and returns its
// length and the text to keep (a comment keeps a single space or newline).
func scanToken(s string) (n int, keep string, err error) {
	switch {
	case s[0] == '\'' || s[0] == '"':
		n, err = scanQuoted(s, s[0])
		return n, s[:n], err
	case strings.HasPrefix(s, "$$"):
		end := strings.Index(s[2:], "$$")
		if end < 0 {
			return 0, "", fmt.Errorf("unterminated $$ block")
		}
		return end + 4, s[:end+4], nil
	case strings.HasPrefix(s, "--") || strings.HasPrefix(s, "//"):
		end := strings.IndexByte(s, '\n')
		if end < 0 {
			return len(s), "", nil
		}
		return end + 1, "\n", nil
	case strings.HasPrefix(s, "/*"):
		end := strings.Index(s[2:], "*/")
		if end < 0 {
			return 0, "", fmt.Errorf("unterminated /* comment")
		}
		return end + 4, " ", nil
	}
	return 1, s[:1], nil
}

// scanQuoted reads a literal delimited by q, where a doubled q escapes it.
func scanQuoted(s string, q byte) (int, error) {
	for i := 1; i < len(s); i++ {
		if s[i] != q {
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			i++
			continue
		}
		return i + 1, nil
	}
	return 0, fmt.Errorf("unterminated %c quote", q)
}
