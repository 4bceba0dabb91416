package compact

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"testing"
)

// idSeed hashes the ids of the tests.
var idSeed = maphash.MakeSeed()

// TestIDTableAgainstMap holds IDTable to a map over a stream of ids with
// repeats, for hashes that spread and hashes that collide (equal hashes,
// equal tags, probes wrapping past the end), tables reserved ahead and
// grown as they go, and indexes with gaps and out of order (the canonical
// replay numbers held events after the others).
func TestIDTableAgainstMap(t *testing.T) {
	t.Parallel()
	hashes := map[string]func(string) uint64{
		"maphash": func(id string) uint64 { return maphash.String(idSeed, id) },
		// Eight hashes in all: long runs of equal tags that wrap.
		"colliding": func(id string) uint64 { return uint64(len(id)%8) * 0x9E3779B97F4A7C15 },
		// The last slot, every time.
		"last": func(string) uint64 { return ^uint64(0) },
	}
	for name, hash := range hashes {
		for _, reserve := range []int{0, 10, 5000} {
			for _, order := range []string{"gaps", "shuffled"} {
				t.Run(fmt.Sprintf("%s/reserve=%d/%s", name, reserve, order), func(t *testing.T) {
					t.Parallel()
					rng := rand.New(rand.NewPCG(1, uint64(reserve)))
					n := 3000
					if name != "maphash" {
						n = 400 // every probe walks the run
					}
					indexes := make([]uint32, n)
					next := uint32(0)
					for i := range indexes {
						if order == "gaps" {
							next += 1 + uint32(rng.IntN(3))
						} else {
							next++
						}
						indexes[i] = next
					}
					if order == "shuffled" {
						rng.Shuffle(len(indexes), func(i, j int) { indexes[i], indexes[j] = indexes[j], indexes[i] })
					}
					ids := map[uint32]string{}
					want := map[string]uint32{}
					var tab IDTable
					rehash := func(i uint32) uint64 {
						id, ok := ids[i]
						if !ok {
							t.Fatalf("rehash of index %d, never inserted", i)
						}
						return hash(id)
					}
					if reserve > 0 {
						tab.Reserve(uint32(reserve), rehash)
					}
					for _, index := range indexes {
						id := fmt.Sprintf("id-%d", rng.IntN(n))
						equal := func(o uint32) bool { return ids[o] == id }
						got, dup := tab.Insert(hash(id), index, equal, rehash)
						first, seen := want[id]
						if dup != seen || (seen && got != first) {
							t.Fatalf("insert %q at %d = %d, %v; want %d, %v", id, index, got, dup, first, seen)
						}
						if !seen {
							want[id], ids[index] = index, id
						}
						if 2*len(want) > len(tab.slots) {
							t.Fatalf("%d ids in %d slots: over half full", len(want), len(tab.slots))
						}
					}
					for id, first := range want {
						got, ok := tab.Find(hash(id), func(o uint32) bool { return ids[o] == id })
						if !ok || got != first {
							t.Fatalf("find %q = %d, %v; want %d", id, got, ok, first)
						}
					}
					if _, ok := tab.Find(hash("absent"), func(o uint32) bool { return ids[o] == "absent" }); ok {
						t.Fatal("find of an absent id found one")
					}
				})
			}
		}
	}
}

// TestIDTableReserveHolds: a table reserved for indexes up to top takes
// them all without growing, and is not more than that plus a minimum.
func TestIDTableReserveHolds(t *testing.T) {
	t.Parallel()
	for _, top := range []uint32{0, 1, 511, 512, 100_000} {
		var tab IDTable
		noRehash := func(uint32) uint64 { t.Fatal("a reserved table grew"); return 0 }
		tab.Reserve(top, noRehash)
		size := len(tab.slots)
		if want := max(minIDSlots, 2*(int(top)+1)); size != want {
			t.Errorf("reserve(%d): %d slots, want %d", top, size, want)
		}
		for i := uint32(0); i <= top; i++ {
			id := fmt.Sprint(i)
			if _, dup := tab.Insert(maphash.String(idSeed, id), i, func(uint32) bool { return false }, noRehash); dup {
				t.Fatalf("top %d: index %d a duplicate", top, i)
			}
		}
		if len(tab.slots) != size {
			t.Errorf("reserve(%d) then inserting up to it: %d slots, then %d", top, size, len(tab.slots))
		}
	}
}

// TestIDTableGrowsGeometrically: a table reserved a little further for
// each chunk of a log, as the lean reading reserves it, rehashes each id a bounded
// number of times (at most twice over, in all), not once a chunk.
func TestIDTableGrowsGeometrically(t *testing.T) {
	t.Parallel()
	var tab IDTable
	rehashes := 0
	rehash := func(i uint32) uint64 { rehashes++; return maphash.String(idSeed, fmt.Sprint(i)) }
	const n, chunk = 100_000, 100
	for i := uint32(0); i < n; i++ {
		if i%chunk == 0 {
			tab.Reserve(i+chunk-1, rehash)
		}
		if _, dup := tab.Insert(maphash.String(idSeed, fmt.Sprint(i)), i, func(uint32) bool { return false }, rehash); dup {
			t.Fatalf("index %d a duplicate", i)
		}
	}
	if rehashes > 2*n {
		t.Errorf("%d ids rehashed %d times in all, want at most %d", n, rehashes, 2*n)
	}
}
