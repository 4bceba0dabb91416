package pactdir

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/pactfile"
)

// renameOver puts a copy of the log, with extra appended, in the log's
// place by a rename, as git checkout or an editor's save does.
func renameOver(t *testing.T, d Dir, extra string) {
	t.Helper()
	b, err := os.ReadFile(d.Path(pactfile.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.Path("other.jsonl"), append(b, extra...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(d.Path("other.jsonl"), d.Path(pactfile.LogFile)); err != nil {
		t.Fatal(err)
	}
}

// TestLogReplacedWhileLocked: the lock belongs to the file, not its name.
// A log another program renames over the locked one leaves a writer
// holding a lock no other writer takes, so the append is refused with
// every file as it was (the new log included), and the next lock is taken
// on the log that is there.
func TestLogReplacedWhileLocked(t *testing.T) {
	t.Parallel()
	d, line, st, task := recordable(t)
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	renameOver(t, d, "")
	before := snapshot(t, d.Path())
	appended, err := d.Record(line, st, task)
	unlock()
	if appended || !errors.Is(err, errReplaced) {
		t.Fatalf("Record on a replaced log = %v, %v; want errReplaced", appended, err)
	}
	sameTree(t, "after a refused Record", snapshot(t, d.Path()), before)
	unlock, err = d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if appended, err := d.Record(line, st, task); !appended || err != nil {
		t.Fatalf("Record under a lock of the new log = %v, %v", appended, err)
	}
}

// TestLogReplacedBetweenLookAndOpen: a log renamed over the locked one
// after AppendLine looked at the log and before it opens it is a regular
// file, opened as it was looked at, so only the check of the open file
// against the locked one tells: the append is refused, and the log now
// there keeps its bytes (a line written to it would be appended under no
// writer's lock, beside another writer's).
func TestLogReplacedBetweenLookAndOpen(t *testing.T) { // not parallel: it swaps openAppend
	saved := openAppend
	t.Cleanup(func() { openAppend = saved })
	d, line, _, _ := recordable(t)
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	replaced := 0
	openAppend = func(dir *os.Root, name, display string, flag int, perm fs.FileMode) (*os.File, error) {
		if name == pactfile.LogFile {
			renameOver(t, d, "")
			replaced++
		}
		return saved(dir, name, display, flag, perm)
	}
	before, err := os.ReadFile(d.Path(pactfile.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	err = d.AppendLine(line)
	if replaced != 1 {
		t.Fatalf("the log was replaced %d times before the append opened it, want 1", replaced)
	}
	if !errors.Is(err, errReplaced) {
		t.Errorf("AppendLine on a log replaced between its look and its open = %v; want errReplaced", err)
	}
	if after, _ := os.ReadFile(d.Path(pactfile.LogFile)); !bytes.Equal(after, before) {
		added, _ := bytes.CutPrefix(after, before)
		t.Fatalf("the log put in the locked one's place was written to (%d bytes, %d before): %q", len(after), len(before), added)
	}
}

// replacingLock is the platform's lock, with the log replaced by a rename
// while the first calls wait for it.
type replacingLock struct {
	fileLock
	t       *testing.T
	d       Dir
	replace int
	took    []*os.File
}

func (l *replacingLock) lock(f *os.File) error {
	if err := l.fileLock.lock(f); err != nil {
		return err
	}
	l.took = append(l.took, f)
	if len(l.took) <= l.replace {
		renameOver(l.t, l.d, "")
	}
	return nil
}

// TestLockFollowsAReplacedLog: a log replaced while a writer waits for
// its lock is locked again where it now is; one that keeps being
// replaced is given up, said so, after a bounded number of tries.
func TestLockFollowsAReplacedLog(t *testing.T) { // not parallel: it swaps osLock
	saved := osLock
	t.Cleanup(func() { osLock = saved })
	for _, replace := range []int{1, 3, lockAttempts} {
		d, _, _, _ := recordable(t)
		l := &replacingLock{fileLock: saved, t: t, d: d, replace: replace}
		osLock = l
		unlock, err := d.Lock()
		if replace == lockAttempts {
			if !errors.Is(err, errReplaced) || len(l.took) != lockAttempts {
				t.Fatalf("a log replaced at every try: %v after %d tries", err, len(l.took))
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(l.took) != replace+1 {
			t.Errorf("replaced %d times: locked %d times, want %d", replace, len(l.took), replace+1)
		}
		at, _ := os.Lstat(d.Path(pactfile.LogFile))
		fi, _ := l.took[len(l.took)-1].Stat()
		if !os.SameFile(at, fi) {
			t.Errorf("replaced %d times: the lock is not on the log there now", replace)
		}
		unlock()
	}
}

// TestSwappedAtRename: a STATE.yml or task file that another program
// turns into a directory or a symlink after the line is appended, just
// before the rename: the line stays recorded and the error says which file
// was left and why; no temporary stays; a link is replaced itself, never
// written through (its target keeps its bytes).
func TestSwappedAtRename(t *testing.T) { // not parallel: it swaps renameFile
	saved := renameFile
	t.Cleanup(func() { renameFile = saved })
	for _, file := range []string{pactfile.StateFile, "tasks/T2.md"} {
		for _, into := range []string{"directory", "symlink"} {
			d, line, st, task := recordable(t)
			outside := filepath.Join(t.TempDir(), "target")
			if err := os.WriteFile(outside, []byte("the user's\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			renameFile = func(r *os.Root, from, to string) error {
				if filepath.ToSlash(to) == file {
					_ = os.Remove(d.Path(file))
					var err error
					if into == "directory" {
						err = os.Mkdir(d.Path(file), 0o755)
					} else {
						err = os.Symlink(outside, d.Path(file))
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				return saved(r, from, to)
			}
			appended, err := d.Record(line, st, task)
			t.Logf("%s swapped for a %s: %v", file, into, err)
			if !appended {
				t.Fatalf("%s swapped for a %s: nothing appended (%v)", file, into, err)
			}
			if into == "directory" && (err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "it is a directory")) {
				t.Errorf("%s swapped for a directory: %v, want an error naming it", file, err)
			}
			if into == "symlink" {
				if err != nil {
					t.Errorf("%s swapped for a symlink: %v", file, err)
				}
				if fi, err := os.Lstat(d.Path(file)); err != nil || !fi.Mode().IsRegular() {
					t.Errorf("%s swapped for a symlink: not replaced by a regular file (%v)", file, err)
				}
			}
			if b, _ := os.ReadFile(outside); string(b) != "the user's\n" {
				t.Errorf("%s swapped for a %s: written through to %q", file, into, b)
			}
			for _, name := range listDir(t, d.Path()) {
				if strings.Contains(name, tempMark) {
					t.Errorf("%s swapped for a %s: temporary %s left", file, into, name)
				}
			}
		}
	}
}
