//go:build !unix

package action_test

import (
	"errors"
	"fmt"
	"runtime"
)

// mkfifo: a checkout on this system cannot hold a FIFO.
func mkfifo(string) error {
	return fmt.Errorf("no FIFO in a checkout on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}
