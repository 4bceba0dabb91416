package pactdir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

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
	return d.lock(false, osLock.lock)
}

// LockWaiting is Lock for a writer that can be interrupted (Ctrl-C): when
// another writer holds the lock, waiting (unless nil) is told once, and
// the wait ends when the lock is granted or when ctx does. An ended ctx
// is its error at once, with nothing held: the wait given up goes on
// apart and lets go of the lock and its file the moment it is granted.
func (d Dir) LockWaiting(ctx context.Context, waiting func()) (unlock func(), err error) {
	return d.lock(false, func(f *os.File) error { return waitLock(ctx, f, waiting) })
}

// lock is Lock, taking the log's lock with take; with create, the pact
// directory and an empty log are made first when they are absent (init).
func (d Dir) lock(create bool, take func(*os.File) error) (func(), error) {
	pact, err := d.openPact(create)
	if err != nil {
		return nil, err
	}
	defer pact.Close()
	flag := os.O_RDONLY
	if create {
		flag |= os.O_CREATE
	}
	f, err := lockLog(pact, d.Display(pactfile.LogFile), flag, take)
	if err != nil {
		return nil, err
	}
	key := d.Path(pactfile.LogFile)
	held.Store(key, f)
	// Every writer appends and makes its temporary files under this lock,
	// so a torn append and the temporaries there now were left by a writer
	// that was killed: cut back the one (torn.go), remove the others.
	d.recoverAppend(pact, d.Display(pactfile.LogFile))
	removeTemporaries(pact)
	return func() {
		held.CompareAndDelete(key, f)
		_ = osLock.unlock(f)
		_ = f.Close() // only opened to lock it; closing releases the lock too
	}, nil
}

// held maps the log (its path) to the file this process holds its lock
// on, while it holds it: appendLine appends only to that file.
var held sync.Map

// lockAttempts bounds how often lockLog takes the lock again because the
// log was replaced while it waited.
const lockAttempts = 100

// lockLog opens the log of pact with flag (no link, a regular file) and
// takes its lock with take. The lock belongs to the file, not to its
// name: when another program replaced the log while this waited (renamed a
// file over it, as git checkout or an editor's save does), the lock held
// is on a file no other writer opens, so it is let go and taken on the
// log that is there now.
func lockLog(pact *os.Root, display string, flag int, take func(*os.File) error) (*os.File, error) {
	for range lockAttempts {
		f, err := openNoLink(pact, pactfile.LogFile, display, flag, 0o644)
		if err != nil {
			return nil, err // it names the log
		}
		if err := take(f); err != nil {
			if !errors.Is(err, errWaitGivenUp) {
				_ = f.Close() // the lock's error is the one to report
			}
			return nil, fmt.Errorf("lock %s: %w", display, err)
		}
		if isLog(pact, f) {
			return f, nil
		}
		_ = osLock.unlock(f)
		_ = f.Close()
	}
	return nil, fmt.Errorf("lock %s: %w", display, errReplaced)
}

// errWaitGivenUp is a wait for the lock that ctx ended (waitLock): the
// file is the wait's to close, once the lock it still waits for is
// granted.
var errWaitGivenUp = errors.New("gave up waiting for the lock")

// waitLock takes the lock on f, waiting while another writer holds it
// (telling waiting, unless nil) until it is granted or ctx ends. A wait
// cannot be called off, so the one ctx ended goes on apart: once granted,
// it lets go of the lock and closes f, whose descriptor the wait holds
// until then (a file closed under it could be another by then).
func waitLock(ctx context.Context, f *os.File, waiting func()) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if got, err := osLock.tryLock(f); err != nil || got {
		return err
	}
	if waiting != nil {
		waiting()
	}
	granted := make(chan error, 1)
	go func() { granted <- osLock.lock(f) }()
	select {
	case err := <-granted:
		return err
	case <-ctx.Done():
		go func() {
			if <-granted == nil {
				_ = osLock.unlock(f)
			}
			_ = f.Close()
		}()
		return fmt.Errorf("%w: %w", errWaitGivenUp, ctx.Err())
	}
}

// isLog reports whether f is the file at the log's name in pact now.
func isLog(pact *os.Root, f *os.File) bool {
	at, err := pact.Lstat(pactfile.LogFile)
	if err != nil {
		return false
	}
	fi, err := f.Stat()
	return err == nil && os.SameFile(at, fi)
}

// errReplaced is a log another program kept replacing while pactify
// waited for, or held, its lock.
var errReplaced = errors.New("another program replaced the log while pactify held its lock (a git checkout, pull or an editor saving it); nothing was recorded: run the command again once it is done")

// share takes the pact's lock shared, for a reader that must see the log
// and the files writers derive from it (STATE.yml, the task files) at one
// moment (validate): writers wait until it is released, other readers do
// not. A missing log, or a system without file locks, takes nothing: the
// returned function is then a no-op, and what is read is judged as it is.
func (d Dir) share() (unlock func(), err error) {
	pact, err := d.openPact(false)
	if errors.Is(err, fs.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		return nil, err
	}
	defer pact.Close()
	f, err := lockLog(pact, d.Display(pactfile.LogFile), os.O_RDONLY, osLock.share)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, errors.ErrUnsupported):
		return func() {}, nil
	case err != nil:
		return nil, err // it names the log
	}
	return func() {
		_ = osLock.unlock(f)
		_ = f.Close()
	}, nil
}
