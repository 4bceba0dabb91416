//go:build linux

package pactdir

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// eachName calls fn with the name of every entry of the directory f but
// . and .., read with getdents64(2) into one buffer and never copied:
// os.File.Readdirnames allocates a string per name, for every task file,
// after the replay, when the live heap is highest. name is valid only
// during the call.
func eachName(f *os.File, fn func(name []byte)) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	buf := make([]byte, 64<<10)
	for {
		var n int
		var rerr error
		if err := rc.Read(func(fd uintptr) bool {
			n, rerr = unix.Getdents(int(fd), buf)
			for errors.Is(rerr, unix.EINTR) {
				n, rerr = unix.Getdents(int(fd), buf)
			}
			return true
		}); err != nil {
			return err
		}
		switch {
		case rerr != nil:
			return rerr
		case n <= 0:
			return nil
		}
		if err := eachDirent(buf[:n], fn); err != nil {
			return err
		}
	}
}

// direntNameOff is where the name starts in a struct linux_dirent64
// (d_ino 8 bytes, d_off 8, d_reclen 2, d_type 1).
const direntNameOff = 19

// eachDirent calls fn with the name of each struct linux_dirent64 in b.
func eachDirent(b []byte, fn func(name []byte)) error {
	for len(b) > 0 {
		if len(b) < direntNameOff {
			return errBadDirent
		}
		ino, reclen := binary.NativeEndian.Uint64(b), int(binary.NativeEndian.Uint16(b[16:]))
		if reclen < direntNameOff || reclen > len(b) {
			return errBadDirent
		}
		name := b[direntNameOff:reclen]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		b = b[reclen:]
		if ino == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		fn(name)
	}
	return nil
}

var errBadDirent = errors.New("getdents64 returned a malformed entry")
