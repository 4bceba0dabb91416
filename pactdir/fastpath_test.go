package pactdir

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/loggen"
	"github.com/pact-action/pact-action/internal/testkit/loggen/repogen"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// TestFastPathsAgreeWithChecks: on the same file, each fast path of Load
// gives the verdict of the check it short-cuts. driftFastPath's match means
// checks.Drift finds nothing, and taskFileFastPath's match means
// checks.TaskFiles finds nothing for the task; where they do not match,
// they hand the check the whole file, so its verdict is the full check's.
func TestFastPathsAgreeWithChecks(t *testing.T) {
	t.Parallel()
	d := Dir{Root: t.TempDir(), Name: ".pact"}
	if _, err := repogen.Write(d.Root, loggen.Config{Lines: 600, Seed: 7}, repogen.Options{}); err != nil {
		t.Fatal(err)
	}
	_, res, err := d.LoadReplay(nil)
	if err != nil {
		t.Fatal(err)
	}
	st := res.State
	pact, err := d.openPact(false)
	if err != nil {
		t.Fatal(err)
	}
	defer pact.Close()
	put := func(path string, b []byte) {
		t.Helper()
		if b == nil {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			return
		}
		write(t, path, b)
	}

	render := projection.RenderBytes(st)
	crlf := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) }
	states := map[string][]byte{
		"as rendered":               render,
		"missing":                   nil,
		"empty":                     {},
		"CRLF":                      crlf(render),
		"a comment after":           append(bytes.Clone(render), "# a comment\n"...),
		"quoted, same meaning":      bytes.ReplaceAll(render, []byte("status: accepted"), []byte("status: 'accepted'")),
		"drifted":                   bytes.Replace(render, []byte("status: accepted"), []byte("status: in_progress"), 1),
		"cut in half":               render[:len(render)/2],
		"one line break more":       append(bytes.Clone(render), '\n'),
		"not YAML":                  append(bytes.Clone(render), "tasks: [\n"...),
		"the last byte differs":     append(bytes.Clone(render[:len(render)-1]), ' '),
		"another project, same len": bytes.Replace(render, []byte("project: "), []byte("project:\t"), 1),
	}
	statePath := d.Display(pactfile.StateFile)
	for name, b := range states {
		put(d.Path(pactfile.StateFile), b)
		matched, got, err := d.driftFastPath(context.Background(), pact, st)
		if err != nil {
			t.Fatalf("STATE.yml %s: %v", name, err)
		}
		var fast []checks.Finding
		if !matched {
			fast = checks.Drift(statePath, got, st)
			if !bytes.Equal(got, b) || (got == nil) != (b == nil) {
				t.Errorf("STATE.yml %s: the fast path hands checks.Drift %d bytes of the file's %d", name, len(got), len(b))
			}
		}
		if full := checks.Drift(statePath, b, st); !reflect.DeepEqual(fast, full) {
			t.Errorf("STATE.yml %s: fast path (matched %v) gives %v, checks.Drift %v", name, matched, fast, full)
		}
		if matched != bytes.Equal(b, render) || (matched && b == nil) {
			t.Errorf("STATE.yml %s: matched %v", name, matched)
		}
	}

	tasks, err := openDir(pact, pactfile.TasksDir, d.Display(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer tasks.Close()
	open := openPortable(tasks)
	task := st.TaskList()[0]
	fm := task.FrontMatter()
	written := pactfile.TaskFile(fm, nil)
	other := fm
	other.Owner = "gemini-pro"
	long := fm
	long.Feature = strings.Repeat("F", 2*taskFilePrefix) // its front matter is longer than the first read
	files := map[string][]byte{
		"as written":            written,
		"with a long body":      append(bytes.Clone(written), strings.Repeat("a handoff log\n", 100)...),
		"missing":               nil,
		"empty":                 {},
		"CRLF":                  crlf(written),
		"a BOM":                 append([]byte(pactfile.BOM), written...),
		"keys reordered":        []byte("---\nreviewer: " + fm.Reviewer + "\nowner: '" + fm.Owner + "'\nid: " + fm.ID + "\nfeature: " + fm.Feature + "\n---\nbody\n"),
		"another owner":         pactfile.TaskFile(other, nil),
		"no front matter":       []byte("## Spec\n\nno front matter\n"),
		"cut":                   written[:20],
		"not YAML":              []byte("---\nid: [\n---\n"),
		"a long front matter":   pactfile.TaskFile(long, nil),
		"the last byte differs": append(bytes.Clone(written[:len(written)-1]), 'x'),
	}
	name := pactfile.TaskFileName(task.ID)
	for what, b := range files {
		put(d.Path(pactfile.TasksDir, name), b)
		got, matched, err := taskFileFastPath(open, name, d.Display(pactfile.TasksDir), make([]byte, taskFilePrefix), task)
		if err != nil {
			t.Fatalf("task file %s: %v", what, err)
		}
		// Every other task has no file in either judgement: the same
		// findings on both sides.
		fast := checks.Input{Dir: d.Display(), TaskFiles: map[string][]byte{}, TaskFilesMatched: map[string]bool{}}
		if matched {
			fast.TaskFilesMatched[task.ID] = true
		} else {
			fast.TaskFiles[task.ID] = got
			if !bytes.Equal(got, b) || (got == nil) != (b == nil) {
				t.Errorf("task file %s: the fast path hands checks.TaskFiles %d bytes of the file's %d", what, len(got), len(b))
			}
		}
		full := checks.Input{Dir: d.Display(), TaskFiles: map[string][]byte{task.ID: b}}
		if g, w := checks.TaskFiles(fast, st), checks.TaskFiles(full, st); !reflect.DeepEqual(g, w) {
			t.Errorf("task file %s: fast path (matched %v) gives %v, checks.TaskFiles %v", what, matched, g, w)
		}
		if matched && !bytes.HasPrefix(b, written[:bytes.Index(written[4:], []byte("---\n"))+8]) {
			t.Errorf("task file %s: matched a file that does not begin with the front matter pactify writes", what)
		}
	}
}
