package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// TestHelpHidesEnvironmentDefaults: a flag whose default comes from the
// environment says so in its usage ("default $TSBUCKET_PASSWORD"), and -h
// prints nothing more. The flag package appended the value itself, so
// `tsbucket read -h` printed the password of $TSBUCKET_PASSWORD, and every
// keyspace flag its default twice.
func TestHelpHidesEnvironmentDefaults(t *testing.T) {
	envs := map[string]string{
		"TSBUCKET_PASSWORD": "s3cret-pw",
		"TSBUCKET_HOSTS":    "10.9.8.7",
		"TSBUCKET_DC":       "dc-from-env",
		"TSBUCKET_KEYSPACE": "ks_from_env",
	}
	for _, args := range [][]string{{"read", "-h"}, {"inspect", "-h"}, {"schema", "print", "-h"}, {"repair", "-h"}} {
		var out, errOut bytes.Buffer
		e := env{stdout: &out, stderr: &errOut, getenv: func(k string) string { return envs[k] },
			terminal: func(io.Writer) bool { return false }}
		run(context.Background(), args, e)
		help := out.String() + errOut.String()
		if !strings.Contains(help, "-keyspace") {
			t.Fatalf("tsbucket %q printed no help:\n%s", args, help)
		}
		for _, v := range envs {
			if strings.Contains(help, v) {
				t.Errorf("tsbucket %q: help shows %q, a value of the environment:\n%s", args, v, help)
			}
		}
		if strings.Contains(help, `(default "tsbucket_demo")`) {
			t.Errorf("tsbucket %q: help gives the keyspace's default twice:\n%s", args, help)
		}
	}
}

// TestEnvironmentDefaultsStillApply: the flags hidden from -h keep their
// environment defaults, and a flag given on the command line wins.
func TestEnvironmentDefaultsStillApply(t *testing.T) {
	e := env{stdout: io.Discard, stderr: io.Discard, getenv: func(k string) string {
		return map[string]string{"TSBUCKET_HOSTS": "10.9.8.7", "TSBUCKET_KEYSPACE": "ks_env", "TSBUCKET_PASSWORD": "pw"}[k]
	}}
	var c clusterFlags
	fs := newFlags("t", "", e)
	c.register(fs, e)
	if err := fs.Parse([]string{"--keyspace", "ks_flag"}); err != nil {
		t.Fatal(err)
	}
	if c.hosts != "10.9.8.7" || c.keyspace != "ks_flag" || c.password != "pw" || c.dc != "" {
		t.Errorf("got hosts %q keyspace %q password %q dc %q", c.hosts, c.keyspace, c.password, c.dc)
	}
}
