package checks

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/internal/testkit/loggen"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// TestFastPathsAgreeWithChecks: on the same file, each pre-judgement a
// loader asks gives the verdict of the rule it short-cuts. FastPaths.State
// passing a STATE.yml means Drift finds nothing, and FastPaths.TaskFile
// passing a task file's start (any start a loader may have read) means
// TaskFiles finds nothing for the task; where they do not pass, the loader
// hands the rule the whole file, so its verdict is the full rule's.
func TestFastPathsAgreeWithChecks(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	if _, err := loggen.Write(&log, loggen.Config{Lines: 600, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	_, res := projection.ReadBytes(log.Bytes(), projection.ReadOptions{})
	st := res.State
	fast := FastPaths{}

	render := projection.RenderBytes(st)
	crlf := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) }
	states := map[string][]byte{
		"as rendered":               render,
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
	const statePath = ".pact/STATE.yml"
	for name, b := range states {
		matched, err := fast.State(bytes.NewReader(b), st)
		if err != nil {
			t.Fatalf("STATE.yml %s: %v", name, err)
		}
		full := drift(statePath, b, st)
		if matched && len(full) != 0 {
			t.Errorf("STATE.yml %s: the fast path passes it, checks.Drift finds %v", name, full)
		}
		if matched != bytes.Equal(b, render) {
			t.Errorf("STATE.yml %s: matched %v", name, matched)
		}
	}

	task := st.TaskList()[0]
	fm := task.FrontMatter()
	written := pactfile.TaskFile(fm, nil)
	other := fm
	other.Owner = "gemini-pro"
	long := fm
	long.Feature = strings.Repeat("F", 1024) // longer than a loader's first read
	files := map[string][]byte{
		"as written":            written,
		"with a long body":      append(bytes.Clone(written), strings.Repeat("a handoff log\n", 100)...),
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
	end := bytes.Index(written[4:], []byte("---\n")) + 8 // the front matter pactify writes
	for what, b := range files {
		// Every other task has no file in either judgement: the same
		// findings on both sides.
		full := taskFiles(Input{Dir: ".pact", TaskFiles: map[string][]byte{task.ID: b}}, st)
		passed := false
		for n := range len(b) + 1 {
			if !fast.TaskFile(b[:n], task) {
				continue
			}
			passed = true
			matched := Input{Dir: ".pact", TaskFiles: map[string][]byte{}, TaskFilesMatched: map[string]bool{task.ID: true}}
			if got := taskFiles(matched, st); !reflect.DeepEqual(got, full) {
				t.Errorf("task file %s: the fast path passes its first %d bytes, giving %v; checks.TaskFiles gives %v", what, n, got, full)
			}
			if n < end || !bytes.HasPrefix(b, written[:end]) {
				t.Errorf("task file %s: passed on %d bytes that do not begin with the front matter pactify writes", what, n)
			}
			break
		}
		if want := bytes.HasPrefix(b, written[:end]); passed != want {
			t.Errorf("task file %s: passed %v, want %v", what, passed, want)
		}
	}
}
