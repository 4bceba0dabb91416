package compact

import (
	"math"
	"math/bits"
)

// IDTable finds duplicate event ids (docs/semantics.md §7) for both
// replays: it maps an id to the index of its first event. A slot is 4
// bytes: the index plus one in its low bits, bits of the id's hash above
// them, so that most probes of another id stop at the slot without
// comparing ids; the owner compares the ids themselves, and gives the hash
// of an index when the table grows. The table has at least twice as many
// slots as the largest index it holds plus one, so it is at most half full
// and every index fits below the hash bits: half the size of 8-byte slots
// of hash and index.
type IDTable struct {
	slots []uint32 // hash bits | index+1; 0 is empty
	shift uint     // the low shift bits hold index+1
}

// minIDSlots is the size of a table's first allocation.
const minIDSlots = 1024

// Reserve sizes the table for indexes up to top, so that inserting them
// never grows it: an empty table exactly, one that holds ids at least
// twice over (growth in steps would rehash them again and again). rehash
// gives the hash of an index the table holds.
func (t *IDTable) Reserve(top uint32, rehash func(index uint32) uint64) {
	if t.fits(top) {
		return
	}
	t.resize(max(minIDSlots, 2*(uint64(top)+1), 2*uint64(len(t.slots))), rehash)
}

// fits says whether index can be held without growing.
func (t *IDTable) fits(index uint32) bool {
	return 2*(uint64(index)+1) <= uint64(len(t.slots))
}

// at is the first slot a hash probes: the high 32 bits scaled to the
// table's size, which needs not be a power of two.
func (t *IDTable) at(hash uint64) int {
	return int((hash >> 32) * uint64(len(t.slots)) >> 32)
}

// Touch reads the slot a hash probes first, so that a caller about to
// insert many ids (a chunk of a log) has their cache misses overlap
// instead of queueing; it returns the slot, for the caller to keep.
func (t *IDTable) Touch(hash uint64) uint32 { return t.slots[t.at(hash)] }

// Insert records index under hash unless an equal id is already there, whose
// index it then returns. rehash gives the hash of an index the table holds
// when it grows.
func (t *IDTable) Insert(hash uint64, index uint32, equal func(other uint32) bool, rehash func(index uint32) uint64) (uint32, bool) {
	if !t.fits(index) {
		t.Reserve(index, rehash)
	}
	i, other, found := t.probe(hash, equal)
	if found {
		return other, true
	}
	t.slots[i] = uint32(hash)>>t.shift<<t.shift | (index + 1)
	return 0, false
}

// Find is the index of an equal id, when the table holds one.
func (t *IDTable) Find(hash uint64, equal func(other uint32) bool) (uint32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	_, other, found := t.probe(hash, equal)
	return other, found
}

// probe walks the slots from the first one hash probes to the slot of an
// equal id (found, with its index) or to the first empty one.
func (t *IDTable) probe(hash uint64, equal func(other uint32) bool) (slot int, index uint32, found bool) {
	tag := uint32(hash) >> t.shift
	for i := t.at(hash); ; {
		s := t.slots[i]
		if s == 0 {
			return i, 0, false
		}
		if s>>t.shift == tag && equal(s&(1<<t.shift-1)-1) {
			return i, s&(1<<t.shift-1) - 1, true
		}
		if i++; i == len(t.slots) {
			i = 0
		}
	}
}

// resize moves the table to size slots, rehashing what it holds.
func (t *IDTable) resize(size uint64, rehash func(index uint32) uint64) {
	if size > min(1<<32, math.MaxInt) {
		panic("projection: event-id table too large") // no log has that many events in memory
	}
	old, oldShift := t.slots, t.shift
	t.slots = makeTouched[uint32](int(size))
	// index+1 ≤ size/2 < 1<<shift.
	t.shift = uint(bits.Len64(size / 2))
	for _, s := range old {
		if s == 0 {
			continue
		}
		index := s&(1<<oldShift-1) - 1
		hash := rehash(index)
		i, _, _ := t.probe(hash, func(uint32) bool { return false }) // the ids moved are distinct
		t.slots[i] = uint32(hash)>>t.shift<<t.shift | (index + 1)
	}
}
