package schema

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gocql/gocql"
)

// ErrNotApplied means a keyspace lacks the tables of its views (or the
// keyspace itself): apply the views first, with Apply or
// `tsbucket schema apply --views FILE`.
var ErrNotApplied = errors.New("schema: views not applied")

// Apply creates the keyspace k if it does not exist, then the metadata table
// and every view's table and presence table (CREATE ... IF NOT EXISTS,
// qualified with k.Name, so s need not be bound to any keyspace), waiting for
// schema agreement after each statement, and finally registers the views
// (RegisterViews). Everything that can be checked without the cluster is
// checked before the first statement: a bad keyspace or view applies
// nothing. Existing tables are left as they are: compare them with Check.
func Apply(ctx context.Context, s *gocql.Session, k Keyspace, views []View) error {
	ksCQL, err := k.CQL()
	if err != nil {
		return err
	}
	stmts, err := DDL(k.Name, views)
	if err != nil {
		return err
	}
	if findings := Lint(views); len(findings) > 0 {
		msgs := make([]string, len(findings))
		for i, f := range findings {
			msgs[i] = f.String()
		}
		return fmt.Errorf("%w: lint: %s", ErrBadView, strings.Join(msgs, "; "))
	}
	if err := CreateKeyspace(ctx, s, k, KeyspaceOptions{}); err != nil {
		return fmt.Errorf("apply %s: %w", firstLine(ksCQL), err)
	}
	for _, stmt := range stmts {
		if err := execDDL(ctx, s, stmt); err != nil {
			return fmt.Errorf("apply %s: %w", firstLine(stmt), err)
		}
	}
	return RegisterViews(ctx, s, k.Name, views)
}

// firstLine shortens a statement for an error message.
func firstLine(stmt string) string {
	line, _, _ := strings.Cut(stmt, "\n")
	return strings.TrimSuffix(strings.TrimSpace(line), "(")
}

// missingTable reports whether err is the server saying a table or keyspace
// does not exist (Cassandra: "unconfigured table", "does not exist";
// ScyllaDB: "unconfigured table", "Keyspace ... does not exist").
func missingTable(err error) bool {
	if err == nil {
		return false
	}
	// The ScyllaDB fork of gocql reports a statement its prepare refused
	// in an error of its own, not a gocql.RequestError: its text is what
	// both drivers share.
	msg := err.Error()
	var rerr gocql.RequestError
	if errors.As(err, &rerr) {
		msg = rerr.Message()
	}
	msg = strings.ToLower(msg)
	return strings.Contains(msg, "unconfigured table") || strings.Contains(msg, "does not exist")
}
