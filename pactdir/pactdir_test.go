package pactdir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

func newDir(t *testing.T) Dir {
	t.Helper()
	d := Dir{Root: t.TempDir(), Name: ".pact"}
	if err := os.MkdirAll(d.Path(pactfile.TasksDir), 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// listDir names every entry under dir, recursively.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.Walk(dir, func(path string, _ os.FileInfo, err error) error {
		rel, _ := filepath.Rel(dir, path)
		names = append(names, rel)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	return names
}

func TestPaths(t *testing.T) {
	t.Parallel()
	d := Dir{Root: "/repo", Name: ".pact"}
	if got := d.Path(pactfile.TasksDir, "T1.md"); got != filepath.Join("/repo", ".pact", "tasks", "T1.md") {
		t.Errorf("Path = %q", got)
	}
	if got := d.Display(pactfile.LogFile); got != ".pact/log.jsonl" {
		t.Errorf("Display = %q", got)
	}
	if got := d.Display(); got != ".pact" {
		t.Errorf("Display() = %q", got)
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	if b, err := d.ReadFile(pactfile.StateFile); b != nil || err != nil {
		t.Fatalf("absent file: %q, %v; want nil, nil", b, err)
	}
	if err := os.WriteFile(d.Path(pactfile.StateFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := d.ReadFile(pactfile.StateFile); b == nil || len(b) != 0 || err != nil {
		t.Fatalf("empty file: %#v, %v; want a non-nil empty slice", b, err)
	}
	if _, err := d.ReadFile(pactfile.TasksDir); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("reading a directory: %v, want ErrNotRegular", err)
	}
	if b, err := (Dir{Root: t.TempDir(), Name: ".pact"}).ReadFile(pactfile.StateFile); b != nil || err != nil {
		t.Fatalf("no pact directory: %q, %v; want nil, nil", b, err)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	if d.Exists() {
		t.Fatal("Exists without a log")
	}
	if _, _, err := d.LoadReplay(nil); !errors.Is(err, ErrNoPact) {
		t.Fatalf("LoadReplay without a log: %v, want ErrNoPact", err)
	}
	if _, err := d.Load(LoadOptions{}); !errors.Is(err, ErrNoPact) {
		t.Fatalf("Load without a log: %v, want ErrNoPact", err)
	}
	log := `{"event_id":"e1","ts":"2026-06-09T10:00:00Z","agent_id":"o","role":"orchestrator","event_type":"init","task_id":"","feature":"","payload":{"project":"p","protocol_version":1,"seats":[{"id":"o","roles":["orchestrator"],"entry":"A.md"},{"id":"w","roles":["worker"],"entry":"A.md"},{"id":"r","roles":["reviewer"],"entry":"A.md"}],"base_branch":"main"}}
{"event_id":"e2","ts":"2026-06-09T10:01:00Z","agent_id":"o","role":"orchestrator","event_type":"assign","task_id":"T1","feature":"F","payload":{"owner":"w","reviewer":"r","branch":"b","spec":"s"}}
{"event_id":"e3","ts":"2026-06-09T10:02:00Z","agent_id":"o","role":"orchestrator","event_type":"assign","task_id":"T2","feature":"F","payload":{"owner":"w","reviewer":"r","branch":"b","spec":"s"}}
`
	for name, text := range map[string]string{pactfile.LogFile: log, pactfile.StateFile: "project: p\n", pactfile.ProjectFile: "# p\n", "tasks/T1.md": "---\nid: T1\n---\n",
		"tasks/T3.md": "not a task of the log\n", "tasks/t2.md": "another name\n", "tasks/T2.md.bak": "another name\n"} {
		if err := os.WriteFile(d.Path(filepath.FromSlash(name)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !d.Exists() {
		t.Fatal("Exists with a log")
	}
	in, err := d.Load(LoadOptions{Prejudge: checks.FastPaths{}})
	if err != nil {
		t.Fatal(err)
	}
	if in.Dir != ".pact" || in.Scan.Lines != 3 || in.Replay.State.Applied != 3 || string(in.State) != "project: p\n" || string(in.Project) != "# p\n" {
		t.Fatalf("Load: %+v", in)
	}
	// Listed by name, exactly (T2 has none: another case, another suffix), never read.
	if want := map[string]bool{"T1": true}; !maps.Equal(in.TaskListing, want) || len(in.TaskFiles) != 0 || len(in.TaskFilesMatched) != 0 {
		t.Fatalf("task files: listing %v, read %q, matched %v; want the listing %v and nothing read", in.TaskListing, in.TaskFiles, in.TaskFilesMatched, want)
	}
	if in, err = d.LoadWatched(nil, LoadOptions{TaskFiles: true, Prejudge: checks.FastPaths{}}); err != nil {
		t.Fatal(err)
	}
	if len(in.TaskFiles) != 1 || string(in.TaskFiles["T1"]) != "---\nid: T1\n---\n" || !maps.Equal(in.TaskListing, map[string]bool{"T1": true}) {
		t.Fatalf("task files: %q (T2 has none and must be absent, not empty)", in.TaskFiles)
	}
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

// recordWrites swaps the write and sync seams for recorders while a test
// runs. Tests that use it must not be parallel.
func recordWrites(t *testing.T) *[]string {
	t.Helper()
	var calls []string
	oldWrite, oldSync := writeFile, syncFile
	writeFile = func(f *os.File, b []byte) (int, error) {
		calls = append(calls, fmt.Sprintf("write %q", b))
		return oldWrite(f, b)
	}
	syncFile = func(f *os.File) error {
		calls = append(calls, "sync")
		return oldSync(f)
	}
	t.Cleanup(func() { writeFile, syncFile = oldWrite, oldSync })
	return &calls
}

func TestAppendLine(t *testing.T) { // not parallel: it swaps the seams
	for _, c := range []struct {
		name, before, want string
		write              string
	}{
		{"new log", "\x00absent", "L\n", `write "L\n"`},
		{"empty log", "", "L\n", `write "L\n"`},
		{"log ending in a newline", "a\n", "a\nL\n", `write "L\n"`},
		// A checkout that converted the log to CRLF: the line ends as the
		// others do, so the file never mixes the two.
		{"log ending in CRLF", "a\r\n", "a\r\nL\r\n", `write "L\r\n"`},
		{"last line break decides", "a\r\nb\n", "a\r\nb\nL\n", `write "L\n"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newDir(t)
			if c.before != "\x00absent" {
				if err := os.WriteFile(d.Path(pactfile.LogFile), []byte(c.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			calls := recordWrites(t)
			if err := d.AppendLine([]byte("L")); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(*calls, "; "); got != c.write+"; sync" {
				t.Fatalf("system calls: %s; want one write then an fsync: %s; sync", got, c.write)
			}
			b, err := os.ReadFile(d.Path(pactfile.LogFile))
			if err != nil || string(b) != c.want {
				t.Fatalf("log = %q, %v; want %q", b, err, c.want)
			}
		})
	}
}

// TestAppendLineRefusesAnUnterminatedLog: a log whose last line has no
// line break (what a write cut off leaves, or a hand edit) is refused with
// ErrUnterminated, nothing written; sealing it would make the fragment a
// permanent line of an append-only log.
func TestAppendLineRefusesAnUnterminatedLog(t *testing.T) { // not parallel: it swaps the seams
	for _, before := range []string{"a", "a\r\nb", "a\n{\"event_id\":\"x", "a\r", "a\n" + strings.Repeat("b", 70000)} {
		d := newDir(t)
		if err := os.WriteFile(d.Path(pactfile.LogFile), []byte(before), 0o644); err != nil {
			t.Fatal(err)
		}
		calls := recordWrites(t)
		for name, err := range map[string]error{"LogEnd": logEndErr(d), "AppendLine": d.AppendLine([]byte("L"))} {
			var ue *UnterminatedError
			if !errors.As(err, &ue) || !errors.Is(err, ErrUnterminated) || !strings.Contains(err.Error(), "nothing was recorded") {
				t.Errorf("%s on %.20q: %v, want ErrUnterminated saying nothing was recorded", name, before, err)
			}
		}
		if len(*calls) != 0 {
			t.Errorf("%.20q: system calls %v, want none", before, *calls)
		}
		if b, _ := os.ReadFile(d.Path(pactfile.LogFile)); string(b) != before {
			t.Errorf("log = %.20q, want it as it was", b)
		}
	}
	d := newDir(t)
	if end, err := d.LogEnd(); err != nil || end != nil {
		t.Fatalf("LogEnd without a log: %q, %v", end, err)
	}
	for _, ok := range []string{"", "a\n", "a\r\n"} {
		if err := os.WriteFile(d.Path(pactfile.LogFile), []byte(ok), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := d.LogEnd(); err != nil {
			t.Errorf("LogEnd on %q: %v", ok, err)
		}
	}
}

// TestAppendLineErrors: when the write fails part-way (a full disk, a
// file-size limit) or the fsync fails, the log is cut back to the bytes
// it had and synced again: byte for byte as it was, and the error says
// which condition it was and that nothing was recorded. Only when even the
// cut back fails does the error say part of the line may remain.
func TestAppendLineErrors(t *testing.T) { // not parallel: it swaps the seams
	const before = "{\"a\":1}\n"
	for _, c := range []struct {
		name      string
		write     func(f *os.File, b []byte) (int, error)
		sync      func(calls *int) error
		truncate  error
		want      []string
		untouched bool
	}{
		{name: "short write, file too large", write: func(f *os.File, b []byte) (int, error) {
			n, _ := f.Write(b[:len(b)/2])
			return n, syscall.EFBIG
		}, want: []string{"append to .pact/log.jsonl", "file-size limit", "nothing was recorded"}, untouched: true},
		{name: "short write, no space", write: func(f *os.File, b []byte) (int, error) {
			n, _ := f.Write(b[:3])
			return n, syscall.ENOSPC
		}, want: []string{"no space is left", "nothing was recorded"}, untouched: true},
		{name: "short count without an error", write: func(f *os.File, b []byte) (int, error) {
			return f.Write(b[:1])
		}, want: []string{"short write", "nothing was recorded"}, untouched: true},
		{name: "fsync fails", sync: func(calls *int) error {
			if *calls++; *calls == 1 {
				return syscall.EIO
			}
			return nil
		}, want: []string{"sync .pact/log.jsonl", "input/output error", "nothing was recorded"}, untouched: true},
		{name: "the cut back fails too", write: func(f *os.File, b []byte) (int, error) {
			n, _ := f.Write(b[:2])
			return n, syscall.ENOSPC
		}, truncate: syscall.EIO, want: []string{"no space is left", "part of the line may remain", "truncate .pact/log.jsonl to 8 bytes"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newDir(t)
			if err := os.WriteFile(d.Path(pactfile.LogFile), []byte(before), 0o644); err != nil {
				t.Fatal(err)
			}
			recordWrites(t)
			if c.write != nil {
				writeFile = c.write
			}
			syncs := 0
			if c.sync != nil {
				syncFile = func(*os.File) error { return c.sync(&syncs) }
			}
			savedTruncate := truncateFile
			t.Cleanup(func() { truncateFile = savedTruncate })
			if c.truncate != nil {
				truncateFile = func(*os.File, int64) error { return c.truncate }
			}
			err := d.AppendLine([]byte(`{"b":2}`))
			for _, w := range c.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v does not say %q", err, w)
				}
			}
			b, _ := os.ReadFile(d.Path(pactfile.LogFile))
			if c.untouched && string(b) != before {
				t.Errorf("log = %q after a failed append, want %q", b, before)
			}
		})
	}
	if err := (Dir{Root: t.TempDir(), Name: "missing"}).AppendLine([]byte("L")); err == nil {
		t.Fatal("appending under a missing directory should fail")
	}
}

// TestAppendLineUnderLock: writers that lock and append concurrently lose
// and tear nothing.
func TestAppendLineUnderLock(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	if err := os.WriteFile(d.Path(pactfile.LogFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				unlock, err := d.Lock()
				if err != nil {
					t.Error(err)
					return
				}
				err = d.AppendLine([]byte(fmt.Sprintf(`{"w":%d,"i":%d,"pad":%q}`, w, i, strings.Repeat("x", 3000))))
				unlock()
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b, err := os.ReadFile(d.Path(pactfile.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != writers*each {
		t.Fatalf("%d lines, want %d", len(lines), writers*each)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		if !strings.HasPrefix(l, `{"w":`) || !strings.HasSuffix(l, `"}`) || len(l) < 3000 || seen[l] {
			t.Fatalf("torn or repeated line: %.80q", l)
		}
		seen[l] = true
	}
}

// writeBytes is a write func of replace.
func writeBytes(b string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, b)
		return err
	}
}

func openRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestReplace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root := openRoot(t, dir)
	path := filepath.Join(dir, "f.md")
	if err := replace(root, "f.md", "f.md", writeBytes("one\n")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "one\n" {
		t.Fatalf("new file: %q, %v", b, err)
	}
	// A new file gets the mode os.WriteFile would give it (0666 less the
	// umask), not os.CreateTemp's 0600.
	ref := filepath.Join(dir, "ref")
	if err := os.WriteFile(ref, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if got, want := mode(t, path), mode(t, ref); got != want {
		t.Fatalf("new file mode %v, want %v like os.WriteFile", got, want)
	}

	// Replacing goes through a rename: another file, never an in-place
	// rewrite a reader could see half of.
	old := stat(t, path)
	if err := replace(root, "f.md", "f.md", writeBytes("two\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two\n" || os.SameFile(old, stat(t, path)) {
		t.Fatalf("replace: %q, same file %v", b, os.SameFile(old, stat(t, path)))
	}

	// The same content again touches nothing: same file, same mtime.
	then := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(path, then, then); err != nil {
		t.Fatal(err)
	}
	old = stat(t, path)
	if err := replace(root, "f.md", "f.md", writeBytes("two\n")); err != nil {
		t.Fatal(err)
	}
	if fi := stat(t, path); !fi.ModTime().Equal(then) || !os.SameFile(old, fi) {
		t.Fatal("writing identical content rewrote the file")
	}

	// A replaced file keeps its permission bits (Windows has only the
	// read-only one, which a file being replaced cannot have).
	if runtime.GOOS != "windows" {
		for _, perm := range []os.FileMode{0o600, 0o755, 0o640} {
			if err := os.Chmod(path, perm); err != nil {
				t.Fatal(err)
			}
			if err := replace(root, "f.md", "f.md", writeBytes(perm.String())); err != nil {
				t.Fatal(err)
			}
			if got := mode(t, path); got != perm {
				t.Fatalf("mode after replace = %v, want %v", got, perm)
			}
		}
	}

	// A directory is refused, and no temporary file is left, after
	// success or failure.
	if err := os.MkdirAll(filepath.Join(dir, "adir", "child"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := replace(root, "adir", "adir", writeBytes("x")); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("replacing a directory: %v, want ErrNotRegular", err)
	}
	failing := func(io.Writer) error { return errors.New("no more") }
	if err := replace(root, "f.md", "f.md", failing); err == nil || !strings.Contains(err.Error(), "no more") {
		t.Fatalf("a failing write: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "-rw-r-----" && runtime.GOOS != "windows" {
		t.Fatalf("a failed replace changed the file: %q", b)
	}
	for _, name := range listDir(t, dir) {
		if strings.Contains(name, ".tmp-") {
			t.Fatalf("temporary file left behind: %s", name)
		}
	}
}

// errBusy stands for what a platform refuses for a while.
var errBusy = errors.New("busy")

// TestRetry: the policy every platform's replacement follows, with a fake
// refusal and a fake clock: it retries only what is worth retrying, waits
// the delays in order, and gives up with the last error once they are
// spent.
func TestRetry(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		failures []error // what the attempts return before succeeding
		want     error
		slept    string
	}{
		{"first try", nil, nil, ""},
		{"busy twice", []error{errBusy, errBusy}, nil, "1 2"},
		{"not worth retrying", []error{errors.New("denied")}, errors.New("denied"), ""},
		{"busy then denied", []error{errBusy, errors.New("denied")}, errors.New("denied"), "1"},
		{"busy for ever", []error{errBusy, errBusy, errBusy, errBusy, errBusy}, errBusy, "1 2 4"},
	} {
		var slept []string
		r := retry{
			delays:    []time.Duration{1, 2, 4},
			retryable: func(err error) bool { return errors.Is(err, errBusy) },
			sleep:     func(d time.Duration) { slept = append(slept, fmt.Sprint(int(d))) },
		}
		attempts := 0
		err := r.do(func() error {
			attempts++
			if attempts <= len(c.failures) {
				return c.failures[attempts-1]
			}
			return nil
		})
		if fmt.Sprint(err) != fmt.Sprint(c.want) || strings.Join(slept, " ") != c.slept {
			t.Errorf("%s: err %v after sleeping %q; want %v after %q", c.name, err, slept, c.want, c.slept)
		}
	}
	var total time.Duration
	for _, d := range replaceRetry.delays {
		total += d
	}
	if total < 2*time.Second || total > 5*time.Second {
		t.Errorf("replaceRetry waits %s in all; a replacement should give another program a few seconds, and no more", total)
	}
}

// TestReplaceRetriesARefusedRename: a rename the platform refuses for a
// while (a fake refusal) is retried through the same path replace takes,
// and the file ends whole.
func TestReplaceRetriesARefusedRename(t *testing.T) { // not parallel: it swaps replaceRetry
	dir := t.TempDir()
	root := openRoot(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "STATE.yml"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	savedRetry, savedRename := replaceRetry, renameFile
	t.Cleanup(func() { replaceRetry, renameFile = savedRetry, savedRename })
	replaceRetry.retryable = func(err error) bool { return errors.Is(err, errBusy) }
	replaceRetry.sleep = func(time.Duration) {}
	// The first two renames are refused as a busy file would be.
	refusals := 2
	renameFile = func(r *os.Root, from, to string) error {
		if refusals > 0 {
			refusals--
			return errBusy
		}
		return savedRename(r, from, to)
	}
	if err := replace(root, "STATE.yml", ".pact/STATE.yml", writeBytes("new\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "STATE.yml")); string(b) != "new\n" || refusals != 0 {
		t.Fatalf("STATE.yml = %q after %d refusals left", b, refusals)
	}
	// Refused for ever: the old file stays whole, the error says what to
	// do, and no temporary file is left.
	refusals = 1 << 30
	err := replace(root, "STATE.yml", ".pact/STATE.yml", writeBytes("newer\n"))
	if err == nil || !strings.Contains(err.Error(), "another program holds it open") {
		t.Fatalf("a rename refused for ever: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "STATE.yml")); string(b) != "new\n" {
		t.Fatalf("STATE.yml = %q after a failed replace", b)
	}
	for _, name := range listDir(t, dir) {
		if strings.Contains(name, ".tmp-") {
			t.Fatalf("temporary file left behind: %s", name)
		}
	}
}

func TestWriteState(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	st := projection.NewState()
	st.Project = "p"
	if err := d.WriteState(st); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(d.Path(pactfile.StateFile))
	if err != nil || !bytes.Equal(b, projection.RenderBytes(st)) {
		t.Fatalf("STATE.yml = %q, %v", b, err)
	}
	// The same state again touches nothing; another replaces the file.
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(d.Path(pactfile.StateFile), old, old); err != nil {
		t.Fatal(err)
	}
	before := stat(t, d.Path(pactfile.StateFile))
	if err := d.WriteState(st); err != nil {
		t.Fatal(err)
	}
	if fi := stat(t, d.Path(pactfile.StateFile)); !fi.ModTime().Equal(old) || !os.SameFile(before, fi) {
		t.Fatal("writing the same state rewrote STATE.yml")
	}
	// A file that is a prefix of the render, or longer, is replaced.
	for _, other := range [][]byte{b[:len(b)-1], append(append([]byte(nil), b...), '\n'), nil} {
		if err := os.WriteFile(d.Path(pactfile.StateFile), other, 0o640); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d.Path(pactfile.StateFile), 0o640); err != nil {
			t.Fatal(err)
		}
		if err := d.WriteState(st); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(d.Path(pactfile.StateFile)); !bytes.Equal(got, b) || (mode(t, d.Path(pactfile.StateFile)) != 0o640 && runtime.GOOS != "windows") {
			t.Fatalf("STATE.yml after replacing %q: %q, mode %v", other, got, mode(t, d.Path(pactfile.StateFile)))
		}
	}
	// Large enough to be compared and written in many pieces.
	for i := range 5000 {
		st.Tasks[fmt.Sprint("T", i)] = &projection.Task{ID: fmt.Sprint("T", i), Feature: "F", Status: projection.StatusAssigned}
		st.TaskOrder = append(st.TaskOrder, fmt.Sprint("T", i))
	}
	if err := d.WriteState(st); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(d.Path(pactfile.StateFile)); !bytes.Equal(got, projection.RenderBytes(st)) {
		t.Fatal("large STATE.yml not written as rendered")
	}
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func stat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// logEndErr is LogEnd's error.
func logEndErr(d Dir) error {
	_, err := d.LogEnd()
	return err
}
