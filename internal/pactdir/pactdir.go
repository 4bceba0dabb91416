// Package pactdir owns the files of a .pact/ directory on local disk: loading
// everything validate judges, and the locked, durable append that every
// writing verb of pactify goes through.
package pactdir

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/projection"
)

// File names inside .pact/.
const (
	LogFile     = "log.jsonl"
	StateFile   = "STATE.yml"
	ProjectFile = "PROJECT.md"
	TasksDir    = "tasks"
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
	_, err := os.Stat(d.Path(LogFile))
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

// LoadLog parses and replays the log. A missing log is ErrNoPact.
func (d Dir) LoadLog() (*projection.Log, *projection.Result, error) {
	return d.loadLog(func(r io.Reader) (*projection.Log, *projection.Result, error) {
		log, err := projection.Parse(r)
		if err != nil {
			return nil, nil, err
		}
		return log, projection.Replay(log), nil
	})
}

// loadLog opens the log and hands it to parse (Parse and Replay, or the lean
// ParseReplay, whose Log keeps no Events).
func (d Dir) loadLog(parse func(io.Reader) (*projection.Log, *projection.Result, error)) (*projection.Log, *projection.Result, error) {
	f, err := os.Open(d.Path(LogFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%s does not exist: %w", d.Display(LogFile), ErrNoPact)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open the log: %w", err)
	}
	defer f.Close()
	log, res, err := parse(f)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", d.Display(LogFile), err)
	}
	return log, res, nil
}

// Load reads everything validate judges. The log is replayed as it is read
// (projection.ParseReplay), so in.Log.Events is nil.
func (d Dir) Load() (checks.Input, error) {
	in := checks.Input{Dir: d.Display(), TaskFiles: map[string][]byte{}}
	var err error
	if in.Log, in.Replay, err = d.loadLog(projection.ParseReplay); err != nil {
		return in, err
	}
	if in.State, err = ReadOptional(d.Path(StateFile)); err != nil {
		return in, err
	}
	if in.Project, err = ReadOptional(d.Path(ProjectFile)); err != nil {
		return in, err
	}
	if in.Config, err = ReadOptional(filepath.Join(d.Root, ".github", "pact.yml")); err != nil {
		return in, err
	}
	// One directory listing instead of a failed open per missing file:
	// on a large pact most of the cost of this loop was those opens.
	present, err := d.taskFiles()
	if err != nil {
		return in, err
	}
	for _, id := range in.Replay.State.TaskOrder {
		if !present[id+".md"] {
			continue
		}
		b, err := ReadOptional(d.Path(TasksDir, id+".md"))
		if err != nil {
			return in, err
		}
		if b != nil {
			in.TaskFiles[id] = b
		}
	}
	return in, nil
}

// taskFiles lists the names in tasks/ (none when it does not exist).
func (d Dir) taskFiles() (map[string]bool, error) {
	entries, err := os.ReadDir(d.Path(TasksDir))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", d.Display(TasksDir), err)
	}
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
	}
	return names, nil
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
	path := d.Path(LogFile)
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
	old, err := os.ReadFile(path)
	if err == nil && bytes.Equal(old, data) {
		return nil
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
	if _, err := tmp.Write(data); err != nil {
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

// WriteState regenerates STATE.yml from a replayed state.
func (d Dir) WriteState(st *projection.State) error {
	return WriteFileAtomic(d.Path(StateFile), projection.RenderBytes(st))
}
