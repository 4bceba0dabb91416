package main

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-action/pact-action/pactdir"
	"github.com/pact-action/pact-action/pactfile"
)

// Faults of `pactify resolve` (docs/pactify.md, "Merging the pact with
// git"): git's index locked by another git, `git add` failing once the
// files are written. A refusal leaves every file of the repository as it
// was, git's own included; a failure after the write says what it left
// and what to do, and running resolve again finishes it.

// conflicted is a repository stopped in `git merge main` on feat, the
// pact's log and STATE.yml in conflict, made once for the tests that copy
// it (conflictedRepo); TestMain removes it.
var conflictedTmpl struct {
	once sync.Once
	root string
	err  string
}

// conflictedRepo is the repository stopped in `git merge main` on feat
// with the pact's log and STATE.yml in conflict: a clone whose git has no
// merge driver, as a fresh clone has. It is made once and only read: each
// case works on a copy (gitRepo.copy).
func conflictedRepo(t *testing.T) *gitRepo {
	t.Helper()
	conflictedTmpl.once.Do(func() {
		root, err := os.MkdirTemp("", "pactify-conflicted-")
		if err != nil {
			conflictedTmpl.err = err.Error()
			return
		}
		conflictedTmpl.root = root
		// Built under a test of its own, so that a failure is said once,
		// by the first test that asked.
		ok := t.Run("a repository stopped on the pact's conflict", func(t *testing.T) {
			r := newGitRepo(t, filepath.Join(root, "work"), filepath.Join(root, "home"), true)
			startPact(r)
			r.git("config", "--local", "--remove-section", "merge.pact")
			diverge(r, 1)
			if out, code := r.run("git", "merge", "--no-edit", "main"); code == 0 || !strings.Contains(out, "Merge conflict in .pact/log.jsonl") {
				t.Fatalf("git merge main: exit %d\n%s", code, out)
			}
		})
		if !ok {
			conflictedTmpl.err = "the repository stopped on the pact's conflict could not be made"
		}
	})
	if conflictedTmpl.err != "" {
		t.Fatal(conflictedTmpl.err)
	}
	return newGitRepo(t, filepath.Join(conflictedTmpl.root, "work"), filepath.Join(conflictedTmpl.root, "home"), true)
}

// copy is a copy of r, .git and all, for one case.
func (r *gitRepo) copy(t *testing.T) *gitRepo {
	t.Helper()
	root := t.TempDir()
	c := newGitRepo(t, filepath.Join(root, "work"), filepath.Join(root, "home"), true)
	copyTree(t, r.dir, c.dir)
	return c
}

// resolved asserts that resolve finished the merge: nothing in conflict,
// and committing it leaves a clean, valid pact.
func (r *gitRepo) resolved() {
	r.t.Helper()
	if st := r.git("diff", "--name-only", "--diff-filter=U"); st != "" {
		r.t.Fatalf("still in conflict: %s", st)
	}
	r.git("commit", "-q", "--no-edit")
	r.clean("feat", "main")
}

func TestResolveFaults(t *testing.T) {
	t.Parallel()
	conflicted := conflictedRepo(t)

	t.Run("git's index locked by another git", func(t *testing.T) {
		t.Parallel()
		r := conflicted.copy(t)
		lock := filepath.Join(r.dir, ".git", "index.lock")
		if err := os.WriteFile(lock, []byte("another git's\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, r.dir)

		res := r.pactify(unset, "resolve")
		t.Logf("%s", res.stderr)

		if res.code != exitInvalid || !strings.Contains(res.stderr, "refused: ") || !strings.Contains(res.stderr, ".git/index.lock") ||
			!strings.Contains(res.stderr, "another git") || !strings.Contains(res.stderr, "run pactify resolve again") {
			t.Errorf("want a refusal naming .git/index.lock and what to do\n%s", res)
		}
		sameTree(t, before, snapshot(t, r.dir))
		if err := os.Remove(lock); err != nil {
			t.Fatal(err)
		}
		if res := r.pactify(unset, "resolve"); res.code != 0 {
			t.Fatalf("resolve once the index is free:\n%s", res)
		}
		r.resolved()
	})

	t.Run("git add fails once the files are written", func(t *testing.T) {
		t.Parallel()
		if runtime.GOOS == "windows" {
			t.Skip("the failing git is a shell script")
		}
		r := conflicted.copy(t)
		real, err := exec.LookPath("git")
		if err != nil {
			t.Fatal(err)
		}
		bin := t.TempDir()
		script := "#!/bin/sh\nif [ \"$1\" = add ]; then echo 'fatal: unable to write new index file' >&2; exit 128; fi\nexec '" + real + "' \"$@\"\n"
		if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		failing := *r
		failing.env = append([]string{}, r.env...)
		for i, kv := range failing.env {
			if v, ok := strings.CutPrefix(kv, "PATH="); ok {
				failing.env[i] = "PATH=" + bin + string(os.PathListSeparator) + v
			}
		}

		res := failing.pactify(unset, "resolve")
		t.Logf("%s", res.stderr)

		for _, want := range []string{"merged .pact/log.jsonl", "rendered .pact/STATE.yml", "staging failed", "unable to write new index file",
			"git add .pact/log.jsonl .pact/STATE.yml", "pactify resolve again"} {
			if res.code != exitUsage || !strings.Contains(res.stderr, want) {
				t.Errorf("want exit 2 saying %q\n%s", want, res)
			}
		}
		// What it left: both files merged and whole, git's conflict still
		// in its index.
		for _, f := range []string{".pact/log.jsonl", ".pact/STATE.yml"} {
			if n := pactfile.ConflictMarkerLine([]byte(r.read(f))); n != 0 {
				t.Errorf("%s holds a conflict marker on line %d", f, n)
			}
		}
		if st := r.git("diff", "--name-only", "--diff-filter=U"); st == "" {
			t.Errorf("nothing is in conflict any more: the failed git add staged something")
		}
		if res := r.pactify(unset, "resolve"); res.code != 0 {
			t.Fatalf("resolve again:\n%s", res)
		}
		r.resolved()
	})
}

// TestResolveInterrupted: `pactify resolve` interrupted (Ctrl-C) at each
// step: before it begins, while another writer holds the pact's lock,
// once it has merged the logs (nothing written yet), and while it stages
// what it wrote. Before its write it stops: exit 130, its one line, every
// file of the repository as it was, git's included. From its write on it
// finishes, staging too (a git killed mid-write would leave git's
// index.lock behind), says the interrupt came once it was writing, and
// exits 0. In process (so that the moment is a line it writes), in a
// repository of real git.
func TestResolveInterrupted(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	conflicted := conflictedRepo(t)
	for _, m := range []struct{ name, at string }{
		{"before it began", ""},
		{"waiting for the lock", waitingLine},
		{"merged, nothing written", "merged the log"},
		{"staging what it wrote", "staging"},
	} {
		t.Run(m.name, func(t *testing.T) {
			r := conflicted.copy(t)
			getenv := func(k string) string {
				for _, kv := range append(r.env, "PACT_DEBUG=1") {
					if v, ok := strings.CutPrefix(kv, k+"="); ok {
						return v
					}
				}
				return ""
			}
			// git, which resolve runs, sees the process's environment.
			for _, k := range []string{"HOME", "GIT_CONFIG_NOSYSTEM", "GIT_CEILING_DIRECTORIES"} {
				t.Setenv(k, getenv(k))
			}
			t.Chdir(r.dir)
			before := snapshot(t, r.dir)
			ctx, interrupt := context.WithCancel(t.Context())
			defer interrupt()
			stderr := &onWrite{fn: interrupt, when: m.at}
			var stdout strings.Builder
			switch m.at {
			case "":
				interrupt()
			case waitingLine:
				holder, err := pactdir.Dir{Root: r.dir, Name: ".pact"}.Lock()
				if err != nil {
					t.Fatal(err)
				}
				defer holder()
				// Were the wait not interruptible, resolve would wait for
				// ever: give it its lock after a while, and fail.
				stop := time.AfterFunc(10*time.Second, func() {
					t.Errorf("resolve did not stop on the interrupt while it waited for the lock")
					holder()
				})
				defer stop.Stop()
			}

			code := run(ctx, []string{"resolve"}, nil, &stdout, stderr, getenv)

			if m.at != "staging" {
				if code != exitInterrupted || !strings.HasSuffix(stderr.String(), interruptedLine) || stdout.Len() != 0 {
					t.Errorf("exit %d, stdout %q, stderr %q; want %d, nothing, and last %q", code, stdout.String(), stderr.String(), exitInterrupted, interruptedLine)
				}
				sameTree(t, before, snapshot(t, r.dir))
				return
			}
			if code != exitOK || !strings.Contains(stdout.String(), "staged both") ||
				!strings.Contains(stderr.String(), "pactify: interrupted once .pact/log.jsonl and .pact/STATE.yml were being written: it was finished, not cut off\n") {
				t.Errorf("exit %d, stdout %q, stderr %q; want 0, what it did, and that it finished", code, stdout.String(), stderr.String())
			}
			if _, err := os.Stat(filepath.Join(r.dir, ".git", "index.lock")); err == nil {
				t.Errorf("git's index.lock is left behind")
			}
			r.resolved()
		})
	}
}

// TestFaultKillResolve kills `pactify resolve` (SIGKILL) as it says it
// merges, once it has merged, as it stages what it wrote, and once at a
// moment drawn over a run. Whatever the moment, the log and STATE.yml are each
// the file git left or the merged one, whole; the git it ran finishes on
// its own (its index.lock goes with it), and resolve run again finishes
// the merge (or finds it finished), leaving no temporary file.
func TestFaultKillResolve(t *testing.T) {
	t.Parallel()
	conflicted := conflictedRepo(t)
	probe := conflicted.copy(t)
	start := time.Now()
	if res := probe.pactify(unset, "resolve"); res.code != 0 {
		t.Fatalf("without a kill:\n%s", res)
	}
	span := time.Since(start)
	was := map[string][2]string{}
	for _, f := range []string{".pact/log.jsonl", ".pact/STATE.yml"} {
		was[f] = [2]string{conflicted.read(f), probe.read(f)}
	}
	rng := rand.New(rand.NewPCG(33, 4))
	moments := []string{"merging the log", "merged the log", "staging what resolve wrote", ""}
	for _, at := range moments {
		r := conflicted.copy(t)
		victim := exec.Command(binPath, "resolve")
		victim.Dir, victim.Env = r.dir, append(append([]string{}, r.env...), "PACT_DEBUG=1")
		stderr, err := victim.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := victim.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 64)
		go scanLines(stderr, lines)
		if at != "" {
			waitFor(t, lines, at)
		} else {
			// Once, anywhere in the run: the moments between the lines.
			time.Sleep(time.Duration(rng.Int64N(int64(span) + 1)))
		}
		_ = victim.Process.Kill()
		drain(lines)
		_ = victim.Wait()
		// The git add resolve ran, if any, finishes without it.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(r.dir, ".git", "index.lock")); err != nil {
				break
			}
		}
		for f, both := range was {
			if got := r.read(f); got != both[0] && got != both[1] {
				t.Fatalf("killed at %q: %s is neither git's nor the merged one:\n%s", at, f, got)
			}
		}
		res := r.pactify(unset, "resolve")
		finished := res.code == exitInvalid && strings.Contains(res.stderr, "nothing to resolve") // the killed one had staged
		if res.code != 0 && !finished {
			t.Fatalf("killed at %q, then resolve again:\n%s", at, res)
		}
		noTempFiles(t, r.dir)
		r.resolved()
	}
}

// TestFaultFileSizeResolve: `pactify resolve` under a file-size limit
// from 0 to past what it writes: below, it fails saying the limit stopped
// it, every file of the repository as it was; at or above, it resolves.
// And git's merge driver of the log under the same limits (run as git
// runs it): below, the file git handed it is as it was, nothing of its
// own left beside it, and it says why; above, it merges.
func TestFaultFileSizeResolve(t *testing.T) {
	t.Parallel()
	if bytesLimitedRun == nil {
		t.Skip("a file-size limit needs setrlimit(RLIMIT_FSIZE), which this system lacks")
	}
	conflicted := conflictedRepo(t)
	need := int64(0)
	probe := conflicted.copy(t)
	if res := probe.pactify(unset, "resolve"); res.code != 0 {
		t.Fatalf("without a limit:\n%s", res)
	}
	for _, f := range []string{".pact/log.jsonl", ".pact/STATE.yml"} {
		need = max(need, int64(len(probe.read(f))))
	}
	for _, limit := range []int64{1, need - 1, need} {
		r := conflicted.copy(t)
		before := snapshot(t, r.dir)
		p := &project{t: t, dir: r.dir, home: t.TempDir()}
		res := bytesLimitedRun(t, p, unset, limit, "resolve")
		if limit >= need {
			if res.code != 0 {
				t.Errorf("limit %d, the %d bytes needed:\n%s", limit, need, res)
			}
			continue
		}
		if res.code != exitUsage || !strings.Contains(res.stderr, "the file would exceed the file-size limit") ||
			!strings.Contains(res.stderr, "are as they were") || !strings.Contains(res.stderr, "hint: raise the file-size limit") {
			t.Errorf("limit %d of the %d bytes needed:\n%s", limit, need, res)
		}
		sameTree(t, before, snapshot(t, r.dir))
	}

	// The driver, on git's three versions of the log, which git writes
	// into the work tree's root and hands it by name, with the other
	// side's commit in the environment as `git merge main` puts it.
	var merged string
	for _, limit := range []int64{1, need - 1, 4 * need} {
		r := conflicted.copy(t)
		for name, rev := range map[string]string{".merge_file_O": r.git("merge-base", "HEAD", "MERGE_HEAD"), ".merge_file_A": "HEAD", ".merge_file_B": "MERGE_HEAD"} {
			if err := os.WriteFile(filepath.Join(r.dir, name), []byte(r.git("show", rev+":.pact/log.jsonl")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		before := snapshot(t, r.dir)
		p := &project{t: t, dir: r.dir, home: t.TempDir(), extra: []string{"GITHEAD_" + r.git("rev-parse", "MERGE_HEAD") + "=main"}}
		res := bytesLimitedRun(t, p, unset, limit, "merge-driver", ".merge_file_O", ".merge_file_A", ".merge_file_B", ".pact/log.jsonl")
		t.Logf("limit %d: %s", limit, res.stderr)
		if limit > need {
			merged = r.read(".merge_file_A")
			if res.code != 0 || pactfile.ConflictMarkerLine([]byte(merged)) != 0 || strings.Count(merged, "\n") <= strings.Count(r.read(".merge_file_O"), "\n") {
				t.Errorf("limit %d, over the %d bytes needed:\n%s\n%s", limit, need, res, merged)
			}
			continue
		}
		if res.code != exitUsage || !strings.Contains(res.stderr, "the file would exceed the file-size limit") || !strings.Contains(res.stderr, "hint: raise the file-size limit") {
			t.Errorf("limit %d of the %d bytes needed:\n%s", limit, need, res)
		}
		sameTree(t, before, snapshot(t, r.dir))
	}
}

// TestMergeInAWorktree: in a work tree of `git worktree add`, whose .git
// is a file naming its git directory (.git/worktrees/<name>), git's merge
// driver merges the pact, and resolve finishes a merge that stopped
// without it; git's index there is the worktree's own, so its lock is
// looked for there (and a lock of the main work tree's index does not
// stop it).
func TestMergeInAWorktree(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	r := newGitRepo(t, filepath.Join(root, "main"), filepath.Join(root, "home"), true)
	startPact(r)
	wt := filepath.Join(root, "wt")
	r.git("worktree", "add", "-q", "-b", "feat", wt, "main")
	w := &gitRepo{t: t, dir: wt, env: r.env}
	if b, err := os.ReadFile(filepath.Join(wt, ".git")); err != nil || !strings.HasPrefix(string(b), "gitdir: ") {
		t.Fatalf("the worktree's .git is not a file naming its git directory: %q, %v", b, err)
	}
	n := 0
	divergeIn := func() {
		t.Helper()
		n++
		w.must("ow", "join", "ow", "--roles", "worker")
		w.commit("join in the worktree")
		r.must("lead", "assign", "M"+strconv.Itoa(n), "--feature", "H", "--branch", "main", "--owner", "ow", "--reviewer", "rv")
		r.commit("assign on main")
	}

	t.Run("the driver", func(t *testing.T) {
		defer in(t, r, w)()
		divergeIn()
		w.git("merge", "-q", "--no-edit", "main")
		w.clean("feat", "main")
	})
	t.Run("resolve, git's index locked, then free", func(t *testing.T) {
		defer in(t, r, w)()
		r.git("config", "--local", "--remove-section", "merge.pact")
		divergeIn()
		if out, code := w.run("git", "merge", "--no-edit", "main"); code == 0 {
			t.Fatalf("git merged the pact without the driver:\n%s", out)
		}
		// The main work tree's index is locked: not this one's.
		mainLock := filepath.Join(r.dir, ".git", "index.lock")
		if err := os.WriteFile(mainLock, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		lock := filepath.Join(r.dir, ".git", "worktrees", "wt", "index.lock")
		if err := os.WriteFile(lock, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, wt)
		res := w.pactify(unset, "resolve")
		if res.code != exitInvalid || !strings.Contains(res.stderr, filepath.ToSlash(lock)) {
			t.Errorf("want a refusal naming %s\n%s", lock, res)
		}
		sameTree(t, before, snapshot(t, wt))
		if err := os.Remove(lock); err != nil {
			t.Fatal(err)
		}
		if res := w.pactify(unset, "resolve"); res.code != 0 {
			t.Fatalf("resolve:\n%s", res)
		}
		if err := os.Remove(mainLock); err != nil {
			t.Fatal(err)
		}
		w.resolved()
	})
}

// TestMergeInACRLFCheckout: a checkout whose git converts text to CRLF
// (core.autocrlf=true, and no attribute keeping the pact in LF: a pact
// from before init wrote one, or one removed). The writers append CRLF
// lines; git's merge driver merges the pact with no conflict, resolve
// finishes a merge that stopped without it, and no file is left mixing
// CRLF and LF.
func TestMergeInACRLFCheckout(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	r := newGitRepo(t, filepath.Join(root, "work"), filepath.Join(root, "home"), true)
	startPact(r)
	attrs := r.read(".gitattributes")
	kept := ""
	for _, l := range strings.SplitAfter(attrs, "\n") {
		if !strings.Contains(l, "eol=lf") {
			kept += l
		}
	}
	if kept == attrs {
		t.Fatalf("init wrote no eol=lf attribute to remove:\n%s", attrs)
	}
	if err := os.WriteFile(filepath.Join(r.dir, ".gitattributes"), []byte(kept), 0o644); err != nil {
		t.Fatal(err)
	}
	r.commit("the pact as git converts it")
	r.git("config", "--local", "core.autocrlf", "true")
	for _, f := range []string{".pact/log.jsonl", ".pact/STATE.yml"} {
		if err := os.Remove(filepath.Join(r.dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	r.git("checkout", "--", ".pact")
	if got := lineEndings(r.read(".pact/log.jsonl")); got != "CRLF" {
		t.Fatalf("the checkout's log is %s, want CRLF", got)
	}
	notMixed := func(t *testing.T) {
		for _, f := range []string{".pact/log.jsonl", ".pact/STATE.yml"} {
			if got := lineEndings(r.read(f)); got == "mixed" {
				t.Errorf("%s mixes CRLF and LF:\n%q", f, r.read(f))
			}
		}
	}

	t.Run("the driver", func(t *testing.T) {
		defer in(t, r)()
		diverge(r, 1)
		r.git("merge", "-q", "--no-edit", "main")
		r.clean("feat", "main")
		notMixed(t)
	})
	t.Run("resolve", func(t *testing.T) {
		defer in(t, r)()
		r.git("config", "--local", "--remove-section", "merge.pact")
		diverge(r, 2)
		if out, code := r.run("git", "merge", "--no-edit", "main"); code == 0 {
			t.Fatalf("git merged the pact without the driver:\n%s", out)
		}
		if res := r.pactify(unset, "resolve"); res.code != 0 {
			t.Fatalf("resolve:\n%s", res)
		}
		notMixed(t)
		r.resolved()
	})
}

// TestMergeWhereOnlyOneSideChangedSTATE: a branch's seat joins again (an
// agent's session starting, as its entry file says to), which appends to
// the log and leaves STATE.yml as it was; main assigns that seat a task
// meanwhile, stamped before the join. Both changed the log, so git runs
// the log's driver; only main changed STATE.yml, so git runs none for it
// and takes main's, where the task is assigned, while the merged log
// (the assign, then the join) has it in progress. The merge must never
// leave that STATE.yml, which validate calls drift.state, an error of
// every check of the merge: the log's driver leaves the log in conflict
// instead, saying why, and resolve renders STATE.yml from the merged log.
func TestMergeWhereOnlyOneSideChangedSTATE(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	r := newGitRepo(t, filepath.Join(root, "work"), filepath.Join(root, "home"), true)
	env := r.env
	// at runs what follows at PACT_NOW ts.
	at := func(ts string) { r.env = append(append([]string{}, env...), "PACT_NOW="+ts) }
	at("2026-01-01T00:00:00Z")
	startPact(r)
	r.must("ow", "join", "ow", "--roles", "worker")
	r.commit("ow online")
	r.git("checkout", "-q", "-b", "feat")
	at("2026-01-03T00:00:00Z")
	r.must("ow", "join", "ow", "--roles", "worker")
	if st := r.git("status", "--porcelain"); st != "M .pact/log.jsonl" {
		t.Fatalf("joining again changed more than the log: %q", st)
	}
	r.commit("ow joins again")
	r.git("checkout", "-q", "main")
	at("2026-01-02T00:00:00Z")
	r.must("lead", "assign", "T2", "--feature", "F", "--branch", "feat", "--owner", "ow", "--reviewer", "rv")
	r.commit("assign T2 to ow")
	r.git("checkout", "-q", "feat")
	r.env = env

	out, code := r.run("git", "merge", "--no-edit", "main")

	if code == 0 {
		// Through, the pact must be valid: STATE.yml the merged log's.
		r.clean("feat", "main")
		return
	}
	if !strings.Contains(out, "STATE.yml") || !strings.Contains(out, "pactify resolve") {
		t.Errorf("the merge stopped without saying why:\n%s", out)
	}
	if res := r.pactify(unset, "resolve"); res.code != 0 {
		t.Fatalf("resolve:\n%s", res)
	}
	r.resolved()
	if !strings.Contains(r.read(".pact/STATE.yml"), "status: in_progress") {
		t.Errorf("T2 is not in progress after ow joined again:\n%s", r.read(".pact/STATE.yml"))
	}
}

// TestMergeDriverKilledLeavesNothing: git's merge driver writes its merge
// beside the file git hands it, in the work tree's root, and renames it
// over that file: killed before the rename (SIGKILL, out of memory) it
// leaves git's file as it was, whole, and its own temporary file, named
// .pactify-merge-<digits>, which git status would show for good. The
// next merge's driver removes such a file (no other merge runs in that
// work tree meanwhile: git holds its index.lock), and nothing else: a
// file of the user's named alike but not exactly stays.
func TestMergeDriverKilledLeavesNothing(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	r := newGitRepo(t, filepath.Join(root, "work"), filepath.Join(root, "home"), true)
	startPact(r)
	diverge(r, 1)
	// What a driver killed before its rename leaves, and the user's file.
	left, mine := filepath.Join(r.dir, ".pactify-merge-2718281828"), filepath.Join(r.dir, ".pactify-merge-notes.txt")
	for _, f := range []string{left, mine} {
		if err := os.WriteFile(f, []byte("{\"event_id\":\"half a li"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	r.git("merge", "-q", "--no-edit", "main")

	if _, err := os.Stat(left); err == nil {
		t.Errorf("the killed driver's temporary file is still there: %s", left)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the user's file is gone: %v", err)
	}
	if err := os.Remove(mine); err != nil {
		t.Fatal(err)
	}
	r.clean("feat", "main")
}
