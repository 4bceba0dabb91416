package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// plant puts something where a file of the pact belongs; outside is a
// directory outside the repository holding a copy of the pact's .pact.
type plant struct {
	name string
	do   func(t *testing.T, repo, outside string)
	// refused are the verbs that touch the planted path, and so must
	// refuse; every other verb may succeed.
	refused []string
}

// linkVerbs are the verbs tried on every plant, by name.
var linkVerbs = []struct {
	name, agent string
	args        []string
}{
	{"validate", unset, []string{"validate"}},
	{"validate --task-files", unset, []string{"validate", "--task-files"}},
	{"status", unset, []string{"status"}},
	{"log", unset, []string{"log"}},
	{"join", "bob", []string{"join", "bob", "--roles", "worker"}},
	{"checkpoint", "alice", []string{"checkpoint", "T3", "--evidence", "e"}},
	{"assign", "orch", []string{"assign", "T9", "--feature", "F9", "--branch", "b9", "--owner", "alice", "--reviewer", "bob"}},
	{"log --replay", "orch", []string{"log", "--replay"}},
	{"init", "orch", templateInit},
}

var allVerbs = []string{"validate", "validate --task-files", "status", "log", "join", "checkpoint", "assign", "log --replay", "init"}

// writers are the verbs that write STATE.yml.
var stateWriters = []string{"join", "checkpoint", "assign", "log --replay"}

func linkPlants() []plant {
	out := func(rel string) func(t *testing.T, repo, outside string) {
		return func(t *testing.T, repo, outside string) {
			link := filepath.Join(repo, ".pact", filepath.FromSlash(rel))
			if err := os.RemoveAll(link); err != nil {
				t.Fatal(err)
			}
			symlinkOrSkip(t, filepath.Join(outside, ".pact", filepath.FromSlash(rel)), link)
		}
	}
	plants := []plant{
		{"log.jsonl links out of the repository", out("log.jsonl"), allVerbs},
		{"log.jsonl links inside the repository", func(t *testing.T, repo, _ string) {
			copyTestFile(t, filepath.Join(repo, ".pact", "log.jsonl"), filepath.Join(repo, "log-copy.jsonl"))
			must(t, os.Remove(filepath.Join(repo, ".pact", "log.jsonl")))
			symlinkOrSkip(t, filepath.Join("..", "log-copy.jsonl"), filepath.Join(repo, ".pact", "log.jsonl"))
		}, allVerbs},
		{"STATE.yml links out", out("STATE.yml"), append([]string{"validate", "validate --task-files", "status"}, stateWriters...)},
		{"PROJECT.md links out", out("PROJECT.md"), []string{"validate", "validate --task-files", "init"}},
		// Only listed without --task-files (docs/semantics.md §7 "Task files").
		{"a task file of the log links out", out("tasks/T1.md"), []string{"validate --task-files"}},
		{"the task file assign writes links out", out("tasks/T9.md"), []string{"assign"}},
		{"tasks/ links out", out("tasks"), []string{"validate", "validate --task-files", "assign"}},
		{".pact links out", func(t *testing.T, repo, outside string) {
			must(t, os.RemoveAll(filepath.Join(repo, ".pact")))
			symlinkOrSkip(t, filepath.Join(outside, ".pact"), filepath.Join(repo, ".pact"))
		}, allVerbs},
	}
	return append(plants, specialPlants()...)
}

// TestLinksInThePactDir: a pact directory someone else committed may hold
// a symbolic link, a FIFO or a device where a file belongs. Every verb that
// touches it refuses with one sentence and a non-zero exit, promptly,
// writes nothing, and nothing outside the repository is read into a result
// or changed.
func TestLinksInThePactDir(t *testing.T) {
	t.Parallel()
	for _, pl := range linkPlants() {
		for _, v := range linkVerbs {
			t.Run(pl.name+"/"+v.name, func(t *testing.T) {
				t.Parallel()
				p := newProject(t)
				p.now = "2026-06-09T11:00:00Z"
				copyTree(t, template(t, "pact"), p.dir)
				outside := t.TempDir()
				copyTree(t, filepath.Join(p.dir, ".pact"), filepath.Join(outside, ".pact"))
				// The outside copy says so, so that a result read from it shows.
				appendFile(t, filepath.Join(outside, ".pact", "PROJECT.md"), "OUTSIDE-MARKER\n")
				appendFile(t, filepath.Join(outside, ".pact", "tasks", "T1.md"), "OUTSIDE-MARKER\n")
				pl.do(t, p.dir, outside)
				before, outBefore := snapshot(t, p.dir), snapshot(t, outside)

				r := runWithin(t, 20*time.Second, p.dir, p.env(v.agent), v.args...)
				sameTree(t, outBefore, snapshot(t, outside))
				if strings.Contains(r.stdout, "OUTSIDE-MARKER") {
					t.Errorf("a file outside the repository was read into the output\n%s", r)
				}
				if !slices.Contains(pl.refused, v.name) {
					if r.code != 0 {
						t.Errorf("this verb does not touch the planted path and should succeed\n%s", r)
					}
					return
				}
				sameTree(t, before, snapshot(t, p.dir))
				if r.code == 0 {
					t.Fatalf("want a refusal\n%s", r)
				}
				if !plainShape.MatchString(r.stderr) {
					t.Errorf("stderr is not one line\n%s", r)
				}
				if !strings.Contains(r.stderr, ".pact") {
					t.Errorf("stderr should name the path\n%s", r)
				}
			})
		}
	}
}

// runWithin runs pactify and fails the test when it does not end within d
// (a read that follows a link to /dev/zero or blocks on a FIFO never ends).
func runWithin(t *testing.T, d time.Duration, dir string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("pactify %q did not end within %s", args, d)
	}
	res := result{stdout: stdout.String(), stderr: stderr.String(), args: args}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return res
}

// symlinkOrSkip makes a symbolic link, or skips the test where the system
// will not let this user make one (Windows without Developer Mode).
func symlinkOrSkip(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot make a symbolic link here: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func copyTestFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	must(t, err)
	must(t, os.WriteFile(to, b, 0o644))
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	_, err = fmt.Fprint(f, text)
	must(t, errors.Join(err, f.Close()))
}
