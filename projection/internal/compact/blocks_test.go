package compact

import "testing"

// TestBlockList: items keep their numbers across the first block's growth
// and the blocks after it, and a copy taken on the way (as a chunk's
// names are handed on while its worker interns more) reads what it held.
func TestBlockList(t *testing.T) {
	t.Parallel()
	var l BlockList[int]
	var copies []BlockList[int]
	for i := range 3*BlockSize + 5 {
		if got := l.Push(i); got != uint32(i) {
			t.Fatalf("push %d numbered %d", i, got)
		}
		if i == 0 || i == firstBlock || i == 5*firstBlock+3 || i == BlockSize || i == BlockSize+1 {
			copies = append(copies, l)
		}
	}
	for _, c := range append(copies, l) {
		for i := range uint32(c.n) {
			if got := *c.At(i); got != int(i) {
				t.Fatalf("a list of %d items holds %d at %d", c.n, got, i)
			}
		}
	}
	if len(l.blocks) != 4 || len(l.blocks[0]) != BlockSize || len(l.blocks[3]) != BlockSize {
		t.Fatalf("%d blocks; the first of %d items", len(l.blocks), len(l.blocks[0]))
	}
}
