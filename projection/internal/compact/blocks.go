package compact

// BlockSize is the number of items in one block of a BlockList (the first
// block grows to it).
const BlockSize = 1 << 14

// BlockList is an append-only list in blocks of BlockSize, so growing it
// never copies more than its first block nor holds twice the room it needs.
// The first block grows from a few items, so that a short list (a decoder's
// names on a short log) is small. A copy of a BlockList reads the items it
// holds while the original grows: neither ever writes an item it holds.
// A reader done with a block lets it go (Drop).
type BlockList[T any] struct {
	blocks [][]T
	n      int
}

// firstBlock is the room of a first block when it is made.
const firstBlock = 64

// Len is the number of items pushed.
func (s *BlockList[T]) Len() int { return s.n }

// At is item i.
func (s *BlockList[T]) At(i uint32) *T { return &s.blocks[i/BlockSize][i%BlockSize] }

// Push appends v and returns its index.
func (s *BlockList[T]) Push(v T) uint32 {
	i := s.n
	b := i / BlockSize
	switch {
	case b == len(s.blocks) && b == 0:
		s.blocks = append(s.blocks, make([]T, firstBlock))
	case b == len(s.blocks):
		s.blocks = append(s.blocks, make([]T, BlockSize))
	case i%BlockSize == len(s.blocks[b]):
		// The first block, full before BlockSize: a larger one, which
		// a copy of the list made before does not see.
		grown := make([]T, min(2*len(s.blocks[b]), BlockSize))
		copy(grown, s.blocks[b])
		s.blocks = append(s.blocks[:b:b], grown)
	}
	s.blocks[b][i%BlockSize] = v
	s.n++
	return uint32(i)
}

// PushAll appends vs.
func (s *BlockList[T]) PushAll(vs []T) {
	for _, v := range vs {
		s.Push(v)
	}
}

// Blocks is the number of blocks the list has made.
func (s *BlockList[T]) Blocks() int { return len(s.blocks) }

// Drop lets block b go: its items are never read again.
func (s *BlockList[T]) Drop(b int) { s.blocks[b] = nil }

// makeTouched is make([]T, n) with every page of a large slice written
// once first: fresh memory from the system reads as a shared page of
// zeros, and the first write to such a page then costs a second fault and,
// while another thread of the process runs, a flush of the other cores'
// address caches (measured at a million events: about 8 % of the CPU of
// a replay, under the tables' first probes). A table that is probed
// before it is written is made here.
func makeTouched[T any](n int) []T {
	s := make([]T, n)
	var zero T
	for i := 0; i < n; i += touchStride {
		s[i] = zero
	}
	return s
}

// touchStride is how many elements of 8 bytes fill a page of 4 KiB, the
// smallest page: smaller elements are written a few times a page.
const touchStride = 512
