package integration

import (
	"strings"
	"testing"
	"time"

	"github.com/tsbucket/tsbucket/autopilot"
	"github.com/tsbucket/tsbucket/schema"
)

// TestUnblockCLI: tsbucket autopilot --unblock VIEW=KEY reads KEY by the
// view's key columns, as --key is read, so any spelling of a blocked key
// unblocks it; a view the keyspace does not register, or a key that does not
// parse, is a usage error that leaves the block-list as it was; and a key
// that was not blocked is said to be so, not reported as unblocked.
func TestUnblockCLI(t *testing.T) {
	c := cluster(t)
	bin := buildCLI(t)
	ks := dropLater(t, keyspaceName(t.Name()))
	conn := []string{"--hosts", strings.Join(c.Hosts, ","), "--dc", c.Datacenter, "--keyspace", ks}
	run := func(args ...string) (int, string, string) { return tsbucket(t, bin, append(args, conn...)...) }
	file := shopFile(t, c, "shop_views.yaml")
	if code, out, errOut := run("schema", "apply", "--views", file, "--rf", "1"); code != 0 {
		t.Fatalf("schema apply: exit %d\n%s%s", code, out, errOut)
	}
	s := connect(t, "")
	if err := autopilot.Apply(t.Context(), s, ks); err != nil {
		t.Fatal(err)
	}
	const customer = "0190f3c2-7d6e-7abc-8def-0123456789ab" // the canonical text form
	block := func() {
		t.Helper()
		b := schema.BlockedKey{View: "orders_by_customer", Key: customer, BlockedAt: time.Now().UTC(), Reason: "test", Rows: 1}
		if err := schema.BlockKey(t.Context(), s, ks, b); err != nil {
			t.Fatal(err)
		}
	}
	blocked := func() bool {
		t.Helper()
		keys, err := schema.BlockedKeys(t.Context(), s, ks, "orders_by_customer")
		if err != nil {
			t.Fatal(err)
		}
		_, ok := keys[customer]
		return ok
	}
	block()

	for _, tc := range []struct{ name, arg, want string }{
		{"unknown view", "orders_by_custmer=" + customer, `"orders_by_custmer" is not a view registered in keyspace`},
		{"key that does not parse", "orders_by_customer=c-1", "not a UUID"},
		{"too many key values", "orders_by_customer=" + customer + ",2", "1 key column(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run("autopilot", "--unblock", tc.arg)
			if code != 2 || !strings.Contains(errOut, tc.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 naming %q", code, out, errOut, tc.want)
			}
			if !blocked() {
				t.Errorf("the key is no longer blocked after a refused --unblock")
			}
		})
	}

	t.Run("another spelling of the key", func(t *testing.T) {
		code, out, errOut := run("autopilot", "--unblock", "orders_by_customer= "+strings.ToUpper(customer))
		if code != 0 || !strings.Contains(out, "unblocked key "+customer+" of view "+ks+".orders_by_customer") {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
		}
		if blocked() {
			t.Fatalf("--unblock said %q, but the key is still blocked", out)
		}
	})

	t.Run("a key not blocked", func(t *testing.T) {
		code, out, errOut := run("autopilot", "--unblock", "orders_by_customer="+customer)
		if code != 0 || !strings.Contains(out, "is not blocked") || strings.Contains(out, "unblocked key") {
			t.Fatalf("exit %d, stdout %q, stderr %q; want exit 0 saying the key is not blocked", code, out, errOut)
		}
	})
}
