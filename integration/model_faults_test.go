package integration

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tsbucket/tsbucket/repo"
	"github.com/tsbucket/tsbucket/schema"
)

// errInjected is the error a faultExec returns for a statement it fails.
var errInjected = errors.New("injected fault")

// faultMode says when an injected fault strikes.
type faultMode int

const (
	// failBefore: the statement is never sent; the write does not happen.
	failBefore faultMode = iota + 1
	// failAfter: the statement is sent and applied, then the caller sees an
	// error anyway (a timeout after the replicas wrote).
	failAfter
)

func (m faultMode) String() string {
	if m == failAfter {
		return "after"
	}
	return "before"
}

// faultRule fails every write statement to Table; with OnlyID set, only
// statements (or batches) that carry that ID, so one partition of a PutMany
// fails and the others of the same view do not.
type faultRule struct {
	Table  string
	Mode   faultMode
	OnlyID any // an int64 snowflake or a gocql.UUID; nil: any
}

func (f faultRule) String() string {
	s := fmt.Sprintf("fail %s %s", f.Mode, f.Table)
	if f.OnlyID != nil {
		s += fmt.Sprintf(" for id %v", f.OnlyID)
	}
	return s
}

// sentWrite is one write statement (or batch) as the executor saw it: its
// bound values by bind name, one map per batch entry, and what became of it.
type sentWrite struct {
	Table  string
	Op     string
	Rows   []map[string]any
	Landed bool // the database applied it
	Failed bool // the caller got an error
}

// faultExec wraps the repository's executor: it fails the write statements
// its rule names and logs every write, so the model learns exactly which rows
// and presence entries reached the database. Reads pass through untouched.
type faultExec struct {
	next repo.Executor

	mu   sync.Mutex
	rule *faultRule
	log  []sentWrite
}

// arm sets the rule for the next call (nil: no faults) and clears the log.
func (f *faultExec) arm(rule *faultRule) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rule, f.log = rule, nil
}

// take returns the writes logged since arm and disarms.
func (f *faultExec) take() []sentWrite {
	f.mu.Lock()
	defer f.mu.Unlock()
	log := f.log
	f.rule, f.log = nil, nil
	return log
}

func (f *faultExec) Exec(ctx context.Context, s repo.Statement) error {
	w := sentWrite{Table: s.Table, Op: s.Op, Rows: boundRows(s)}
	mode := f.strikes(w)
	var err error
	if mode != failBefore {
		err = f.next.Exec(ctx, s)
		w.Landed = err == nil
	}
	if mode != 0 && err == nil {
		err = fmt.Errorf("%s %s: %w (%s)", s.Op, s.Table, errInjected, mode)
	}
	w.Failed = err != nil
	f.mu.Lock()
	f.log = append(f.log, w)
	f.mu.Unlock()
	return err
}

func (f *faultExec) Query(ctx context.Context, s repo.Statement) repo.Rows {
	return f.next.Query(ctx, s)
}

// strikes returns the mode of the fault that hits w, or 0.
func (f *faultExec) strikes(w sentWrite) faultMode {
	f.mu.Lock()
	rule := f.rule
	f.mu.Unlock()
	if rule == nil || rule.Table != w.Table {
		return 0
	}
	if rule.OnlyID == nil {
		return rule.Mode
	}
	for _, r := range w.Rows {
		for _, v := range r {
			if v == rule.OnlyID {
				return rule.Mode
			}
		}
	}
	return 0
}

// boundRows maps each entry's bind names to its values.
func boundRows(s repo.Statement) []map[string]any {
	if len(s.Entries) == 0 {
		return []map[string]any{bound(s)}
	}
	rows := make([]map[string]any, len(s.Entries))
	for i, e := range s.Entries {
		rows[i] = bound(e)
	}
	return rows
}

func bound(s repo.Statement) map[string]any {
	m := make(map[string]any, len(s.Names))
	for i, name := range s.Names {
		if i < len(s.Args) {
			m[name] = s.Args[i]
		}
	}
	return m
}

// viewOf names the view a table belongs to: itself, or the view whose
// presence index it is.
func viewOf(table string) string { return strings.TrimSuffix(table, schema.PresenceSuffix) }
