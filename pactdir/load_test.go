package pactdir

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// verdict is a Prejudge that passes everything or nothing, and counts
// what it was shown.
type verdict struct {
	pass  bool
	shown int
}

func (v *verdict) State(r io.Reader, _ *projection.State) (bool, error) {
	n, err := io.Copy(io.Discard, r)
	v.shown += int(n)
	return v.pass, err
}

func (v *verdict) TaskFile(prefix []byte, _ *projection.Task) bool {
	v.shown = len(prefix)
	return v.pass
}

// TestLoadKeepsWhatPrejudgeDoesNotPass: the loader holds no file its
// Prejudge passes, and hands every other one on whole (nil when absent),
// however long: the rule then judges exactly what a full read gives it.
func TestLoadKeepsWhatPrejudgeDoesNotPass(t *testing.T) {
	t.Parallel()
	d := newDir(t)
	pact, err := d.openPact(false)
	if err != nil {
		t.Fatal(err)
	}
	defer pact.Close()
	tasks, err := openDir(pact, pactfile.TasksDir, d.Display(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer tasks.Close()
	files := map[string][]byte{
		"missing": nil,
		"empty":   {},
		"short":   []byte("---\nid: T1\n---\n"),
		"long":    []byte(strings.Repeat("a line of a task file\n", 3*taskFilePrefix)),
		"exactly": bytes.Repeat([]byte("x"), taskFilePrefix),
	}
	name := pactfile.TaskFileName("T1")
	for what, b := range files {
		for _, pass := range []bool{false, true} {
			if b == nil {
				for _, p := range []string{d.Path(pactfile.StateFile), d.Path(pactfile.TasksDir, name)} {
					if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
						t.Fatal(err)
					}
				}
			} else {
				write(t, d.Path(pactfile.StateFile), b)
				write(t, d.Path(pactfile.TasksDir, name), b)
			}
			v := &verdict{pass: pass}
			matched, got, err := d.readState(context.Background(), pact, nil, v)
			if err != nil {
				t.Fatal(err)
			}
			if wantMatched := pass && b != nil; matched != wantMatched || (matched && got != nil) || (!matched && (!bytes.Equal(got, b) || (got == nil) != (b == nil))) {
				t.Errorf("STATE.yml %s, prejudge passing %v: matched %v with %d bytes of the file's %d", what, pass, matched, len(got), len(b))
			}
			if b != nil && v.shown != len(b) {
				t.Errorf("STATE.yml %s: the prejudge was shown %d bytes of %d", what, v.shown, len(b))
			}
			v = &verdict{pass: pass}
			got, matched, err = readTaskFile(openPortable(tasks), name, d.Display(pactfile.TasksDir), make([]byte, taskFilePrefix), func(p []byte) bool { return v.TaskFile(p, nil) })
			if err != nil {
				t.Fatal(err)
			}
			if wantMatched := pass && len(b) > 0; matched != wantMatched || (matched && got != nil) || (!matched && (!bytes.Equal(got, b) || (got == nil) != (b == nil))) {
				t.Errorf("task file %s, prejudge passing %v: matched %v with %d bytes of the file's %d", what, pass, matched, len(got), len(b))
			}
		}
	}
}
