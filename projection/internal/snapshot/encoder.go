package snapshot

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"time"
)

// flushBytes is how much the encoder gathers before it writes.
const flushBytes = 64 << 10

// Encoder writes a snapshot's payload through a small buffer, counting and
// checksumming it; its first error stops it. Texts that repeat (Word) are
// written once and then by number.
type Encoder struct {
	w    io.Writer
	b    []byte
	n    uint64
	crc  uint32
	err  error
	dict map[string]uint64
}

// NewEncoder writes the head of a snapshot of the program of version
// build to w, and returns the encoder of its payload. It streams: the
// payload's size and checksum come last (Close).
func NewEncoder(w io.Writer, build string) (*Encoder, error) {
	if _, err := w.Write(appendHead(nil, build)); err != nil {
		return nil, err
	}
	return &Encoder{w: w, b: make([]byte, 0, 2*flushBytes), dict: map[string]uint64{}}, nil
}

// Flush writes what the encoder gathered, once it is enough to write.
func (e *Encoder) Flush() { e.flush(false) }

func (e *Encoder) flush(all bool) {
	if len(e.b) < flushBytes && !all || e.err != nil {
		return
	}
	e.n += uint64(len(e.b))
	e.crc = crc32.Update(e.crc, castagnoli, e.b)
	_, e.err = e.w.Write(e.b)
	e.b = e.b[:0]
}

// Close writes the rest of the payload and what follows it: its size and
// checksum. It returns the encoder's first error.
func (e *Encoder) Close() error {
	e.flush(true)
	if e.err != nil {
		return e.err
	}
	var tail [tailBytes]byte
	binary.LittleEndian.PutUint64(tail[:], e.n)
	binary.LittleEndian.PutUint32(tail[8:], e.crc)
	_, err := e.w.Write(tail[:])
	return err
}

// Word is a text that may repeat: 0 and the text the first time, its
// number + 1 after.
func (e *Encoder) Word(s string) {
	if k, ok := e.dict[s]; ok {
		e.Uvarint(k + 1)
		return
	}
	e.dict[s] = uint64(len(e.dict))
	e.Uvarint(0)
	e.Str(s)
}

// Uvarint, Varint, U64 and Byte write a number; Str a length-prefixed
// text.
func (e *Encoder) Uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *Encoder) Varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *Encoder) U64(v uint64)     { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *Encoder) Byte(c byte)      { e.b = append(e.b, c) }
func (e *Encoder) Str(s string)     { e.Uvarint(uint64(len(s))); e.b = append(e.b, s...) }

// Bool writes a flag.
func (e *Encoder) Bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// Time keeps an instant as its Unix seconds and nanoseconds; instants of
// the replay are UTC, and the zero one stays zero.
func (e *Encoder) Time(t time.Time) {
	if t.IsZero() {
		e.b = append(e.b, 0)
		return
	}
	e.b = append(e.b, 1)
	e.Varint(t.Unix())
	e.Uvarint(uint64(t.Nanosecond()))
}

// List starts a list of n elements, or none when it is nil: its length
// plus one, 0 for nil, so that a nil list and an empty one read back as
// they were (Decoder.List).
func (e *Encoder) List(isNil bool, n int) {
	if isNil {
		e.Uvarint(0)
		return
	}
	e.Uvarint(uint64(n) + 1)
}

// Strs writes a list of texts.
func (e *Encoder) Strs(l []string) {
	e.List(l == nil, len(l))
	for _, s := range l {
		e.Str(s)
	}
}
