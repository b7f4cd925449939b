package schema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxReplicationFactor bounds a datacenter's replication factor; anything
// above is a typo, not a topology.
const maxReplicationFactor = 32

// Keyspace describes a keyspace replicated with NetworkTopologyStrategy,
// the only strategy fit for production: it places replicas per datacenter
// and on distinct racks, and lets LOCAL_QUORUM stay inside a datacenter.
type Keyspace struct {
	Name          string
	Replication   map[string]int // datacenter name -> replication factor
	DurableWrites *bool          // nil => true (the server default)
	// NoTablets adds ScyllaDB's "tablets = {'enabled': false}": ScyllaDB 6
	// gives new keyspaces tablets, which do not support the lightweight
	// transactions RegisterViews uses. Cassandra rejects the option: set it
	// only for ScyllaDB.
	NoTablets bool
}

// CQL returns CREATE KEYSPACE IF NOT EXISTS with the datacenters sorted by
// name, so the text is deterministic. Errors wrap ErrBadIdentifier or
// ErrBadView.
func (k Keyspace) CQL() (string, error) {
	if err := validateKeyspace(k.Name); err != nil {
		return "", err
	}
	if len(k.Replication) == 0 {
		return "", fmt.Errorf("keyspace %q: %w: no datacenter in Replication", k.Name, ErrBadView)
	}
	dcs := make([]string, 0, len(k.Replication))
	for dc, rf := range k.Replication {
		if err := validateDatacenter(dc); err != nil {
			return "", fmt.Errorf("keyspace %q: %w", k.Name, err)
		}
		if rf < 1 || rf > maxReplicationFactor {
			return "", fmt.Errorf("keyspace %q: %w: replication factor %d for %q not in [1, %d]",
				k.Name, ErrBadView, rf, dc, maxReplicationFactor)
		}
		dcs = append(dcs, dc)
	}
	slices.Sort(dcs)
	repl := []string{"'class': 'NetworkTopologyStrategy'"}
	for _, dc := range dcs {
		repl = append(repl, quoteString(dc)+": "+strconv.Itoa(k.Replication[dc]))
	}
	durable := k.DurableWrites == nil || *k.DurableWrites
	stmt := fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = {%s} AND durable_writes = %t",
		Quote(k.Name), strings.Join(repl, ", "), durable)
	if k.NoTablets {
		stmt += " AND tablets = {'enabled': false}"
	}
	return stmt, nil
}

// validateDatacenter allows the names snitches produce (datacenter1,
// us-east-1, eu_west.2): letters, digits, '-', '_', '.', up to 64 bytes.
// They become string literals, which are escaped anyway.
func validateDatacenter(dc string) error {
	if dc == "" || len(dc) > 64 {
		return fmt.Errorf("%w: datacenter name %q must be 1..64 bytes", ErrBadIdentifier, dc)
	}
	for i := 0; i < len(dc); i++ {
		if c := dc[i]; !isWordByte(c) && c != '-' && c != '.' {
			return fmt.Errorf("%w: datacenter name %q: only letters, digits, '-', '_' and '.'", ErrBadIdentifier, dc)
		}
	}
	return nil
}
