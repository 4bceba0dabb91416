// Package snapshot is the byte format of a writers' snapshot of a replay:
// what surrounds its payload (a magic, the format, the build of the
// program that wrote it, the payload's size and checksum), the encoding
// of the values in it (Encoder, and Decoder, which never panics and
// allocates at most what the bytes it read could hold), and the digest of
// an event_id a snapshot keeps (Digest). It knows nothing of the state:
// projection says what a snapshot holds, in which order, and its tests
// hold what a snapshot decodes to to the replay it was taken of
// (TestSnapshotEqualsReplay, FuzzDecodeSnapshot).
package snapshot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Format is the version of the snapshot encoding; a snapshot of any other
// version is not read. Format 2 no longer holds a task's accept commit,
// accept event_id and time of its last change, which the state no longer
// keeps.
const Format = 2

// magic opens every snapshot.
const magic = "PACTSNAP"

// tailBytes is the size of what follows the payload: its size (8 bytes)
// and its checksum (4).
const tailBytes = 12

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendHead appends what precedes a snapshot's payload: the magic, the
// format and the build.
func appendHead(b []byte, build string) []byte {
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, Format)
	b = binary.AppendUvarint(b, uint64(len(build)))
	return append(b, build...)
}

// Open checks what surrounds the payload of the snapshot b (its magic,
// format, build, size and checksum) and returns the decoder of the
// payload; the error says what is wrong.
func Open(b, build string) (*Decoder, error) {
	if len(b) < len(magic)+4+tailBytes || b[:len(magic)] != magic {
		return nil, errors.New("not a snapshot")
	}
	if v := binary.LittleEndian.Uint32([]byte(b[len(magic) : len(magic)+4])); v != Format {
		return nil, fmt.Errorf("format %d, not %d", v, Format)
	}
	tail := []byte(b[len(b)-tailBytes:])
	d := &Decoder{s: b[len(magic)+4 : len(b)-tailBytes]}
	if got := d.Str(); d.err != nil || got != build {
		return nil, errors.New("written by another build")
	}
	d.s, d.off = d.s[d.off:], 0
	if binary.LittleEndian.Uint64(tail) != uint64(len(d.s)) || checksum(d.s) != binary.LittleEndian.Uint32(tail[8:]) {
		return nil, errors.New("damaged")
	}
	return d, nil
}

// checksum is the CRC-32C of s, copied a piece at a time.
func checksum(s string) uint32 {
	var buf [64 << 10]byte
	var sum uint32
	for len(s) > 0 {
		n := copy(buf[:], s)
		sum = crc32.Update(sum, castagnoli, buf[:n])
		s = s[n:]
	}
	return sum
}
