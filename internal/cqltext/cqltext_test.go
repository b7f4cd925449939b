package cqltext

import "testing"

func TestIsConditionalDDL(t *testing.T) {
	for stmt, want := range map[string]bool{
		`CREATE TABLE IF NOT EXISTS "ks"."t" ("k" int PRIMARY KEY)`:          true,
		"create keyspace if not exists ks\n  WITH replication = {}":          true,
		`DROP TABLE IF EXISTS "ks"."t"`:                                      true,
		`DROP KEYSPACE IF EXISTS ks`:                                         true,
		`ALTER TABLE "ks"."t" ADD "v" text`:                                  false,
		`CREATE TABLE "ks"."t" ("k" int PRIMARY KEY)`:                        false,
		`CREATE TABLE "ks"."if_exists_log" ("k" int PRIMARY KEY)`:            false,
		`ALTER TABLE "ks"."t" WITH comment = 'tsbucket: if not exists here'`: false,
		`INSERT INTO ks.t (k) VALUES (1) IF NOT EXISTS`:                      false,
	} {
		if got := IsConditionalDDL(stmt); got != want {
			t.Errorf("IsConditionalDDL(%q) = %v, want %v", stmt, got, want)
		}
	}
}

func TestIsSelect(t *testing.T) {
	for stmt, want := range map[string]bool{
		`SELECT k FROM ks.t`:       true,
		"  select k FROM ks.t":     true,
		"(SELECT 1)":               true,
		`UPDATE ks.t SET v = 1`:    false,
		`INSERT INTO ks.t (k) ...`: false,
		``:                         false,
		`SELEC`:                    false,
	} {
		if got := IsSelect(stmt); got != want {
			t.Errorf("IsSelect(%q) = %v, want %v", stmt, got, want)
		}
	}
}
