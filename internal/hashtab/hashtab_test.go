package hashtab

import (
	"math/rand/v2"
	"testing"
)

// TestTableModel runs random puts, changes and deletes against a map. The
// keys share their low bits in small groups, so probe runs collide, wrap
// around the end of the table and are shifted back on deletes, and the
// table grows several times.
func TestTableModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, spread := range []int{3, 40, 700} {
		var tab Table[int]
		model := map[uint64]int{}
		keys := make([]uint64, spread)
		for i := range keys {
			// high bits distinct, low bits from a few values: never 0
			keys[i] = uint64(i+1)<<32 | uint64(rng.IntN(3))*(minSlots-1)
		}
		for step := range max(10_000, 200_000/spread) {
			k := keys[rng.IntN(len(keys))]
			switch rng.IntN(3) {
			case 0, 1:
				v, added := tab.Put(k)
				if _, known := model[k]; added == known {
					t.Fatalf("spread %d, step %d: Put(%#x) added %v, model knew it: %v", spread, step, k, added, known)
				}
				*v += step
				model[k] += step
			case 2:
				_, known := model[k]
				if got := tab.Delete(k); got != known {
					t.Fatalf("spread %d, step %d: Delete(%#x) = %v, want %v", spread, step, k, got, known)
				}
				delete(model, k)
			}
			if tab.Len() != len(model) {
				t.Fatalf("spread %d, step %d: %d keys, want %d", spread, step, tab.Len(), len(model))
			}
			for _, k := range keys {
				v := tab.Get(k)
				want, known := model[k]
				if (v != nil) != known || (v != nil && *v != want) {
					t.Fatalf("spread %d, step %d: Get(%#x) = %v, want %d (held: %v)", spread, step, k, v, want, known)
				}
			}
		}
		if 4*tab.Len() > 3*tab.Slots() {
			t.Fatalf("spread %d: %d keys in %d slots, over three quarters full", spread, tab.Len(), tab.Slots())
		}
	}
}

// TestTableStaysAtItsPeak: a table that saw many keys, one at a time, is as
// large as it was with one.
func TestTableStaysAtItsPeak(t *testing.T) {
	var tab Table[struct{}]
	for k := range uint64(100_000) {
		tab.Put(k*0x9E3779B97F4A7C15 | 1)
		tab.Delete(k*0x9E3779B97F4A7C15 | 1)
	}
	if tab.Len() != 0 || tab.Slots() != minSlots {
		t.Fatalf("%d keys in %d slots, want 0 in %d", tab.Len(), tab.Slots(), minSlots)
	}
}

// TestZeroTable: the zero Table answers, deletes and grows.
func TestZeroTable(t *testing.T) {
	var tab Table[int]
	if tab.Get(5) != nil || tab.Delete(5) || tab.Len() != 0 {
		t.Fatal("an empty table holds something")
	}
	if v, added := tab.Put(5); !added || *v != 0 {
		t.Fatalf("Put on the zero table: %v, %v", *v, added)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Put(0) did not panic: key 0 would be lost in an empty slot")
		}
	}()
	tab.Put(0)
}

// BenchmarkTable is admission's use: a write's three partitions asked,
// counted in and counted out, with 48 other partitions in flight, in a
// Table and in the Go map it replaced.
func BenchmarkTable(b *testing.B) {
	keys := make([]uint64, 4096)
	for i := range keys {
		keys[i] = rand.Uint64() | 1
	}
	const held = 48
	b.Run("table", func(b *testing.B) {
		var tab Table[int32]
		for _, k := range keys[:held] {
			v, _ := tab.Put(k)
			*v++
		}
		for i := 0; b.Loop(); i += 3 {
			j := held + i%(len(keys)-held-3)
			for _, k := range keys[j : j+3] {
				if v := tab.Get(k); v != nil && *v > 100 {
					b.Fatal("over")
				}
			}
			for _, k := range keys[j : j+3] {
				v, _ := tab.Put(k)
				*v++
			}
			for _, k := range keys[j : j+3] {
				v, _ := tab.Put(k)
				if *v--; *v == 0 {
					tab.Delete(k)
				}
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		m := map[uint64]int32{}
		for _, k := range keys[:held] {
			m[k]++
		}
		for i := 0; b.Loop(); i += 3 {
			j := held + i%(len(keys)-held-3)
			for _, k := range keys[j : j+3] {
				if m[k] > 100 {
					b.Fatal("over")
				}
			}
			for _, k := range keys[j : j+3] {
				m[k]++
			}
			for _, k := range keys[j : j+3] {
				if n := m[k] - 1; n > 0 {
					m[k] = n
				} else {
					delete(m, k)
				}
			}
		}
	})
}
