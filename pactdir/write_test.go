package pactdir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// snapshot is every file under dir with its content, directories as "/".
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range listDir(t, dir) {
		p := dir + string(os.PathSeparator) + name
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.IsDir() {
			out[name] = "/"
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = string(b)
	}
	return out
}

func sameTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s = %.60q, want %.60q", what, k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s is new", what, k)
		}
	}
}

// recordable is a pact of one assigned task whose assign of T2 (line, and
// the state and task with it applied) Record is to write.
func recordable(t *testing.T) (d Dir, line []byte, st *projection.State, task *projection.Task) {
	t.Helper()
	return recordableAfter(t, 0)
}

// recordableAfter is recordable with extra tasks assigned before T1; with
// any, STATE.yml is that of the log as it is (so that the render of the
// new state equals it up to its last tasks), else that of an empty state.
// At 2048 tasks and more the render of STATE.yml is in ranges on several
// workers.
func recordableAfter(t *testing.T, extra int) (d Dir, line []byte, st *projection.State, task *projection.Task) {
	t.Helper()
	d = newDir(t)
	base := e2e.NewLog()
	for i := range extra {
		base.Assign(fmt.Sprintf("A%d", i), fmt.Sprintf("G%d", i/3), "b", "dev", "rev")
	}
	base.Assign("T1", "F", "b", "dev", "rev")
	if err := os.WriteFile(d.Path(pactfile.LogFile), []byte(base.Text()), 0o644); err != nil {
		t.Fatal(err)
	}
	old := projection.NewState()
	if extra > 0 {
		_, res := projection.ReadBytes([]byte(base.Text()), projection.ReadOptions{})
		old = res.State
	}
	if err := d.WriteState(old); err != nil {
		t.Fatal(err)
	}
	longer := base.Assign("T2", "F", "b", "dev", "rev")
	_, res := projection.ReadBytes([]byte(longer.Text()), projection.ReadOptions{})
	return d, []byte(longer.Lines[len(longer.Lines)-1]), res.State, res.State.Tasks["T2"]
}

// TestRecordAllOrNothing: a failure before the line is in the log (the
// write cut off, the fsync refused) leaves every file as it was, a task
// file that was there included, and no temporary file; success writes the
// log, STATE.yml and the task file.
func TestRecordAllOrNothing(t *testing.T) { // not parallel: it swaps the seams
	for _, fail := range []string{"write", "sync", "unterminated"} {
		for _, c := range []struct {
			existing bool
			extra    int
		}{{false, 0}, {true, 0}, {true, largePact}} {
			existing := c.existing
			t.Run(fmt.Sprintf("%s/existing=%v/tasks=%d", fail, existing, c.extra+2), func(t *testing.T) {
				d, line, st, task := recordableAfter(t, c.extra)
				if existing {
					if err := os.WriteFile(d.Path(pactfile.TasksDir, "T2.md"), []byte("# my notes\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				recordWrites(t)
				switch fail {
				case "write":
					writeFile = func(f *os.File, b []byte) (int, error) {
						n, _ := f.Write(b[:len(b)/2])
						return n, syscall.ENOSPC
					}
				case "sync":
					syncFile = func(*os.File) error { return syscall.EIO }
					savedTruncate := truncateFile
					t.Cleanup(func() { truncateFile = savedTruncate })
					// The fsync fails, so the cut back must not need one to
					// be seen: check the bytes.
				case "unterminated":
					f, err := os.OpenFile(d.Path(pactfile.LogFile), os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					_, _ = f.WriteString(`{"event_id":"torn`)
					_ = f.Close()
				}
				before := snapshot(t, d.Path())
				appended, _, err := d.recordAs(line, st, task)
				if appended || err == nil {
					t.Fatalf("Record = %v, %v; want a failure before the append", appended, err)
				}
				if fail != "sync" && !strings.Contains(err.Error(), "nothing was recorded") {
					t.Errorf("error %q does not say nothing was recorded", err)
				}
				sameTree(t, "after a failed Record", snapshot(t, d.Path()), before)
			})
		}
	}
	d, line, st, task := recordable(t)
	if appended, _, err := d.recordAs(line, st, task); !appended || err != nil {
		t.Fatalf("Record = %v, %v", appended, err)
	}
	after := snapshot(t, d.Path())
	if !strings.HasSuffix(after[pactfile.LogFile], string(line)+"\n") || !strings.Contains(after[pactfile.StateFile], "T2") ||
		!strings.Contains(after["tasks/T2.md"], "T2") {
		t.Errorf("after Record: %v", after)
	}
	for name := range after {
		if strings.Contains(name, tempMark) {
			t.Errorf("temporary file left: %s", name)
		}
	}
}

// largePact is how many tasks a pact of the fault tests has when its
// STATE.yml must be rendered in ranges on several workers (projection's
// render plan: ranges of 1024 tasks, workers from two ranges on).
const largePact = 3000

// cutWriter passes its writes on until the k-th (from 1) or until room
// bytes are written, whichever comes first; there it writes what fits of
// room and fails as a full disk does, and so does every write after it.
type cutWriter struct {
	w              io.Writer
	k, room, calls int
}

func (c *cutWriter) Write(p []byte) (int, error) {
	c.calls++
	if c.calls >= c.k || c.room < len(p) {
		n, err := c.w.Write(p[:max(0, min(c.room, len(p)))])
		c.room = -1
		if err == nil {
			err = syscall.ENOSPC
		}
		return n, err
	}
	c.room -= len(p)
	return c.w.Write(p)
}

// TestWriteStateFailsAnywhere: the STATE.yml of a pact large enough to be
// rendered in ranges on several workers, its render failing at any of its
// writes or after any number of bytes, whatever STATE.yml was (absent, an
// older pact's, one of other bytes, the new one itself), leaves STATE.yml
// byte for byte as it was and no temporary file, and says so; without the
// fault it is written whole.
func TestWriteStateFailsAnywhere(t *testing.T) {
	t.Parallel()
	d, _, st, _ := recordableAfter(t, largePact)
	want := projection.RenderBytes(st)
	older, err := os.ReadFile(d.Path(pactfile.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	writes := 0
	if err := projection.Render(writerFunc(func(p []byte) (int, error) { writes++; return len(p), nil }), st); err != nil || writes < 4 {
		t.Fatalf("the render of %d tasks: %v, in %d writes", len(st.TaskOrder), err, writes)
	}
	otherBytes := append([]byte(nil), want...)
	otherBytes[len(otherBytes)/3] ^= 0x20
	olds := map[string][]byte{"absent": nil, "an older pact's": older, "other bytes": otherBytes, "the new one": want,
		"the new one and more": append(append([]byte(nil), want...), "extra: 1\n"...)}
	var faults []cutWriter
	for k := 1; k <= writes; k++ {
		faults = append(faults, cutWriter{k: k, room: len(want)})
	}
	for room := 0; room < len(want); room += len(want)/23 + 1 {
		faults = append(faults, cutWriter{k: writes + 1, room: room})
	}
	faults = append(faults, cutWriter{k: writes + 1, room: len(want) - 1})
	pact, err := d.openPact(false)
	if err != nil {
		t.Fatal(err)
	}
	defer pact.Close()
	for name, old := range olds {
		put := func() {
			t.Helper()
			if old == nil {
				if err := os.Remove(d.Path(pactfile.StateFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(d.Path(pactfile.StateFile), old, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, fault := range faults {
			put()
			before := snapshot(t, d.Path())
			err := replace(pact, pactfile.StateFile, "STATE.yml", func(w io.Writer) error {
				fault.w = w
				return projection.Render(&fault, st)
			})
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("STATE.yml %s, the render cut at write %d or byte %d: %v", name, fault.k, fault.room, err)
			}
			sameTree(t, fmt.Sprintf("STATE.yml %s, the render cut at write %d or byte %d", name, fault.k, fault.room), snapshot(t, d.Path()), before)
		}
		put()
		if err := d.WriteState(st); err != nil {
			t.Fatalf("STATE.yml %s: %v", name, err)
		}
		if got, err := os.ReadFile(d.Path(pactfile.StateFile)); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("STATE.yml %s, written without a fault: %d bytes of %d (%v)", name, len(got), len(want), err)
		}
	}
	t.Logf("%d tasks, STATE.yml of %d bytes in %d writes: %d faults on each of %d STATE.yml", len(st.TaskOrder), len(want), writes, len(faults), len(olds))
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

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
