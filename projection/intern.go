package projection

import "hash/maphash"

// Interning of the decoder: strings that repeat across lines (seat ids,
// task ids, features, branches) are allocated once and numbered, and event
// ids in the two common forms are kept in 16 bytes.

// Fields whose symbols lean parsing keeps.
const (
	symAgent = iota
	symTask
	symFeature
	symOwner
	symReviewer
	symBranch
	symOther // seat ids, roles and entries: interned, symbol unused
	nSymFields
)

// Forms of an event_id that lean parsing stores in 16 bytes.
const (
	idOther = iota // kept as a string (or missing)
	idHex          // 32 lower-case hex digits
	idUUID         // 8-4-4-4-12 lower-case hex digits
)

// maxInterned bounds the intern table of a long-lived decoder.
const maxInterned = 1 << 18

func (d *decoder) intern(b []byte, field int) string {
	if len(d.slots) == 0 {
		d.internAt = maphash.MakeSeed()
		d.slots = make([]uint64, 64)
	}
	h := maphash.Bytes(d.internAt, b)
	if d.recent == nil {
		return d.internSlow(b, h, field)
	}
	// The names of the tasks in flight recur within a few lines: once the
	// table is big, a small direct-mapped cache keeps them off it.
	e := &d.recent[h%recentSize]
	if e.hash == h && e.s == string(b) {
		d.symOf[field] = e.sym
		return e.s
	}
	s := d.internSlow(b, h, field)
	*e = recentName{h, d.symOf[field], s}
	return s
}

// recentSize is the number of entries of the intern cache.
const recentSize = 1024

type recentName struct {
	hash uint64
	sym  uint32
	s    string
}

// internSlow finds or adds b (whose hash is h) in the table.
func (d *decoder) internSlow(b []byte, h uint64, field int) string {
	tag := h >> 32
	mask := uint64(len(d.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := d.slots[i]
		if sl == 0 {
			break
		}
		if sl>>32 == tag {
			if n := uint32(sl) - 1; *d.names.at(n) == string(b) {
				d.symOf[field] = d.symBase | n
				return *d.names.at(n)
			}
		}
	}
	if !d.lean && d.names.n >= maxInterned {
		d.resetSyms()
	}
	if 2*(d.names.n+1) > len(d.slots) {
		d.growSyms()
	}
	s := string(b)
	n := d.names.push(s)
	d.place(h, n)
	d.symOf[field] = d.symBase | n
	return s
}

func (d *decoder) place(h uint64, n uint32) {
	mask := uint64(len(d.slots) - 1)
	i := h & mask
	for d.slots[i] != 0 {
		i = (i + 1) & mask
	}
	d.slots[i] = h&^0xFFFFFFFF | uint64(n+1)
}

func (d *decoder) growSyms() {
	d.slots = makeTouched[uint64](2 * len(d.slots))
	if len(d.slots) > 4*recentSize && d.recent == nil {
		d.recent = new([recentSize]recentName)
	}
	for n := range uint32(d.names.n) {
		d.place(maphash.String(d.internAt, *d.names.at(n)), n)
	}
}

func (d *decoder) resetSyms() {
	clear(d.slots)
	d.names = blockList[string]{}
	if d.recent != nil {
		clear(d.recent[:])
	}
}

// interned decodes the string at s through the intern table.
func (d *decoder) interned(s span, field int) (string, bool) {
	b, ok := d.sc.Content(s)
	if !ok {
		return "", false
	}
	return d.intern(b, field), true
}

// compactID stores an event id of a common form in idBytes.
func (d *decoder) compactID(b []byte) bool {
	switch len(b) {
	case 32:
		if hexBytes(d.idBytes[:], b) {
			d.idForm = idHex
			return true
		}
	case 36:
		if b[8] == '-' && b[13] == '-' && b[18] == '-' && b[23] == '-' &&
			hexBytes(d.idBytes[0:4], b[0:8]) && hexBytes(d.idBytes[4:6], b[9:13]) && hexBytes(d.idBytes[6:8], b[14:18]) &&
			hexBytes(d.idBytes[8:10], b[19:23]) && hexBytes(d.idBytes[10:16], b[24:36]) {
			d.idForm = idUUID
			return true
		}
	}
	return false
}

// hexBytes decodes lower-case hex only, so the text can be rebuilt exactly.
func hexBytes(dst, src []byte) bool {
	src = src[:2*len(dst)]
	var bad byte
	for i := range dst {
		hi, lo := lowerHexVal[src[2*i]], lowerHexVal[src[2*i+1]]
		bad |= hi | lo
		dst[i] = hi<<4 | lo&0xF
	}
	return bad&0xF0 == 0
}

// lowerHexVal maps '0'-'9' and 'a'-'f' to their values, anything else to
// 0xFF.
var lowerHexVal = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
	}
	return t
}()

// formatID rebuilds an event id stored by compactID.
func formatID(form uint8, id *[16]byte) string {
	const digits = "0123456789abcdef"
	var buf [36]byte
	n := 0
	for i, c := range id {
		if form == idUUID && (i == 4 || i == 6 || i == 8 || i == 10) {
			buf[n] = '-'
			n++
		}
		buf[n], buf[n+1] = digits[c>>4], digits[c&0xF]
		n += 2
	}
	return string(buf[:n])
}
