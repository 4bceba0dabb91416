package snapshot

import (
	"encoding/binary"
	"errors"
	"math"
	"time"
)

// Decoder reads what an Encoder wrote; its first error stops it, and
// every later read returns zero values. The texts it returns are
// substrings of the snapshot.
type Decoder struct {
	s    string
	off  int
	err  error
	dict []string
}

// Fail stops the decoder with the reason what, unless it stopped before.
func (d *Decoder) Fail(what string) {
	if d.err == nil {
		d.err = errors.New(what)
	}
}

// Err is the reason the decoder stopped, or nil.
func (d *Decoder) Err() error { return d.err }

// Done says the whole payload was read.
func (d *Decoder) Done() bool { return d.off == len(d.s) }

// Uvarint is binary.Uvarint of the text, and refuses an overlong
// encoding too: every value has one encoding.
func (d *Decoder) Uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	var x uint64
	for i, shift := d.off, uint(0); i < len(d.s) && i-d.off < binary.MaxVarintLen64; i, shift = i+1, shift+7 {
		c := d.s[i]
		if c < 0x80 {
			if i-d.off == binary.MaxVarintLen64-1 && c > 1 || i > d.off && c == 0 {
				break
			}
			d.off = i + 1
			return x | uint64(c)<<shift
		}
		x |= uint64(c&0x7f) << shift
	}
	d.Fail("bad number")
	return 0
}

// Varint reads what Encoder.Varint wrote.
func (d *Decoder) Varint() int64 {
	u := d.Uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

// Int is a non-negative int.
func (d *Decoder) Int() int {
	v := d.Uvarint()
	if v > math.MaxInt32 {
		d.Fail("number out of range")
		return 0
	}
	return int(v)
}

// Count is the length of a list whose every element takes at least min
// bytes: never more than the bytes left can hold, so nothing is allocated
// beyond what was read.
func (d *Decoder) Count(min int) int {
	v := d.Uvarint()
	if v > uint64((len(d.s)-d.off)/min) {
		d.Fail("list longer than the snapshot")
		return 0
	}
	return int(v)
}

// List reads what Encoder.List wrote: whether the list is there (not
// nil) and its length, bounded as Count's.
func (d *Decoder) List(min int) (n int, present bool) {
	v := d.Uvarint()
	if v == 0 || d.err != nil {
		return 0, false
	}
	if v-1 > uint64((len(d.s)-d.off)/min) {
		d.Fail("list longer than the snapshot")
		return 0, false
	}
	return int(v - 1), true
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.s) {
		d.Fail("cut short")
		return 0
	}
	c := d.s[d.off]
	d.off++
	return c
}

// Bool reads a flag.
func (d *Decoder) Bool() bool {
	switch d.Byte() {
	case 0:
		return false
	case 1:
		return true
	}
	d.Fail("bad flag")
	return false
}

// U64 reads what Encoder.U64 wrote.
func (d *Decoder) U64() uint64 {
	if d.err == nil && len(d.s)-d.off < 8 {
		d.Fail("cut short")
	}
	if d.err != nil {
		return 0
	}
	v := uint64(0)
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(d.s[d.off+i])
	}
	d.off += 8
	return v
}

// Str is a length-prefixed text, a substring of the snapshot.
func (d *Decoder) Str() string {
	n := d.Count(1)
	if d.err != nil {
		return ""
	}
	v := d.s[d.off : d.off+n]
	d.off += n
	return v
}

// Word is what Encoder.Word wrote.
func (d *Decoder) Word() string {
	k := d.Uvarint()
	switch {
	case d.err != nil:
		return ""
	case k == 0:
		s := d.Str()
		if d.err == nil {
			d.dict = append(d.dict, s)
		}
		return s
	case k > uint64(len(d.dict)):
		d.Fail("a word before its first use")
		return ""
	}
	return d.dict[k-1]
}

// Strs reads what Encoder.Strs wrote.
func (d *Decoder) Strs() []string {
	n, ok := d.List(1)
	if !ok {
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = d.Str()
	}
	return l
}

// Time reads what Encoder.Time wrote.
func (d *Decoder) Time() time.Time {
	if !d.Bool() {
		return time.Time{}
	}
	sec, nsec := d.Varint(), d.Uvarint()
	if nsec >= 1e9 || sec < minSec || sec > maxSec || sec == minSec && nsec == 0 {
		d.Fail("bad time") // the zero instant has an encoding of its own
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).UTC()
}

// The instants a snapshot holds: years 1 to 9999, as RFC 3339 writes them.
const (
	minSec = -62135596800
	maxSec = 253402300799
)
