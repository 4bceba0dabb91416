package compact

import "hash/maphash"

// Interner numbers the strings that repeat across the lines of a log (seat
// ids, task ids, features, branches), so that each is allocated once: a
// lean reading keeps a 4-byte symbol where a string would take 16, and
// keeps them all; any other reading only saves the allocations, and its
// table is emptied past maxInterned names. The zero Interner is ready to
// use.
type Interner struct {
	// Base is added to the number of every name: the lean reading gives
	// each worker's interner a range of its own.
	Base uint32
	// KeepAll keeps every name for the interner's life, so that a symbol
	// always names its string.
	KeepAll bool

	// slots is an open-addressing index of names: hash<<32 | index+1;
	// recent caches the names in use once it is big.
	slots  []uint64
	names  BlockList[string]
	seed   maphash.Seed
	recent *[recentSize]recentName
}

// maxInterned bounds the table of an interner that does not keep all.
const maxInterned = 1 << 18

// Intern returns the string b holds, allocated once, and its symbol (Base
// plus its number).
func (t *Interner) Intern(b []byte) (string, uint32) {
	if len(t.slots) == 0 {
		t.seed = maphash.MakeSeed()
		t.slots = make([]uint64, 64)
	}
	h := maphash.Bytes(t.seed, b)
	if t.recent == nil {
		return t.internSlow(b, h)
	}
	// The names of the tasks in flight recur within a few lines: once the
	// table is big, a small direct-mapped cache keeps them off it.
	e := &t.recent[h%recentSize]
	if e.hash == h && e.s == string(b) {
		return e.s, e.sym
	}
	s, sym := t.internSlow(b, h)
	*e = recentName{h, sym, s}
	return s, sym
}

// recentSize is the number of entries of the intern cache.
const recentSize = 1024

type recentName struct {
	hash uint64
	sym  uint32
	s    string
}

// internSlow finds or adds b (whose hash is h) in the table.
func (t *Interner) internSlow(b []byte, h uint64) (string, uint32) {
	tag := h >> 32
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := t.slots[i]
		if sl == 0 {
			break
		}
		if sl>>32 == tag {
			if n := uint32(sl) - 1; *t.names.At(n) == string(b) {
				return *t.names.At(n), t.Base | n
			}
		}
	}
	if !t.KeepAll && t.names.Len() >= maxInterned {
		t.reset()
	}
	if 2*(t.names.Len()+1) > len(t.slots) {
		t.grow()
	}
	s := string(b)
	n := t.names.Push(s)
	t.place(h, n)
	return s, t.Base | n
}

func (t *Interner) place(h uint64, n uint32) {
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = h&^0xFFFFFFFF | uint64(n+1)
}

func (t *Interner) grow() {
	t.slots = makeTouched[uint64](2 * len(t.slots))
	if len(t.slots) > 4*recentSize && t.recent == nil {
		t.recent = new([recentSize]recentName)
	}
	for n := range uint32(t.names.Len()) {
		t.place(maphash.String(t.seed, *t.names.At(n)), n)
	}
}

func (t *Interner) reset() {
	clear(t.slots)
	t.names = BlockList[string]{}
	if t.recent != nil {
		clear(t.recent[:])
	}
}

// Len is the number of names interned (since the table was last emptied).
func (t *Interner) Len() int { return t.names.Len() }

// Names are the names interned, name n (its symbol less Base) at n. The
// list is a copy, which the interner's growth does not change.
func (t *Interner) Names() BlockList[string] { return t.names }

// Release lets the index of names go, once nothing more is interned: the
// names, which the symbols number, are all that is read from then on.
func (t *Interner) Release() { t.slots, t.recent = nil, nil }
