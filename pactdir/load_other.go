//go:build !unix

package pactdir

import "os"

// openTasks opens task files through os.Root (openRegular).
func openTasks(dir *os.Root) (openFunc, func(), error) {
	return openPortable(dir), func() {}, nil
}
