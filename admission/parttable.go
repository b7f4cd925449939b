package admission

// partTable counts the calls in flight and waiting of each partition a
// lane knows, by the partition's PartitionOf hash: an open-addressing table
// with linear probing, holding only the partitions with a call in flight
// or waiting.
//
// It replaced two Go maps (in flight, waiting) that every write asked and
// changed under the lane's lock for each of its partitions, three to four
// map operations each (issue 26). A lane's partitions are few (at most its
// calls in flight and queued), so the table stays small and a partition's
// counts sit in one 16-byte slot: one cache line read, where a map's lookup
// touched its group's control word and then its slot, and its inserts and
// deletes churned the map's tombstones. Deletion shifts the entries after
// the freed slot back (no tombstones), so a table that sees millions of
// distinct partitions stays as small as its peak in use.
//
// Not safe for concurrent use: the lane's lock guards it.
type partTable struct {
	slots []partSlot // len a power of two; key 0 marks an empty slot
	used  int
}

// partSlot is one partition's counts.
type partSlot struct {
	key      uint64
	inFlight int32
	waiting  int32
}

// minPartSlots is the table's first size: room for 16 partitions at
// half load, 1 KiB.
const minPartSlots = 64

func newPartTable() partTable { return partTable{slots: make([]partSlot, minPartSlots)} }

// find returns the index of key's slot, or of the empty slot where it
// would go, and whether key is there. key is never 0 (PartitionOf).
func (t *partTable) find(key uint64) (int, bool) {
	mask := uint64(len(t.slots) - 1)
	for i := key & mask; ; i = (i + 1) & mask {
		switch t.slots[i].key {
		case key:
			return int(i), true
		case 0:
			return int(i), false
		}
	}
}

// get returns key's counts: zero for a partition the table does not hold.
func (t *partTable) get(key uint64) partSlot {
	if i, ok := t.find(key); ok {
		return t.slots[i]
	}
	return partSlot{}
}

// add changes key's counts by inFlight and waiting, and forgets key when
// both reach zero. A count never goes below zero: callers add back only
// what they added.
func (t *partTable) add(key uint64, inFlight, waiting int32) {
	i, ok := t.find(key)
	if !ok {
		if 2*(t.used+1) > len(t.slots) {
			t.grow()
			i, _ = t.find(key)
		}
		t.slots[i].key = key
		t.used++
	}
	s := &t.slots[i]
	s.inFlight += inFlight
	s.waiting += waiting
	if s.inFlight <= 0 && s.waiting <= 0 {
		t.remove(i)
	}
}

// remove empties slot i and moves back the entries of its probe run that
// may take it: an entry at j, whose home slot is h, may move to i when i
// lies on its probe path, that is when i is no further from h than j is.
func (t *partTable) remove(i int) {
	mask := len(t.slots) - 1
	for j := (i + 1) & mask; t.slots[j].key != 0; j = (j + 1) & mask {
		home := int(t.slots[j].key & uint64(mask))
		if (j-home)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = partSlot{}
	t.used--
}

// grow doubles the table and places its entries again.
func (t *partTable) grow() {
	old := t.slots
	t.slots = make([]partSlot, 2*len(old))
	for _, s := range old {
		if s.key != 0 {
			i, _ := t.find(s.key)
			t.slots[i] = s
		}
	}
}

// len is the number of partitions held.
func (t *partTable) len() int { return t.used }
