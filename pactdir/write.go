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
	"strings"
	"time"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// How pactify writes: a file is opened for writing only when it is absent
// or a regular file, never through a link; a file is replaced whole through
// a temporary file and a rename (retried for a while where the platform
// refuses to replace a file another program has open), so that a reader
// sees the old file or the new one, never half of one.

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

// replace makes name of dir (one path element; display names it) hold
// exactly what write writes (prepare, then commit). It does nothing when
// the file already does.
func replace(dir *os.Root, name, display string, write func(io.Writer) error) error {
	p, err := prepare(dir, name, display, write)
	if err != nil {
		return err
	}
	return p.commit()
}

// pending is a replacement prepared but not made: the new content is
// written and synced in a temporary file beside the file it replaces, so
// that making it (commit: a rename) needs no space and cannot be cut off
// half-way, and giving it up (abort) leaves the file as it was.
type pending struct {
	dir           *os.Root // holds the file, name
	name, display string
	// tmpDir holds the temporary file tmp ("" when the file already holds
	// the content) and the file too, as target.
	tmpDir      *os.Root
	tmp, target string
}

// prepare writes what write writes into a temporary file beside name of
// dir, unless the file already holds exactly that: write runs once,
// compared with the file as it streams; at the first difference the
// temporary file is made, the equal part copied into it from the file,
// and the rest written there, then synced. Neither the old nor the new
// content is ever held whole, and a large file (STATE.yml at a million
// events: 42 MB) is rendered once whether it changed or not. A replaced
// file keeps its permission bits; a new one gets 0666 less the umask, as
// os.WriteFile would give it. A link, directory, device or FIFO at name is
// refused; nothing is written through one. On an error nothing is left
// behind.
func prepare(dir *os.Root, name, display string, write func(io.Writer) error) (*pending, error) {
	return prepareIn(dir, name, dir, name, display, write)
}

// prepareIn is prepare with the temporary file made in tmpDir, where the
// file is target: a task file's temporary goes in the pact directory, where
// the next writer finds it if this one is killed (removeTemporaries), not
// among the task files, which may be many.
func prepareIn(dir *os.Root, name string, tmpDir *os.Root, target, display string, write func(io.Writer) error) (*pending, error) {
	looked, err := dir.Lstat(name)
	exists := err == nil
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, openError("write", display, err)
	case !looked.Mode().IsRegular():
		return nil, notRegular("write", display, looked.Mode())
	}
	p := &pending{dir: dir, name: name, display: display, tmpDir: tmpDir, target: target}
	dv := &diverter{display: display}
	if exists {
		f, _, err := openRegular(dir, name, display, false)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			exists = false // gone since: written anew
		case err != nil:
			return nil, err
		default:
			defer f.Close()
			dv.oldFile, dv.old = f, bufio.NewReaderSize(f, 256<<10)
		}
	}
	var tmp *os.File
	var tmpName string
	var bw *bufio.Writer
	dv.start = func() (io.Writer, error) {
		if err := replaceable(dir, name, display, exists, tmpDir != dir); err != nil {
			return nil, err
		}
		var err error
		if tmp, tmpName, err = createTemp(tmpDir, name); err != nil {
			return nil, osError("write", display, err)
		}
		if exists {
			if err := tmp.Chmod(looked.Mode().Perm()); err != nil {
				return nil, osError("write", display, err)
			}
		}
		bw = bufio.NewWriterSize(tmp, 256<<10)
		return bw, nil
	}
	fail := func(verb string, err error) (*pending, error) {
		if tmp != nil {
			_ = tmp.Close()            // err is the one to report
			_ = tmpDir.Remove(tmpName) // a failed write leaves nothing behind
		}
		if dv.err != nil {
			return nil, dv.err // said already
		}
		return nil, osError(verb, display, err)
	}
	if dv.old == nil {
		if _, err := dv.diverge(); err != nil {
			return fail("write", err)
		}
	}
	if err := write(dv); err != nil {
		return fail("write", err)
	}
	if same, err := dv.finish(); err != nil {
		return fail("write", err)
	} else if same {
		return p, nil
	}
	if err := bw.Flush(); err != nil {
		return fail("write", err)
	}
	if err := tmp.Sync(); err != nil {
		return fail("sync", err)
	}
	err = tmp.Close()
	tmp = nil
	if err != nil {
		_ = tmpDir.Remove(tmpName)
		return nil, osError("write", display, err)
	}
	p.tmp = tmpName
	return p, nil
}

// diverter is the writer of prepare: it compares what is written with the
// old file (old, reading oldFile) while they are equal, and from the first
// difference writes into the writer start makes, after the equal part
// copied from the old file.
type diverter struct {
	oldFile *os.File
	old     *bufio.Reader
	same    int64     // bytes written that equal the old file's first ones
	out     io.Writer // nil while equal
	start   func() (io.Writer, error)
	err     error // of start or of reading the old file, reported as it is
	buf     []byte
	display string
}

func (d *diverter) Write(p []byte) (int, error) {
	if d.out != nil {
		return d.out.Write(p)
	}
	done, equal, err := pactfile.EqualNext(d.old, p, &d.buf)
	d.same += int64(done)
	if err != nil {
		d.err = fmt.Errorf("read %s: %w", d.display, err)
		return done, d.err
	}
	if !equal {
		out, err := d.diverge()
		if err != nil {
			return done, err
		}
		if _, err := out.Write(p[done:]); err != nil {
			return done, err
		}
	}
	return len(p), nil
}

// diverge starts the new file with the equal part of the old one. The
// part is copied from the old file as a limited reader of the file itself,
// which the new file's ReadFrom copies within the system where it can
// (copy_file_range on Linux): an assign's new STATE.yml at a million events
// is its old 42 MB and one task more, which were read and written 32 KiB at
// a time. The old file's reader is done with once the files differ.
func (d *diverter) diverge() (io.Writer, error) {
	out, err := d.start()
	if err != nil {
		d.err = err
		return nil, err
	}
	if d.same > 0 {
		_, err := d.oldFile.Seek(0, io.SeekStart)
		if err == nil {
			var n int64
			n, err = io.Copy(out, io.LimitReader(d.oldFile, d.same))
			if err == nil && n < d.same {
				// Cut short since it was compared: what was compared is
				// no longer there to copy.
				err = io.ErrUnexpectedEOF
			}
		}
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Op == "write" {
			// The new file refused it (a full disk, a file-size limit),
			// as any write of it may: said as a write, with its hint.
			return nil, err
		}
		if err != nil {
			d.err = fmt.Errorf("read %s: %w", d.display, err)
			return nil, d.err
		}
	}
	d.out = out
	return out, nil
}

// finish reports whether the old file held exactly what was written;
// when it holds more, the new file is started.
func (d *diverter) finish() (same bool, err error) {
	if d.out != nil {
		return false, nil
	}
	switch _, err := d.old.ReadByte(); {
	case errors.Is(err, io.EOF):
		return true, nil
	case err != nil:
		d.err = fmt.Errorf("read %s: %w", d.display, err)
		return false, d.err
	}
	_, err = d.diverge()
	return false, err
}

// replaceable refuses, before anything is written, a replacement whose
// rename the system would refuse after the verb's line is appended: a file
// marked immutable or append-only, or on a read-only file system, and,
// when the temporary file is made elsewhere (inDir), a directory no file
// can be created in (read-only, immutable, or without write permission).
// Permission bits on the file itself are not asked about: they do not keep
// a rename from replacing it.
func replaceable(dir *os.Root, name, display string, exists, inDir bool) error {
	if exists {
		f, err := dir.OpenFile(name, os.O_WRONLY|openNonBlocking, 0)
		if err == nil {
			_ = f.Close() // opened to be asked, not written
		} else if c := conditionOf(err); c == NotPermitted || c == ReadOnly {
			return osError("replace", display, err)
		}
	}
	if !inDir {
		return nil // the temporary file is made in dir itself
	}
	probe, err := dir.OpenFile(probeName, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|openNonBlocking, 0o666)
	if err != nil {
		return osError("replace", display, err)
	}
	_ = probe.Close()
	_ = dir.Remove(probeName) // a kill leaves it to the next writer (removeTemporaries)
	return nil
}

// probeName is the empty file replaceable creates and removes in a
// directory a temporary file is renamed into (tasks/). Only a writer
// holding the lock makes it, so one fixed name serves, and the next writer
// removes one a killed writer left without listing tasks/, which may hold
// many files.
const probeName = ".pactify-probe" + tempMark + "0000000000000000"

// commit renames the prepared file over the file it replaces (retried for a
// while where the platform refuses to replace a file another program has
// open); after a failure the file is as it was and the temporary file is
// gone.
func (p *pending) commit() error {
	if p == nil || p.tmp == "" {
		return nil
	}
	tmp := p.tmp
	p.tmp = ""
	defer func() { _ = p.tmpDir.Remove(tmp) }() // after the rename there is nothing left to remove
	restore := makeReplaceable(p.dir, p.name)
	if err := replaceRetry.do(func() error { return renameFile(p.tmpDir, tmp, p.target) }); err != nil {
		restore()
		if fi, lerr := p.dir.Lstat(p.name); lerr == nil && !fi.Mode().IsRegular() {
			// Another program put a directory (or the like) there since
			// prepare looked: say what is there, not the rename's errno.
			return notRegular("replace", p.display, fi.Mode())
		}
		if replaceRetry.retryable(err) {
			return fmt.Errorf("replace %s: %w (another program holds it open: close it and run the command again)", p.display, err)
		}
		return osError("replace", p.display, err)
	}
	syncDir(p.dir)
	return nil
}

// abort gives up a prepared replacement: the temporary file goes, the
// file is untouched.
func (p *pending) abort() {
	if p != nil && p.tmp != "" {
		_ = p.tmpDir.Remove(p.tmp)
		p.tmp = ""
	}
}

// tempMark is what every temporary file name holds: "." + the name of the
// file it will replace + tempMark + 16 hex digits (createTemp).
const tempMark = ".tmp-"

// isTempName reports whether name is one createTemp makes in the pact
// directory: for STATE.yml, PROJECT.md, .gitignore, the log (which only
// `pactify resolve` replaces) or a task file, with
// exactly 16 lowercase hex digits. A file of the user's that merely looks
// like one (.STATE.yml.tmp-old, .notes.txt.tmp-…) is not.
func isTempName(name string) bool {
	i := strings.LastIndex(name, tempMark)
	if len(name) < 2 || name[0] != '.' || i < 2 {
		return false
	}
	switch base := name[1:i]; {
	case base == pactfile.StateFile, base == pactfile.ProjectFile, base == pactfile.GitIgnoreFile, base == pactfile.LogFile:
	case strings.HasSuffix(base, pactfile.TaskFileName("")) && len(base) > len(pactfile.TaskFileName("")):
	default:
		return false
	}
	return isTempSuffix(name[i+len(tempMark):])
}

// isTempSuffix reports whether s is what createTemp puts after tempMark.
func isTempSuffix(s string) bool {
	if len(s) != 16 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// removeTemporaries removes the temporary files createTemp made in dir
// that a writer killed before its rename (or its clean-up) left behind.
// Only a writer holding the pact's lock calls it, and every writer makes
// its temporaries under that lock, so none of them is in use. It is best
// effort: a temporary that cannot be removed does no harm but its size.
func removeTemporaries(dir *os.Root) {
	probe := pactfile.TasksDir + "/" + probeName
	if fi, err := dir.Lstat(probe); err == nil && fi.Mode().IsRegular() {
		_ = dir.Remove(probe)
	}
	f, err := dir.Open(".")
	if err != nil {
		return
	}
	defer f.Close()
	for {
		names, err := f.Readdirnames(1024)
		for _, name := range names {
			if !isTempName(name) {
				continue
			}
			if fi, err := dir.Lstat(name); err == nil && fi.Mode().IsRegular() {
				_ = dir.Remove(name)
			}
		}
		if err != nil {
			return
		}
	}
}

// removeTemporariesOf removes the temporary files createTemp made for the
// file name of dir (outside the pact directory: an entry file,
// .gitattributes) that an init killed before its rename left behind: only
// regular files named exactly "." + name + tempMark + 16 hex digits. Like
// removeTemporaries, only a writer holding the pact's lock calls it, and
// it is best effort.
func removeTemporariesOf(dir *os.Root, name string) {
	f, err := dir.Open(".")
	if err != nil {
		return
	}
	defer f.Close()
	prefix := "." + name + tempMark
	for {
		names, err := f.Readdirnames(1024)
		for _, n := range names {
			rest, ok := strings.CutPrefix(n, prefix)
			if !ok || !isTempSuffix(rest) {
				continue
			}
			if fi, err := dir.Lstat(n); err == nil && fi.Mode().IsRegular() {
				_ = dir.Remove(n)
			}
		}
		if err != nil {
			return
		}
	}
}

// createTemp creates a new hidden file beside base in dir. Unlike
// os.CreateTemp it asks for mode 0666 so the umask decides, as for any file
// the user creates.
func createTemp(dir *os.Root, base string) (*os.File, string, error) {
	for range 100 {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, "", err
		}
		name := "." + base + tempMark + hex.EncodeToString(b[:])
		f, err := dir.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", errors.New("no free temporary file name")
}

// syncDir makes a new or renamed directory entry durable. It is best effort:
// some file systems (and Windows) cannot sync a directory, and the data
// itself is synced.
func syncDir(dir *os.Root) {
	if f, err := dir.Open("."); err == nil {
		_ = f.Sync()
		_ = f.Close()
	}
}

// retry is how a replacement keeps trying a rename the platform refuses for
// a while (renameRetryable): a bounded number of times, waiting longer each
// time. The policy is the same everywhere; only what is worth retrying is
// the platform's.
type retry struct {
	delays    []time.Duration
	retryable func(error) bool
	sleep     func(time.Duration)
}

// replaceRetry waits 10 ms, then twice as long each time up to 640 ms:
// about 3 s in all before it gives up.
var replaceRetry = retry{
	delays: []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond,
		160 * time.Millisecond, 320 * time.Millisecond, 640 * time.Millisecond, 640 * time.Millisecond, 640 * time.Millisecond, 640 * time.Millisecond},
	retryable: renameRetryable,
	sleep:     time.Sleep,
}

// do runs op until it succeeds, fails with an error not worth retrying, or
// the delays are spent; it returns op's last error.
func (r retry) do(op func() error) error {
	err := op()
	for _, d := range r.delays {
		if err == nil || !r.retryable(err) {
			break
		}
		r.sleep(d)
		err = op()
	}
	return err
}

// renameFile is the rename replace retries; tests refuse it for a while.
var renameFile = (*os.Root).Rename

// Seams over the system calls AppendLine's guarantees rest on, so tests
// can see that a line goes out in one write and is synced, make any of
// them fail, and replace the log between AppendLine's look at it and its
// open (which only the check of the open file against the locked one can
// tell).
var (
	openAppend   = openNoLink
	writeFile    = (*os.File).Write
	syncFile     = (*os.File).Sync
	truncateFile = (*os.File).Truncate
)

// ErrUnterminated is a log whose last line has no line break, which every
// writer refuses to append to (projection.ErrUnterminated).
var ErrUnterminated = projection.ErrUnterminated

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

// LogEnd reads the end of the log as pactfile.AppendLines takes it (the
// last two bytes, or back to the last line break), for the writer's
// judgement (projection.Log.Append), and refuses, before anything is
// written, a log whose last line has no line break (ErrUnterminated, with
// where and how long that line is). A missing log ends in nothing. Like
// AppendLine, it is meant for a writer holding the lock.
func (d Dir) LogEnd() ([]byte, error) {
	pact, err := d.openPact(false)
	if err != nil {
		return nil, err
	}
	defer pact.Close()
	f, fi, err := openRegular(pact, pactfile.LogFile, d.Display(pactfile.LogFile), false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	end, err := logEnd(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("read the end of %s: %w", d.Display(pactfile.LogFile), err)
	}
	return end, d.appendable(end, fi.Size())
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
	f, err := openAppend(pact, pactfile.LogFile, display, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
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

// Record writes one event a verb has judged, as one change as far as any
// failure can tell: the new STATE.yml (rendered from st, the state with the
// line applied) and, for task, its task file (WriteTaskFile) are first
// written beside the files they replace and synced, then the line is
// appended (AppendLine), and only then are they renamed into place. When
// anything fails before the line is in the log, every file is as it was
// (appended is false; the error says nothing was recorded). When a rename
// fails after it (the platform refused to replace a file), the line stays
// recorded and the error names the file left as it was. The caller holds
// the lock.
func (d Dir) Record(line []byte, st *projection.State, task *projection.Task) (appended bool, err error) {
	pact, err := d.openPact(task != nil)
	if err != nil {
		return false, err
	}
	defer pact.Close()
	state, err := prepare(pact, pactfile.StateFile, d.Display(pactfile.StateFile), func(w io.Writer) error { return projection.Render(w, st) })
	if err != nil {
		return false, noted(err, nothingRecorded)
	}
	defer state.abort() // after its commit, nothing
	var taskFile preparedTask
	if task != nil {
		if taskFile, err = d.prepareTaskFile(pact, task); err != nil {
			return false, noted(err, nothingRecorded)
		}
		defer taskFile.close()
		defer taskFile.abort()
	}
	if err := d.AppendLine(line); err != nil {
		return false, err
	}
	if err := state.commit(); err != nil {
		return true, fmt.Errorf("%w: %w", ErrStateStale, err)
	}
	if task != nil {
		if err := taskFile.commit(); err != nil {
			return true, fmt.Errorf("%w (validate warns of it; the log holds what the task file would say)", err)
		}
	}
	return true, nil
}

// ErrStateStale is a STATE.yml left as it was after the log changed:
// `pactify log --replay` writes it again.
var ErrStateStale = errors.New("STATE.yml is stale")

// ReplaceLog makes the log hold exactly what log writes and STATE.yml the
// render of st, the state that log replays to: what `pactify resolve` writes when it
// finishes a merge of the pact (docs/semantics.md §8). Both are written
// beside the files they replace and synced first, then renamed into place,
// the log first, so that a failure before the renames leaves both as they
// were and one after the log's leaves STATE.yml stale (ErrStateStale),
// never the log half written. The caller holds the lock (Lock): a writer
// waiting for it takes it again on the new log (lockLog).
func (d Dir) ReplaceLog(log func(io.Writer) error, st *projection.State) error {
	pact, err := d.openPact(false)
	if err != nil {
		return err
	}
	defer pact.Close()
	newLog, err := prepare(pact, pactfile.LogFile, d.Display(pactfile.LogFile), log)
	if err != nil {
		return noted(err, "the log and "+d.Display(pactfile.StateFile)+" are as they were")
	}
	defer newLog.abort() // after its commit, nothing
	state, err := prepare(pact, pactfile.StateFile, d.Display(pactfile.StateFile), func(w io.Writer) error { return projection.Render(w, st) })
	if err != nil {
		return noted(err, "the log and "+d.Display(pactfile.StateFile)+" are as they were")
	}
	defer state.abort()
	if err := newLog.commit(); err != nil {
		return noted(err, "the log and "+d.Display(pactfile.StateFile)+" are as they were")
	}
	if err := state.commit(); err != nil {
		return fmt.Errorf("%w: %w", ErrStateStale, err)
	}
	return nil
}
