package localcluster

import (
	"strings"
	"testing"
)

func TestParseStatus(t *testing.T) {
	out := `Datacenter: dc1
===============
Status=Up/Down
|/ State=Normal/Leaving/Joining/Moving
--  Address    Load        Tokens  Owns (effective)  Host ID                               Rack
UN  127.0.0.3  108.89 KiB  1       100.0%            9eb1771b-e7aa-4fb7-af5f-009c69b3c9f7  rack1
UN  127.0.0.2  114.38 KiB  1       100.0%            4a449358-1278-436d-8c94-4beafa592d90  rack1
DN  127.0.0.1  108.91 KiB  1       100.0%            ff278cb1-6ade-49a5-997b-8fca41b4ba44  rack1
`
	got := parseStatus(out)
	want := map[string]string{"127.0.0.1": "DN", "127.0.0.2": "UN", "127.0.0.3": "UN"}
	if len(got) != len(want) {
		t.Fatalf("parseStatus = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("parseStatus[%s] = %q, want %q", k, got[k], v)
		}
	}
}

func TestHealthJudge(t *testing.T) {
	hosts := []string{"127.0.0.1", "127.0.0.2"}
	up := map[string]string{"127.0.0.1": "UN", "127.0.0.2": "UN"}
	tests := []struct {
		name  string
		views map[string]nodeView
		want  []string // substrings of the problems, in order; none: healthy
	}{
		{"healthy", map[string]nodeView{
			"node1": {running: true, status: up, local: "a", peers: map[string]string{"127.0.0.2": "a"}},
			"node2": {running: true, status: up, local: "a", peers: map[string]string{"127.0.0.1": "a"}},
		}, nil},
		{"a node held down, another schema, hints", map[string]nodeView{
			"node1": {running: true, status: map[string]string{"127.0.0.1": "UN", "127.0.0.2": "DN"}, local: "a", peers: map[string]string{"127.0.0.2": "b"}, hintFiles: 2},
			"node2": {running: true, status: up, local: "b", peers: map[string]string{"127.0.0.1": "a"}},
		}, []string{"node1 sees 127.0.0.2 as DN", "2 schema versions [a: node1,node2->127.0.0.1 | b: node1->127.0.0.2,node2]", "node1 holds 2 undelivered hint files"}},
		{"not running", map[string]nodeView{
			"node1": {running: true, status: map[string]string{"127.0.0.1": "UN"}, local: "a"},
			"node2": {},
		}, []string{"node2 is not running", "node1 sees 127.0.0.2 as absent"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := Health{Status: map[string]map[string]string{}, Schemas: map[string][]string{}, HintFiles: map[string]int{}}
			for _, node := range sortedKeys(tc.views) {
				h.add(node, tc.views[node])
			}
			h.judge(hosts)
			if got := len(h.Problems); got != len(tc.want) {
				t.Fatalf("problems %q, want %d like %q", h.Problems, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(h.Problems[i], w) {
					t.Errorf("problem %d = %q, want it to say %q", i, h.Problems[i], w)
				}
			}
			if h.Healthy() != (len(tc.want) == 0) {
				t.Errorf("Healthy() = %v with problems %q", h.Healthy(), h.Problems)
			}
		})
	}
}
