package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/internal/testkit/testbin"
)

// docs/workflow.md is a week of a team, command by command; this file
// runs it. A shell block preceded by <!-- run: CLONE --> runs, with bash
// -e, in that clone of one repository (lead, dev, dev2: three people, one
// machine's git configuration), with the pactify and pact-action under
// test first on PATH; each <!-- expect: TEXT --> after it names text its
// output must hold. <!-- github: merge BRANCH --> is GitHub's merge button:
// a merge commit of the branch into main on the remote, made without any
// merge driver (GitHub runs none), which fails when the branch conflicts.

// weekStep is one thing the page says happens.
type weekStep struct {
	clone, script string
	expect        []string
	merge         string // a branch GitHub merges into main
}

var (
	weekRun    = regexp.MustCompile(`^<!-- run: (\w+) -->$`)
	weekExpect = regexp.MustCompile(`^<!-- expect: (.+) -->$`)
	weekMerge  = regexp.MustCompile(`^<!-- github: merge (\S+) -->$`)
)

// weekSteps reads the steps of a page, in order.
func weekSteps(t *testing.T, page string) []weekStep {
	t.Helper()
	lines := strings.Split(page, "\n")
	var steps []weekStep
	for i := 0; i < len(lines); i++ {
		switch l := strings.TrimSpace(lines[i]); {
		case weekRun.MatchString(l):
			if i+1 >= len(lines) || lines[i+1] != "```sh" {
				t.Fatalf("line %d: %q is not followed by a ```sh block", i+1, l)
			}
			step := weekStep{clone: weekRun.FindStringSubmatch(l)[1]}
			j := i + 2
			for ; j < len(lines) && lines[j] != "```"; j++ {
				step.script += lines[j] + "\n"
			}
			for j++; j < len(lines) && weekExpect.MatchString(lines[j]); j++ {
				step.expect = append(step.expect, weekExpect.FindStringSubmatch(lines[j])[1])
			}
			steps = append(steps, step)
			i = j - 1
		case weekMerge.MatchString(l):
			steps = append(steps, weekStep{merge: weekMerge.FindStringSubmatch(l)[1]})
		case weekExpect.MatchString(l):
			t.Fatalf("line %d: %q follows no run step", i+1, l)
		}
	}
	return steps
}

// week is the repository the page's people share.
type week struct {
	t            *testing.T
	root, origin string
	env          []string
}

func newWeek(t *testing.T) *week {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	var bins []string
	for _, pkg := range []string{"./cmd/pactify", "./cmd/pact-action"} {
		bin, err := testbin.Build(pkg)
		if err != nil {
			t.Fatal(err)
		}
		bins = append(bins, filepath.Dir(bin))
	}
	root := t.TempDir()
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + strings.Join(append(bins, os.Getenv("PATH")), string(os.PathListSeparator)), "HOME=" + home, "USERPROFILE=" + home,
		"LANG=C", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_EDITOR=true", "GIT_CEILING_DIRECTORIES=" + root}
	for _, k := range []string{"SYSTEMROOT", "TMP", "TEMP", "ComSpec"} {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	w := &week{t: t, root: root, origin: filepath.Join(root, "origin.git"), env: env}
	w.git(root, "init", "-q", "--bare", "-b", "main", w.origin)
	seed := filepath.Join(root, "seed")
	w.git(root, "clone", "-q", w.origin, seed)
	if err := os.WriteFile(filepath.Join(seed, "README.md"), []byte("# shop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.git(seed, "add", "-A")
	w.git(seed, "commit", "-q", "-m", "the shop")
	w.git(seed, "push", "-q", "origin", "HEAD:main")
	for _, c := range []string{"lead", "dev", "dev2"} {
		w.git(root, "clone", "-q", w.origin, filepath.Join(root, c))
	}
	return w
}

// git runs git in dir, which must succeed.
func (w *week) git(dir string, args ...string) string {
	w.t.Helper()
	out, err := w.cmd(dir, w.env, "git", args...)
	if err != nil {
		w.t.Fatalf("git %q in %s: %v\n%s", args, dir, err, out)
	}
	return out
}

func (w *week) cmd(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// run runs one step of the page.
func (w *week) run(s weekStep) {
	w.t.Helper()
	if s.merge != "" {
		w.mergeOnGitHub(s.merge)
		return
	}
	dir := filepath.Join(w.root, s.clone)
	out, err := w.cmd(dir, w.env, testbin.Bash(), "-e", "-c", s.script)
	if err != nil {
		w.t.Fatalf("in %s:\n%s\nfailed: %v\n%s", s.clone, s.script, err, out)
	}
	for _, want := range s.expect {
		if !strings.Contains(out, want) {
			w.t.Errorf("in %s:\n%s\nprinted no %q:\n%s", s.clone, s.script, want, out)
		}
	}
}

// mergeOnGitHub merges branch into the remote's main as GitHub's merge
// button does: a merge commit, no merge driver (a configuration of its
// own), and no merge at all when the branch conflicts.
func (w *week) mergeOnGitHub(branch string) {
	w.t.Helper()
	dir := filepath.Join(w.root, "github")
	if _, err := os.Stat(dir); err != nil {
		w.git(w.root, "clone", "-q", w.origin, dir)
	}
	env := append(append([]string(nil), w.env...), "HOME="+filepath.Join(w.root, "no-home"), "USERPROFILE="+filepath.Join(w.root, "no-home"))
	for _, args := range [][]string{{"fetch", "-q", "origin"}, {"checkout", "-q", "-B", "main", "origin/main"}} {
		if out, err := w.cmd(dir, env, "git", args...); err != nil {
			w.t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	if out, err := w.cmd(dir, env, "git", "merge", "-q", "--no-ff", "-m", "Merge "+branch, "origin/"+branch); err != nil {
		w.t.Fatalf("GitHub cannot merge %s: this branch has conflicts\n%s", branch, out)
	}
	if out, err := w.cmd(dir, env, "git", "push", "-q", "origin", "main"); err != nil {
		w.t.Fatalf("push the merge of %s: %v\n%s", branch, err, out)
	}
}

// TestTheWeekRuns: docs/workflow.md's week, every command as written:
// two features on two branches, the first merged, the second brought up
// to date by git's merge driver and merged, each step's output as the
// page says, and main's log valid at the end with every event once.
func TestTheWeekRuns(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile(filepath.Join(testbin.ModuleRoot(), "docs", "workflow.md"))
	if err != nil {
		t.Fatal(err)
	}
	steps := weekSteps(t, string(page))
	merges := 0
	for _, s := range steps {
		if s.merge != "" {
			merges++
		}
	}
	if len(steps) < 8 || merges != 2 {
		t.Fatalf("docs/workflow.md has %d steps and %d merges; want the week: two branches, each merged", len(steps), merges)
	}
	w := newWeek(t)
	for _, s := range steps {
		w.run(s)
	}
	log := w.git(filepath.Join(w.root, "lead"), "show", "origin/main:.pact/log.jsonl")
	lines := strings.Split(strings.TrimSpace(log), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[l] {
			t.Errorf("main's log holds a line twice: %s", l)
		}
		seen[l] = true
	}
	// init, two assigns, two joins, two checkpoints, two accepts, two
	// merges.
	if len(lines) != 11 {
		t.Errorf("main's log has %d lines, want 11:\n%s", len(lines), log)
	}
}

// TestTheREADMEsCommandsRun: the README's first commands in a repository
// (init, assign, validate) run as written in a fresh git repository.
func TestTheREADMEsCommandsRun(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join(testbin.ModuleRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "Then, in a repository:\n\n```sh\n")
	script, _, ok2 := strings.Cut(after, "```")
	if !ok || !ok2 || !strings.Contains(script, "pactify init") {
		t.Fatal(`README.md has no "Then, in a repository:" block with pactify init`)
	}
	w := newWeek(t)
	out, err := w.cmd(filepath.Join(w.root, "lead"), w.env, testbin.Bash(), "-e", "-c", script)
	if err != nil {
		t.Fatalf("the README's commands failed: %v\n%s", err, out)
	}
	for _, want := range []string{"init demo: appended event", "assign T1: appended event"} {
		if !strings.Contains(out, want) {
			t.Errorf("the README's commands printed no %q:\n%s", want, out)
		}
	}
}
