package pactdir

import (
	"bufio"
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
)

// Replacing a file: it is replaced whole through a temporary file and a
// rename (retried for a while where the platform refuses to replace a
// file another program has open), so that a reader sees the old file or
// the new one, never half of one; a file is opened for writing only when
// it is absent or a regular file, never through a link (openNoLink).

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
// (copy_file_range on Linux): an assign's new STATE.yml is its old one and
// one task more, which would otherwise pass through the program 32 KiB at
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
// permission bits on the file itself are not asked about: they do not keep
// a rename from replacing it.
func replaceable(dir *os.Root, name, display string, exists, inDir bool) error {
	if exists {
		f, err := dir.OpenFile(name, os.O_WRONLY|openNonBlocking, 0)
		if err == nil {
			_ = f.Close() // opened to be asked, not written
		} else if c := conditionOf(err); c == notPermitted || c == readOnly {
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
