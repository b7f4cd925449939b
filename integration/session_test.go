package integration

import (
	"errors"
	"strings"
	"testing"

	"github.com/tsbucket/tsbucket/repo"
)

// TestUnknownDatacenter: a session for a datacenter the cluster does not
// have fails with ErrUnknownDatacenter, naming the ones it has.
func TestUnknownDatacenter(t *testing.T) {
	cfg := sessionConfig(t, "")
	real := cfg.Datacenter
	cfg.Datacenter = "no_such_dc"
	s, err := repo.NewSession(cfg)
	if err == nil {
		s.Close()
		t.Fatal("connected to a datacenter that does not exist")
	}
	if !errors.Is(err, repo.ErrUnknownDatacenter) || !strings.Contains(err.Error(), real) {
		t.Fatalf("got %v, want ErrUnknownDatacenter naming %q", err, real)
	}
}
