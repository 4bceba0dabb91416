//go:build unix

package pactdir

import (
	"errors"
	"io"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// openTasks opens the files of dir with openat(2) on the directory's
// descriptor, O_NOFOLLOW and O_NONBLOCK, then fstat(2): the checks of
// openRegular in one open and one stat, without an *os.File per file
// (os.Root's path walk and an *os.File per file are a large part of
// validate's time on a pact of many tasks: docs/performance.md). What
// this path does not open (a link, a FIFO, a
// device) is opened again through openRegular, which says why it refuses
// it in the same words.
func openTasks(dir *os.Root) (openFunc, func(), error) {
	df, err := dir.Open(".")
	if err != nil {
		return nil, nil, err
	}
	dirFD := int(df.Fd())
	slow := openPortable(dir)
	open := func(name, dirName string) (io.ReadCloser, int64, error) {
		fd, err := unix.Openat(dirFD, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		for errors.Is(err, unix.EINTR) {
			fd, err = unix.Openat(dirFD, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		}
		if err != nil {
			return slow(name, dirName)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			_ = unix.Close(fd) // not read; the portable path decides
			return slow(name, dirName)
		}
		return fdReader(fd), st.Size, nil
	}
	return open, func() { runtime.KeepAlive(df); _ = df.Close() }, nil
}

// fdReader reads a descriptor of a regular file.
type fdReader int

func (fd fdReader) Read(b []byte) (int, error) {
	n, err := unix.Read(int(fd), b)
	for errors.Is(err, unix.EINTR) {
		n, err = unix.Read(int(fd), b)
	}
	switch {
	case err != nil:
		return 0, err
	case n == 0 && len(b) > 0:
		return 0, io.EOF
	}
	return n, nil
}

func (fd fdReader) Close() error { return unix.Close(int(fd)) }
