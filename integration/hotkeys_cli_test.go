package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHotKeysCLIBadInput: tsbucket hotkeys names what is wrong with its
// input as the other commands do: a view the keyspace does not register
// ("is not a view registered in keyspace K", listing those it has), and a
// --promote key that does not parse under its own flag, not under --key,
// which hotkeys does not have. Nothing is promoted.
func TestHotKeysCLIBadInput(t *testing.T) {
	c := cluster(t)
	bin := buildCLI(t)
	ks := dropLater(t, keyspaceName(t.Name()))
	conn := []string{"--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter, "--keyspace", ks}
	run := func(args ...string) (int, string, string) { return tsbucket(t, bin, append(args, conn...)...) }
	file := filepath.Join(t.TempDir(), "hot.yaml")
	views := `keyspace:
  name: hot
  replication:
    dc1: 1
views:
  - name: events_by_device
    key:
      - device_id: bigint
    bucket:
      width: 1h
      epoch: unix
    id:
      name: id
      kind: uuidv7
    shards: 4
    per_key_shards: true
`
	if err := os.WriteFile(file, []byte(views), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run("schema", "apply", "--views", file, "--rf", "1"); code != 0 {
		t.Fatalf("schema apply: exit %d\n%s%s", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"hotkeys", "--view", "events_by_devise"}, `--view "events_by_devise" is not a view registered in keyspace ` + ks + " (it has: events_by_device)"},
		{[]string{"hotkeys", "--view", "events_by_device", "--promote", "d-1"}, "--promote: column device_id: "},
		{[]string{"hotkeys", "--view", "events_by_device", "--promote", "1,2"}, `--promote "1,2": events_by_device has 1 key column(s)`},
	} {
		code, out, errOut := run(tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming %q", tc.args, code, out, errOut, tc.want)
		}
	}
	code, out, errOut := run("hotkeys", "--view", "events_by_device")
	if code != 0 || !strings.Contains(out, "no key promoted") && !strings.Contains(out, "0 key(s)") {
		t.Errorf("hotkeys after bad input: exit %d, stdout %q, stderr %q; want no promoted key", code, out, errOut)
	}
}
