package admission

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestPartTableModel runs random changes against a map of the same counts.
// The keys share their low bits in small groups, so probe runs collide,
// wrap around the end of the table and are shifted back on deletes; the
// table must hold exactly the partitions with a count, at any size.
func TestPartTableModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, spread := range []int{4, 40, 400} {
		tab := newPartTable()
		model := map[uint64][2]int32{}
		keys := make([]uint64, spread)
		for i := range keys {
			// Low bits from a few values (the same home slots), high
			// bits distinct: never 0.
			keys[i] = uint64(i+1)<<32 | uint64(rng.IntN(3))*uint64(minPartSlots-1)
		}
		for step := range 20_000 {
			k := keys[rng.IntN(len(keys))]
			m := model[k]
			var in, wait int32
			switch rng.IntN(4) {
			case 0:
				in = 1
			case 1:
				wait = 1
			case 2:
				if m[0] > 0 {
					in = -1
				}
			case 3:
				if m[1] > 0 {
					wait = -1
				}
			}
			tab.add(k, in, wait)
			m[0] += in
			m[1] += wait
			if m == [2]int32{} {
				delete(model, k)
			} else {
				model[k] = m
			}
			if tab.len() != len(model) {
				t.Fatalf("spread %d, step %d: table holds %d partitions, want %d", spread, step, tab.len(), len(model))
			}
			for _, k := range keys {
				got, want := tab.get(k), model[k]
				if got.inFlight != want[0] || got.waiting != want[1] {
					t.Fatalf("spread %d, step %d: key %#x has %d in flight, %d waiting; want %v", spread, step, k, got.inFlight, got.waiting, want)
				}
			}
		}
		if 2*tab.len() > len(tab.slots) {
			t.Fatalf("spread %d: %d partitions in %d slots, over half load", spread, tab.len(), len(tab.slots))
		}
	}
}

// TestPartTableForgetsEmpty: a table that saw many distinct partitions,
// none of them held now, holds nothing and has not grown past its peak.
func TestPartTableForgetsEmpty(t *testing.T) {
	tab := newPartTable()
	for i := range uint64(100_000) {
		k := PartitionOf("view", strconv.Itoa(int(i)))
		tab.add(k, 1, 0)
		tab.add(k, -1, 0)
	}
	if tab.len() != 0 || len(tab.slots) != minPartSlots {
		t.Fatalf("after 100000 partitions held one at a time: %d held in %d slots, want 0 in %d", tab.len(), len(tab.slots), minPartSlots)
	}
}

// BenchmarkPartTable is one write's admission of three partitions and its
// release, with about as many other partitions in flight as a busy lane
// has, against the two maps it replaced.
func BenchmarkPartTable(b *testing.B) {
	keys := make([]uint64, 4096)
	for i := range keys {
		keys[i] = PartitionOf("view", strconv.Itoa(int(i)))
	}
	const held = 48
	b.Run("table", func(b *testing.B) {
		tab := newPartTable()
		for _, k := range keys[:held] {
			tab.add(k, 1, 0)
		}
		i := held
		for b.Loop() {
			j := i % (len(keys) - 3)
			ks := keys[j : j+3 : j+3]
			for _, k := range ks {
				if tab.get(k).inFlight > 100 {
					b.Fatal("over")
				}
			}
			for _, k := range ks {
				tab.add(k, 1, 0)
			}
			for _, k := range ks {
				tab.add(k, -1, 0)
			}
			i += 3
		}
	})
	b.Run("maps", func(b *testing.B) {
		inFlight, waiting := map[uint64]int{}, map[uint64]int{}
		for _, k := range keys[:held] {
			inFlight[k]++
		}
		i := held
		for b.Loop() {
			j := i % (len(keys) - 3)
			ks := keys[j : j+3 : j+3]
			for _, k := range ks {
				if inFlight[k] > 100 || waiting[k] > 100 {
					b.Fatal("over")
				}
			}
			for _, k := range ks {
				inFlight[k]++
			}
			for _, k := range ks {
				if n := inFlight[k] - 1; n > 0 {
					inFlight[k] = n
				} else {
					delete(inFlight, k)
				}
			}
			i += 3
		}
	})
}
