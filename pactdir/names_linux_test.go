package pactdir

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"
)

// dirent is a struct linux_dirent64 of the given name, padded to 8 bytes.
func dirent(ino uint64, name string) []byte {
	reclen := (direntNameOff + len(name) + 1 + 7) &^ 7
	b := make([]byte, reclen)
	binary.NativeEndian.PutUint64(b, ino)
	binary.NativeEndian.PutUint16(b[16:], uint16(reclen))
	copy(b[direntNameOff:], name)
	return b
}

// TestEachDirent: names are cut at their NUL, . and .. and deleted
// entries (inode 0) skipped, and a truncated or overlong record refused
// rather than read past.
func TestEachDirent(t *testing.T) {
	t.Parallel()
	buf := slices.Concat(dirent(1, "."), dirent(2, ".."), dirent(3, "T1.md"), dirent(0, "gone.md"), dirent(4, "x"))
	var got []string
	if err := eachDirent(buf, func(name []byte) { got = append(got, string(name)) }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"T1.md", "x"}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	long := dirent(5, "T2.md")
	binary.NativeEndian.PutUint16(long[16:], uint16(len(long)+8))
	for name, b := range map[string][]byte{
		"truncated header": dirent(3, "T1.md")[:10],
		"reclen too long":  long,
		"reclen too short": func() []byte { b := dirent(3, "T1.md"); binary.NativeEndian.PutUint16(b[16:], 4); return b }(),
	} {
		if err := eachDirent(b, func([]byte) {}); !errors.Is(err, errBadDirent) {
			t.Errorf("%s: %v, want errBadDirent", name, err)
		}
	}
}

// FuzzEachDirent: any buffer is read without a panic, and every name it
// gives lies within it, holds no NUL and is neither . nor ..
func FuzzEachDirent(f *testing.F) {
	f.Add(slices.Concat(dirent(1, "."), dirent(3, "T1.md")))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = eachDirent(b, func(name []byte) {
			if len(name) > len(b) || slices.Contains(name, 0) || string(name) == "." || string(name) == ".." {
				t.Fatalf("name %q", name)
			}
		})
	})
}
