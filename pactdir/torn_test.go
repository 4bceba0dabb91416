package pactdir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

func TestDecodeIntent(t *testing.T) {
	t.Parallel()
	whole := encodeIntent(12, []byte("{\"a\":1}\n"))
	for _, c := range []struct {
		name string
		rec  string
		want intent
		ok   bool
	}{
		{"whole", string(whole), intent{12, []byte("{\"a\":1}\n")}, true},
		{"a line of bytes with line breaks in it", intentMagic + "0 4\na\nb\n", intent{0, []byte("a\nb\n")}, true},
		{"cut short in the bytes", string(whole[:len(whole)-1]), intent{}, false},
		{"cut short in the header", intentMagic + "12", intent{}, false},
		{"no bytes", intentMagic + "12 0\n", intent{}, false},
		{"more bytes than it says", intentMagic + "12 1\nab", intent{}, false},
		{"another magic", "pactify append 2\n12 1\na", intent{}, false},
		{"a leading zero", intentMagic + "012 1\na", intent{}, false},
		{"a sign", intentMagic + "+12 1\na", intent{}, false},
		{"negative", intentMagic + "-1 1\na", intent{}, false},
		{"no length", intentMagic + "12\na", intent{}, false},
		{"empty", "", intent{}, false},
	} {
		got, ok := decodeIntent([]byte(c.rec))
		if ok != c.ok || got.Size != c.want.Size || !bytes.Equal(got.Bytes, c.want.Bytes) {
			t.Errorf("%s: decodeIntent = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func FuzzDecodeIntent(f *testing.F) {
	f.Add(encodeIntent(0, []byte("x\n")))
	f.Add(encodeIntent(1<<40, []byte("{}\r\n")))
	f.Add([]byte(intentMagic + "1 1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, ok := decodeIntent(b)
		if !ok {
			return
		}
		// A record read is one written, byte for byte.
		if again := encodeIntent(in.Size, in.Bytes); !bytes.Equal(again, b) {
			t.Fatalf("decodeIntent(%q) = %+v, which encodes as %q", b, in, again)
		}
	})
}

// killedWriter leaves d as a writer killed k bytes into appending line
// leaves it: the record written, then k bytes of the line (and its line
// break) after the log's before.
func killedWriter(t *testing.T, d Dir, before string, line string, k int) (buf string) {
	t.Helper()
	buf = line + "\n"
	if strings.HasSuffix(before, "\r\n") {
		buf = line + "\r\n"
	}
	if err := os.WriteFile(d.Path(intentName), encodeIntent(int64(len(before)), []byte(buf)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.Path(pactfile.LogFile), []byte(before+buf[:k]), 0o644); err != nil {
		t.Fatal(err)
	}
	return buf
}

// readLog is the log as readers read it (OpenLog).
func readLog(t *testing.T, d Dir) string {
	t.Helper()
	f, size, err := d.OpenLog()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil || int64(len(b)) != size {
		t.Fatalf("OpenLog read %d bytes, %v; it said %d", len(b), err, size)
	}
	return string(b)
}

// TestTornAppend: wherever a killed writer's write stopped, readers read
// the log as it was or with the whole line, never part of it, and the next
// writer to take the lock leaves the log as readers read it, with no
// record left; a log whose unterminated end is not what the record says was
// being written is never cut.
func TestTornAppend(t *testing.T) {
	t.Parallel()
	line := `{"event_id":"e2","x":"` + strings.Repeat("y", 5000) + `"}`
	for _, before := range []string{"", "{\"event_id\":\"e1\"}\n", "{\"event_id\":\"e1\"}\r\n"} {
		full := len(line) + 1 + strings.Count(before, "\r")
		for _, k := range []int{0, 1, 4096 - len(before), len(line), full - 1, full} {
			d := newDir(t)
			buf := killedWriter(t, d, before, line, k)
			want := before
			if k == len(buf) {
				want = before + buf
			}
			if got := readLog(t, d); got != want {
				t.Errorf("before %q, torn at %d: readers read %d bytes, want %d", before, k, len(got), len(want))
			}
			if note := d.TornTail(); (note != "") != (k > 0 && k < len(buf)) || (note != "" && !strings.Contains(note, strconv.Itoa(k)+" byte(s)")) {
				t.Errorf("before %q, torn at %d: TornTail = %q", before, k, note)
			}
			unlock, err := d.Lock()
			if err != nil {
				t.Fatal(err)
			}
			unlock()
			if got, _ := os.ReadFile(d.Path(pactfile.LogFile)); string(got) != want {
				t.Errorf("before %q, torn at %d: the next writer left %d bytes, want %d", before, k, len(got), len(want))
			}
			if _, err := os.Lstat(d.Path(intentName)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("before %q, torn at %d: the record is left (%v)", before, k, err)
			}
		}
	}
	// Ends that are not a torn append of the record: left as they are.
	for _, c := range []struct{ name, log string }{
		{"another unterminated end", "{\"event_id\":\"e1\"}\n{\"event_id\":\"zz"},
		{"a hand edit after the record's size", "{\"event_id\":\"e1\"}\nnotes"},
		{"the end moved", "{\"event_id\":\"e0\"}\n{\"event_id\":\"e1\"}\n{\"event_id\":\"e2"},
	} {
		d := newDir(t)
		killedWriter(t, d, "{\"event_id\":\"e1\"}\n", line, 10)
		if err := os.WriteFile(d.Path(pactfile.LogFile), []byte(c.log), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := readLog(t, d); got != c.log {
			t.Errorf("%s: readers read %q", c.name, got)
		}
		unlock, err := d.Lock()
		if err != nil {
			t.Fatal(err)
		}
		unlock()
		if got, _ := os.ReadFile(d.Path(pactfile.LogFile)); string(got) != c.log {
			t.Errorf("%s: the next writer left %q", c.name, got)
		}
		if err := d.appendLine([]byte(`{"event_id":"e3"}`)); !errors.Is(err, errUnterminated) {
			t.Errorf("%s: an append = %v, want it refused as unterminated", c.name, err)
		}
	}
}

// TestTornAppendKilled kills a process in the middle of appendLine's
// write, after part of the line is in the log (as a SIGKILL at a page
// boundary does): readers read the log as it was, and the next append
// cuts the part back and adds its own line after the old ones.
func TestTornAppendKilled(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	before := "{\"event_id\":\"e1\"}\n"
	if err := os.WriteFile(d.Path(pactfile.LogFile), []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTornAppendChild$")
	cmd.Env = append(os.Environ(), "PACTDIR_TEAR_IN="+d.Root)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 9 {
		t.Fatalf("the child did not die in its write: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(d.Path(pactfile.LogFile)); !strings.HasPrefix(string(got), before) || len(got) == len(before) || strings.HasSuffix(string(got), "\n") {
		t.Fatalf("the child left no torn line: %q", got)
	}
	if got := readLog(t, d); got != before {
		t.Fatalf("readers read %q, want the log as it was", got)
	}
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if err := d.appendLine([]byte(`{"event_id":"e3"}`)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(d.Path(pactfile.LogFile)); string(got) != before+"{\"event_id\":\"e3\"}\n" {
		t.Fatalf("after the next append the log is %q", got)
	}
}

// TestTornAppendChild is TestTornAppendKilled's child: it appends a line
// and dies half-way through the write.
func TestTornAppendChild(t *testing.T) { // not parallel: it swaps the seams
	root := os.Getenv("PACTDIR_TEAR_IN")
	if root == "" {
		t.Skip("run by TestTornAppendKilled")
	}
	writeFile = func(f *os.File, b []byte) (int, error) {
		_, _ = f.Write(b[:len(b)/2])
		os.Exit(9)
		return 0, nil
	}
	d := Dir{Root: root, Name: ".pact"}
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	_ = d.appendLine([]byte(`{"event_id":"e2","x":"` + strings.Repeat("y", 9000) + `"}`))
	t.Fatal("the append returned")
}

// TestIntentNameTaken: whatever is at the record's name (it lives in a
// directory anyone can commit to) is never written through: a link there
// is replaced, its target left as it was; a directory there refuses the
// append, the log as it was.
func TestIntentNameTaken(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	if err := os.WriteFile(d.Path(pactfile.LogFile), []byte("{\"event_id\":\"e1\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	victim := d.Path("victim.txt")
	if err := os.WriteFile(victim, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, d.Path(intentName)); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := d.appendLine([]byte(`{"event_id":"e2"}`)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "mine\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	if _, err := os.Lstat(d.Path(intentName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("something is left at the record's name: %v", err)
	}
	if err := os.Mkdir(d.Path(intentName), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.Path(intentName, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := d.appendLine([]byte(`{"event_id":"e3"}`))
	if err == nil || !strings.Contains(err.Error(), nothingRecorded) {
		t.Errorf("an append with a directory at the record's name = %v, want a refusal saying nothing was recorded", err)
	}
	t.Logf("with a directory at the record's name: %v", err)
	if b, _ := os.ReadFile(d.Path(pactfile.LogFile)); string(b) != "{\"event_id\":\"e1\"}\n{\"event_id\":\"e2\"}\n" {
		t.Errorf("the log is %q", b)
	}
}

// killAtStep makes the seams of an append and of its recovery end the
// process (exit code 9, as a SIGKILL leaves no chance to clean up) at
// their step-th step, counting from 1: before and after each call, and
// half-way through each write (the line's or the record's), which is what
// a kill at a page boundary leaves.
func killAtStep(step int) {
	n := 0
	at := func() {
		if n++; n == step {
			os.Exit(9)
		}
	}
	halves := func(write func(*os.File, []byte) (int, error)) func(*os.File, []byte) (int, error) {
		return func(f *os.File, b []byte) (int, error) {
			at()
			m, err := write(f, b[:len(b)/2])
			if err != nil {
				return m, err
			}
			at()
			k, err := write(f, b[len(b)/2:])
			at()
			return m + k, err
		}
	}
	write, sync, truncate, remove := writeFile, syncFile, truncateFile, removeIntent
	writeFile, writeIntent = halves(write), halves(writeIntent)
	syncFile = func(f *os.File) error { at(); err := sync(f); at(); return err }
	truncateFile = func(f *os.File, size int64) error { at(); err := truncate(f, size); at(); return err }
	removeIntent = func(dir *os.Root, name string) error { at(); err := remove(dir, name); at(); return err }
}

// TestTornKillEveryStep kills a writer at every step of its append (the
// record's write, the line's, the sync, the record's removal) and of the
// recovery of a torn append (the cut, its sync, the record's removal), on
// an empty log, an LF one and a CRLF one: readers read the log as it was
// or with the whole line, never part of it, and the next writer cuts back
// what is left, appends its own line after the old ones and leaves no
// record or temporary file.
func TestTornKillEveryStep(t *testing.T) {
	t.Parallel()
	line := `{"event_id":"e2","x":"` + strings.Repeat("y", 9000) + `"}`
	for _, mode := range []string{"append", "recover"} {
		for _, before := range []string{"", "{\"event_id\":\"e1\"}\n", "{\"event_id\":\"e1\"}\r\n"} {
			nl := "\n"
			if strings.HasSuffix(before, "\r\n") {
				nl = "\r\n"
			}
			buf := line + nl
			finished, step := false, 1
			for ; step < 100 && !finished; step++ {
				d := newDir(t)
				if err := os.WriteFile(d.Path(pactfile.LogFile), []byte(before), 0o644); err != nil {
					t.Fatal(err)
				}
				if mode == "recover" {
					killedWriter(t, d, before, line, len(buf)/2)
				}
				cmd := exec.Command(os.Args[0], "-test.run=^TestTornKillStepChild$")
				cmd.Env = append(os.Environ(), "PACTDIR_KILL_IN="+d.Root, "PACTDIR_KILL_MODE="+mode, "PACTDIR_KILL_STEP="+strconv.Itoa(step))
				out, err := cmd.CombinedOutput()
				var exit *exec.ExitError
				switch {
				case err == nil:
					finished = true // no step left to kill it at
				case !errors.As(err, &exit) || exit.ExitCode() != 9:
					t.Fatalf("%s on %q, step %d: the child failed: %v\n%s", mode, before, step, err, out)
				}
				what := fmt.Sprintf("%s on %q, killed at step %d", mode, before, step)
				read := readLog(t, d)
				if read != before && (mode == "recover" || read != before+buf) {
					t.Fatalf("%s: readers read %d bytes, want %d (as it was) or %d (with the line)", what, len(read), len(before), len(before)+len(buf))
				}
				unlock, err := d.Lock()
				if err != nil {
					t.Fatal(err)
				}
				err = d.appendLine([]byte(`{"event_id":"e3"}`))
				unlock()
				if err != nil {
					t.Fatalf("%s: the next writer: %v", what, err)
				}
				if got, _ := os.ReadFile(d.Path(pactfile.LogFile)); string(got) != read+"{\"event_id\":\"e3\"}"+nl {
					t.Fatalf("%s: after the next writer the log is %.80q…, want what readers read and its line", what, got)
				}
				for _, name := range listDir(t, d.Path()) {
					if strings.Contains(name, tempMark) {
						t.Fatalf("%s: the next writer left %s", what, name)
					}
				}
			}
			if !finished {
				t.Fatalf("%s on %q: the child never finished", mode, before)
			}
			t.Logf("%s on %q: killed at each of %d steps", mode, before, step-2)
		}
	}
}

// TestTornKillStepChild is TestTornKillEveryStep's child: it takes the
// lock (recovering what a killed writer left) and, in mode append, appends
// a line, dying at the step it is given (killAtStep).
func TestTornKillStepChild(t *testing.T) { // not parallel: it swaps the seams
	root := os.Getenv("PACTDIR_KILL_IN")
	if root == "" {
		t.Skip("run by TestTornKillEveryStep")
	}
	step, err := strconv.Atoi(os.Getenv("PACTDIR_KILL_STEP"))
	if err != nil {
		t.Fatal(err)
	}
	killAtStep(step)
	d := Dir{Root: root, Name: ".pact"}
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if os.Getenv("PACTDIR_KILL_MODE") == "append" {
		if err := d.appendLine([]byte(`{"event_id":"e2","x":"` + strings.Repeat("y", 9000) + `"}`)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTornRecordFaults makes the record's write, its removal, and the cut
// back of a failed or torn append fail: a failed append leaves the log
// byte for byte as it was and says why, in one lowercase sentence, and
// that nothing was recorded; whatever a failure leaves, readers read the
// log as it was or with the whole line, and the next writer, once the
// fault is gone, appends after it and leaves no record.
func TestTornRecordFaults(t *testing.T) { // not parallel: it swaps the seams
	const before = "{\"event_id\":\"e1\"}\n"
	const line = `{"event_id":"e2"}`
	partial := func(err error) func(*os.File, []byte) (int, error) {
		return func(f *os.File, b []byte) (int, error) {
			n, _ := f.Write(b[:len(b)/2])
			return n, err
		}
	}
	failRemove := func(*os.Root, string) error { return syscall.EACCES }
	for _, c := range []struct {
		name     string
		intent   func(*os.File, []byte) (int, error)
		write    func(*os.File, []byte) (int, error)
		remove   func(*os.Root, string) error
		truncate error
		locked   bool   // the fault lasts into the next writer's lock
		want     string // in the error; "" for none
		read     string // what readers read after it
	}{
		{name: "record: no space", intent: partial(syscall.ENOSPC), want: "append to .pact/log.jsonl: no space is left"},
		{name: "record: file too large", intent: partial(syscall.EFBIG), want: "file-size limit"},
		{name: "record: i/o error", intent: partial(syscall.EIO), want: "input/output error"},
		{name: "record: short count", intent: func(f *os.File, b []byte) (int, error) { return f.Write(b[:1]) }, want: "short write"},
		{name: "record: no space, its removal fails", intent: partial(syscall.ENOSPC), remove: failRemove, want: "no space is left"},
		{name: "removal after the append fails", remove: failRemove, read: before + line + "\n"},
		{name: "removal fails into the next lock", remove: failRemove, locked: true, read: before + line + "\n"},
		{name: "write fails, its cut back too", write: partial(syscall.ENOSPC), truncate: syscall.EIO, want: "part of the line may remain"},
		{name: "write fails, its cut back and the next one too", write: partial(syscall.ENOSPC), truncate: syscall.EIO, locked: true, want: "part of the line may remain"},
	} {
		d := newDir(t)
		if err := os.WriteFile(d.Path(pactfile.LogFile), []byte(before), 0o644); err != nil {
			t.Fatal(err)
		}
		saved := [...]any{writeIntent, writeFile, removeIntent, truncateFile}
		restore := func() {
			writeIntent = saved[0].(func(*os.File, []byte) (int, error))
			writeFile = saved[1].(func(*os.File, []byte) (int, error))
			removeIntent = saved[2].(func(*os.Root, string) error)
			truncateFile = saved[3].(func(*os.File, int64) error)
		}
		if c.intent != nil {
			writeIntent = c.intent
		}
		if c.write != nil {
			writeFile = c.write
		}
		if c.remove != nil {
			removeIntent = c.remove
		}
		if c.truncate != nil {
			truncateFile = func(*os.File, int64) error { return c.truncate }
		}
		unlock, err := d.Lock()
		if err != nil {
			restore()
			t.Fatal(err)
		}
		err = d.appendLine([]byte(line))
		unlock()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "nothing was recorded") && c.truncate == nil):
			t.Errorf("%s: %v; want it to say %q and that nothing was recorded", c.name, err, c.want)
		case err != nil && (strings.ToLower(err.Error()[:1]) != err.Error()[:1] || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s: %q is not one lowercase sentence", c.name, err)
		}
		if err != nil {
			t.Logf("%s: %v", c.name, err)
		}
		want := c.read
		if want == "" {
			want = before
		}
		if c.truncate == nil && c.want != "" {
			if b, _ := os.ReadFile(d.Path(pactfile.LogFile)); string(b) != before {
				t.Errorf("%s: the log is %q, want it byte for byte as it was", c.name, b)
			}
		}
		if got := readLog(t, d); got != want {
			t.Errorf("%s: readers read %q, want %q", c.name, got, want)
		}
		if !c.locked {
			restore()
		}
		unlock, err = d.Lock()
		if err != nil {
			restore()
			t.Fatal(err)
		}
		if got := readLog(t, d); got != want {
			t.Errorf("%s: after the next lock readers read %q, want %q", c.name, got, want)
		}
		err = d.appendLine([]byte(`{"event_id":"e3"}`))
		unlock()
		if c.locked {
			restore()
		}
		if c.locked && err != nil {
			// Refused while the fault lasts, as the next writer once
			// it is gone must not be.
			t.Logf("%s: the next writer, the fault lasting: %v", c.name, err)
			if unlock, err = d.Lock(); err != nil {
				t.Fatal(err)
			}
			err = d.appendLine([]byte(`{"event_id":"e3"}`))
			unlock()
		}
		if err != nil {
			t.Errorf("%s: the next writer: %v", c.name, err)
		}
		if b, _ := os.ReadFile(d.Path(pactfile.LogFile)); string(b) != want+"{\"event_id\":\"e3\"}\n" {
			t.Errorf("%s: after the next writer the log is %q", c.name, b)
		}
		if c.locked {
			// A writer under a lasting fault may leave its own record
			// (of a whole line): the first one after it takes it away.
			if unlock, err = d.Lock(); err != nil {
				t.Fatal(err)
			}
			unlock()
		}
		if _, err := os.Lstat(d.Path(intentName)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the next writer left the record (%v)", c.name, err)
		}
	}
}

// TestTornRacingWriters: after a writer was killed in its write, two
// writers race for the lock while readers read: the first cuts the part
// back, both lines follow the old ones whole, readers never read the part
// or half a line, and no record is left. A ReplaceLog (pactify resolve)
// after the kill replaces the log whole, leaving no record either.
func TestTornRacingWriters(t *testing.T) {
	t.Parallel()
	const before = "{\"event_id\":\"e1\"}\n"
	line := `{"event_id":"e2","x":"` + strings.Repeat("y", 5000) + `"}`
	d := newDir(t)
	killedWriter(t, d, before, line, 4096-len(before))
	done := make(chan struct{})
	readErr := make(chan error, 1)
	go func() {
		defer close(readErr)
		for {
			select {
			case <-done:
				return
			default:
			}
			f, _, err := d.OpenLog()
			if err != nil {
				readErr <- err
				return
			}
			b, err := io.ReadAll(f)
			_ = f.Close()
			if err == nil && (!strings.HasPrefix(string(b), before) || !strings.HasSuffix(string(b), "\n")) {
				err = fmt.Errorf("readers read %q", b)
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for _, id := range []string{"e3", "e4"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock, err := d.Lock()
			if err != nil {
				t.Error(err)
				return
			}
			defer unlock()
			if err := d.appendLine([]byte(`{"event_id":"` + id + `"}`)); err != nil {
				t.Errorf("writer of %s: %v", id, err)
			}
		}()
	}
	wg.Wait()
	close(done)
	if err := <-readErr; err != nil {
		t.Error(err)
	}
	got, _ := os.ReadFile(d.Path(pactfile.LogFile))
	if a, b := before+"{\"event_id\":\"e3\"}\n{\"event_id\":\"e4\"}\n", before+"{\"event_id\":\"e4\"}\n{\"event_id\":\"e3\"}\n"; string(got) != a && string(got) != b {
		t.Errorf("after two racing writers the log is %.200q", got)
	}
	if _, err := os.Lstat(d.Path(intentName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the writers left the record (%v)", err)
	}

	d = newDir(t)
	killedWriter(t, d, before, line, 10)
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	err = d.ReplaceLog(func(w io.Writer) error { _, err := io.WriteString(w, "{\"event_id\":\"m\"}\n"); return err }, projection.NewState())
	unlock()
	if err != nil {
		t.Fatal(err)
	}
	if got := readLog(t, d); got != "{\"event_id\":\"m\"}\n" {
		t.Errorf("after ReplaceLog readers read %q", got)
	}
	for _, name := range listDir(t, d.Path()) {
		if strings.Contains(name, tempMark) {
			t.Errorf("ReplaceLog after a kill left %s", name)
		}
	}
}

// TestIntentInRepository: a pact in a git repository keeps its record in
// the git directory, where no commit puts one. A file at .pact's
// intentName, which a commit can carry (git add -f), is never read: the
// check reads the log from git objects, whole, so readers read it whole
// too, and the next writer leaves the log and that file as they are. The
// writer's own record, there, is honoured as in TestTornAppend.
func TestIntentInRepository(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	if err := os.Mkdir(filepath.Join(d.Root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := "{\"event_id\":\"e1\"}\n"
	line := "{\"event_id\":\"e2\"}"
	rec := encodeIntent(int64(len(before)), []byte(line+"\n"))
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lock := func() {
		t.Helper()
		unlock, err := d.Lock()
		if err != nil {
			t.Fatal(err)
		}
		unlock()
	}
	write(d.Path(intentName), string(rec))
	write(d.Path(pactfile.LogFile), before+line)
	if got := readLog(t, d); got != before+line {
		t.Errorf("with a committed record readers read %q, want the whole log", got)
	}
	lock()
	if got, _ := os.ReadFile(d.Path(pactfile.LogFile)); string(got) != before+line {
		t.Errorf("with a committed record the next writer left the log %q", got)
	}
	if got, _ := os.ReadFile(d.Path(intentName)); !bytes.Equal(got, rec) {
		t.Errorf("the next writer changed the committed record: %q", got)
	}

	// The writer's own record, in the git directory.
	pact, err := os.OpenRoot(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer pact.Close()
	dir, name, _, done, err := d.intentDir(pact, true)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if !strings.HasPrefix(filepath.Join(dir.Name(), name), filepath.Join(d.Root, ".git")+string(filepath.Separator)) {
		t.Fatalf("the record of a pact in a repository is at %s, not in its git directory", filepath.Join(dir.Name(), name))
	}
	write(filepath.Join(dir.Name(), name), string(rec))
	write(d.Path(pactfile.LogFile), before+line[:5])
	if got := readLog(t, d); got != before {
		t.Errorf("with the writer's record readers read %q, want %q", got, before)
	}
	lock()
	if got, _ := os.ReadFile(d.Path(pactfile.LogFile)); string(got) != before {
		t.Errorf("the next writer left the log %q, want %q", got, before)
	}
	if _, err := dir.Lstat(name); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the writer's record is left (%v)", err)
	}
	// An append leaves no record, there or in .pact.
	if err := os.Remove(d.Path(intentName)); err != nil {
		t.Fatal(err)
	}
	if err := d.appendLine([]byte(line)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir.Name(), name), d.Path(intentName)} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("an append left %s (%v)", p, err)
		}
	}
}

// TestTornTailLiveWriter: part of a line a writer holding the lock is in
// the middle of writing is no killed writer's, so TornTail says nothing
// of it; once the lock is let go (the writer killed), it says so.
func TestTornTailLiveWriter(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	before := "{\"event_id\":\"e1\"}\n"
	if err := os.WriteFile(d.Path(pactfile.LogFile), []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	killedWriter(t, d, before, `{"event_id":"e2"}`, 5)
	note := d.TornTail()
	unlock()
	if note != "" {
		t.Errorf("TornTail while a writer holds the lock = %q, want nothing", note)
	}
	if note := d.TornTail(); !strings.Contains(note, "5 byte(s)") {
		t.Errorf("TornTail once the writer is gone = %q, want the 5 bytes it left", note)
	}
}
