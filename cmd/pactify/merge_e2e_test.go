package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/pactfile"
)

// The merge of the pact through git itself (docs/semantics.md §8): the
// real pactify binary as git's merge driver, in repositories of real git,
// for each way git merges — merge, rebase, pull both ways, cherry-pick —
// and for what must stop: real conflicts, a clone without the driver,
// pactify missing from PATH.

// gitRepo is a work tree that git and pactify run in.
type gitRepo struct {
	t   *testing.T
	dir string
	env []string
}

// newGitRepo makes a repository at dir whose git finds pactify on PATH
// (or not, without pactify), with a configuration of its own.
func newGitRepo(t *testing.T, dir, home string, pactify bool) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	path := os.Getenv("PATH")
	if pactify {
		path = filepath.Dir(binPath) + string(os.PathListSeparator) + path
	} else if found, err := exec.LookPath("pactify"); err == nil {
		t.Skipf("a pactify is installed on PATH (%s): its absence cannot be tried here", found)
	}
	env := []string{"PATH=" + path, "HOME=" + home, "USERPROFILE=" + home, "LANG=C", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_EDITOR=true", "GIT_CEILING_DIRECTORIES=" + filepath.Dir(dir)}
	for _, k := range []string{"SYSTEMROOT", "TMP", "TEMP", "ComSpec"} {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v) // Windows programs need them
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return &gitRepo{t: t, dir: dir, env: env}
}

// in makes the repositories report to t (a subtest) until the returned
// function gives them back to their test.
func in(t *testing.T, rs ...*gitRepo) func() {
	was := make([]*testing.T, len(rs))
	for i, r := range rs {
		was[i], r.t = r.t, t
	}
	return func() {
		for i, r := range rs {
			r.t = was[i]
		}
	}
}

// run runs a program in the repository; code is its exit code.
func (r *gitRepo) run(name string, args ...string) (out string, code int) {
	r.t.Helper()
	res, err := runCmd(exec.Command(name, args...), r.dir, r.env)
	if err != nil {
		r.t.Fatalf("%s %q: %v", name, args, err)
	}
	return res.stdout + res.stderr, res.code
}

// git runs git, which must succeed, and returns its trimmed output.
func (r *gitRepo) git(args ...string) string {
	r.t.Helper()
	out, code := r.run("git", args...)
	if code != 0 {
		r.t.Fatalf("git %q: exit %d\n%s", args, code, out)
	}
	return strings.TrimSpace(out)
}

// pactify runs the binary under test as agent.
func (r *gitRepo) pactify(agent string, args ...string) result {
	r.t.Helper()
	env := append([]string{}, r.env...)
	if agent != unset {
		env = append(env, "PACT_AGENT_ID="+agent)
	}
	return runIn(r.t, r.dir, env, args...)
}

// must runs a pactify verb that must succeed.
func (r *gitRepo) must(agent string, args ...string) {
	r.t.Helper()
	if res := r.pactify(agent, args...); res.code != 0 {
		r.t.Fatalf("want exit 0\n%s", res)
	}
}

// commit commits everything, and returns the commit.
func (r *gitRepo) commit(msg string) string {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func (r *gitRepo) read(rel string) string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(rel)))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

// logAt is the log's lines at a commit.
func (r *gitRepo) logAt(rev string) []string {
	r.t.Helper()
	return strings.Split(strings.TrimSuffix(r.git("show", rev+":.pact/log.jsonl"), "\n"), "\n")
}

// clean asserts what every merge that went through leaves: no git
// conflict, no marker, a valid pact (STATE.yml the render of the log), and
// the log of where the branches now meet a prefix of the result
// (docs/semantics.md §5).
func (r *gitRepo) clean(head, upstream string) {
	r.t.Helper()
	if st := r.git("status", "--porcelain"); st != "" {
		r.t.Fatalf("the merge left changes or conflicts:\n%s", st)
	}
	for _, f := range []string{".pact/log.jsonl", ".pact/STATE.yml"} {
		if n := pactfile.ConflictMarkerLine([]byte(r.read(f))); n != 0 {
			r.t.Fatalf("%s holds a conflict marker on line %d", f, n)
		}
	}
	if res := r.pactify(unset, "validate"); res.code != 0 {
		r.t.Fatalf("the merged pact is not valid\n%s", res)
	}
	base := r.git("merge-base", head, upstream)
	prefix, got := r.logAt(base), r.logAt(head)
	if len(got) < len(prefix) || strings.Join(got[:len(prefix)], "\n") != strings.Join(prefix, "\n") {
		r.t.Fatalf("the log of the merge base %s is not a prefix of %s's:\n%s\n---\n%s", base, head, strings.Join(prefix, "\n"), strings.Join(got, "\n"))
	}
}

// startPact makes a pact on main with one task and commits it.
func startPact(r *gitRepo) {
	r.t.Helper()
	r.git("init", "-q", "-b", "main")
	r.must("lead", "init", "--project", "demo", "--seat", "lead:orchestrator:AGENTS.md", "--seat", "ow:worker:AGENTS.md", "--seat", "rv:reviewer:AGENTS.md")
	r.must("lead", "assign", "T1", "--feature", "F", "--branch", "feat", "--owner", "ow", "--reviewer", "rv")
	r.commit("start the pact")
}

// diverge writes an event on main and two on feat (one commit each), from
// where main is, and leaves feat checked out.
func diverge(r *gitRepo, n int) {
	r.t.Helper()
	r.git("checkout", "-q", "-B", "feat", "main")
	r.must("ow", "join", "ow", "--roles", "worker")
	r.commit("join")
	r.must("lead", "assign", "F"+strconv.Itoa(n), "--feature", "G", "--branch", "feat", "--owner", "ow", "--reviewer", "rv")
	r.commit("assign on feat")
	r.git("checkout", "-q", "main")
	r.must("lead", "assign", "M"+strconv.Itoa(n), "--feature", "H", "--branch", "main", "--owner", "ow", "--reviewer", "rv")
	r.commit("assign on main")
	r.git("checkout", "-q", "feat")
}

// gitAtLeast says git is at least version major.minor.
func gitAtLeast(r *gitRepo, major, minor int) bool {
	m := regexp.MustCompile(`(\d+)\.(\d+)`).FindStringSubmatch(r.git("version"))
	if m == nil {
		r.t.Fatalf("git version %q", r.git("version"))
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	return a > major || (a == major && b >= minor)
}

// TestMergeDriverStories: pactify init sets the driver up; every way git
// merges the pact then goes through with no conflict, the base branch's
// lines first.
func TestMergeDriverStories(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	r := newGitRepo(t, filepath.Join(root, "work"), filepath.Join(root, "home"), true)
	startPact(r)
	if got := r.git("config", "--local", "merge.pact.driver"); !strings.Contains(got, "pactify merge-driver") {
		t.Fatalf("init set no merge driver: %q", got)
	}

	t.Run("git merge main on the branch", func(t *testing.T) {
		defer in(t, r)()
		diverge(r, 1)
		main := r.logAt("main")
		r.git("merge", "-q", "--no-edit", "main")
		r.clean("feat", "main")
		if got := r.logAt("HEAD"); len(got) != len(main)+2 {
			t.Errorf("merged %d lines, want main's %d and feat's 2", len(got), len(main))
		}
	})
	t.Run("git merge of the branch into main", func(t *testing.T) {
		defer in(t, r)()
		diverge(r, 2)
		r.git("checkout", "-q", "main")
		r.git("merge", "-q", "--no-edit", "feat")
		r.clean("main", "main^1") // main's log as it was comes first
	})
	t.Run("git rebase main", func(t *testing.T) {
		defer in(t, r)()
		diverge(r, 3)
		r.git("rebase", "-q", "main")
		r.clean("feat", "main")
		// Each replayed commit holds the base branch's log first.
		main := r.logAt("main")
		if got := r.logAt("feat~1"); strings.Join(got[:len(main)], "\n") != strings.Join(main, "\n") {
			t.Errorf("the first replayed commit does not start with main's log")
		}
	})
	t.Run("git cherry-pick", func(t *testing.T) {
		defer in(t, r)()
		diverge(r, 4)
		out, code := r.run("git", "cherry-pick", "main")
		if code != 0 {
			// Before git 2.44 git names no picked commit to a driver: the
			// drivers cannot tell which STATE.yml git takes, and leave
			// git's conflict in the pact (the log's, STATE.yml's or
			// both), which resolve finishes.
			if gitAtLeast(r, 2, 44) {
				t.Fatalf("git cherry-pick: exit %d\n%s", code, out)
			}
			if st := r.git("diff", "--name-only", "--diff-filter=U"); st != ".pact/STATE.yml" && st != ".pact/log.jsonl" && st != ".pact/STATE.yml\n.pact/log.jsonl" {
				t.Fatalf("conflicts in %q, want the pact's only\n%s", st, out)
			}
			res := r.pactify(unset, "resolve")
			if res.code != 0 || !strings.Contains(res.stdout, "rendered .pact/STATE.yml") {
				t.Fatalf("resolve:\n%s", res)
			}
			r.git("cherry-pick", "--continue")
		}
		r.clean("feat", "main")
	})

	// A remote the branch pulls main from, and another clone that pushes
	// to it.
	origin := filepath.Join(root, "origin.git")
	r.git("init", "-q", "--bare", "-b", "main", origin)
	r.git("remote", "add", "origin", origin)
	r.git("push", "-q", "origin", "main")
	other := newGitRepo(t, filepath.Join(root, "other"), filepath.Join(root, "home"), true)
	other.git("clone", "-q", origin, ".")
	other.git("config", "--local", "merge.pact.driver", r.git("config", "--local", "merge.pact.driver"))
	pushed := 0
	pushMain := func() {
		t.Helper()
		pushed++
		other.git("pull", "-q", "--ff-only", "origin", "main")
		other.must("lead", "assign", "P"+strconv.Itoa(pushed), "--feature", "P", "--branch", "main", "--owner", "ow", "--reviewer", "rv")
		other.commit("assign elsewhere")
		other.git("push", "-q", "origin", "main")
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"git pull --rebase", []string{"pull", "-q", "--rebase", "origin", "main"}},
		{"git pull, merging", []string{"pull", "-q", "--no-rebase", "--no-edit", "origin", "main"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer in(t, r)()
			r.git("fetch", "-q", "origin")
			r.git("checkout", "-q", "-B", "feat", "origin/main")
			r.must("ow", "join", "ow", "--roles", "worker")
			r.commit("join")
			pushMain()
			r.git(c.args...)
			r.git("fetch", "-q", "origin")
			r.clean("feat", "origin/main")
		})
	}
}

// TestMergeRealConflicts: two different lines under one event_id, and one
// task id assigned on both sides, stop the merge as git's conflict; then
// every writer refuses the pact naming the marker's line, validate says a
// merge is in progress in one finding, and resolve refuses, saying why.
func TestMergeRealConflicts(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	r := newGitRepo(t, filepath.Join(root, "work"), filepath.Join(root, "home"), true)
	startPact(r)
	r.git("tag", "start")
	log := r.read(".pact/log.jsonl")
	sameID := func(reason string) func() {
		return func() {
			line := `{"event_id":"0123456789abcdef0123456789abcdef","ts":"2030-01-01T00:00:00Z","agent_id":"ow","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":["worker"],"note":"` + reason + `"}}`
			if err := os.WriteFile(filepath.Join(r.dir, ".pact", "log.jsonl"), []byte(log+line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r.must("lead", "log", "--replay")
		}
	}
	assignT2 := func(feature string) func() {
		return func() {
			r.must("lead", "assign", "T2", "--feature", feature, "--branch", "feat", "--owner", "ow", "--reviewer", "rv")
		}
	}
	for _, c := range []struct {
		name         string
		main, branch func()
		says         string
	}{
		{"two different lines under one event_id", sameID("a"), sameID("b"), "different events under one event_id"},
		{"the same task id assigned on both sides", assignT2("G"), assignT2("H"), "task.duplicate_id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer in(t, r)()
			r.git("checkout", "-q", "-B", "main", "start")
			c.main()
			r.commit("main's")
			r.git("checkout", "-q", "-B", "feat", "start")
			c.branch()
			r.commit("feat's")
			before := r.read(".pact/log.jsonl")
			out, code := r.run("git", "merge", "--no-edit", "main")
			if code == 0 {
				t.Fatalf("git merge went through:\n%s", out)
			}
			if !strings.Contains(out, c.says) || !strings.Contains(out, "CONFLICT (content): Merge conflict in .pact/log.jsonl") {
				t.Errorf("git merge does not say %q of the log:\n%s", c.says, out)
			}
			marker := pactfile.ConflictMarkerLine([]byte(r.read(".pact/log.jsonl")))
			if marker == 0 {
				t.Fatalf("the log holds no conflict markers:\n%s", r.read(".pact/log.jsonl"))
			}
			// Writers refuse, naming the line; the log stays as git left it.
			conflicted := r.read(".pact/log.jsonl")
			res := r.pactify("rv", "accept", "T1")
			if res.code != 1 || !strings.Contains(res.stderr, "line "+strconv.Itoa(marker)) || !strings.Contains(res.stderr, "pactify resolve") {
				t.Errorf("a writer on a log in conflict:\n%s", res)
			}
			if r.read(".pact/log.jsonl") != conflicted {
				t.Errorf("the refused writer changed the log")
			}
			// validate: one finding, saying to resolve.
			v := r.pactify(unset, "validate")
			if v.code != 1 || strings.Count(v.stdout, "merge.conflict_markers") != 1 || strings.Contains(v.stdout, "malformed") {
				t.Errorf("validate on a log in conflict:\n%s", v)
			}
			res = r.pactify(unset, "resolve")
			if res.code != 1 || !strings.Contains(res.stderr, "does not merge") || !strings.Contains(res.stderr, c.says) {
				t.Errorf("resolve of a real conflict:\n%s", res)
			}
			if r.read(".pact/log.jsonl") != conflicted {
				t.Errorf("the refused resolve changed the log")
			}
			r.git("merge", "--abort")
			if r.read(".pact/log.jsonl") != before {
				t.Errorf("the aborted merge left another log")
			}
		})
	}
}

// TestResolveWithoutDriver: a clone that has the attributes but not the
// driver (no pactify install) gets git's text conflict, which resolve
// finishes; pactify missing from PATH where the driver is set up leaves
// git's normal conflict too, never a broken merge.
func TestResolveWithoutDriver(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	r := newGitRepo(t, filepath.Join(root, "work"), home, true)
	startPact(r)
	diverge(r, 1)

	t.Run("a clone without the driver, resolved", func(t *testing.T) {
		defer in(t, r)()
		c := newGitRepo(t, filepath.Join(root, "clone"), home, true)
		c.git("clone", "-q", "-b", "feat", r.dir, ".")
		c.git("branch", "-q", "main", "origin/main")
		if _, code := c.run("git", "config", "merge.pact.driver"); code == 0 {
			t.Fatal("the clone has a driver")
		}
		if _, code := c.run("git", "merge", "--no-edit", "main"); code == 0 {
			t.Fatal("git merged the pact without the driver")
		}
		if pactfile.ConflictMarkerLine([]byte(c.read(".pact/log.jsonl"))) == 0 {
			t.Fatal("no conflict in the log")
		}
		res := c.pactify(unset, "resolve")
		if res.code != 0 || !strings.Contains(res.stdout, "merged .pact/log.jsonl") || !strings.Contains(res.stdout, "staged") {
			t.Fatalf("resolve:\n%s", res)
		}
		if st := c.git("diff", "--name-only", "--diff-filter=U"); st != "" {
			t.Fatalf("still in conflict: %s", st)
		}
		c.git("commit", "-q", "--no-edit")
		c.clean("feat", "main")
		if res := c.pactify(unset, "resolve"); res.code != 1 || !strings.Contains(res.stderr, "no merge") {
			t.Errorf("resolve with no merge in progress:\n%s", res)
		}
	})
	t.Run("STATE.yml alone in conflict, resolved", func(t *testing.T) {
		c := newGitRepo(t, filepath.Join(root, "stateonly"), home, true)
		c.git("clone", "-q", "-b", "feat", r.dir, ".")
		c.git("branch", "-q", "main", "origin/main")
		c.git("config", "--local", "merge.pact.driver", mergeDriverCommand)
		if err := os.WriteFile(filepath.Join(c.dir, ".git", "info", "attributes"), []byte(".pact/STATE.yml merge=text\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, code := c.run("git", "merge", "--no-edit", "main"); code == 0 {
			t.Fatal("git merged STATE.yml as text without a conflict")
		}
		if st := c.git("diff", "--name-only", "--diff-filter=U"); st != ".pact/STATE.yml" {
			t.Fatalf("conflicts in %q, want STATE.yml alone", st)
		}
		// A writer refuses STATE.yml's markers, naming the line.
		line := pactfile.ConflictMarkerLine([]byte(c.read(".pact/STATE.yml")))
		if res := c.pactify("lead", "log", "--replay"); res.code != 1 || !strings.Contains(res.stderr, ".pact/STATE.yml holds git's conflict markers (line "+strconv.Itoa(line)+")") {
			t.Errorf("log --replay on a STATE.yml in conflict:\n%s", res)
		}
		res := c.pactify(unset, "resolve")
		if res.code != 0 || !strings.Contains(res.stdout, "rendered .pact/STATE.yml") {
			t.Fatalf("resolve:\n%s", res)
		}
		c.git("commit", "-q", "--no-edit")
		c.clean("feat", "main")
	})
	t.Run("pactify missing from PATH", func(t *testing.T) {
		defer in(t, r)()
		m := newGitRepo(t, filepath.Join(root, "nopactify"), home, false)
		m.git("clone", "-q", "-b", "feat", r.dir, ".")
		m.git("branch", "-q", "main", "origin/main")
		m.git("config", "--local", "merge.pact.driver", mergeDriverCommand)
		out, code := m.run("git", "merge", "--no-edit", "main")
		if code == 0 || !strings.Contains(out, "CONFLICT (content): Merge conflict in .pact/log.jsonl") {
			t.Fatalf("git merge without pactify:\n%s", out)
		}
		log := []byte(m.read(".pact/log.jsonl"))
		if !bytes.Contains(log, []byte("\n=======\n")) || !regexp.MustCompile(`(?m)^<<<<<<< \S+$`).Match(log) || !regexp.MustCompile(`(?m)^>>>>>>> \S+`).Match(log) {
			t.Fatalf("not git's conflict markers:\n%s", log)
		}
		if !gitAtLeast(m, 2, 44) && !bytes.Contains(log, []byte("<<<<<<< ours\n")) {
			t.Errorf("before git 2.44 the markers name the sides ours and theirs:\n%s", log)
		}
	})
}

// TestMergeBranchNamedLikeTheBase: a worker pushes a branch named evil/main
// to the shared remote; a teammate merges it into their feat. Neither side
// is on the base branch main, so feat's log must come first
// (docs/semantics.md §8); a remote-tracking ref that only ends in /main
// (origin/evil/main) must not pass for the remote's main and put the
// worker's lines ahead of the teammate's.
func TestMergeBranchNamedLikeTheBase(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	r := newGitRepo(t, filepath.Join(root, "work"), filepath.Join(root, "home"), true)
	startPact(r)
	origin := filepath.Join(root, "origin.git")
	r.git("init", "-q", "--bare", "-b", "main", origin)
	r.git("remote", "add", "origin", origin)
	r.git("push", "-q", "origin", "main")
	r.git("checkout", "-q", "-b", "evil/main", "main")
	r.must("lead", "assign", "E1", "--feature", "E", "--branch", "evil", "--owner", "ow", "--reviewer", "rv")
	r.commit("the worker's")
	r.git("push", "-q", "origin", "evil/main")
	r.git("checkout", "-q", "-b", "feat", "main")
	r.git("branch", "-q", "-D", "evil/main")
	r.must("ow", "join", "ow", "--roles", "worker")
	r.commit("the teammate's")
	feat := r.logAt("feat")
	r.git("fetch", "-q", "origin")
	r.git("merge", "-q", "--no-edit", "origin/evil/main")
	r.clean("feat", "feat^1")
	if got := r.logAt("HEAD"); len(got) != len(feat)+1 || strings.Join(got[:len(feat)], "\n") != strings.Join(feat, "\n") {
		t.Fatalf("the teammate's log does not come first:\n%s", strings.Join(got, "\n"))
	}
}
