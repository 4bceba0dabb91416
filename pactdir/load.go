package pactdir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// How pactify reads: every file through os.Root (openPact), a regular file
// never reached through a link, each read bounded (regular.go); the log
// through projection.Read as it streams by, and what validate judges under
// the pact's shared lock.

// ReadFile reads the regular file name of the pact directory (StateFile,
// ProjectFile), at most maxLogBytes; nil, nil when it is absent.
func (d Dir) ReadFile(name string) ([]byte, error) {
	pact, err := d.openPact(false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer pact.Close()
	return readFile(context.Background(), pact, name, d.Display(name), false, maxLogBytes)
}

// OpenLog opens the log for reading (no link, a regular file, at most
// maxLogBytes), with its size. A missing log is ErrNoPact.
func (d Dir) OpenLog() (io.ReadCloser, int64, error) {
	pact, err := d.openPact(false)
	if err == nil {
		defer pact.Close()
		var f *os.File
		var fi fs.FileInfo
		if f, fi, err = openRegular(pact, pactfile.LogFile, d.Display(pactfile.LogFile), false); err == nil {
			if fi.Size() > maxLogBytes {
				_ = f.Close() // not read
				return nil, 0, tooLarge("read", d.Display(pactfile.LogFile), fi.Size(), maxLogBytes)
			}
			// What the log held when it was opened: a writer appending
			// meanwhile adds whole lines after it, and one killed while
			// appending left nothing it recorded (torn.go).
			size := d.readableSize(pact, f, fi.Size())
			return struct {
				io.Reader
				io.Closer
			}{io.LimitReader(f, size), f}, size, nil
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, fmt.Errorf("%s does not exist: %w", d.Display(pactfile.LogFile), ErrNoPact)
	}
	return nil, 0, err
}

// LoadReplay replays the log as it reads it, keeping no events. A missing
// log is ErrNoPact.
func (d Dir) LoadReplay(p *Progress) (*projection.Log, *projection.Result, error) {
	log, res, _, err := loadLog(d, p, projection.ReadOptions{})
	return log, res, err
}

// loadLog opens the log and reads it through projection.Read with opts,
// counting its bytes on p; read is how many bytes of the log the replay
// describes.
func loadLog(d Dir, p *Progress, opts projection.ReadOptions) (log *projection.Log, res *projection.Result, read int64, err error) {
	f, size, err := d.OpenLog()
	if err != nil {
		return nil, nil, 0, err
	}
	defer f.Close()
	var r io.Reader = &byteCounter{r: f, n: &read}
	if p != nil {
		p.Start("reading "+d.Display(pactfile.LogFile), size, "B")
		r = &countingReader{r: r, p: p, then: "replaying " + d.Display(pactfile.LogFile)}
	}
	opts.Size = size
	if log, res, err = projection.Read(r, opts); err != nil {
		return nil, nil, 0, fmt.Errorf("read %s: %w", d.Display(pactfile.LogFile), err)
	}
	return log, res, read, nil
}

// byteCounter counts the bytes read through it.
type byteCounter struct {
	r io.Reader
	n *int64
}

func (c *byteCounter) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	*c.n += int64(n)
	return n, err
}

// LoadOptions say what Load reads beyond what validate always judges.
type LoadOptions struct {
	// TaskFiles reads every task file the listing of tasks/ names, to
	// judge its front matter (taskfile.mismatch: `pactify validate
	// --task-files`). Without it, tasks/ is only listed, for
	// taskfile.missing (docs/semantics.md §7 "Task files").
	TaskFiles bool
	// Prejudge, when set, says of STATE.yml and of each task file read
	// whether its rule would pass it as it is (checks.FastPaths): such a
	// file is only counted (Files.StateMatched, Files.TaskFilesMatched)
	// and never held. Without it, every file read is kept whole.
	Prejudge Prejudge
}

// Prejudge is what a loader asks before it keeps a file; the answers, and
// the rules they must equal, are checks' (checks.FastPaths).
type Prejudge interface {
	// State says whether STATE.yml, streamed from r, passes the drift
	// rule for st as it is.
	State(r io.Reader, st *projection.State) (bool, error)
	// TaskFile says whether a task file of t that begins with prefix
	// passes its rule whatever follows.
	TaskFile(prefix []byte, t *projection.Task) bool
}

// Files are what Load reads of a pact: the fields, in order, of
// checks.Input, which a loader's result converts to (checks.Input(files)),
// so the disk layer hands validate its data and knows none of its rules.
type Files struct {
	// Dir is the .pact directory as shown in findings, e.g. ".pact".
	Dir string
	// Scan is what the reading of the log kept besides its events; Replay
	// the replay of its events.
	Scan   *projection.Scan
	Replay *projection.Result
	// State is STATE.yml, Project PROJECT.md, TaskFiles tasks/<id>.md by
	// id: each nil when absent, or when Prejudge passed it.
	State     []byte
	Project   []byte
	TaskFiles map[string][]byte
	// StateMatched and TaskFilesMatched name the files Prejudge passed.
	StateMatched     bool
	TaskFilesMatched map[string]bool
	// TaskListing names the tasks that have an entry tasks/<id>.md in one
	// listing of the directory (names only).
	TaskListing map[string]bool
	// Config is the repository's .github/pact.yml (nil when absent).
	Config []byte
}

// Load reads everything validate judges. The log is replayed as it is read,
// keeping no events; tasks/ is listed, not read unless opts.TaskFiles.
func (d Dir) Load(opts LoadOptions) (Files, error) {
	return d.LoadWatched(nil, opts)
}

// LoadWatched is Load that reports how far it has come on p (which may be
// nil). It reads under the pact's shared lock (share), so that the log,
// STATE.yml and the task files are judged as one writer left them, never
// the log after an append with STATE.yml from before it.
func (d Dir) LoadWatched(p *Progress, opts LoadOptions) (Files, error) {
	in := Files{Dir: d.Display(), TaskFiles: map[string][]byte{}}
	unlock, err := d.share()
	if err != nil {
		return in, err
	}
	defer unlock()
	replayed, res, _, err := loadLog(d, p, projection.ReadOptions{})
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
	if in.Project, err = readFile(ctx, pact, pactfile.ProjectFile, d.Display(pactfile.ProjectFile), false, maxFileBytes); err != nil {
		return in, err
	}
	// The configuration lies outside the pact directory: read as the
	// action reads a checkout.
	if in.Config, err = ReadRegular(ctx, d.Root, pactfile.ConfigPath, maxFileBytes); err != nil {
		return in, err
	}
	// STATE.yml is prejudged while tasks/ is listed (and its files read):
	// a file that passes is never held in memory.
	stateDone := make(chan error, 1)
	go func() {
		var err error
		in.StateMatched, in.State, err = d.readState(ctx, pact, in.Replay.State, opts.Prejudge)
		stateDone <- err
	}()
	if in.Replay.Unsupported == nil {
		if in.TaskListing, err = d.listTasks(pact, in.Replay.State, p); err == nil && opts.TaskFiles {
			err = d.readTaskFiles(pact, &in, opts.Prejudge, p)
		}
	}
	if stateErr := <-stateDone; err == nil {
		err = stateErr
	}
	p.Start("checking "+d.Display(), 0, "")
	return in, err
}

// readState reads STATE.yml (nil when absent), at most maxLogBytes, unless
// pre passes it for st as it streams by (matched): then it is never held.
func (d Dir) readState(ctx context.Context, pact *os.Root, st *projection.State, pre Prejudge) (matched bool, state []byte, err error) {
	display := d.Display(pactfile.StateFile)
	if pre != nil {
		f, _, err := openRegular(pact, pactfile.StateFile, display, false)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return false, nil, nil
		case err != nil:
			return false, nil, err
		}
		matched, err = pre.State(ctxReader{ctx, f}, st)
		_ = f.Close() // read only
		if err != nil {
			return false, nil, fmt.Errorf("read %s: %w", display, err)
		}
		if matched {
			return true, nil, nil
		}
	}
	state, err = readFile(ctx, pact, pactfile.StateFile, display, false, maxLogBytes)
	return false, state, err
}

// taskFilePrefix is how much of a task file is read first: enough for the
// front matter pactify writes for any usual task, which is all that is
// needed when the file matches it.
const taskFilePrefix = 512

// listTasks lists tasks/ once, names only (docs/semantics.md §7 "Task
// files"): the tasks of st that have an entry tasks/<id>.md, of whatever
// kind. Nothing is opened but the directory: a file opened per task would
// be most of validate's system calls. No tasks/ lists nothing.
func (d Dir) listTasks(pact *os.Root, st *projection.State, p *Progress) (map[string]bool, error) {
	p.Start("listing "+d.Display(pactfile.TasksDir), 0, "")
	dir, err := openDir(pact, pactfile.TasksDir, d.Display(), false)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return map[string]bool{}, nil
	case err != nil:
		return nil, err
	}
	defer dir.Close()
	f, err := dir.Open(".")
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", d.Display(pactfile.TasksDir), err)
	}
	defer f.Close()
	// Sized once for every task: grown as it filled, the map would hold
	// up to half as much again while it moved.
	listed := make(map[string]bool, len(st.Tasks))
	suffix := []byte(pactfile.TaskFileName(""))
	err = eachName(f, func(name []byte) {
		id, ok := bytes.CutSuffix(name, suffix)
		if t := st.Tasks[string(id)]; ok && t != nil {
			listed[t.ID] = true // the state's string: name is the listing's buffer
		}
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", d.Display(pactfile.TasksDir), err)
	}
	return listed, nil
}

// readTaskFiles reads tasks/<id>.md for every task the listing names, on a
// few goroutines. A file whose start pre passes is let go at once
// (in.TaskFilesMatched); only the others are kept, whole, for validate to
// parse and report.
//
// The files are opened relative to the directory, each a single path
// element, as pactify opens every file of the pact (a regular file, no
// link, at most maxFileBytes): on a pact of 200,000 tasks, os.Open's path
// walk and the *os.File around each descriptor were most of the time spent
// here, so where the system allows, openTasks opens them with plain system
// calls (load_unix.go).
func (d Dir) readTaskFiles(pact *os.Root, in *Files, pre Prejudge, p *Progress) error {
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
					var passes func([]byte) bool
					if pre != nil {
						passes = func(prefix []byte) bool { return pre.TaskFile(prefix, t) }
					}
					b, ok, err := readTaskFile(open, name, tasksDisplay, buf, passes)
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

// readTaskFile reads the task file name (of dir, as errors name it): its
// start into buf, and no further once passes says that start suffices
// (passed: the file is not returned); else the whole file, at most
// maxFileBytes (nil: there is none). A nil passes reads every file whole.
func readTaskFile(open openFunc, name, dir string, buf []byte, passes func(prefix []byte) bool) ([]byte, bool, error) {
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
	if size > maxFileBytes {
		return nil, false, tooLarge("read", display(), size, maxFileBytes)
	}
	// One read usually holds the whole front matter: a file that passes
	// needs no more system calls (not even the read that would see the end).
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
		if passes != nil && passes(buf[:n]) {
			return nil, true, nil
		}
	}
	whole := append(make([]byte, 0, max(int64(n), size)+1), buf[:n]...)
	if n == len(buf) {
		rest := bytes.NewBuffer(whole)
		if _, err := rest.ReadFrom(io.LimitReader(f, maxFileBytes+1-int64(n))); err != nil {
			return nil, false, fmt.Errorf("read %s: %w", display(), err)
		}
		if whole = rest.Bytes(); int64(len(whole)) > maxFileBytes {
			return nil, false, tooLarge("read", display(), int64(len(whole)), maxFileBytes)
		}
	}
	return whole, false, nil
}

// ConflictMarker is the first line of the pact's file name (StateFile,
// LogFile) that is one of git's conflict markers
// (pactfile.FindConflictMarker), 0 when none is or the file is absent: a
// merge of the pact in progress, which every writer refuses
// (docs/semantics.md §8). Only the start of each line is looked at.
func (d Dir) ConflictMarker(name string) (int, error) {
	pact, err := d.openPact(false)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer pact.Close()
	display := d.Display(name)
	f, _, err := openRegular(pact, name, display, false)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, nil
	case err != nil:
		return 0, err
	}
	defer f.Close()
	line, err := pactfile.FindConflictMarker(f)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", display, err)
	}
	return line, nil
}
