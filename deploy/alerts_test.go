package deploy

import (
	"os/exec"
	"strings"
	"testing"
)

// alertsFile holds the alert rules; alerts_test.yml next to it unit-tests them.
const alertsFile = "prometheus/alerts.yml"

// promtool checks the rules and runs their unit tests (alerts_test.yml):
// each alert fires on the series meant to fire it, with the labels and
// annotations an operator reads, and stays quiet on the others.
func TestAlertRules(t *testing.T) {
	promtool := lookTool(t, "promtool")
	for _, args := range [][]string{
		{"check", "rules", alertsFile},
		{"test", "rules", "prometheus/alerts_test.yml"},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			if out, err := exec.Command(promtool, args...).CombinedOutput(); err != nil {
				t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		})
	}
}

// The alerts the issue asks for exist, and each has a severity and a summary.
func TestAlertRulesCover(t *testing.T) {
	var f struct {
		Groups []struct {
			Rules []struct {
				Alert       string
				Expr        string
				Labels      map[string]string
				Annotations map[string]string
			}
		}
	}
	readYAML(t, alertsFile, &f)
	exprs := map[string]string{}
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			exprs[r.Alert] = r.Expr
			if s := r.Labels["severity"]; s != "warning" && s != "critical" {
				t.Errorf("%s: severity %q, want warning or critical", r.Alert, s)
			}
			if r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("%s: want a summary and a description", r.Alert)
			}
		}
	}
	for alert, uses := range map[string]string{
		"TsbucketPartitionLimitCrossed": "tsbucket_partition_threshold_crossings_total",
		"TsbucketLargePartitionBytes":   "tsbucket_partition_largest_bytes",
		"TsbucketLargePartitionRows":    "tsbucket_partition_largest_rows",
		"TsbucketTombstoneWarnings":     "tsbucket_tombstone_warnings_total",
		"TsbucketLocalQuorumP99High":    `consistency="LOCAL_QUORUM"`,
		"TsbucketUnavailable":           `class="unavailable"`,
		"ScyllaCoordinatorUnavailable":  "scylla_storage_proxy_coordinator_read_unavailable",
		"TsbucketAutopilotOutOfBand":    "tsbucket_autopilot_out_of_band",
	} {
		if !strings.Contains(exprs[alert], uses) {
			t.Errorf("alert %s: expr %q, want it to use %s", alert, exprs[alert], uses)
		}
	}
}

// Queries marks the server rows, and only those.
func TestQueriesServerRows(t *testing.T) {
	var server, client int
	for _, q := range committedQueries(t) {
		if q.Server() != strings.Contains(q.Expr, "scylla_") {
			t.Errorf("%q %s: Server() = %t for %s", q.Panel, q.RefID, q.Server(), q.Expr)
		}
		if q.Server() {
			server++
		} else {
			client++
		}
	}
	if server == 0 || client == 0 {
		t.Errorf("%d server and %d client queries, want some of each", server, client)
	}
}
