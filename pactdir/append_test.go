package pactdir

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/pact-action/pact-action/pactfile"
)

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
			if err := d.appendLine([]byte("L")); err != nil {
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
// errUnterminated, nothing written; sealing it would make the fragment a
// permanent line of an append-only log.
func TestAppendLineRefusesAnUnterminatedLog(t *testing.T) { // not parallel: it swaps the seams
	for _, before := range []string{"a", "a\r\nb", "a\n{\"event_id\":\"x", "a\r", "a\n" + strings.Repeat("b", 70000)} {
		d := newDir(t)
		if err := os.WriteFile(d.Path(pactfile.LogFile), []byte(before), 0o644); err != nil {
			t.Fatal(err)
		}
		calls := recordWrites(t)
		for name, err := range map[string]error{"readLogEnd": logEndErr(d), "appendLine": d.appendLine([]byte("L"))} {
			var ue *UnterminatedError
			if !errors.As(err, &ue) || !errors.Is(err, errUnterminated) || !strings.Contains(err.Error(), "nothing was recorded") {
				t.Errorf("%s on %.20q: %v, want errUnterminated saying nothing was recorded", name, before, err)
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
	if end, err := d.readLogEnd(); err != nil || end != nil {
		t.Fatalf("readLogEnd without a log: %q, %v", end, err)
	}
	for _, ok := range []string{"", "a\n", "a\r\n"} {
		if err := os.WriteFile(d.Path(pactfile.LogFile), []byte(ok), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := d.readLogEnd(); err != nil {
			t.Errorf("readLogEnd on %q: %v", ok, err)
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
		name     string
		write    func(f *os.File, b []byte) (int, error)
		sync     func(calls *int) error
		truncate error
		// truncateOnce fails only the first cut: the append handle's, as
		// on Windows, where one opened to append cannot cut its file.
		truncateOnce bool
		want         []string
		untouched    bool
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
		// The write was whole: the line stays, and is read, whole.
		{name: "the fsync and the cut back fail", sync: func(*int) error { return syscall.EIO }, truncate: syscall.EIO,
			want: []string{"sync .pact/log.jsonl", "the line stays in the log, whole", "pactify log --replay", "truncate .pact/log.jsonl to 8 bytes"}},
		{name: "the append handle cannot cut", write: func(f *os.File, b []byte) (int, error) {
			n, _ := f.Write(b[:2])
			return n, syscall.ENOSPC
		}, truncate: syscall.EACCES, truncateOnce: true, want: []string{"no space is left", "nothing was recorded"}, untouched: true},
		{name: "the cut back is made but not synced", sync: func(*int) error { return syscall.EIO },
			want: []string{"sync .pact/log.jsonl", "nothing was recorded", "could not be synced"}, untouched: true},
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
				cuts := 0
				truncateFile = func(f *os.File, size int64) error {
					if cuts++; c.truncateOnce && cuts > 1 {
						return savedTruncate(f, size)
					}
					return c.truncate
				}
			}
			err := d.appendLine([]byte(`{"b":2}`))
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
	if err := (Dir{Root: t.TempDir(), Name: "missing"}).appendLine([]byte("L")); err == nil {
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
				err = d.appendLine([]byte(fmt.Sprintf(`{"w":%d,"i":%d,"pad":%q}`, w, i, strings.Repeat("x", 3000))))
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

// logEndErr is readLogEnd's error.
func logEndErr(d Dir) error {
	_, err := d.readLogEnd()
	return err
}

// TestLogReplacedBetweenLookAndOpen: a log renamed over the locked one
// after appendLine looked at the log and before it opens it is a regular
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
	err = d.appendLine(line)
	if replaced != 1 {
		t.Fatalf("the log was replaced %d times before the append opened it, want 1", replaced)
	}
	if !errors.Is(err, errReplaced) {
		t.Errorf("appendLine on a log replaced between its look and its open = %v; want errReplaced", err)
	}
	if after, _ := os.ReadFile(d.Path(pactfile.LogFile)); !bytes.Equal(after, before) {
		added, _ := bytes.CutPrefix(after, before)
		t.Fatalf("the log put in the locked one's place was written to (%d bytes, %d before): %q", len(after), len(before), added)
	}
}

// TestAppendLineReplacedBeforeCut: another program that replaces the log
// (a git checkout, an editor's save) between a failed write and its cut
// back, where the append handle cannot cut (Windows), leaves the line in
// the file it replaced. The error must not tell the user to truncate the
// log there now to the old log's size, which would cut that log's events.
func TestAppendLineReplacedBeforeCut(t *testing.T) { // not parallel: it swaps the seams
	const before, other = "{\"a\":1}\n", "{\"x\":1}\n{\"y\":2}\n{\"z\":3}\n"
	for _, whole := range []bool{false, true} {
		t.Run(fmt.Sprintf("whole %v", whole), func(t *testing.T) {
			d := newDir(t)
			log := d.Path(pactfile.LogFile)
			if err := os.WriteFile(log, []byte(before), 0o644); err != nil {
				t.Fatal(err)
			}
			replace := func() {
				tmp := d.Path("other")
				if err := os.WriteFile(tmp, []byte(other), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, log); err != nil {
					t.Fatal(err)
				}
			}
			recordWrites(t)
			savedWrite, savedTruncate := writeFile, truncateFile
			t.Cleanup(func() { truncateFile = savedTruncate })
			writeFile = func(f *os.File, b []byte) (int, error) {
				if whole {
					n, err := savedWrite(f, b)
					replace()
					return n, err
				}
				n, _ := savedWrite(f, b[:2])
				replace()
				return n, syscall.ENOSPC
			}
			if whole {
				syncFile = func(*os.File) error { return syscall.EIO }
			}
			cuts := 0
			truncateFile = func(f *os.File, size int64) error {
				if cuts++; cuts == 1 {
					return syscall.EACCES // the append handle's, as on Windows
				}
				return savedTruncate(f, size)
			}
			err := d.appendLine([]byte(`{"b":2}`))
			if err == nil || strings.Contains(err.Error(), "truncate .pact/log.jsonl") || !strings.Contains(err.Error(), "replaced or removed .pact/log.jsonl") {
				t.Errorf("error %v, want one that says the log was replaced and not to truncate it", err)
			}
			if b, _ := os.ReadFile(log); string(b) != other {
				t.Errorf("the log that replaced it is %q, want %q", b, other)
			}
		})
	}
}
