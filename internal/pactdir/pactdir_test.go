package pactdir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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

func TestReadOptional(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if b, err := ReadOptional(filepath.Join(dir, "absent")); b != nil || err != nil {
		t.Fatalf("absent file: %q, %v; want nil, nil", b, err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadOptional(empty); b == nil || len(b) != 0 || err != nil {
		t.Fatalf("empty file: %#v, %v; want a non-nil empty slice", b, err)
	}
	if _, err := ReadOptional(dir); err == nil {
		t.Fatal("reading a directory should be an error, not an absent file")
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	if d.Exists() {
		t.Fatal("Exists without a log")
	}
	if _, _, err := d.LoadLog(); !errors.Is(err, ErrNoPact) {
		t.Fatalf("LoadLog without a log: %v, want ErrNoPact", err)
	}
	if _, err := d.Load(); !errors.Is(err, ErrNoPact) {
		t.Fatalf("Load without a log: %v, want ErrNoPact", err)
	}
	log := `{"event_id":"e1","ts":"2026-06-09T10:00:00Z","agent_id":"o","role":"orchestrator","event_type":"init","task_id":"","feature":"","payload":{"project":"p","protocol_version":1,"seats":[{"id":"o","roles":["orchestrator"],"entry":"A.md"},{"id":"w","roles":["worker"],"entry":"A.md"},{"id":"r","roles":["reviewer"],"entry":"A.md"}],"base_branch":"main"}}
{"event_id":"e2","ts":"2026-06-09T10:01:00Z","agent_id":"o","role":"orchestrator","event_type":"assign","task_id":"T1","feature":"F","payload":{"owner":"w","reviewer":"r","branch":"b","spec":"s"}}
{"event_id":"e3","ts":"2026-06-09T10:02:00Z","agent_id":"o","role":"orchestrator","event_type":"assign","task_id":"T2","feature":"F","payload":{"owner":"w","reviewer":"r","branch":"b","spec":"s"}}
`
	for name, text := range map[string]string{pactfile.LogFile: log, pactfile.StateFile: "project: p\n", pactfile.ProjectFile: "# p\n", "tasks/T1.md": "---\nid: T1\n---\n"} {
		if err := os.WriteFile(d.Path(filepath.FromSlash(name)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !d.Exists() {
		t.Fatal("Exists with a log")
	}
	in, err := d.Load()
	if err != nil {
		t.Fatal(err)
	}
	if in.Dir != ".pact" || in.Scan.Lines != 3 || in.Replay.State.Applied != 3 || string(in.State) != "project: p\n" || string(in.Project) != "# p\n" {
		t.Fatalf("Load: %+v", in)
	}
	if len(in.TaskFiles) != 1 || string(in.TaskFiles["T1"]) != "---\nid: T1\n---\n" {
		t.Fatalf("task files: %q (T2 has none and must be absent, not empty)", in.TaskFiles)
	}
}

// TestLockIsExclusive: a second Lock waits for the first to be released,
// even in one process (flock locks belong to open files), and locking
// creates no file.
func TestLockIsExclusive(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	before := listDir(t, d.Root)
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan time.Time)
	go func() {
		unlock2, err := d.Lock()
		if err != nil {
			t.Error(err)
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
	if after := listDir(t, d.Root); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Fatalf("locking changed the directory: %v -> %v", before, after)
	}
	if _, err := (Dir{Root: t.TempDir(), Name: "missing"}).Lock(); err == nil {
		t.Fatal("locking a missing directory should fail")
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
		{"log ending in CRLF", "a\r\n", "a\r\nL\n", `write "L\n"`},
		// A hand-edited log without its final newline: the newline goes
		// out in the same write as the line, so no crash can leave the
		// new line glued to the old one.
		{"hand edit without a final newline", "a", "a\nL\n", `write "\nL\n"`},
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

func TestAppendLineErrors(t *testing.T) { // not parallel: it swaps the seams
	d := newDir(t)
	recordWrites(t)
	syncFile = func(*os.File) error { return syscall.EIO }
	if err := d.AppendLine([]byte("L")); err == nil || !strings.Contains(err.Error(), "sync the log") {
		t.Fatalf("a failed fsync must be reported, got %v", err)
	}
	writeFile = func(*os.File, []byte) (int, error) { return 0, syscall.ENOSPC }
	if err := d.AppendLine([]byte("L")); err == nil || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("a failed write must be reported, got %v", err)
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

func TestWriteFileAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "deeper", "f.md")
	if err := WriteFileAtomic(path, []byte("one\n")); err != nil {
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

	// Replacing goes through a rename: a new inode, never an in-place
	// rewrite a reader could see half of.
	ino := inode(t, path)
	if err := WriteFileAtomic(path, []byte("two\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two\n" || inode(t, path) == ino {
		t.Fatalf("replace: %q, same inode %v", b, inode(t, path) == ino)
	}

	// The same content again touches nothing: same inode, same mtime.
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	ino = inode(t, path)
	if err := WriteFileAtomic(path, []byte("two\n")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); !fi.ModTime().Equal(old) || inode(t, path) != ino {
		t.Fatal("writing identical content rewrote the file")
	}

	// A replaced file keeps its permission bits.
	for _, perm := range []os.FileMode{0o600, 0o755, 0o640} {
		if err := os.Chmod(path, perm); err != nil {
			t.Fatal(err)
		}
		if err := WriteFileAtomic(path, []byte(perm.String())); err != nil {
			t.Fatal(err)
		}
		if got := mode(t, path); got != perm {
			t.Fatalf("mode after replace = %v, want %v", got, perm)
		}
	}

	// No temporary file is left, after success or failure.
	target := filepath.Join(dir, "adir")
	if err := os.MkdirAll(filepath.Join(target, "child"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(target, []byte("x")); err == nil {
		t.Fatal("replacing a directory should fail")
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
	ino := inode(t, d.Path(pactfile.StateFile))
	if err := d.WriteState(st); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(d.Path(pactfile.StateFile)); !fi.ModTime().Equal(old) || inode(t, d.Path(pactfile.StateFile)) != ino {
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
		if got, _ := os.ReadFile(d.Path(pactfile.StateFile)); !bytes.Equal(got, b) || mode(t, d.Path(pactfile.StateFile)) != 0o640 {
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

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}
