package schema

import "testing"

func TestQualifyTable(t *testing.T) {
	tests := []struct{ in, want string }{
		{`CREATE TABLE IF NOT EXISTS "tsbucket_views" ("view" text PRIMARY KEY)`, `CREATE TABLE IF NOT EXISTS "ks"."tsbucket_views" ("view" text PRIMARY KEY)`},
		{"create table t(a int primary key)", `create table "ks".t(a int primary key)`},
		{`ALTER TABLE messages ADD x int`, `ALTER TABLE "ks".messages ADD x int`},
		{`DROP TABLE IF EXISTS "a""b"`, `DROP TABLE IF EXISTS "ks"."a""b"`},
		{`TRUNCATE t`, `TRUNCATE "ks".t`},
		{`INSERT INTO t (a) VALUES (1)`, `INSERT INTO "ks".t (a) VALUES (1)`},
		{`UPDATE t SET a = 1 WHERE k = 2`, `UPDATE "ks".t SET a = 1 WHERE k = 2`},
		{`DELETE FROM t WHERE k = 2`, `DELETE FROM "ks".t WHERE k = 2`},
		{`CREATE INDEX IF NOT EXISTS i ON t (a)`, `CREATE INDEX IF NOT EXISTS i ON "ks".t (a)`},
		{`CREATE TABLE other.t (a int PRIMARY KEY)`, `CREATE TABLE other.t (a int PRIMARY KEY)`},
		{`CREATE TABLE "other" . t (a int PRIMARY KEY)`, `CREATE TABLE "other" . t (a int PRIMARY KEY)`},
		{`CREATE KEYSPACE x WITH replication = {}`, `CREATE KEYSPACE x WITH replication = {}`},
		// An index's and a type's names belong to a keyspace as a table's do.
		{`DROP INDEX IF EXISTS t_x`, `DROP INDEX IF EXISTS "ks".t_x`},
		{`drop index "T_x"`, `drop index "ks"."T_x"`},
		{`DROP INDEX other.t_x`, `DROP INDEX other.t_x`},
		{`CREATE TYPE addr (street text)`, `CREATE TYPE "ks".addr (street text)`},
		{`CREATE TYPE IF NOT EXISTS addr (street text)`, `CREATE TYPE IF NOT EXISTS "ks".addr (street text)`},
		{`ALTER TYPE addr ADD zip text`, `ALTER TYPE "ks".addr ADD zip text`},
		{`DROP TYPE IF EXISTS addr`, `DROP TYPE IF EXISTS "ks".addr`},
	}
	for _, tc := range tests {
		if got := qualifyTable("ks", tc.in); got != tc.want {
			t.Errorf("qualifyTable(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
	if got := qualifyTable("", "CREATE TABLE t (a int PRIMARY KEY)"); got != "CREATE TABLE t (a int PRIMARY KEY)" {
		t.Errorf("empty keyspace changed the statement: %q", got)
	}
}
