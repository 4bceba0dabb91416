package pactdir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// Appending a line: one write, synced, after the log's last line break
// and in its line ending (pactfile.AppendLines), cut back on any failure,
// by a writer holding the pact's lock (lock.go).

// Seams over the system calls appendLine's guarantees rest on, so tests
// can see that a line goes out in one write and is synced, make any of
// them fail, and replace the log between appendLine's look at it and its
// open (which only the check of the open file against the locked one can
// tell).
var (
	openAppend   = openNoLink
	writeFile    = (*os.File).Write
	syncFile     = (*os.File).Sync
	truncateFile = (*os.File).Truncate
)

// errUnterminated is a log whose last line has no line break, which every
// writer refuses to append to (projection.ErrUnterminated).
var errUnterminated = projection.ErrUnterminated

// UnterminatedError is errUnterminated for one log: where its last line
// starts and how long it is.
type UnterminatedError struct {
	Path       string // the log, as findings name it
	Line       int    // the unterminated line's number, 0 when unknown
	Size, Last int64  // the log's size and the unterminated line's length in bytes
}

func (e *UnterminatedError) Error() string {
	return fmt.Sprintf("the last %d byte(s) of %s have no line break, as a write cut off half-way leaves them; nothing was recorded", e.Last, e.Path)
}

func (e *UnterminatedError) Unwrap() error { return errUnterminated }

// readLogEnd reads the end of the log as pactfile.AppendLines takes it (the
// last two bytes, or back to the last line break), for the writer's
// judgement (projection.Log.Append), and refuses, before anything is
// written, a log whose last line has no line break (errUnterminated, with
// where and how long that line is). A missing log ends in nothing. Like
// appendLine, it is meant for a writer holding the lock.
func (d Dir) readLogEnd() ([]byte, error) {
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

// appendable is errUnterminated for a log of size bytes ending in end (as
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

// appendLine appends one event line with a single write and fsyncs it, so
// that a crash leaves either the whole line or none of it; when the write
// or the fsync fails (a full disk, a file-size limit), the log is cut back
// to the size it had and synced again, so that a failed append leaves the
// log byte for byte as it was, and the error says nothing was recorded. The
// line ends as the log's last line does (pactfile.AppendLines: CRLF in a
// checkout that converted the log, else LF). A log whose last line has no
// line break is refused (errUnterminated), never sealed. The log is opened
// like every file of the pact: a regular file, never through a link. The
// caller holds the pact's lock (Lock): no other writer may append between
// the size this reads and the cut back.
func (d Dir) appendLine(line []byte) error {
	_, err := d.appendLineAs(line)
	return err
}

// appendLineAs is appendLine that also gives the log's stat right after
// the line was synced, which the writers' snapshot must still find when
// it is saved (saveSnapshot): a log changed in between is not the one the
// snapshot would describe.
func (d Dir) appendLineAs(line []byte) (after fs.FileInfo, err error) {
	pact, err := d.openPact(false)
	if err != nil {
		return nil, err
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
		return nil, fmt.Errorf("append to %s: %w", display, errReplaced)
	}
	f, err := openAppend(pact, pactfile.LogFile, display, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, noted(err, nothingRecorded)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w; %s", display, err, nothingRecorded)
	}
	if locked && !isLocked(st) {
		return nil, fmt.Errorf("append to %s: %w", display, errReplaced)
	}
	size := st.Size()
	end, err := logEnd(f, size)
	if err != nil {
		return nil, fmt.Errorf("read the end of %s: %w; %s", display, err, nothingRecorded)
	}
	if err := d.appendable(end, size); err != nil {
		return nil, err
	}
	buf := pactfile.AppendLines(nil, end, line)
	// The record of the append (torn.go), ended once the line is synced
	// or cut back. Where its place in the git directory cannot be made
	// (something else named pactify there: the writers' snapshot has none
	// either), the append goes unrecorded, and a writer killed in it
	// leaves a line every writer refuses (UnterminatedError), as it would
	// without records.
	endRecord := func() {}
	if rec, recName, recDisplay, done, err := d.intentDir(pact, true); err == nil {
		defer done()
		if err := beginAppend(rec, recName, recDisplay, display, size, buf); err != nil {
			return nil, noted(err, nothingRecorded)
		}
		endRecord = func() { endAppend(rec, recName) }
	}
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
		cut, err := d.undoAppend(pact, f, size, op == "sync", osError(op, display, err))
		if cut {
			endRecord()
		} // else the record stays: readers read the log as it was (torn.go)
		return nil, err
	}
	endRecord()
	if created {
		syncDir(pact)
	}
	// The stat a snapshot's identity is compared with is taken as that
	// identity is (logIdentity: a handle of its own), once f is closed:
	// a file system may set the time of a file written through a handle
	// as that handle closes (NTFS does).
	_ = f.Close() // synced; the deferred Close then does nothing
	if g, fi, err := openRegular(pact, pactfile.LogFile, display, false); err == nil {
		after = fi
		_ = g.Close() // only stat'ed
	}
	return after, nil // after nil: the line is recorded; only the snapshot goes without
}

// nothingRecorded is what a failed append that left the log as it was
// says it left.
const nothingRecorded = "nothing was recorded: the log is as it was"

// undoAppend cuts the log f back to size after a failed append (failed)
// and syncs it, so that no part of the line stays, and says whether the
// cut was made (every reader then sees the log as it was, synced or not).
// When it was not, the error says what the log now ends in (the whole
// line when its write was whole and only the sync failed) and how to set
// it right.
func (d Dir) undoAppend(pact *os.Root, f *os.File, size int64, whole bool, failed error) (cut bool, err error) {
	log := d.Display(pactfile.LogFile)
	if err := cutBack(pact, f, size); err != nil {
		if errors.Is(err, errMovedAway) {
			return false, noted(failed, fmt.Sprintf("and another program replaced or removed %s meanwhile (a git checkout, pull or an editor saving it), so the line went to the file it replaced and pactify leaves the log there now as it is: see with `pactify log` whether it holds the event, and run the command again if not", log))
		}
		if whole {
			return false, noted(failed, fmt.Sprintf("and cutting the log back to its %d bytes failed too (%v): the line stays in the log, whole, and STATE.yml was not rewritten: run `pactify log --replay` to keep the event, or truncate %s to %d bytes to take it out", size, err, log, size))
		}
		return false, noted(failed, fmt.Sprintf("and cutting the log back to its %d bytes failed too (%v): part of the line may remain at its end, which the next pactify command cuts back if it can; else every writer refuses until it is gone: truncate %s to %d bytes", size, err, log, size))
	}
	if err := syncFile(f); err != nil {
		return true, noted(failed, fmt.Sprintf("%s, though its cut back could not be synced (%v): a crash before the system writes it could bring part of the line back", nothingRecorded, err))
	}
	return true, noted(failed, nothingRecorded)
}

// cutBack truncates the log f, opened to append, to size. Windows gives
// a handle opened to append no right to cut its file (Go opens O_APPEND
// without FILE_WRITE_DATA), so where f cannot, a handle of its own opened
// to write, on the same file, does. When the file at the log's name is
// not f (another program replaced or removed the log since the append
// began), nothing is cut and the error is errMovedAway: the log there now
// is not the one size describes.
func cutBack(pact *os.Root, f *os.File, size int64) error {
	err := truncateFile(f, size)
	if err == nil {
		return nil
	}
	g, gerr := openNoLink(pact, pactfile.LogFile, pactfile.LogFile, os.O_RDWR, 0)
	if errors.Is(gerr, fs.ErrNotExist) {
		return fmt.Errorf("%w: %w", errMovedAway, err)
	}
	if gerr != nil {
		return err
	}
	defer g.Close()
	fi, ferr := f.Stat()
	gi, gerr := g.Stat()
	if ferr != nil || gerr != nil {
		return err
	}
	if !os.SameFile(fi, gi) {
		return fmt.Errorf("%w: %w", errMovedAway, err)
	}
	if err := truncateFile(g, size); err != nil {
		return err
	}
	// The cut is synced through f, as the append was.
	return nil
}

// errMovedAway is a cut back that found another file at the log's name
// than the one appended to, or none.
var errMovedAway = errors.New("the log was replaced or removed since the append began")

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
