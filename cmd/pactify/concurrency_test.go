package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWriters runs many pactify processes at once on one pact:
// checkpoints, accepts and assigns on distinct tasks, plus several reviewers
// racing to accept the same task. The flock on .pact must serialise them so
// that no line is lost or torn and every rule still holds.
func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	const n = 6 // tasks per kind
	p := newProject(t)
	args := []string{"init", "--project", "race", "--seat", "orch:orchestrator:AGENTS.md", "--seat", "rev:reviewer:AGENTS.md", "--seat", "rev2:reviewer:AGENTS.md"}
	for i := range n {
		args = append(args, "--seat", fmt.Sprintf("w%d:worker:AGENTS.md", i))
	}
	mustRun := func(agent string, args ...string) {
		t.Helper()
		if r := p.run(agent, args...); r.code != 0 {
			t.Fatalf("setup:\n%s", r)
		}
	}
	mustRun("orch", args...)
	// C<i>: in_progress, to checkpoint. A<i>: awaiting_review, to accept.
	// R: awaiting_review, raced for.
	for i := range n {
		w := fmt.Sprintf("w%d", i)
		mustRun("orch", "assign", fmt.Sprintf("C%d", i), "--feature", "FC", "--branch", "c", "--owner", w, "--reviewer", "rev")
		mustRun("orch", "assign", fmt.Sprintf("A%d", i), "--feature", "FA", "--branch", "a", "--owner", w, "--reviewer", "rev")
	}
	mustRun("orch", "assign", "R", "--feature", "FR", "--branch", "r", "--owner", "w0", "--reviewer", "rev")
	for i := range n {
		w := fmt.Sprintf("w%d", i)
		mustRun(w, "join", w, "--roles", "worker")
		mustRun(w, "checkpoint", fmt.Sprintf("A%d", i), "--evidence", "e")
	}
	mustRun("w0", "checkpoint", "R", "--evidence", "e")
	p.mustValidate()
	before := p.logLines()

	type job struct {
		agent string
		args  []string
		race  bool
	}
	var jobs []job
	for i := range n {
		w := fmt.Sprintf("w%d", i)
		// A long evidence makes a torn write more likely to show.
		jobs = append(jobs,
			job{agent: w, args: []string{"checkpoint", fmt.Sprintf("C%d", i), "--evidence", strings.Repeat(w+" ", 4000)}},
			job{agent: "rev", args: []string{"accept", fmt.Sprintf("A%d", i)}},
			job{agent: "orch", args: []string{"assign", fmt.Sprintf("N%d", i), "--feature", "FN", "--branch", "n", "--owner", w, "--reviewer", "rev2"}},
		)
	}
	const racers = 6
	for range racers {
		jobs = append(jobs, job{agent: "rev", args: []string{"accept", "R"}, race: true})
	}
	// Everyone starts together (no PACT_NOW, so the clocks are real).
	p.now = ""
	results := make([]result, len(jobs))
	var start, done sync.WaitGroup
	start.Add(1)
	for i, j := range jobs {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			var err error
			if results[i], err = runProc(p.dir, p.env(j.agent), j.args...); err != nil {
				t.Error(err)
			}
		}()
	}
	start.Done()
	done.Wait()

	wonRace := 0
	for i, r := range results {
		switch {
		case jobs[i].race && r.code == 0:
			wonRace++
		case jobs[i].race:
			if r.code != 1 || !strings.Contains(r.stderr, "state.invalid_transition") {
				t.Errorf("a losing accept should be refused as an invalid transition\n%s", r)
			}
		case r.code != 0:
			t.Errorf("a write on its own task failed\n%s", r)
		}
	}
	if wonRace != 1 {
		t.Fatalf("%d of %d racing accepts of R succeeded, want exactly 1", wonRace, racers)
	}

	// No line lost or torn: every line is a whole envelope, the old lines are
	// untouched, and there is one new line per successful writer.
	after := p.logLines()
	wantNew := 3*n + 1
	if len(after) != len(before)+wantNew {
		t.Fatalf("log has %d lines, want %d + %d", len(after), len(before), wantNew)
	}
	for i := range before {
		if after[i] != before[i] {
			t.Fatalf("line %d changed", i+1)
		}
	}
	ids := map[string]bool{}
	count := map[string]int{}
	for i, line := range after {
		ev := parseLine(t, line)
		if ids[ev.EventID] {
			t.Fatalf("line %d repeats event_id %s", i+1, ev.EventID)
		}
		ids[ev.EventID] = true
		count[ev.EventType+" "+ev.TaskID]++
		if ev.EventType == "checkpoint" && strings.HasPrefix(ev.TaskID, "C") && len(ev.Payload["evidence"].(string)) != 4000*3 {
			t.Fatalf("line %d: evidence of %s has %d bytes", i+1, ev.TaskID, len(ev.Payload["evidence"].(string)))
		}
	}
	for i := range n {
		for _, k := range []string{"checkpoint C%d", "accept A%d", "assign N%d"} {
			if key := fmt.Sprintf(k, i); count[key] != 1 {
				t.Errorf("%q appears %d times, want 1", key, count[key])
			}
		}
		if _, err := os.Stat(p.path(fmt.Sprintf(".pact/tasks/N%d.md", i))); err != nil {
			t.Errorf("task file of N%d: %v", i, err)
		}
	}
	if count["accept R"] != 1 {
		t.Fatalf("R accepted %d times, want exactly 1", count["accept R"])
	}

	// No rule broken, STATE.yml matches the log (validate checks drift) and
	// is exactly what a fresh replay writes.
	p.mustValidate()
	state := p.read(".pact/STATE.yml")
	if r := p.run("orch", "log", "--replay"); r.code != 0 {
		t.Fatalf("log --replay:\n%s", r)
	}
	if p.read(".pact/STATE.yml") != state {
		t.Fatal("STATE.yml after the concurrent writes differs from a fresh replay of the log")
	}
	// The N tasks were assigned in whatever order the lock was won.
	got := strings.Fields(p.state().statuses())
	slices.Sort(got)
	want := []string{"FA=accepted", "FC=awaiting_review", "FN=planned", "FR=accepted", "R=accepted"}
	for i := range n {
		want = append(want, fmt.Sprintf("A%d=accepted", i), fmt.Sprintf("C%d=awaiting_review", i), fmt.Sprintf("N%d=assigned", i))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("STATE.yml statuses:\n got %v\nwant %v", got, want)
	}
	noTempFiles(t, p.dir)
}

// TestConcurrentInit: several inits race on an empty repository; exactly one
// init event is written and the pact is valid.
func TestConcurrentInit(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	const racers = 8
	results := make([]result, racers)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range racers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			var err error
			if results[i], err = runProc(p.dir, p.env("orch"), templateInit...); err != nil {
				t.Error(err)
			}
		}()
	}
	start.Done()
	done.Wait()
	appended := 0
	for _, r := range results {
		switch {
		case r.code == 0 && strings.Contains(r.stdout, "appended event"):
			appended++
		case r.code == 0 && strings.Contains(r.stdout, "already initialised"):
		case r.code == 1 && strings.HasPrefix(r.stderr, "pactify: refused: "):
		default:
			t.Errorf("a racing init ended badly\n%s", r)
		}
	}
	if appended != 1 {
		t.Fatalf("%d inits appended, want exactly 1", appended)
	}
	if lines := p.logLines(); len(lines) != 1 {
		t.Fatalf("log has %d lines, want 1", len(lines))
	}
	p.mustValidate()
	noTempFiles(t, p.dir)
}

// noTempFiles fails when a temporary file of WriteFileAtomic is left.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") && !slices.ContainsFunc(userLookalikes, func(l string) bool { return filepath.Base(l) == d.Name() }) {
			t.Errorf("temporary file left: %s", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
