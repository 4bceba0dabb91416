// Package pactdir owns the files of a .pact/ directory on local disk: loading
// everything validate judges, the locked, durable append that every writing
// verb of pactify goes through, and what init and assign write besides the
// log (init.go: the directory, the managed blocks of PROJECT.md and of the
// seats' entry files, the .gitattributes line, task files). The bytes of
// each file are pactfile's.
//
// Every file is opened here, and through os.Root, on every platform: never
// outside the repository, never through a link inside the pact directory,
// only regular files, each read bounded (regular.go; ReadRegular is the
// action's reader of a checkout). Writers serialise on the operating
// system's lock of the log (lock.go), and files are replaced whole through
// a rename that is retried where Windows refuses it for a while (write.go).
package pactdir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// ErrNoPact means the directory holds no pact yet.
var ErrNoPact = errors.New("no pact here")

// ErrOutside is a pact directory that is not inside the repository.
var ErrOutside = errors.New("the pact directory must be inside the repository")

// Dir is a .pact directory. Root is the repository root (entry files are
// relative to it); Name is the directory relative to Root, e.g. ".pact",
// with either separator (pactfile.Layout). At makes one from what a user
// typed.
type Dir struct {
	Root string
	Name string
}

// At is the pact directory name in the repository at root: name may use
// either separator and may be absolute, but must lie inside root and not be
// root itself (ErrOutside). The command lines call it with --pact-dir,
// PACT_DIR or the action's pact-dir input.
func At(root, name string) (Dir, error) {
	if filepath.IsAbs(name) {
		rel, err := filepath.Rel(root, name)
		if err != nil {
			return Dir{}, fmt.Errorf("%w: %s cannot be reached from %s", ErrOutside, name, root)
		}
		name = rel
	}
	d := Dir{Root: root, Name: pactfile.Layout(name).Dir()}
	if !d.inside() {
		return Dir{}, fmt.Errorf("%w, and %s is not (it is relative to %s)", ErrOutside, name, root)
	}
	return d, nil
}

// layout names the directory's files as findings show them.
func (d Dir) layout() pactfile.Layout { return pactfile.Layout(d.Name) }

// inside reports whether the directory lies inside the repository.
func (d Dir) inside() bool {
	rel := d.layout().Dir()
	return rel != "." && filepath.IsLocal(filepath.FromSlash(rel)) && !path.IsAbs(rel)
}

// Path joins elements under the .pact directory, as an OS path.
func (d Dir) Path(elem ...string) string {
	return filepath.Join(append([]string{d.Root, filepath.FromSlash(d.layout().Dir())}, elem...)...)
}

// Display is a path under .pact as findings show it (slash-separated,
// relative to the repository root).
func (d Dir) Display(elem ...string) string {
	return path.Join(append([]string{d.layout().Dir()}, elem...)...)
}

// Exists reports whether the log exists (as anything: what is there is
// judged when it is opened).
func (d Dir) Exists() bool {
	_, err := os.Lstat(d.Path(pactfile.LogFile))
	return err == nil
}

// openRepo opens the repository root; every file pactify reads or writes
// is opened through it (os.Root), so none lies outside.
func (d Dir) openRepo() (*os.Root, error) {
	r, err := os.OpenRoot(d.Root)
	if err != nil {
		return nil, fmt.Errorf("open the repository %s: %w", d.Root, err)
	}
	return r, nil
}

// openPact opens the pact directory without following a link at any of
// its elements (openDir); with create, it and its tasks/ are made when
// absent. A missing directory is fs.ErrNotExist (wrapped).
func (d Dir) openPact(create bool) (*os.Root, error) {
	if !d.inside() {
		return nil, fmt.Errorf("%w, and %s is not", ErrOutside, d.Name)
	}
	repo, err := d.openRepo()
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	pact, err := openDir(repo, d.layout().Dir(), "", create)
	if err != nil || !create {
		return pact, err
	}
	tasks, err := openDir(pact, pactfile.TasksDir, d.Display(), true)
	if err != nil {
		pact.Close()
		return nil, err
	}
	tasks.Close()
	return pact, nil
}

// ReadFile reads the regular file name of the pact directory (StateFile,
// ProjectFile), at most MaxLogBytes; nil, nil when it is absent.
func (d Dir) ReadFile(name string) ([]byte, error) {
	pact, err := d.openPact(false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer pact.Close()
	return readFile(context.Background(), pact, name, d.Display(name), false, MaxLogBytes)
}

// OpenLog opens the log for reading (no link, a regular file, at most
// MaxLogBytes), with its size. A missing log is ErrNoPact.
func (d Dir) OpenLog() (io.ReadCloser, int64, error) {
	pact, err := d.openPact(false)
	if err == nil {
		defer pact.Close()
		var f *os.File
		var fi fs.FileInfo
		if f, fi, err = openRegular(pact, pactfile.LogFile, d.Display(pactfile.LogFile), false); err == nil {
			if fi.Size() > MaxLogBytes {
				_ = f.Close() // not read
				return nil, 0, tooLarge("read", d.Display(pactfile.LogFile), fi.Size(), MaxLogBytes)
			}
			// What the log held when it was opened: a writer appending
			// meanwhile adds whole lines after it.
			return struct {
				io.Reader
				io.Closer
			}{io.LimitReader(f, fi.Size()), f}, fi.Size(), nil
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, fmt.Errorf("%s does not exist: %w", d.Display(pactfile.LogFile), ErrNoPact)
	}
	return nil, 0, err
}

// LoadLog reads and replays the log, keeping its events
// (projection.ReadOptions.KeepEvents). A missing log is ErrNoPact.
func (d Dir) LoadLog() (*projection.Log, *projection.Result, error) {
	return loadLog(d, nil, projection.ReadOptions{KeepEvents: true})
}

// LoadReplay replays the log as it reads it, keeping no events. A missing
// log is ErrNoPact.
func (d Dir) LoadReplay(p *Progress) (*projection.Log, *projection.Result, error) {
	return loadLog(d, p, projection.ReadOptions{})
}

// LoadLogToAppend replays the log for a writer that will append one line
// with the given event_id (projection.ReadOptions.Reserve): no events are
// kept, so memory stays well below the log's size, yet Log.Propose judges
// that line exactly. A missing log is ErrNoPact.
func (d Dir) LoadLogToAppend(eventID string, p *Progress) (*projection.Log, *projection.Result, error) {
	return loadLog(d, p, projection.ReadOptions{Reserve: eventID})
}

// loadLog opens the log and reads it through projection.Read with opts,
// counting its bytes on p.
func loadLog(d Dir, p *Progress, opts projection.ReadOptions) (*projection.Log, *projection.Result, error) {
	f, size, err := d.OpenLog()
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if p != nil {
		p.Start("reading "+d.Display(pactfile.LogFile), size, "B")
		r = &countingReader{r: f, p: p, then: "replaying " + d.Display(pactfile.LogFile)}
	}
	log, res, err := projection.Read(r, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", d.Display(pactfile.LogFile), err)
	}
	return log, res, nil
}

// LoadOptions say what Load reads beyond what validate always judges.
type LoadOptions struct {
	// TaskFiles reads every task file the listing of tasks/ names, to
	// judge its front matter (taskfile.mismatch: `pactify validate
	// --task-files`). Without it, tasks/ is only listed, for
	// taskfile.missing (docs/semantics.md §7 "Task files").
	TaskFiles bool
}

// Load reads everything validate judges. The log is replayed as it is read,
// keeping no events; tasks/ is listed, not read.
func (d Dir) Load() (checks.Input, error) {
	return d.LoadWatched(nil, LoadOptions{})
}

// LoadWatched is Load with opts that reports how far it has come on p
// (which may be nil). With opts.TaskFiles, task files that begin with
// exactly the front matter pactify writes are only counted in
// in.TaskFilesMatched, so TaskFiles holds just the others. It reads under
// the pact's shared lock (Share), so that the log, STATE.yml and the task
// files are judged as one writer left them, never the log after an append
// with STATE.yml from before it.
func (d Dir) LoadWatched(p *Progress, opts LoadOptions) (checks.Input, error) {
	in := checks.Input{Dir: d.Display(), TaskFiles: map[string][]byte{}}
	unlock, err := d.Share()
	if err != nil {
		return in, err
	}
	defer unlock()
	replayed, res, err := loadLog(d, p, projection.ReadOptions{})
	if err != nil {
		return in, err
	}
	in.Scan, in.Replay = &replayed.Scan, res
	pact, err := d.openPact(false)
	if err != nil {
		return in, err
	}
	defer pact.Close()
	ctx := context.Background()
	if in.Project, err = readFile(ctx, pact, pactfile.ProjectFile, d.Display(pactfile.ProjectFile), false, MaxFileBytes); err != nil {
		return in, err
	}
	// The configuration lies outside the pact directory: read as the
	// action reads a checkout.
	if in.Config, err = ReadRegular(ctx, d.Root, pactfile.ConfigPath, MaxFileBytes); err != nil {
		return in, err
	}
	// STATE.yml is compared with a fresh render while tasks/ is listed
	// (and its files read): a file that matches is never held in memory.
	stateDone := make(chan error, 1)
	go func() {
		var err error
		in.StateMatched, in.State, err = d.driftFastPath(ctx, pact, in.Replay.State)
		stateDone <- err
	}()
	if in.Replay.Unsupported == nil {
		if in.TaskListing, err = d.listTasks(pact, in.Replay.State, p); err == nil && opts.TaskFiles {
			err = d.readTaskFiles(pact, &in, p)
		}
	}
	if stateErr := <-stateDone; err == nil {
		err = stateErr
	}
	p.Start("checking "+d.Display(), 0, "")
	return in, err
}

// driftFastPath is the fast path of checks.Drift, the drift check
// (docs/semantics.md, pact v1 §7.1 (a)): it compares STATE.yml, streaming,
// with what projection.Render writes for st. A file that holds exactly that
// cannot drift (matched; checks.Run then skips checks.Drift) and is never
// held in memory; any other is read whole (nil when absent) for
// checks.Drift to judge. TestFastPathsAgreeWithChecks holds it to
// checks.Drift on the same files.
func (d Dir) driftFastPath(ctx context.Context, pact *os.Root, st *projection.State) (matched bool, state []byte, err error) {
	display := d.Display(pactfile.StateFile)
	matched, err = holds(pact, pactfile.StateFile, display, func(w io.Writer) error { return projection.Render(w, st) })
	if err == nil && !matched {
		state, err = readFile(ctx, pact, pactfile.StateFile, display, false, MaxLogBytes)
	}
	return matched, state, err
}

// taskFilePrefix is how much of a task file is read first: enough for the
// front matter pactify writes for any usual task, which is all that is
// needed when the file matches it.
const taskFilePrefix = 512

// listTasks lists tasks/ once, names only (docs/semantics.md §7 "Task
// files"): the tasks of st that have an entry tasks/<id>.md, of whatever
// kind. Nothing is opened but the directory: a file per task was most of
// validate's system calls at a million events. No tasks/ lists nothing.
func (d Dir) listTasks(pact *os.Root, st *projection.State, p *Progress) (map[string]bool, error) {
	p.Start("listing "+d.Display(pactfile.TasksDir), 0, "")
	listed := map[string]bool{}
	dir, err := openDir(pact, pactfile.TasksDir, d.Display(), false)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return listed, nil
	case err != nil:
		return nil, err
	}
	defer dir.Close()
	f, err := dir.Open(".")
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", d.Display(pactfile.TasksDir), err)
	}
	defer f.Close()
	for {
		// In batches: the names of a large pact are let go as they come.
		names, err := f.Readdirnames(1024)
		for _, name := range names {
			id, ok := strings.CutSuffix(name, pactfile.TaskFileName(""))
			if t := st.Tasks[id]; ok && t != nil {
				listed[t.ID] = true // the state's string, not the listing's
			}
		}
		if errors.Is(err, io.EOF) {
			return listed, nil
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", d.Display(pactfile.TasksDir), err)
		}
	}
}

// readTaskFiles reads tasks/<id>.md for every task the listing names, on a
// few goroutines. A file that begins with exactly the front matter pactify
// writes for its task is let go at once (in.TaskFilesMatched); only the
// others are kept, whole, for checks.TaskFiles to parse and report.
//
// The files are opened relative to the directory, each a single path
// element, as pactify opens every file of the pact (a regular file, no
// link, at most MaxFileBytes): on a pact of 200,000 tasks, os.Open's path
// walk and the *os.File around each descriptor were most of the time spent
// here, so where the system allows, openTasks opens them with plain system
// calls (tasks_unix.go).
func (d Dir) readTaskFiles(pact *os.Root, in *checks.Input, p *Progress) error {
	var tasks []*projection.Task
	for _, t := range in.Replay.State.TaskList() {
		if in.TaskListing[t.ID] {
			tasks = append(tasks, t)
		}
	}
	p.Start("reading "+d.Display(pactfile.TasksDir), int64(len(tasks)), "files")
	dir, err := openDir(pact, pactfile.TasksDir, d.Display(), false)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // gone since it was listed
	case err != nil:
		return err
	}
	defer dir.Close()
	open, done, err := openTasks(dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", d.Display(pactfile.TasksDir), err)
	}
	defer done()
	tasksDisplay := d.Display(pactfile.TasksDir)
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
					name := pactfile.TaskFileName(t.ID)
					b, ok, err := taskFileFastPath(open, name, tasksDisplay, buf, t)
					if err != nil {
						errs[w] = err
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

// openFunc opens the file name of a directory for reading, as openRegular
// does without following links: a regular file (its size) or an error
// (fs.ErrNotExist wrapped when there is none). dir is how errors name the
// directory.
type openFunc func(name, dir string) (io.ReadCloser, int64, error)

// openPortable is the openFunc of every platform: os.Root.
func openPortable(root *os.Root) openFunc {
	return func(name, dir string) (io.ReadCloser, int64, error) {
		f, fi, err := openRegular(root, name, displayJoin(dir, name), false)
		if err != nil {
			return nil, 0, err
		}
		return f, fi.Size(), nil
	}
}

// taskFileFastPath is the fast path of checks.TaskFile, the task file
// check (docs/semantics.md, pact v1 §3.4): it reads the start of the task file name
// (of dir, as errors name it) into buf and says whether it begins with
// exactly the front matter pactify writes for t, which checks.TaskFile
// would accept (checks.Run then skips the file: in.TaskFilesMatched). When
// it does not, it returns the whole file, at most MaxFileBytes (nil: there
// is none), for checks.TaskFile to judge. TestFastPathsAgreeWithChecks
// holds it to checks.TaskFile on the same files.
func taskFileFastPath(open openFunc, name, dir string, buf []byte, t *projection.Task) ([]byte, bool, error) {
	display := func() string { return displayJoin(dir, name) } // for errors only
	if strings.ContainsAny(name, `/\\`) {
		// Replay never applies such an id (task.unsafe_id); never let one
		// name another directory.
		return nil, false, fmt.Errorf("read %s: a task id names no other directory", display())
	}
	f, size, err := open(name, dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	defer f.Close()
	if size > MaxFileBytes {
		return nil, false, tooLarge("read", display(), size, MaxFileBytes)
	}
	// One read usually holds the whole front matter: a match needs no
	// more system calls (not even the read that would see the end).
	fm := t.FrontMatter()
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, false, fmt.Errorf("read %s: %w", display(), err)
		}
		if m == 0 {
			break
		}
		n += m
		if pactfile.TaskMatches(buf[:n], fm) {
			return nil, true, nil
		}
	}
	whole := append(make([]byte, 0, max(int64(n), size)+1), buf[:n]...)
	if n == len(buf) {
		rest := bytes.NewBuffer(whole)
		if _, err := rest.ReadFrom(io.LimitReader(f, MaxFileBytes+1-int64(n))); err != nil {
			return nil, false, fmt.Errorf("read %s: %w", display(), err)
		}
		if whole = rest.Bytes(); int64(len(whole)) > MaxFileBytes {
			return nil, false, tooLarge("read", display(), int64(len(whole)), MaxFileBytes)
		}
	}
	return whole, false, nil
}

// Seams over the system calls AppendLine's guarantees rest on, so tests
// can see that a line goes out in one write and is synced, and make any of
// them fail.
var (
	writeFile    = (*os.File).Write
	syncFile     = (*os.File).Sync
	truncateFile = (*os.File).Truncate
)

// ErrUnterminated is a log whose last line has no line break: the remains
// of an append that was cut off (a full disk, a file-size limit, a crash
// between a write and its fsync on some file systems), or a hand edit.
// Appending after it would seal whatever it holds into a line of its own,
// for ever, in an append-only log; writers refuse instead.
var ErrUnterminated = errors.New("the last line of the log has no line break")

// UnterminatedError is ErrUnterminated for one log: where its last line
// starts and how long it is.
type UnterminatedError struct {
	Path       string // the log, as findings name it
	Line       int    // the unterminated line's number, 0 when unknown
	Size, Last int64  // the log's size and the unterminated line's length in bytes
}

func (e *UnterminatedError) Error() string {
	return fmt.Sprintf("the last %d byte(s) of %s have no line break, as a write cut off half-way leaves them; nothing was recorded", e.Last, e.Path)
}

func (e *UnterminatedError) Unwrap() error { return ErrUnterminated }

// CheckAppendable refuses, before anything is written, a log whose last
// line has no line break (ErrUnterminated). A missing log is appendable.
// Like AppendLine, it is meant for a writer holding the lock.
func (d Dir) CheckAppendable() error {
	pact, err := d.openPact(false)
	if err != nil {
		return err
	}
	defer pact.Close()
	f, fi, err := openRegular(pact, pactfile.LogFile, d.Display(pactfile.LogFile), false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	end, err := logEnd(f, fi.Size())
	if err != nil {
		return fmt.Errorf("read the end of %s: %w", d.Display(pactfile.LogFile), err)
	}
	return d.appendable(end, fi.Size())
}

// appendable is ErrUnterminated for a log of size bytes ending in end (as
// logEnd reads it), nil for a log a line can be appended to.
func (d Dir) appendable(end []byte, size int64) error {
	if !pactfile.Unterminated(end) {
		return nil
	}
	last := int64(len(end))
	if i := bytes.LastIndexByte(end, '\n'); i >= 0 {
		last = int64(len(end) - i - 1)
	}
	return &UnterminatedError{Path: d.Display(pactfile.LogFile), Size: size, Last: last}
}

// AppendLine appends one event line with a single write and fsyncs it, so
// that a crash leaves either the whole line or none of it; when the write
// or the fsync fails (a full disk, a file-size limit), the log is cut back
// to the size it had and synced again, so that a failed append leaves the
// log byte for byte as it was, and the error says nothing was recorded. The
// line ends as the log's last line does (pactfile.AppendLines: CRLF in a
// checkout that converted the log, else LF). A log whose last line has no
// line break is refused (ErrUnterminated), never sealed. The log is opened
// like every file of the pact: a regular file, never through a link. The
// caller holds the pact's lock (Lock): no other writer may append between
// the size this reads and the cut back.
func (d Dir) AppendLine(line []byte) error {
	pact, err := d.openPact(false)
	if err != nil {
		return err
	}
	defer pact.Close()
	display := d.Display(pactfile.LogFile)
	looked, statErr := pact.Lstat(pactfile.LogFile)
	created := errors.Is(statErr, fs.ErrNotExist)
	// The line was judged against the log this process locked; a log
	// another program put in its place since (or removed) is not that one.
	lockedLog, locked := held.Load(d.Path(pactfile.LogFile))
	isLocked := func(fi fs.FileInfo) bool {
		lk, err := lockedLog.(*os.File).Stat()
		return err == nil && fi != nil && os.SameFile(lk, fi)
	}
	if locked && !isLocked(looked) {
		return fmt.Errorf("append to %s: %w", display, errReplaced)
	}
	f, err := openNoLink(pact, pactfile.LogFile, display, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return noted(err, nothingRecorded)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w; %s", display, err, nothingRecorded)
	}
	if locked && !isLocked(st) {
		return fmt.Errorf("append to %s: %w", display, errReplaced)
	}
	size := st.Size()
	end, err := logEnd(f, size)
	if err != nil {
		return fmt.Errorf("read the end of %s: %w; %s", display, err, nothingRecorded)
	}
	if err := d.appendable(end, size); err != nil {
		return err
	}
	buf := pactfile.AppendLines(nil, end, line)
	n, err := writeFile(f, buf)
	if err == nil && n != len(buf) {
		err = io.ErrShortWrite
	}
	op := "append to"
	if err == nil {
		op = "sync"
		err = syncFile(f)
	}
	if err != nil {
		return d.undoAppend(f, size, osError(op, display, err))
	}
	if created {
		syncDir(pact)
	}
	return nil
}

// nothingRecorded is what a failed append that left the log as it was
// says it left.
const nothingRecorded = "nothing was recorded: the log is as it was"

// undoAppend cuts the log f back to size after a failed append (failed)
// and syncs it, so that no part of the line stays. When even that fails,
// the error says what the log may now end in, and how to set it right.
func (d Dir) undoAppend(f *os.File, size int64, failed error) error {
	err := truncateFile(f, size)
	if err == nil {
		err = syncFile(f)
	}
	if err != nil {
		return noted(failed, fmt.Sprintf("and cutting the log back to its %d bytes failed too (%v): part of the line may remain at its end, and every writer will refuse until it is gone; truncate %s to %d bytes", size, err, d.Display(pactfile.LogFile), size))
	}
	return noted(failed, nothingRecorded)
}

// logEnd reads as much of the end of the log of size bytes in f as
// pactfile.AppendLines needs to end a new line as the log's lines end: the
// last two bytes when the log ends in LF, else back to its last line
// break, which is at most a line's bound before the end.
func logEnd(f *os.File, size int64) ([]byte, error) {
	if size == 0 {
		return nil, nil
	}
	tail := make([]byte, min(size, 2))
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil {
		return nil, err
	}
	if tail[len(tail)-1] == '\n' {
		return tail, nil
	}
	tail = make([]byte, min(size, projection.MaxLineBytes+2))
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil {
		return nil, err
	}
	return tail, nil
}

// WriteState regenerates STATE.yml from a replayed state, streaming the
// render: it compares it with the file and writes it only when it differs.
func (d Dir) WriteState(st *projection.State) error {
	pact, err := d.openPact(false)
	if err != nil {
		return err
	}
	defer pact.Close()
	if err := replace(pact, pactfile.StateFile, d.Display(pactfile.StateFile), func(w io.Writer) error { return projection.Render(w, st) }); err != nil {
		return noted(err, d.Display(pactfile.StateFile)+" is as it was")
	}
	return nil
}

// CheckWritable refuses, before anything is written, a file of the pact
// directory that a verb is about to replace when it is not absent or a
// regular file (a link, a FIFO): a writer checks STATE.yml before it
// appends, so that a refusal leaves every file as it was.
func (d Dir) CheckWritable(name string) error {
	pact, err := d.openPact(false)
	if err != nil {
		return err
	}
	defer pact.Close()
	fi, err := pact.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return openError("write", d.Display(name), err)
	case !fi.Mode().IsRegular():
		return notRegular("write", d.Display(name), fi.Mode())
	}
	return nil
}
