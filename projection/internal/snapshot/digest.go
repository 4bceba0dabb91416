package snapshot

import (
	"encoding/binary"
	"math/bits"

	"github.com/pact-action/pact-action/projection/internal/compact"
)

// Digest is the digest of an event_id a snapshot holds for it: the
// compact forms (compact.ParseID) are digested from their 16 bytes, any
// other id from its text, so the same id always has the same digest.
func Digest(id string) uint64 {
	var b [16]byte
	if form := compact.ParseID(&b, []byte(id)); form != compact.IDOther {
		return CompactDigest(form, &b)
	}
	return TextDigest(id)
}

// CompactDigest is Digest of an event_id of a compact form.
func CompactDigest(form uint8, id *[16]byte) uint64 {
	x := binary.LittleEndian.Uint64(id[:8]) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(id[8:]), 29) ^ uint64(form)<<58
	return mix64(x)
}

// TextDigest is Digest of an event_id of no compact form.
func TextDigest(s string) uint64 {
	h := uint64(14695981039346656037) // FNV-1a
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix64(h ^ 1<<63)
}

// mix64 is SplitMix64's finaliser.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
