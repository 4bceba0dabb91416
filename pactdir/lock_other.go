//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package pactdir

import (
	"errors"
	"fmt"
	"os"
	"runtime"
)

// platformLock: pactify knows no file lock of this system, so writers
// refuse rather than race.
type platformLock struct{}

var errNoLock = fmt.Errorf("pactify cannot lock files on %s: %w", runtime.GOOS, errors.ErrUnsupported)

func (platformLock) lock(*os.File) error            { return errNoLock }
func (platformLock) share(*os.File) error           { return errNoLock }
func (platformLock) tryLock(*os.File) (bool, error) { return false, errNoLock }
func (platformLock) unlock(*os.File) error          { return errNoLock }
