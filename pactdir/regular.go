package pactdir

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// How files are opened, on every platform (os.Root): never outside the
// repository, never a device, FIFO or socket (opened without blocking, then
// checked on the open descriptor, so nothing can be swapped in between),
// never more than a bound. The action reads a checkout with ReadRegular,
// which lets a symbolic link point within the repository; pactify's own
// reads and writes of the pact directory follow no link at all (git stores
// a link as a link, and the check, reading through the GitHub API, refuses
// one too): a link, device or FIFO there is refused with a fileError.

// ErrNotRegular is a path that exists but is not a regular file inside the
// root: a symlink that leaves it (or, for pactify, any symlink), a
// directory, a device, a FIFO or a socket.
var ErrNotRegular = errors.New("not a regular file inside the repository")

// ErrTooLarge is a file above the size limit of a read.
var ErrTooLarge = errors.New("file too large")

// The bounds of what is read from a pact directory.
const (
	// maxFileBytes bounds a file read whole: what GitHub's contents and
	// blobs APIs serve at most, so that a checkout cannot make a reader
	// hold more than the API would give it.
	maxFileBytes = 100 << 20
	// maxLogBytes bounds the log and STATE.yml, which pactify streams and
	// which grow with the pact: 2 GiB, eight times the 1M-event log the
	// benchmarks judge.
	maxLogBytes = 2 << 30
)

// fileError is a path a read or a write refused, and why.
type fileError struct {
	Op   string // read, write or open
	Path string // slash-separated, as findings name files
	// Want is what belongs there: "" for a regular file, or "directory".
	Want string
	// Why says what the path is instead ("it is a symbolic link") for
	// ErrNotRegular; Size and Limit are set for ErrTooLarge.
	Why         string
	Size, Limit int64
	Err         error // ErrNotRegular or ErrTooLarge
}

func (e *fileError) Error() string {
	if errors.Is(e.Err, ErrTooLarge) {
		return fmt.Sprintf("%s %s: %v (%d bytes, the limit is %d)", e.Op, e.Path, e.Err, e.Size, e.Limit)
	}
	want := "regular file"
	if e.Want != "" {
		want = e.Want
	}
	return fmt.Sprintf("%s %s: not a %s inside the repository (%s); replace it with a %s", e.Op, e.Path, want, e.Why, want)
}

func (e *fileError) Unwrap() error { return e.Err }

func notRegular(op, path string, m fs.FileMode) error {
	return &fileError{Op: op, Path: path, Why: "it is a " + kindOf(m), Err: ErrNotRegular}
}

// changed is a path that was swapped for another between its check and its
// opening.
func changed(op, path string) error {
	return &fileError{Op: op, Path: path, Why: "it changed while it was opened", Err: ErrNotRegular}
}

func tooLarge(op, path string, size, limit int64) error {
	return &fileError{Op: op, Path: path, Size: size, Limit: limit, Err: ErrTooLarge}
}

// openError turns what os.Root refused into a fileError: a missing file is
// returned as it is (fs.ErrNotExist), a condition of the system (no
// permission, a read-only file system, no space: OSError) said as such, and
// anything else (a link that leads out of the root, a loop) is not a
// regular file inside the repository.
func openError(op, path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return err
	case conditionOf(err) != 0:
		return osError(op, path, err)
	}
	cause := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		cause = pe.Err // the path in it is the OS's; path is the reader's
	}
	return &fileError{Op: op, Path: path, Why: cause.Error(), Err: ErrNotRegular}
}

// ReadRegular reads the file name (slash-separated, relative to root) the
// way a check may read a checkout someone else committed: only a regular
// file that resolves inside root (symlinks may point within it, never out),
// never a device, FIFO or socket, at most limit bytes, and stopping when
// ctx is done. A missing file is nil, nil.
func ReadRegular(ctx context.Context, root, name string, limit int64) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	defer r.Close()
	return readFile(ctx, r, filepath.FromSlash(name), name, true, limit)
}

// readFile reads the regular file name of dir whole, at most limit bytes
// (display names it in errors). follow lets a symlink lead elsewhere
// inside dir; without it name must be one path element, the file itself. A
// missing file is nil, nil.
func readFile(ctx context.Context, dir *os.Root, name, display string, follow bool, limit int64) ([]byte, error) {
	f, fi, err := openRegular(dir, name, display, follow)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, tooLarge("read", display, fi.Size(), limit)
	}
	// Sized by the file, one byte over to see it grow; a reader that stops
	// when ctx is done, between reads.
	// Read into that buffer, not a bytes.Buffer: its ReadFrom doubles a
	// buffer with less than 512 bytes free, so a file read whole would
	// take twice its size.
	buf := make([]byte, 0, fi.Size()+1)
	r := io.LimitReader(ctxReader{ctx, f}, limit+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // the file grew since Stat
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", display, err)
		}
	}
	if int64(len(buf)) > limit {
		return nil, tooLarge("read", display, int64(len(buf)), limit)
	}
	return buf, nil
}

// openRegular opens the regular file name of dir for reading. Without
// follow, a symlink at name is refused before anything is opened (so a
// FIFO is never opened either), and what was opened must be what was
// looked at. The error is fs.ErrNotExist (wrapped) for a missing file.
func openRegular(dir *os.Root, name, display string, follow bool) (*os.File, fs.FileInfo, error) {
	var looked fs.FileInfo
	if !follow {
		var err error
		if looked, err = dir.Lstat(name); err != nil {
			return nil, nil, openError("read", display, err)
		}
		if !looked.Mode().IsRegular() {
			return nil, nil, notRegular("read", display, looked.Mode())
		}
	}
	f, err := dir.OpenFile(name, os.O_RDONLY|openNonBlocking, 0)
	if err != nil {
		return nil, nil, openError("read", display, err)
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		err = fmt.Errorf("read %s: %w", display, err)
	case !fi.Mode().IsRegular():
		err = notRegular("read", display, fi.Mode())
	case looked != nil && !os.SameFile(looked, fi):
		err = changed("read", display)
	}
	if err != nil {
		_ = f.Close() // the error above is the one to report
		return nil, nil, err
	}
	return f, fi, nil
}

// openDir opens the directory rel (slash-separated, relative to root; base
// is how errors name root, "" for the repository) without following a link
// at any of its elements: each is looked at before it is entered, and what
// was entered must be what was looked at. With create, missing elements
// are made (0755). A missing directory is fs.ErrNotExist (wrapped). The
// caller closes the returned root.
func openDir(root *os.Root, rel, base string, create bool) (*os.Root, error) {
	cur, err := root.OpenRoot(".")
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", displayJoin(base, ""), err)
	}
	if rel == "." || rel == "" {
		return cur, nil
	}
	display := base
	for _, elem := range strings.Split(rel, "/") {
		display = displayJoin(display, elem)
		looked, err := cur.Lstat(elem)
		if create && errors.Is(err, fs.ErrNotExist) {
			if err = cur.Mkdir(elem, 0o755); err == nil || errors.Is(err, fs.ErrExist) {
				looked, err = cur.Lstat(elem)
			}
		}
		if err != nil {
			cur.Close()
			return nil, openError("open", display, err)
		}
		if !looked.IsDir() {
			cur.Close()
			return nil, &fileError{Op: "open", Path: display, Want: "directory", Why: "it is a " + kindOf(looked.Mode()), Err: ErrNotRegular}
		}
		next, err := cur.OpenRoot(elem)
		cur.Close()
		if err != nil {
			return nil, openError("open", display, err)
		}
		if entered, err := next.Stat("."); err != nil || !os.SameFile(looked, entered) {
			next.Close()
			return nil, changed("open", display)
		}
		cur = next
	}
	return cur, nil
}

// displayJoin names elem of the directory base as findings do.
func displayJoin(base, elem string) string {
	switch {
	case base == "":
		return elem
	case elem == "":
		return base
	}
	return base + "/" + elem
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
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m.IsRegular():
		return "regular file"
	}
	return "special file"
}

// ListRegular lists the directory name of the work tree at root, names
// only, as ReadRegular reads its files (inside root; a link may lead
// elsewhere inside it). A missing directory lists nothing (nil, nil).
func ListRegular(root, name string) ([]string, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	defer r.Close()
	f, err := r.Open(filepath.FromSlash(name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, openError("list", name, err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", name, err)
	}
	return names, nil
}

// openNoLink opens the regular file name of dir (one path element) with
// flag, creating it with perm when flag has O_CREATE and it is absent. A
// symlink, directory, device or FIFO at name is refused before anything is
// opened, and what was opened must be what is at name: the file looked at,
// or the one this call created.
func openNoLink(dir *os.Root, name, display string, flag int, perm fs.FileMode) (*os.File, error) {
	looked, err := dir.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist) && flag&os.O_CREATE != 0:
		looked = nil
	case err != nil:
		return nil, openError("write", display, err)
	case !looked.Mode().IsRegular():
		return nil, notRegular("write", display, looked.Mode())
	}
	f, err := dir.OpenFile(name, flag|openNonBlocking, perm)
	if err != nil {
		return nil, openError("write", display, err)
	}
	fi, err := f.Stat()
	if err == nil && looked == nil {
		looked, err = dir.Lstat(name)
	}
	switch {
	case err != nil:
		err = fmt.Errorf("write %s: %w", display, err)
	case !fi.Mode().IsRegular():
		err = notRegular("write", display, fi.Mode())
	case !os.SameFile(looked, fi):
		err = changed("write", display)
	}
	if err != nil {
		_ = f.Close() // the error above is the one to report
		return nil, err
	}
	return f, nil
}
