package projection

import (
	"fmt"
	"hash/maphash"
)

// What both replays (the canonical replay.go and replay_parallel.go) share:
// the table of event ids that finds duplicates (docs/semantics.md §7), the
// duplicate's rejection (the order rejections are reported in is listed.go's).

// idTable finds duplicate event ids. It stores a 32-bit hash and an index
// per id (8 bytes a slot, at most half full) and asks its owner to compare
// the ids themselves.
type idTable struct {
	slots []uint64 // hash<<32 | index+1; 0 is empty
	n     int
}

var idSeed = maphash.MakeSeed()

// insert records index under hash unless an equal id is already there, whose
// index it then returns.
func (t *idTable) insert(hash uint64, index uint32, equal func(other uint32) bool) (uint32, bool) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	h := uint32(hash >> 32)
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			t.slots[i] = uint64(h)<<32 | uint64(index+1)
			t.n++
			return 0, false
		}
		if uint32(s>>32) == h && equal(uint32(s)-1) {
			return uint32(s) - 1, true
		}
	}
}

// find returns the index recorded under hash for an equal id.
func (t *idTable) find(hash uint64, equal func(other uint32) bool) (uint32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	h := uint32(hash >> 32)
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		if uint32(s>>32) == h && equal(uint32(s)-1) {
			return uint32(s) - 1, true
		}
	}
}

func (t *idTable) grow() {
	size := 2 * len(t.slots)
	if size < 1024 {
		size = 1024
	}
	old := t.slots
	t.slots = make([]uint64, size)
	mask := uint32(size - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := uint32(s>>32) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// duplicateID is the rejection of a later use of an event_id.
func duplicateID(line int, id, taskID, feature string, firstLine int, identical bool) Rejection {
	msg := fmt.Sprintf("event_id %q was already used on line %d", id, firstLine)
	if identical {
		msg += " by a byte-identical line (a copied or re-merged line)"
	}
	return Rejection{Line: line, EventID: id, TaskID: taskID, Feature: feature, Code: CodeEventIDDuplicate, Message: msg, Identical: identical}
}
