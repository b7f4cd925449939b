package repo

import (
	"errors"
	"testing"

	"github.com/tsbucket/tsbucket/internal/refmodel"
)

// ownUUID is a 16-byte array type of its own, as google/uuid.UUID and
// ulid.ULID are: gocql binds and scans gocql.UUID and [16]byte, not it.
type ownUUID [16]byte

type tripOwnUUID struct {
	TripID    ownUUID `db:"trip_id"`
	DriverID  string  `db:"driver_id"`
	City      string  `db:"city"`
	FareCents int64   `db:"fare_cents"`
	DistanceM int32   `db:"distance_m"`
	Status    string  `db:"status"`
}

type tripPlainArray struct {
	TripID    *[16]byte `db:"trip_id"`
	DriverID  string    `db:"driver_id"`
	City      string    `db:"city"`
	FareCents int64     `db:"fare_cents"`
	DistanceM int32     `db:"distance_m"`
	Status    string    `db:"status"`
}

// TestFieldTypesTheDriverCannotTake: an item type whose uuid column's
// field is a 16-byte array type of its own (google/uuid.UUID, ulid.ULID)
// is refused by New with ErrBadItem. It was accepted (the repository's ID
// handling takes any 16-byte array), then every Put failed in the driver,
// view by view ("can not marshal uuid.UUID into uuid"), and every read's
// scan with it.
func TestFieldTypesTheDriverCannotTake(t *testing.T) {
	views := refmodel.RidesViews()
	if _, err := New[tripOwnUUID](tripwireSession(), "ks", views, Options{}); !errors.Is(err, ErrBadItem) {
		t.Errorf("ID field of type ownUUID: New = %v, want ErrBadItem", err)
	}
	if _, err := New[tripPlainArray](tripwireSession(), "ks", views, Options{}); err != nil {
		t.Errorf("ID field of type *[16]byte: New = %v", err)
	}
	if _, err := New[refmodel.Trip](tripwireSession(), "ks", views, Options{}); err != nil {
		t.Errorf("ID field of type gocql.UUID: New = %v", err)
	}
}
