package pactdir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotRegular is a path that exists but is not a regular file inside the
// root: a symlink that leaves it, a directory, a device, a FIFO or a socket.
var ErrNotRegular = errors.New("not a regular file inside the repository")

// ErrTooLarge is a file above the size limit of a read.
var ErrTooLarge = errors.New("file too large")

// ReadRegular reads the file name (slash-separated, relative to root) the
// way a check may read a checkout someone else committed: only a regular
// file that resolves inside root (symlinks may point within it, never out),
// never a device, FIFO or socket (opened without blocking, then checked on
// the open descriptor, so nothing can be swapped in between), at most limit
// bytes, and stopping when ctx is done. A missing file is nil, nil.
func ReadRegular(ctx context.Context, root, name string, limit int64) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	defer r.Close()
	f, err := r.OpenFile(filepath.FromSlash(name), os.O_RDONLY|openNonBlocking, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w (%v)", name, ErrNotRegular, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: %w (it is a %s)", name, ErrNotRegular, kindOf(fi.Mode()))
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("read %s: %w (%d bytes, the limit is %d)", name, ErrTooLarge, fi.Size(), limit)
	}
	// Sized by the file, one byte over to see it grow; a reader that stops
	// when ctx is done, between reads.
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+1))
	if _, err := buf.ReadFrom(io.LimitReader(ctxReader{ctx, f}, limit+1)); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(buf.Len()) > limit {
		return nil, fmt.Errorf("read %s: %w (more than %d bytes)", name, ErrTooLarge, limit)
	}
	return buf.Bytes(), nil
}

// ctxReader is a reader that fails once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	}
	return "special file"
}
