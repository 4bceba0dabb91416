package pactdir

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/pactfile"
)

// TestPrepareWritesOnce: whatever the old file holds (the same, a
// prefix, more, a difference early or late, past a buffer's size, or
// nothing), the new content is written by one run of write, and the file
// holds it after the commit; a file that already holds it is not
// replaced.
func TestPrepareWritesOnce(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("0123456789abcdef", 40<<10) // 640 KiB: several buffers
	cases := []struct {
		name, old, new string
		absent         bool
	}{
		{"absent", "", "new\n", true},
		{"the same", "same\n", "same\n", false},
		{"the same, long", long, long, false},
		{"empty before", "", "new\n", false},
		{"a prefix of it", "abc", "abcdef", false},
		{"longer", "abcdef", "abc", false},
		{"differs first", "xbc", "abc", false},
		{"differs late in a long file", long[:len(long)-1] + "x", long, false},
		{"differs early in a long file", "x" + long[1:], long, false},
		{"a long prefix", long[:300<<10], long, false},
		{"longer than a long one", long + "more", long, false},
	}
	for _, c := range cases {
		dir := t.TempDir()
		if !c.absent {
			if err := os.WriteFile(filepath.Join(dir, "f"), []byte(c.old), 0o640); err != nil {
				t.Fatal(err)
			}
		}
		root := openRoot(t, dir)
		runs := 0
		p, err := prepare(root, "f", "f", func(w io.Writer) error {
			runs++
			// In pieces, as a renderer writes.
			for s := c.new; len(s) > 0; s = s[min(len(s), 1000):] {
				if _, err := io.WriteString(w, s[:min(len(s), 1000)]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if runs != 1 {
			t.Errorf("%s: write ran %d times", c.name, runs)
		}
		if same := p.tmp == ""; same != (!c.absent && c.old == c.new) {
			t.Errorf("%s: replaced %v", c.name, !same)
		}
		if err := p.commit(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != c.new {
			t.Errorf("%s: the file holds %d bytes, want %d", c.name, len(b), len(c.new))
		}
		if !c.absent {
			if m := mode(t, filepath.Join(dir, "f")); m.Perm() != 0o640 {
				t.Errorf("%s: mode %v, want the old file's", c.name, m)
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%s: %d files left, want 1", c.name, len(entries))
		}
		root.Close()
	}
}

// TestPrepareRefusesAFileCutShortWhileCompared: when the old file loses
// the part already compared before it is copied into the new one (another
// program truncated it), prepare fails instead of writing a new file
// missing that part, and leaves nothing behind.
func TestPrepareRefusesAFileCutShortWhileCompared(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	long := strings.Repeat("0123456789abcdef", 40<<10)
	if err := os.WriteFile(path, []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	root := openRoot(t, dir)
	defer root.Close()
	var truncated error
	_, err := prepare(root, "f", "f", func(w io.Writer) error {
		if _, err := io.WriteString(w, long[:300<<10]); err != nil {
			return err
		}
		truncated = os.Truncate(path, 100<<10)
		if truncated != nil {
			return truncated
		}
		_, err := io.WriteString(w, "different")
		return err
	})
	if truncated != nil {
		t.Skipf("this system does not truncate a file open for reading: %v", truncated)
	}
	if err == nil || !strings.Contains(err.Error(), "read f") {
		t.Fatalf("prepare: %v, want a failure to read f", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files left, want 1", len(entries))
	}
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
			appended, _, err := d.recordAs(line, st, task)
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
