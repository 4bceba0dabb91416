// Package pactdir owns the files of a .pact/ directory on local disk: loading
// everything validate judges, the locked, durable append that every writing
// verb of pactify goes through, and what init and assign write besides the
// log (init.go: the directory, the managed blocks of PROJECT.md and of the
// seats' entry files, task files). The bytes of each file are pactfile's.
package pactdir

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// ErrNoPact means the directory holds no pact yet.
var ErrNoPact = errors.New("no pact here")

// Dir is a .pact directory. Root is the repository root (entry files are
// relative to it); Name is the directory relative to Root, e.g. ".pact".
type Dir struct {
	Root string
	Name string
}

// Path joins elements under the .pact directory.
func (d Dir) Path(elem ...string) string {
	return filepath.Join(append([]string{d.Root, d.Name}, elem...)...)
}

// Display is a path under .pact as findings show it (slash-separated,
// relative to the repository root).
func (d Dir) Display(elem ...string) string {
	return filepath.ToSlash(filepath.Join(append([]string{d.Name}, elem...)...))
}

// Exists reports whether the log exists.
func (d Dir) Exists() bool {
	_, err := os.Stat(d.Path(pactfile.LogFile))
	return err == nil
}

// ReadOptional reads a file, returning nil (not an error) when it is absent.
func ReadOptional(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// LoadLog parses and replays the log, keeping its events. A missing log is
// ErrNoPact.
func (d Dir) LoadLog() (*projection.Log, *projection.Result, error) {
	return loadLog(d, nil, func(r io.Reader) (*projection.Log, *projection.Result, error) {
		log, err := projection.Parse(r)
		if err != nil {
			return nil, nil, err
		}
		return log, projection.Replay(log), nil
	})
}

// LoadReplay replays the log as it reads it (projection.ParseReplay),
// keeping no events. A missing log is ErrNoPact.
func (d Dir) LoadReplay(p *Progress) (*projection.Replayed, *projection.Result, error) {
	return loadLog(d, p, projection.ParseReplay)
}

// LoadLogToAppend replays the log for a writer that will append one line
// with the given event_id (projection.ParseReplayAppend): no events are
// kept, so memory stays well below the log's size, yet Replayed.Propose
// judges that line exactly. A missing log is ErrNoPact.
func (d Dir) LoadLogToAppend(eventID string, p *Progress) (*projection.Replayed, *projection.Result, error) {
	return loadLog(d, p, func(r io.Reader) (*projection.Replayed, *projection.Result, error) {
		return projection.ParseReplayAppend(r, eventID)
	})
}

// loadLog opens the log and hands it to parse (Parse and Replay, or the lean
// ParseReplay, which keeps no events), counting its bytes on p.
func loadLog[L any](d Dir, p *Progress, parse func(io.Reader) (L, *projection.Result, error)) (L, *projection.Result, error) {
	var none L
	f, err := os.Open(d.Path(pactfile.LogFile))
	if errors.Is(err, fs.ErrNotExist) {
		return none, nil, fmt.Errorf("%s does not exist: %w", d.Display(pactfile.LogFile), ErrNoPact)
	}
	if err != nil {
		return none, nil, fmt.Errorf("open the log: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if p != nil {
		size := int64(0)
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
		p.Start("reading "+d.Display(pactfile.LogFile), size, "B")
		r = &countingReader{r: f, p: p, then: "replaying " + d.Display(pactfile.LogFile)}
	}
	log, res, err := parse(r)
	if err != nil {
		return none, nil, fmt.Errorf("read %s: %w", d.Display(pactfile.LogFile), err)
	}
	return log, res, nil
}

// Load reads everything validate judges. The log is replayed as it is read
// (projection.ParseReplay), keeping no events; task files that begin
// with exactly the front matter pactify writes are only counted in
// in.TaskFilesMatched, so TaskFiles holds just the others.
func (d Dir) Load() (checks.Input, error) {
	return d.LoadWatched(nil)
}

// LoadWatched is Load that reports how far it has come on p (which may be
// nil).
func (d Dir) LoadWatched(p *Progress) (checks.Input, error) {
	in := checks.Input{Dir: d.Display(), TaskFiles: map[string][]byte{}}
	var err error
	replayed, res, err := loadLog(d, p, projection.ParseReplay)
	if err != nil {
		return in, err
	}
	in.Scan, in.Replay = &replayed.Scan, res
	if in.Project, err = ReadOptional(d.Path(pactfile.ProjectFile)); err != nil {
		return in, err
	}
	if in.Config, err = ReadOptional(filepath.Join(d.Root, filepath.FromSlash(pactfile.ConfigPath))); err != nil {
		return in, err
	}
	// STATE.yml is compared with a fresh render while the task files are
	// read: a file that matches is never held in memory.
	stateDone := make(chan error, 1)
	go func() {
		st := in.Replay.State
		same, err := holds(d.Path(pactfile.StateFile), func(w io.Writer) error { return projection.Render(w, st) })
		if err == nil && !same {
			in.State, err = ReadOptional(d.Path(pactfile.StateFile))
		}
		in.StateMatched = same
		stateDone <- err
	}()
	if in.Replay.Unsupported == nil {
		err = d.readTaskFiles(&in, p)
	}
	if stateErr := <-stateDone; err == nil {
		err = stateErr
	}
	p.Start("checking "+d.Display(), 0, "")
	return in, err
}

// taskFilePrefix is how much of a task file is read first: enough for the
// front matter pactify writes for any usual task, which is all that is
// needed when the file matches it.
const taskFilePrefix = 512

// readTaskFiles reads tasks/<id>.md for every task, on a few goroutines.
// A file that begins with exactly the front matter pactify writes for its
// task is let go at once (in.TaskFilesMatched); only the others are kept,
// whole, for checks.TaskFiles to parse and report.
//
// The files are opened relative to the directory with plain system calls:
// on a pact of 200,000 tasks, os.Open's path walk and poller set-up were
// most of the time spent here.
func (d Dir) readTaskFiles(in *checks.Input, p *Progress) error {
	tasks := in.Replay.State.TaskList()
	p.Start("reading "+d.Display(pactfile.TasksDir), int64(len(tasks)), "files")
	dirFD, err := syscall.Open(d.Path(pactfile.TasksDir), syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, syscall.ENOENT):
		return nil // no task files at all
	case err != nil:
		return fmt.Errorf("open %s: %w", d.Display(pactfile.TasksDir), err)
	}
	defer syscall.Close(dirFD)
	matched := make([]bool, len(tasks))
	workers := min(max(2, 2*runtime.GOMAXPROCS(0)), 16)
	const batch = 256
	var next atomic.Int64
	kept := make([]map[string][]byte, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, taskFilePrefix)
			for {
				lo := int(next.Add(batch)) - batch
				if lo >= len(tasks) {
					return
				}
				hi := min(lo+batch, len(tasks))
				for i := lo; i < hi; i++ {
					t := tasks[i]
					b, ok, err := readTaskFile(dirFD, pactfile.TaskFileName(t.ID), buf, t)
					if err != nil {
						errs[w] = fmt.Errorf("read %s: %w", d.Display(pactfile.TasksDir, pactfile.TaskFileName(t.ID)), err)
						return
					}
					switch {
					case ok:
						matched[i] = true
					case b != nil:
						if kept[w] == nil {
							kept[w] = map[string][]byte{}
						}
						kept[w][t.ID] = b
					}
				}
				p.Add(int64(hi - lo))
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	for _, m := range kept {
		for id, b := range m {
			in.TaskFiles[id] = b
		}
	}
	in.TaskFilesMatched = make(map[string]bool, len(tasks)-len(in.TaskFiles))
	for i, ok := range matched {
		if ok {
			in.TaskFilesMatched[tasks[i].ID] = true
		}
	}
	return nil
}

// readTaskFile reads the start of the task file name in the directory dirFD
// into buf and says whether it begins with exactly the front matter pactify
// writes for t. When it does not, it returns the whole file (nil: there is
// none).
func readTaskFile(dirFD int, name string, buf []byte, t *projection.Task) ([]byte, bool, error) {
	fd, err := retryEINTR(func() (int, error) {
		return syscall.Openat(dirFD, name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	})
	if errors.Is(err, syscall.ENOENT) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer syscall.Close(fd)
	read := func(b []byte) (int, error) {
		return retryEINTR(func() (int, error) { return syscall.Read(fd, b) })
	}
	// One read usually holds the whole front matter: a match needs no
	// more system calls (not even the read that would see the end).
	fm := t.FrontMatter()
	n := 0
	for n < len(buf) {
		m, err := read(buf[n:])
		if err != nil {
			return nil, false, err
		}
		if m == 0 {
			break
		}
		n += m
		if pactfile.TaskMatches(buf[:n], fm) {
			return nil, true, nil
		}
	}
	whole := append(make([]byte, 0, n+512), buf[:n]...)
	for n == len(buf) {
		if len(whole) == cap(whole) {
			whole = append(whole, 0)[:len(whole)]
		}
		m, err := read(whole[len(whole):cap(whole)])
		if err != nil {
			return nil, false, err
		}
		if m == 0 {
			break
		}
		whole = whole[:len(whole)+m]
	}
	return whole, false, nil
}

func retryEINTR(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if !errors.Is(err, syscall.EINTR) {
			return n, err
		}
	}
}

// Lock takes an exclusive advisory lock on the .pact directory itself, so
// the read-check-append of concurrent writers on this machine is atomic
// without creating any lock file (a refused command must leave every file as
// it was). The returned function releases it.
func (d Dir) Lock() (unlock func(), err error) {
	f, err := os.Open(d.Path())
	if err != nil {
		return nil, fmt.Errorf("open %s to lock it: %w", d.Display(), err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", d.Display(), err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// Seams over the two system calls AppendLine's guarantees rest on, so
// tests can see that a line goes out in one write and is synced.
var (
	writeFile = (*os.File).Write
	syncFile  = (*os.File).Sync
)

// AppendLine appends one event line with a single write and fsyncs it, so a
// crash leaves either the whole line or none of it. When the file does not
// end in a newline (a hand edit), the newline goes into the same write.
func (d Dir) AppendLine(line []byte) error {
	path := d.Path(pactfile.LogFile)
	_, statErr := os.Stat(path)
	created := errors.Is(statErr, fs.ErrNotExist)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open the log for append: %w", err)
	}
	defer f.Close()
	buf := make([]byte, 0, len(line)+2)
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat the log: %w", err)
	}
	if st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err != nil {
			return fmt.Errorf("read the end of the log: %w", err)
		}
		if last[0] != '\n' {
			buf = append(buf, '\n')
		}
	}
	buf = append(append(buf, line...), '\n')
	if _, err := writeFile(f, buf); err != nil {
		return fmt.Errorf("append to the log: %w", err)
	}
	if err := syncFile(f); err != nil {
		return fmt.Errorf("sync the log: %w", err)
	}
	if created {
		syncDir(filepath.Dir(path))
	}
	return nil
}

// syncDir makes a new or renamed directory entry durable. It is best effort:
// some file systems cannot sync a directory, and the data itself is synced.
func syncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		_ = f.Sync()
		f.Close()
	}
}

// WriteFileAtomic replaces path with data through a temporary file and a
// rename, so readers never see half a file. It does nothing when the file
// already holds exactly data. A replaced file keeps its permission bits; a
// new one gets 0666 less the umask, as os.WriteFile would give it.
func WriteFileAtomic(path string, data []byte) error {
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomic is WriteFileAtomic for content that write produces, possibly
// in many pieces: it is written twice over, once to compare with the file
// (stopping at the first difference) and once, only if it differs, to the
// temporary file. Neither the old nor the new content is ever held whole.
func writeAtomic(path string, write func(io.Writer) error) error {
	if same, err := holds(path, write); err != nil || same {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := createTemp(dir, filepath.Base(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if st, err := os.Stat(path); err == nil {
		if err := tmp.Chmod(st.Mode().Perm()); err != nil {
			tmp.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	bw := bufio.NewWriterSize(tmp, 256<<10)
	if err := write(bw); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// errDiffers stops a comparison at the first difference.
var errDiffers = errors.New("differs")

// holds reports whether the regular file at path holds exactly what write
// writes. An absent or unreadable file does not.
func holds(path string, write func(io.Writer) error) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false, nil
	}
	c := &comparer{r: bufio.NewReaderSize(f, 256<<10)}
	switch err := write(c); {
	case errors.Is(err, errDiffers):
		return false, nil
	case err != nil:
		return false, err
	}
	_, err = c.r.ReadByte()
	return errors.Is(err, io.EOF), nil
}

// comparer is a writer that checks what is written against r.
type comparer struct {
	r   *bufio.Reader
	buf []byte
}

func (c *comparer) Write(p []byte) (int, error) {
	for done := 0; done < len(p); {
		n := min(len(p)-done, 64<<10)
		if cap(c.buf) < n {
			c.buf = make([]byte, n)
		}
		if _, err := io.ReadFull(c.r, c.buf[:n]); err != nil || !bytes.Equal(c.buf[:n], p[done:done+n]) {
			return done, errDiffers
		}
		done += n
	}
	return len(p), nil
}

// createTemp creates a new hidden file beside base in dir. Unlike
// os.CreateTemp it asks for mode 0666 so the umask decides, as for any file
// the user creates.
func createTemp(dir, base string) (*os.File, error) {
	for range 100 {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		name := filepath.Join(dir, "."+base+".tmp-"+hex.EncodeToString(b[:]))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("no free temporary file name in %s", dir)
}

// WriteState regenerates STATE.yml from a replayed state, streaming the
// render: it compares it with the file and writes it only when it differs.
func (d Dir) WriteState(st *projection.State) error {
	return writeAtomic(d.Path(pactfile.StateFile), func(w io.Writer) error { return projection.Render(w, st) })
}
