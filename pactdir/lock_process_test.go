package pactdir

import (
	"bufio"
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
