//go:build windows

package testbin

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockRange is one byte at 2^62, far past the script's end: a Windows lock
// forbids other handles to read the bytes it covers, and bash must still
// read the script.
func lockRange() *windows.Overlapped { return &windows.Overlapped{OffsetHigh: 1 << 30} }

func lockFile(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, lockRange())
}

func unlockFile(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, lockRange())
}
