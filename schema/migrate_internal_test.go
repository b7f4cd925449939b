package schema

import "testing"

// TestConditionalDDL: execDDL marks a statement idempotent (retried after a
// timeout by a session retrying only those) when it has IF [NOT] EXISTS.
func TestConditionalDDL(t *testing.T) {
	for stmt, want := range map[string]bool{
		`CREATE TABLE IF NOT EXISTS "ks"."t" ("k" int PRIMARY KEY)`:          true,
		"create keyspace if not exists ks\n  WITH replication = {}":          true,
		`DROP TABLE IF EXISTS "ks"."t"`:                                      true,
		`ALTER TABLE "ks"."t" ADD "v" text`:                                  false,
		`CREATE TABLE "ks"."t" ("k" int PRIMARY KEY)`:                        false,
		`CREATE TABLE "ks"."if_exists_log" ("k" int PRIMARY KEY)`:            false,
		`ALTER TABLE "ks"."t" WITH comment = 'tsbucket: if not exists here'`: false,
	} {
		if got := conditionalDDL(stmt); got != want {
			t.Errorf("conditionalDDL(%q) = %v, want %v", stmt, got, want)
		}
	}
}
