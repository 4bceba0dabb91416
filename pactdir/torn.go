package pactdir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// A torn append. appendLine writes its line with one write, but a process
// killed during that write (SIGKILL, a lost runner) can leave part of it:
// Linux stops a write to a regular file at a page boundary when a fatal
// signal arrives, and no system promises more. So before the write, the
// writer records what it is about to append (the intent: the log's size
// and the bytes), and removes the record once the append is synced. A log
// that ends in a strict prefix of those bytes after exactly that size was
// cut off by a killed writer, which never said the line was recorded:
// readers read the log up to that size (readableSize, through OpenLog),
// and the next writer, under the lock, cuts it back (recoverAppend). A log
// that ends in anything else is left as it is, and refused by every writer
// (UnterminatedError): only bytes pactify itself was writing are ever cut.
//
// The record says which bytes of the log may go unread and be cut, so it
// lives where no commit can put one (intentDir): a .gitignore line keeps
// no file out of .pact/ (git add -f), and a record pulled with a log whose
// last event has no line break would hide that event from every command
// and have the next writer cut it, while the check, reading git objects,
// counts it.

// intentName is the record of a pact in no git repository, in the pact
// directory, named so the pact's .gitignore line
// (pactfile.WithGitIgnoreLine: ".*.tmp-*") keeps it out of commits, and
// unlike createTemp's names, so removeTemporaries leaves it for
// recoverAppend. A pact in a repository never reads a file of that name.
const intentName = "." + pactfile.LogFile + tempMark + "append"

// intentDir opens the directory of the pact's record and names the record
// in it. A pact in a git repository keeps it in the git directory beside
// the writers' snapshot (snapshotPlace), which no commit, pull or checkout
// writes to; a pact in no repository, which no commit reaches, keeps it in
// pact (intentName). With create, the git directory's pactify/ is made
// when missing. done closes what intentDir opened.
func (d Dir) intentDir(pact *os.Root, create bool) (dir *os.Root, name, display string, done func(), err error) {
	abs, place, _, ok := d.snapshotPlace()
	if !ok {
		return pact, intentName, d.Display(intentName), func() {}, nil
	}
	if dir, err = openSnapshotDir(place, create); err != nil {
		return nil, "", "", nil, osError("write", place, err)
	}
	name = "append-" + pactKey(abs) // one record per pact directory, as one snapshot
	return dir, name, filepath.Join(place, name), func() { _ = dir.Close() }, nil
}

// intentMagic starts every record; a record without it, or cut short, is
// one whose writer was killed before its append began.
const intentMagic = "pactify append 1\n"

// maxIntentBytes bounds a record: its header and one line with its
// line break.
const maxIntentBytes = int64(len(intentMagic)) + 2*20 + 2 + projection.MaxLineBytes + 2

// Seams over the record's writes, so tests can make them fail.
var (
	writeIntent  = (*os.File).Write
	removeIntent = func(dir *os.Root, name string) error { return dir.Remove(name) }
)

// intent is a record: the log had Size bytes and Bytes were being
// appended to it. It is written as intentMagic, the size and the number of
// bytes in decimal, a line break, then the bytes.
type intent struct {
	Size  int64
	Bytes []byte
}

// encodeIntent is the record of appending buf to a log of size bytes.
func encodeIntent(size int64, buf []byte) []byte {
	b := append([]byte(intentMagic), strconv.FormatInt(size, 10)...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(buf)), 10)
	b = append(b, '\n')
	return append(b, buf...)
}

// decodeIntent reads a record; ok is false for one that is not whole.
func decodeIntent(b []byte) (in intent, ok bool) {
	rest, ok := bytes.CutPrefix(b, []byte(intentMagic))
	if !ok {
		return intent{}, false
	}
	head, data, ok := bytes.Cut(rest, []byte{'\n'})
	if !ok {
		return intent{}, false
	}
	sizeText, lenText, ok := bytes.Cut(head, []byte{' '})
	size, sizeOK := decimal(sizeText)
	n, lenOK := decimal(lenText)
	if !ok || !sizeOK || !lenOK || n == 0 || n != int64(len(data)) {
		return intent{}, false
	}
	return intent{Size: size, Bytes: data}, true
}

// decimal is b as a non-negative decimal written as strconv writes it.
func decimal(b []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(b), 10, 64)
	return n, err == nil && n >= 0 && strconv.FormatInt(n, 10) == string(b)
}

// beginAppend records that buf is about to be appended to the log of size
// bytes. The record is not synced: a killed process's writes all stay in
// the system's cache, so it is there before any part of buf is, and a
// sync would add a second flush to the disk to every append (a full one on
// macOS) for the sake of a power cut alone. A power cut can lose it where
// it tears the line; the next writer then refuses the log as
// unterminated, as it would without a record. endAppend removes it.
//
// A record that cannot be written (a full disk, a file-size limit) is
// reported as the append it is part of, to the log named logDisplay: the
// record holds the line, so it meets those limits where the line would.
func beginAppend(dir *os.Root, name, display, logDisplay string, size int64, buf []byte) error {
	// A record left by a writer killed after recoverAppend ran, or
	// anything of that name (a link put there to point elsewhere), is
	// removed first, not followed: O_EXCL then creates a new file or fails.
	if err := dir.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return osError("write", display, err)
	}
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return openError("write", display, err)
	}
	rec := encodeIntent(size, buf)
	n, err := writeIntent(f, rec)
	if err == nil && n != len(rec) {
		err = io.ErrShortWrite
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = removeIntent(dir, name)
		return osError("append to", logDisplay, err)
	}
	return nil
}

// endAppend removes the record once the append is synced or undone. A
// record that stays (the removal failed) describes a log that is whole,
// which readers and recoverAppend then leave as it is.
func endAppend(dir *os.Root, name string) { _ = removeIntent(dir, name) }

// readIntent reads the record name in dir, ok false when there is none or
// it is not whole.
func readIntent(dir *os.Root, name string) (intent, bool) {
	f, fi, err := openRegular(dir, name, name, false)
	if err != nil {
		return intent{}, false
	}
	defer f.Close()
	if fi.Size() > maxIntentBytes {
		return intent{}, false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxIntentBytes))
	if err != nil {
		return intent{}, false
	}
	return decodeIntent(b)
}

// tornAt says where the log f of size bytes ends as its writer left it
// when it holds a torn append of the record in: the record's size, when
// the log ends after it in a strict, non-empty prefix of the record's
// bytes; ok is false for any other log.
func (in intent) tornAt(f io.ReaderAt, size int64) (int64, bool) {
	tail := size - in.Size
	if tail <= 0 || tail >= int64(len(in.Bytes)) {
		return 0, false
	}
	got := make([]byte, tail)
	if _, err := f.ReadAt(got, in.Size); err != nil {
		return 0, false
	}
	return in.Size, bytes.Equal(got, in.Bytes[:tail])
}

// readableSize is how much of the log f of size bytes readers read: all
// of it, unless its last line has no line break and is a torn append of
// the pact's record (tornAt). Only a log that does not end in a line
// break costs more than one byte's read.
func (d Dir) readableSize(pact *os.Root, f io.ReaderAt, size int64) int64 {
	if size == 0 {
		return 0
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil || last[0] == '\n' {
		return size
	}
	dir, name, _, done, err := d.intentDir(pact, false)
	if err != nil {
		return size
	}
	defer done()
	in, ok := readIntent(dir, name)
	if !ok {
		return size
	}
	if at, torn := in.tornAt(f, size); torn {
		return at
	}
	return size
}

// recoverAppend cuts back a torn append a killed writer left in pact's log
// (tornAt) and removes the record. Only a writer holding the pact's lock
// calls it, so no append is under way and any record is a killed
// writer's. It is best effort: a log it cannot cut back keeps its record
// (readers still read it up to the record's size) and every writer
// refuses it (UnterminatedError), naming what to do.
func (d Dir) recoverAppend(pact *os.Root, display string) {
	dir, name, _, done, err := d.intentDir(pact, false)
	if err != nil {
		return // no record, or none that can be read
	}
	defer done()
	in, ok := readIntent(dir, name)
	if !ok {
		if _, err := dir.Lstat(name); err == nil {
			endAppend(dir, name) // a record cut short: its append never began
		}
		return
	}
	f, err := openNoLink(pact, pactfile.LogFile, display, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		endAppend(dir, name)
		return
	}
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return
	}
	if at, torn := in.tornAt(f, fi.Size()); torn {
		if truncateFile(f, at) != nil || syncFile(f) != nil {
			return
		}
	}
	endAppend(dir, name)
}

// TornTail says, in one sentence for the user, that the log ends in part
// of a line a killed writer never recorded (tornAt), which every command
// reads the log without: "" when it does not. The check reads a commit,
// where those bytes are a malformed line, so the sentence says to let a
// writer cut them back before committing. A reader takes no lock, so
// part of a line could be that of a writer in the middle of its write:
// those bytes are said only when the lock is free and they are still
// there with it taken (for the moment of a look: a writer arriving then
// waits that long), and nothing is said while anyone holds it.
func (d Dir) TornTail() string {
	pact, err := d.openPact(false)
	if err != nil {
		return ""
	}
	defer pact.Close()
	f, fi, err := openRegular(pact, pactfile.LogFile, d.Display(pactfile.LogFile), false)
	if err != nil {
		return ""
	}
	defer f.Close()
	n := fi.Size() - d.readableSize(pact, f, fi.Size())
	if n <= 0 {
		return ""
	}
	switch got, err := osLock.tryLock(f); {
	case err != nil: // no file lock here: say what was read
	case !got:
		return "" // a writer, maybe in the middle of its append
	default:
		defer func() { _ = osLock.unlock(f) }()
		if fi, err = f.Stat(); err != nil || !isLog(pact, f) {
			return ""
		}
		if n = fi.Size() - d.readableSize(pact, f, fi.Size()); n <= 0 {
			return ""
		}
	}
	return fmt.Sprintf("%s ends in %d byte(s) of a line a killed pactify was writing and never recorded, which every command reads the log without; the next writing command cuts them back (`pactify log --replay` will do): run one before you commit the log", d.Display(pactfile.LogFile), n)
}
