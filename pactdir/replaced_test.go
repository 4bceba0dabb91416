package pactdir

import (
	"errors"
	"os"
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
