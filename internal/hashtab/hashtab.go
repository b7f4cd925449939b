package hashtab

// Table maps nonzero 64-bit keys to values of type V. The zero Table is
// empty and ready to use.
type Table[V any] struct {
	slots []slot[V] // len 0 or a power of two; key 0 marks an empty slot
	used  int
}

type slot[V any] struct {
	key uint64
	v   V
}

// minSlots is a table's first size.
const minSlots = 64

// find returns the index of key's slot, or of the empty slot where it
// would go, and whether key is there. The table has slots.
func (t *Table[V]) find(key uint64) (int, bool) {
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

// Get returns key's value in place, or nil if the table does not hold key.
// The pointer is valid until the next Put or Delete.
func (t *Table[V]) Get(key uint64) *V {
	if len(t.slots) == 0 {
		return nil
	}
	if i, ok := t.find(key); ok {
		return &t.slots[i].v
	}
	return nil
}

// Put returns key's value in place, adding key with the zero value if the
// table does not hold it, and whether it was added. key must not be 0. The
// pointer is valid until the next Put or Delete.
func (t *Table[V]) Put(key uint64) (*V, bool) {
	if key == 0 {
		panic("hashtab: Put of key 0, which marks an empty slot")
	}
	if len(t.slots) == 0 {
		t.slots = make([]slot[V], minSlots)
	}
	i, ok := t.find(key)
	if ok {
		return &t.slots[i].v, false
	}
	if 4*(t.used+1) > 3*len(t.slots) {
		t.grow()
		i, _ = t.find(key)
	}
	t.slots[i].key = key
	t.used++
	return &t.slots[i].v, true
}

// Delete removes key, reporting whether the table held it.
func (t *Table[V]) Delete(key uint64) bool {
	if len(t.slots) == 0 {
		return false
	}
	i, ok := t.find(key)
	if ok {
		t.remove(i)
	}
	return ok
}

// remove empties slot i and moves back the entries of its probe run that
// may take it: an entry at j, whose home slot is h, may move to i when i
// lies on its probe path, no further from h than j is.
func (t *Table[V]) remove(i int) {
	mask := len(t.slots) - 1
	for j := (i + 1) & mask; t.slots[j].key != 0; j = (j + 1) & mask {
		home := int(t.slots[j].key & uint64(mask))
		if (j-home)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = slot[V]{}
	t.used--
}

// grow doubles the table and places its entries again.
func (t *Table[V]) grow() {
	old := t.slots
	t.slots = make([]slot[V], 2*len(old))
	for _, s := range old {
		if s.key != 0 {
			i, _ := t.find(s.key)
			t.slots[i] = s
		}
	}
}

// Len is the number of keys held.
func (t *Table[V]) Len() int { return t.used }

// Slots is the number of slots the table has: its memory, with the size of
// a key and a V per slot.
func (t *Table[V]) Slots() int { return len(t.slots) }
