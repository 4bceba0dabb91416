//go:build windows

package pactdir

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// platformLock is LockFileEx (Windows has no flock) on one byte at offset
// 2^62: a Windows lock forbids every other handle to read or write the
// bytes it covers, so it covers a byte far past the end of any log, and
// readers and the append below it go on.
type platformLock struct{}

// lockRange is the locked byte: Offset 0, OffsetHigh 2^30 is 2^62.
func lockRange() *windows.Overlapped { return &windows.Overlapped{OffsetHigh: 1 << 30} }

func (platformLock) lock(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, lockRange())
}

// share is LockFileEx without LOCKFILE_EXCLUSIVE_LOCK on the same byte:
// shared locks coexist, and exclude the exclusive one.
func (platformLock) share(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), 0, 0, 1, 0, lockRange())
}

func (platformLock) tryLock(f *os.File) (bool, error) {
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, lockRange())
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}

func (platformLock) unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, lockRange())
}
