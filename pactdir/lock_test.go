package pactdir

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// holderEnv makes this test binary a process that holds a pact's lock
// (TestLockHolder) instead of running the tests.
const holderEnv = "PACTDIR_TEST_HOLD_LOCK"

// TestLockHolder is not a test: run with holderEnv set to a repository, it
// takes the pact's lock, says so on stdout and holds it until its stdin
// closes (or it is killed).
func TestLockHolder(t *testing.T) {
	root := os.Getenv(holderEnv)
	if root == "" {
		t.Skip("a helper process of TestLockExcludesOtherProcesses")
	}
	unlock, err := Dir{Root: root, Name: ".pact"}.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stdout.WriteString("locked\n"); err != nil {
		t.Fatal(err)
	}
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	unlock()
}

// TestLockExcludesOtherProcesses: the lock of one process keeps every
// other process from taking it until that process lets go, or ends without
// letting go (a crash): flock on Unix, LockFileEx on Windows. No clock is
// involved: the holder says when it holds the lock, and the other side
// only tries.
func TestLockExcludesOtherProcesses(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	if err := os.WriteFile(d.Path(pactfile.LogFile), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other, err := os.Open(d.Path(pactfile.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, end := range []string{"unlocks", "is killed"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLockHolder$")
		cmd.Env = append(os.Environ(), holderEnv+"="+d.Root)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "locked\n" {
			t.Fatalf("the holder said %q, %v", line, err)
		}
		if ok, err := osLock.tryLock(other); ok || err != nil {
			t.Fatalf("another process holds the lock, yet tryLock = %v, %v", ok, err)
		}
		if end == "unlocks" {
			if err := stdin.Close(); err != nil {
				t.Fatal(err)
			}
		} else {
			_ = cmd.Process.Kill()
		}
		_ = cmd.Wait()
		// Windows releases the locks of a process that ends "in a time that
		// depends upon available system resources": wait for it, boundedly.
		ok, err := osLock.tryLock(other)
		for deadline := time.Now().Add(10 * time.Second); !ok && err == nil && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
			ok, err = osLock.tryLock(other)
		}
		if !ok || err != nil {
			t.Fatalf("the holder %s, yet tryLock = %v, %v", end, ok, err)
		}
		if err := osLock.unlock(other); err != nil {
			t.Fatal(err)
		}
	}
}

// fakeLock records what the protocol asks of the platform's lock.
type fakeLock struct {
	calls []string
	fail  error
}

func (l *fakeLock) lock(f *os.File) error {
	l.calls = append(l.calls, "lock "+filepath.Base(f.Name()))
	return l.fail
}

func (l *fakeLock) share(f *os.File) error {
	l.calls = append(l.calls, "share "+filepath.Base(f.Name()))
	return l.fail
}
func (l *fakeLock) tryLock(f *os.File) (bool, error) { return false, errors.New("not used") }

func (l *fakeLock) unlock(f *os.File) error {
	l.calls = append(l.calls, "unlock "+filepath.Base(f.Name()))
	return nil
}

// TestLockProtocol: what is locked and when, whatever the platform's lock
// (a fake here): the log, opened as every file of the pact (no link), once
// per Lock and released by unlock; a refused lock leaves nothing open;
// Create makes the log under the lock and finds another init's first line.
func TestLockProtocol(t *testing.T) { // not parallel: it swaps osLock
	saved := osLock
	t.Cleanup(func() { osLock = saved })
	fake := &fakeLock{}
	osLock = fake

	d := newDir(t)
	if _, err := d.Lock(); !errors.Is(err, fs.ErrNotExist) || len(fake.calls) != 0 {
		t.Fatalf("Lock without a log: %v, calls %v", err, fake.calls)
	}
	st := projection.NewState()
	if err := d.Create([]byte(`{"first":1}`), st, Charter{Project: "p", BaseBranch: "main"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(fake.calls, ", "); got != "lock log.jsonl, unlock log.jsonl" {
		t.Fatalf("Create: %s", got)
	}
	if b, _ := os.ReadFile(d.Path(pactfile.LogFile)); string(b) != "{\"first\":1}\n" {
		t.Fatalf("log = %q", b)
	}
	fake.calls = nil
	if err := d.Create([]byte(`{"second":2}`), st, Charter{Project: "p", BaseBranch: "main"}); !errors.Is(err, ErrExists) {
		t.Fatalf("a second Create: %v, want ErrExists", err)
	}
	if got := strings.Join(fake.calls, ", "); got != "lock log.jsonl, unlock log.jsonl" {
		t.Fatalf("a second Create: %s", got)
	}

	fake.calls, fake.fail = nil, errors.New("no locks today")
	if _, err := d.Lock(); err == nil || !strings.Contains(err.Error(), "no locks today") || !strings.Contains(err.Error(), ".pact/log.jsonl") {
		t.Fatalf("a refused lock: %v", err)
	}
	fake.fail = nil

	// A log that is a link is refused before the platform is asked.
	fake.calls = nil
	if err := os.Rename(d.Path(pactfile.LogFile), d.Path("real.jsonl")); err != nil {
		t.Fatal(err)
	}
	if os.Symlink("real.jsonl", d.Path(pactfile.LogFile)) == nil {
		if _, err := d.Lock(); !errors.Is(err, ErrNotRegular) || len(fake.calls) != 0 {
			t.Fatalf("Lock of a linked log: %v, calls %v", err, fake.calls)
		}
	}
}

// TestLockRemovesTemporaries: a writer that takes the lock removes the
// temporary files a killed writer left (createTemp's names, regular files
// only), and nothing else.
func TestLockRemovesTemporaries(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	if err := os.WriteFile(d.Path(pactfile.LogFile), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stale := []string{".STATE.yml.tmp-0123456789abcdef", ".T2.md.tmp-fedcba9876543210", ".PROJECT.md.tmp-00000000000000ff",
		"..gitignore.tmp-0000000000000001", ".log.jsonl.tmp-0123456789abcdef"}
	// The user's files that look like temporaries but are not named for a
	// file pactify writes here with createTemp's exact suffix.
	kept := []string{"STATE.yml.tmp-0123456789abcdef", ".STATE.yml.tmp-0123", ".STATE.yml.tmp-0123456789ABCDEF",
		".STATE.yml.tmp-0123456789abcdeg", ".tmp-0123456789abcdef", "notes.md", ".STATE.yml.tmp-0123456789abcdef0",
		".STATE.yml.tmp-foo", ".notes.txt.tmp-0123456789abcdef", ".log.jsonl.tmp-0123", "..md.tmp-0123456789abcdef",
		".STATE.yml.bak.tmp-0123456789abcdef"}
	for _, name := range append(append([]string{}, stale...), kept...) {
		if err := os.WriteFile(d.Path(name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A temporary-looking name that is a directory is not ours: kept.
	if err := os.Mkdir(d.Path(".dir.tmp-0123456789abcdef"), 0o755); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, ".dir.tmp-0123456789abcdef")
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	for _, name := range stale {
		if _, err := os.Lstat(d.Path(name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("stale temporary %s is still there (%v)", name, err)
		}
	}
	for _, name := range kept {
		if _, err := os.Lstat(d.Path(name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
}

// TestShareExcludesWriters: validate's shared lock keeps writers out (and
// lets other readers in) until it is released.
func TestShareExcludesWriters(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	unlock, err := d.share()
	if err != nil {
		t.Fatal(err)
	}
	unlock() // no log: nothing to lock, nothing fails
	if err := os.WriteFile(d.Path(pactfile.LogFile), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other, err := os.Open(d.Path(pactfile.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	unlock, err = d.share()
	if err != nil {
		t.Fatal(err)
	}
	second, err := d.share()
	if err != nil {
		t.Fatalf("a second reader: %v", err)
	}
	second()
	if ok, err := osLock.tryLock(other); ok || err != nil {
		t.Fatalf("a writer took the lock while a reader held it shared: %v, %v", ok, err)
	}
	unlock()
	if ok, err := osLock.tryLock(other); !ok || err != nil {
		t.Fatalf("the reader let go, yet tryLock = %v, %v", ok, err)
	}
	_ = osLock.unlock(other)
}

// TestLockIsExclusive: a second Lock waits for the first to be released,
// even in one process (the lock belongs to the open file), and locking
// creates no file.
func TestLockIsExclusive(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	if err := os.WriteFile(d.Path(pactfile.LogFile), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := listDir(t, d.Root)
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	// Readers go on while a writer holds the lock (a Windows lock forbids
	// reading the bytes it covers: it covers none of the log's).
	if b, err := os.ReadFile(d.Path(pactfile.LogFile)); err != nil || string(b) != "{}\n" {
		t.Fatalf("reading the locked log: %q, %v", b, err)
	}
	// Another open of the log cannot take the lock while it is held, and
	// can once it is released: the platform's lock, on every platform.
	other, err := os.Open(d.Path(pactfile.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if ok, err := osLock.tryLock(other); ok || err != nil {
		t.Fatalf("tryLock while the pact is locked = %v, %v; want false", ok, err)
	}
	got, done := make(chan time.Time), make(chan struct{})
	go func() {
		defer close(done)
		unlock2, err := d.Lock()
		if err != nil {
			t.Error(err)
			return
		}
		got <- time.Now()
		unlock2()
	}()
	const hold = 150 * time.Millisecond
	time.Sleep(hold)
	released := time.Now()
	unlock()
	if at := <-got; at.Before(released) {
		t.Fatalf("the second Lock was granted %v before the first was released", released.Sub(at))
	}
	<-done
	if ok, err := osLock.tryLock(other); !ok || err != nil {
		t.Fatalf("tryLock once released = %v, %v; want true", ok, err)
	}
	if err := osLock.unlock(other); err != nil {
		t.Fatal(err)
	}
	if after := listDir(t, d.Root); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Fatalf("locking changed the directory: %v -> %v", before, after)
	}
	if _, err := (Dir{Root: t.TempDir(), Name: "missing"}).Lock(); err == nil {
		t.Fatal("locking a missing directory should fail")
	}
	if _, err := newDir(t).Lock(); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("locking a pact without a log: %v, want fs.ErrNotExist", err)
	}
}

// TestLockWaitingStopsWhenInterrupted: a writer that can be interrupted
// takes a free lock without being told to wait; told once that another
// writer holds it, it waits for its release, or returns at once holding
// nothing when its context ends (a Ctrl-C), and the wait it gave up lets
// go of the lock as soon as it is granted.
func TestLockWaitingStopsWhenInterrupted(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	if err := os.WriteFile(d.Path(pactfile.LogFile), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waits := 0
	waiting := func() { waits++ }
	unlock, err := d.LockWaiting(t.Context(), waiting)
	if err != nil || waits != 0 {
		t.Fatalf("a free lock: %v, told to wait %d times", err, waits)
	}
	unlock()

	holder, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	ctx, interrupt := context.WithCancel(t.Context())
	told := make(chan struct{})
	result := make(chan error, 1)
	go func() {
		unlock, err := d.LockWaiting(ctx, func() { close(told) })
		if err == nil {
			unlock()
		}
		result <- err
	}()
	<-told
	interrupt()
	if err := <-result; !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted while another writer holds the lock: %v, want context.Canceled", err)
	}
	holder()
	// The wait given up is granted the lock and lets it go: the next
	// writer gets it.
	unlock, err = d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	unlock()

	holder, err = d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	told = make(chan struct{})
	go func() {
		unlock, err := d.LockWaiting(t.Context(), func() { close(told) })
		if err == nil {
			unlock()
		}
		result <- err
	}()
	<-told
	holder()
	if err := <-result; err != nil {
		t.Fatalf("waiting for a released lock: %v", err)
	}

	interrupt()
	if _, err := d.LockWaiting(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted before it began: %v, want context.Canceled", err)
	}
}

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
	appended, _, err := d.recordAs(line, st, task)
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
	if appended, _, err := d.recordAs(line, st, task); !appended || err != nil {
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
