//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package pactdir

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// platformLock is flock(2): the lock belongs to the open file, so two opens
// of the log exclude each other even in one process.
type platformLock struct{}

func (platformLock) lock(f *os.File) error  { return flock(f, unix.LOCK_EX) }
func (platformLock) share(f *os.File) error { return flock(f, unix.LOCK_SH) }

func (platformLock) tryLock(f *os.File) (bool, error) {
	err := flock(f, unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

func (platformLock) unlock(f *os.File) error { return flock(f, unix.LOCK_UN) }

func flock(f *os.File, how int) error {
	for {
		if err := unix.Flock(int(f.Fd()), how); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
