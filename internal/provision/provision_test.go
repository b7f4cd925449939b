package provision

import (
	"testing"

	"github.com/tsbucket/tsbucket/schema"
)

func TestKeyspaceName(t *testing.T) {
	tests := []struct {
		name, test, want string
	}{
		{"plain", "TestChain", "t_testchain_r1_3"},
		{"subtest and symbols", "TestA/b-c d", "t_testa_b_c_d_r1_3"},
		{"long name cut", "TestAVeryLongNameThatKeepsGoingAndGoing", "t_testaverylongnamethatkee_r1_3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := KeyspaceName("t", tc.test, "r1", 3)
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if err := schema.ValidateIdentifier(got); err != nil {
				t.Fatalf("%q is not a valid keyspace name: %v", got, err)
			}
		})
	}
}
