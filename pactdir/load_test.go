package pactdir

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
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
