package pactdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/pact-action/pact-action/pactfile"
)

// fileLock is the operating system's exclusive lock on an open file, held
// by this process until unlock, or until the process ends (a crash releases
// it): flock(2) on Unix, LockFileEx on Windows (lock_*.go). What is locked,
// and when, is the same everywhere (Dir.Lock); only these calls differ.
type fileLock interface {
	// lock waits until the lock is granted.
	lock(f *os.File) error
	// share waits until a shared lock is granted: any number of readers
	// hold one together, and no writer holds the lock meanwhile.
	share(f *os.File) error
	// tryLock takes the lock if no one holds it, and says whether it did.
	tryLock(f *os.File) (bool, error)
	unlock(f *os.File) error
}

// osLock is this platform's fileLock; tests swap it.
var osLock fileLock = platformLock{}

// Lock takes the pact's lock: the operating system's exclusive lock on the
// log itself (opened like every file of the pact: no link, a regular file),
// so that the read-check-append of concurrent writers on this machine is
// atomic, on every platform, without a lock file (a refused command must
// leave every file as it was). The log must exist; Create makes it under
// the lock. The returned function releases it.
func (d Dir) Lock() (unlock func(), err error) {
	return d.lock(false)
}

// lock is Lock; with create, the pact directory and an empty log are made
// first when they are absent (init).
func (d Dir) lock(create bool) (func(), error) {
	pact, err := d.openPact(create)
	if err != nil {
		return nil, err
	}
	defer pact.Close()
	flag := os.O_RDONLY
	if create {
		flag |= os.O_CREATE
	}
	f, err := openNoLink(pact, pactfile.LogFile, d.Display(pactfile.LogFile), flag, 0o644)
	if err != nil {
		return nil, err // it names the log
	}
	if err := osLock.lock(f); err != nil {
		_ = f.Close() // the lock's error is the one to report
		return nil, fmt.Errorf("lock %s: %w", d.Display(pactfile.LogFile), err)
	}
	// Every writer makes its temporary files under this lock, so those
	// there now were left by a writer that was killed: remove them.
	removeTemporaries(pact)
	return func() {
		_ = osLock.unlock(f)
		_ = f.Close() // only opened to lock it; closing releases the lock too
	}, nil
}

// Share takes the pact's lock shared, for a reader that must see the log
// and the files writers derive from it (STATE.yml, the task files) at one
// moment (validate): writers wait until it is released, other readers do
// not. A missing log, or a system without file locks, takes nothing: the
// returned function is then a no-op, and what is read is judged as it is.
func (d Dir) Share() (unlock func(), err error) {
	pact, err := d.openPact(false)
	if errors.Is(err, fs.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		return nil, err
	}
	defer pact.Close()
	f, _, err := openRegular(pact, pactfile.LogFile, d.Display(pactfile.LogFile), false)
	if errors.Is(err, fs.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		return nil, err // it names the log
	}
	if err := osLock.share(f); err != nil {
		_ = f.Close()
		if errors.Is(err, errors.ErrUnsupported) {
			return func() {}, nil
		}
		return nil, fmt.Errorf("lock %s for reading: %w", d.Display(pactfile.LogFile), err)
	}
	return func() {
		_ = osLock.unlock(f)
		_ = f.Close()
	}, nil
}
