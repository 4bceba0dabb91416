package pactdir

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/loggen"
	"github.com/pact-action/pact-action/internal/testkit/loggen/repogen"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// referenceFindings is how validate judged a .pact/ directory before it
// compared bytes first, frozen: every task file read whole and parsed,
// STATE.yml always parsed and compared on meaning, every missing task file
// its own finding. Its rules for the rest are today's checks.Run, and its
// reading of a STATE.yml today's ParseStateSummary (projection's tests hold
// its reader of pactify's own layout to the YAML reading).
func referenceFindings(t testing.TB, d Dir) []checks.Finding {
	t.Helper()
	f, err := os.Open(d.Path(pactfile.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	log, res, err := projection.Read(f, projection.ReadOptions{}) // as Load did
	_ = f.Close()                                                 // only read
	if err != nil {
		t.Fatal(err)
	}
	in := checks.Input{Dir: d.Display(), Scan: &log.Scan, Replay: res, TaskFiles: map[string][]byte{}}
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	state := read(d.Path(pactfile.StateFile))
	in.Project = read(d.Path(pactfile.ProjectFile))
	in.Config = read(filepath.Join(d.Root, ".github", "pact.yml"))
	// Drift and task files are judged below; the rest by checks.Run.
	in.StateMatched = true
	in.TaskFilesMatched = map[string]bool{}
	for _, id := range res.State.TaskOrder {
		in.TaskFilesMatched[id] = true
	}
	out := checks.Run(in)
	if res.Unsupported != nil {
		return out
	}
	out = append(out, referenceDrift(in.Dir+"/STATE.yml", state, res.State)...)
	for _, id := range res.State.TaskOrder {
		task := res.State.Tasks[id]
		path := in.Dir + "/tasks/" + id + ".md"
		b := read(d.Path(pactfile.TasksDir, id+".md"))
		if b == nil {
			f := finding(checks.CodeTaskfileMissing, path, 0, fmt.Sprintf("task %s has no task file %s", id, path))
			f.TaskID, f.Feature = id, task.Feature
			out = append(out, f)
			continue
		}
		fm, err := pactfile.ParseTask(b)
		var diffs []string
		if err != nil {
			diffs = append(diffs, err.Error())
		} else {
			for _, c := range []struct{ name, got, want string }{
				{"id", fm.ID, task.ID}, {"feature", fm.Feature, task.Feature}, {"owner", fm.Owner, task.Owner}, {"reviewer", fm.Reviewer, task.Reviewer},
			} {
				if c.got != c.want {
					diffs = append(diffs, fmt.Sprintf("%s is %q but the log says %q", c.name, c.got, c.want))
				}
			}
		}
		if len(diffs) > 0 {
			line := 0
			if err == nil {
				line = 1
			}
			f := finding(checks.CodeTaskfileMismatch, path, line, fmt.Sprintf("frontmatter of task %s: %s", id, strings.Join(diffs, "; ")))
			f.TaskID, f.Feature = id, task.Feature
			out = append(out, f)
		}
	}
	checks.Sort(out)
	return out
}

func referenceDrift(statePath string, stateYAML []byte, st *projection.State) []checks.Finding {
	if stateYAML == nil {
		return []checks.Finding{finding(checks.CodeDriftMissing, statePath, 0, "there is no STATE.yml to compare with the log")}
	}
	got, err := projection.ParseStateSummary(stateYAML)
	if err != nil {
		return []checks.Finding{finding(checks.CodeDrift, statePath, 0, err.Error())}
	}
	diff := projection.Diff(projection.Summarize(st), got)
	if len(diff) == 0 {
		return nil
	}
	const shown = 10
	msg := fmt.Sprintf("STATE.yml differs from a fresh projection of the log in %d place(s): ", len(diff))
	for i, d := range diff {
		if i == shown {
			msg += fmt.Sprintf("; and %d more", len(diff)-shown)
			break
		}
		if i > 0 {
			msg += "; "
		}
		msg += d
	}
	return []checks.Finding{finding(checks.CodeDrift, statePath, 0, msg)}
}

func finding(code projection.Code, path string, line int, msg string) checks.Finding {
	info := checks.Describe(code)
	return checks.Finding{Code: code, Severity: info.Severity, Path: path, Line: line, Message: msg, Hint: info.Hint}
}

// TestFindingsAsBefore: on generated repositories with every kind of defect
// (a log with rejected lines, a drifted, missing, unparsable or
// differently written STATE.yml, task files with wrong, reordered, CRLF,
// BOM or no front matter, missing task files, few or many), Load and
// checks.Run report exactly what the reference path reported, except that
// missing task files beyond the listed ones are one finding.
func TestFindingsAsBefore(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mutate func(t *testing.T, d Dir, st *projection.State)
	}{
		{"as generated", func(*testing.T, Dir, *projection.State) {}},
		{"STATE.yml drifted", func(t *testing.T, d Dir, _ *projection.State) {
			edit(t, d.Path(pactfile.StateFile), func(b []byte) []byte {
				i := bytes.Index(b[len(b)/2:], []byte("status: accepted")) + len(b)/2
				return append(append(append([]byte(nil), b[:i]...), "status: in_progress"...), b[i+len("status: accepted"):]...)
			})
		}},
		{"STATE.yml drifted everywhere", func(t *testing.T, d Dir, _ *projection.State) {
			edit(t, d.Path(pactfile.StateFile), func(b []byte) []byte {
				return bytes.ReplaceAll(b, []byte("owner: codex"), []byte("owner: aider"))
			})
		}},
		{"STATE.yml written otherwise, same meaning", func(t *testing.T, d Dir, _ *projection.State) {
			edit(t, d.Path(pactfile.StateFile), func(b []byte) []byte {
				b = bytes.ReplaceAll(b, []byte("status: accepted"), []byte("status: 'accepted'"))
				return append(b, "# a comment\n"...)
			})
		}},
		{"STATE.yml missing", func(t *testing.T, d Dir, _ *projection.State) { remove(t, d.Path(pactfile.StateFile)) }},
		{"STATE.yml not YAML", func(t *testing.T, d Dir, _ *projection.State) {
			edit(t, d.Path(pactfile.StateFile), func(b []byte) []byte { return append(b, "tasks: [\n"...) })
		}},
		{"STATE.yml empty", func(t *testing.T, d Dir, _ *projection.State) {
			edit(t, d.Path(pactfile.StateFile), func([]byte) []byte { return nil })
		}},
		{"task files of every kind", func(t *testing.T, d Dir, st *projection.State) {
			for i, id := range st.TaskOrder {
				task := st.Tasks[id]
				path := d.Path(pactfile.TasksDir, id+".md")
				fm := pactfile.Task{ID: task.ID, Feature: task.Feature, Owner: task.Owner, Reviewer: task.Reviewer}
				switch {
				case i%7 == 0:
					fm.Owner = "gemini-pro"
					write(t, path, pactfile.TaskFile(fm, nil))
				case i%11 == 0:
					write(t, path, []byte(fmt.Sprintf("---\nreviewer: %s\nowner: '%s'\nid: %s\nfeature: %s\nstatus: x\n---\nbody\n", fm.Reviewer, fm.Owner, fm.ID, fm.Feature)))
				case i%13 == 0:
					edit(t, path, func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) })
				case i%17 == 0:
					write(t, path, []byte("## Spec\n\nno front matter\n"))
				case i%19 == 0:
					remove(t, path)
				case i%23 == 0:
					write(t, path, nil)
				case i%29 == 0:
					edit(t, path, func(b []byte) []byte { return append([]byte("\xEF\xBB\xBF"), b...) })
				case i%31 == 0:
					edit(t, path, func(b []byte) []byte { return append(b, strings.Repeat("a long handoff log\n", 100)...) })
				case i%37 == 0:
					fm.Feature = strings.Repeat("F", 600)
					write(t, path, pactfile.TaskFile(fm, nil))
				case i%41 == 0:
					write(t, path, []byte("---\nid: [\n---\n"))
				case i%43 == 0:
					edit(t, path, func(b []byte) []byte { return b[:20] })
				}
			}
			write(t, d.Path(pactfile.TasksDir, "README.md"), []byte("not a task\n"))
		}},
		{"every task file missing", func(t *testing.T, d Dir, st *projection.State) {
			for i, id := range st.TaskOrder {
				if i%50 != 0 {
					remove(t, d.Path(pactfile.TasksDir, id+".md"))
				}
			}
		}},
		{"no tasks directory", func(t *testing.T, d Dir, _ *projection.State) {
			if err := os.RemoveAll(d.Path(pactfile.TasksDir)); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := Dir{Root: t.TempDir(), Name: ".pact"}
			if _, err := repogen.Write(d.Root, loggen.Config{Lines: 5000, Seed: uint64(i + 1), Defects: 0.03, Swaps: 0.02}, repogen.Options{}); err != nil {
				t.Fatal(err)
			}
			_, res, err := d.LoadReplay(nil)
			if err != nil {
				t.Fatal(err)
			}
			tc.mutate(t, d, res.State)
			ref := referenceFindings(t, d)
			for _, opts := range []LoadOptions{{TaskFiles: true, Prejudge: checks.FastPaths{}}, {Prejudge: checks.FastPaths{}}, {TaskFiles: true}} {
				in, err := d.LoadWatched(nil, opts)
				if err != nil {
					t.Fatal(err)
				}
				got := checks.Run(checks.Input(in))
				// The documented differences: past checks.MaxListed of a
				// code, one finding counts the rest (docs/semantics.md §7);
				// without --task-files, no front matter is judged.
				want := ref
				if !opts.TaskFiles {
					want = withoutMismatch(ref)
				}
				want = checks.Cap(want)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%+v: findings differ from the reference path:\n%s", opts, diffFindings(got, want))
				}
				if len(want) == 0 && tc.name != "as generated" {
					t.Fatalf("%+v: the mutation found nothing: the case tests nothing", opts)
				}
			}
		})
	}
}

// withoutMismatch is the reference without taskfile.mismatch: what
// validate judges without --task-files, from the listing of tasks/.
func withoutMismatch(ref []checks.Finding) []checks.Finding {
	out := []checks.Finding{}
	for _, f := range ref {
		if f.Code != checks.CodeTaskfileMismatch {
			out = append(out, f)
		}
	}
	return out
}

func diffFindings(got, want []checks.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d findings, reference %d\n", len(got), len(want))
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w checks.Finding
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			fmt.Fprintf(&b, "#%d\n got  %+v\n want %+v\n", i, g, w)
			if b.Len() > 4000 {
				break
			}
		}
	}
	return b.String()
}

func edit(t *testing.T, path string, change func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	write(t, path, change(b))
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}
