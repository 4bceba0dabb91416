package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// Faults injected into every writing verb through the real binary: a
// file-size limit at each byte boundary of what a verb writes, kill -9 at
// random moments, files swapped or made read-only under it (see
// docs/pactify.md, "When a write fails").

// bytesLimitedRun runs pactify under a file-size limit of exactly limit
// bytes (unix only: inject_unix_test.go).
var bytesLimitedRun func(t *testing.T, p *project, agent string, limit int64, args ...string) result

// clone is a copy of p in a new directory.
func (p *project) clone(t *testing.T) *project {
	t.Helper()
	c := newProject(t)
	c.now = p.now
	copyTree(t, p.dir, c.dir)
	return c
}

// sizes is the size of every regular file of a snapshot's directory.
func sizes(t *testing.T, dir string, snap map[string]treeEntry) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for rel, e := range snap {
		if e.mode.IsRegular() {
			fi, err := os.Stat(dir + string(os.PathSeparator) + rel)
			if err != nil {
				t.Fatal(err)
			}
			out[rel] = fi.Size()
		}
	}
	return out
}

// sweepPoints are the file-size limits worth trying on a verb that turns
// the files of before into those of after: 0, and around the size of
// every file it writes (a temporary is written from 0 to the new size; the
// log, from its size to its new one), with a few steps between, and more
// within a large file.
func sweepPoints(before, after map[string]int64) (points []int64, need int64) {
	set := map[int64]bool{0: true, 1: true}
	for name, a := range after {
		b, existed := before[name]
		if existed && b == a {
			continue // unchanged: perhaps not written at all
		}
		need = max(need, a)
		from := int64(0)
		if strings.HasSuffix(name, "log.jsonl") {
			from = b
		}
		for _, n := range []int64{from - 1, from, from + 1, (from + a) / 2, a - 1, a, a + 1} {
			set[max(n, 0)] = true
		}
		// A file of many writes (a large STATE.yml: its render's ranges,
		// the writer's buffer) is cut within each of them.
		for i, steps := int64(1), min(5, (a-from)/16384); i < steps; i++ {
			set[from+(a-from)*i/steps] = true
		}
	}
	for i := int64(1); i < 8; i++ {
		set[need*i/8] = true
	}
	for n := range set {
		points = append(points, n)
	}
	slices.Sort(points)
	return points, need
}

// TestFaultFileSizeSweep: under a file-size limit anywhere from 0 to past
// what a verb writes — cutting the STATE.yml or task file's temporary, or
// the append, at any byte — every writing verb either succeeds (the limit
// holds everything) or fails saying the limit stopped it and nothing was
// recorded, with every file byte for byte as it was and no temporary
// left; on a pact of a few tasks, and on one of thousands, whose
// STATE.yml is rendered in ranges on several workers.
func TestFaultFileSizeSweep(t *testing.T) {
	t.Parallel()
	if bytesLimitedRun == nil {
		t.Skip("a file-size limit needs setrlimit(RLIMIT_FSIZE), which this system lacks")
	}
	tmpl := faultProject(t)
	tmpl.ok("orch", "assign", "T1", "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev")
	tmpl.ok("w", "join", "w", "--roles", "worker")
	// A fixed clock: every run writes lines of the same length.
	tmpl.now = t0
	// The user's notes for T2, longer than STATE.yml, so that the limit
	// cuts the task file's temporary too.
	tmpl.write(".pact/tasks/T2.md", "# notes\n\n"+strings.Repeat("n", 3000)+"\n")
	stale := tmpl.clone(t)
	stale.remove(".pact/STATE.yml")
	fresh := newProject(t)
	fresh.write("AGENTS.md", "# Agents\n\n"+strings.Repeat("a", 5000)+"\n")
	fresh.write(".gitattributes", "*.png binary\n")
	// A pact whose STATE.yml is rendered in ranges on several workers, and
	// that pact with its STATE.yml edited near its end: all but its last
	// bytes are copied from the old file into the new one.
	large := largeProject(t)
	edited := large.clone(t)
	state := edited.read(".pact/STATE.yml")
	at := strings.LastIndex(state, "status: ")
	edited.write(".pact/STATE.yml", state[:at]+"status: edited-by-hand\n"+state[strings.IndexByte(state[at:], '\n')+at+1:])
	cases := []struct {
		name  string
		from  *project
		agent string
		args  []string
	}{
		{"assign", tmpl, "orch", []string{"assign", "T2", "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev"}},
		{"checkpoint", tmpl, "w", []string{"checkpoint", "T1", "--evidence", strings.Repeat("e", 2000)}},
		{"log --replay", stale, "orch", []string{"log", "--replay"}},
		{"init", fresh, "orch", []string{"init", "--project", "p", "--seat", "orch:orchestrator:AGENTS.md", "--seat", "w:worker:AGENTS.md"}},
		{"assign on a large pact", large, "lead", largeAssign("K")},
		{"log --replay on a large pact edited near the end", edited, "lead", []string{"log", "--replay"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			done := c.from.clone(t)
			before := snapshot(t, done.dir)
			if r := done.run(c.agent, c.args...); r.code != 0 {
				t.Fatalf("without a limit:\n%s", r)
			}
			points, need := sweepPoints(sizes(t, c.from.dir, before), sizes(t, done.dir, snapshot(t, done.dir)))
			for _, n := range points {
				p := c.from.clone(t)
				before := snapshot(t, p.dir)
				r := bytesLimitedRun(t, p, c.agent, n, c.args...)
				if n >= need {
					if r.code != 0 {
						t.Errorf("limit %d, above the %d bytes needed:\n%s", n, need, r)
					}
					continue
				}
				left := "nothing was recorded"
				if c.args[0] == "log" {
					left = "STATE.yml is as it was"
				}
				if r.code != 2 || !strings.Contains(r.stderr, "the file would exceed the file-size limit") ||
					!strings.Contains(r.stderr, left) || !strings.Contains(r.stderr, "hint: raise the file-size limit") {
					t.Errorf("limit %d of the %d bytes needed:\n%s", n, need, r)
				}
				sameTree(t, before, snapshot(t, p.dir))
			}
			t.Logf("%s: %d limits from 0 to %d bytes", c.name, len(points), points[len(points)-1])
		})
	}
}

// verbCase is a writing verb run from a pact where it succeeds.
type verbCase struct {
	name  string
	from  *project
	agent string
	args  []string
}

// verbCases is every writing verb, each from a pact where it succeeds
// (built once; each run works on a clone).
func verbCases(t *testing.T) []verbCase {
	t.Helper()
	fresh := newProject(t)
	fresh.now = ""
	fresh.write("AGENTS.md", "# Agents\n\nthe user's own text\n")
	initArgs := []string{"init", "--project", "p", "--seat", "orch:orchestrator:AGENTS.md", "--seat", "w:worker:AGENTS.md", "--seat", "rev:reviewer:AGENTS.md"}
	started := fresh.clone(t)
	started.ok("orch", initArgs...)
	assigned := started.clone(t)
	assigned.ok("orch", "assign", "T1", "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev")
	assigned.ok("w", "join", "w", "--roles", "worker")
	checked := assigned.clone(t)
	checked.ok("w", "checkpoint", "T1", "--evidence", "done")
	accepted := checked.clone(t)
	accepted.ok("rev", "accept", "T1")
	stale := assigned.clone(t)
	stale.remove(".pact/STATE.yml")
	return []verbCase{
		{"init", fresh, "orch", initArgs},
		{"join", started, "w", []string{"join", "w", "--roles", "worker"}},
		{"assign", assigned, "orch", []string{"assign", "T2", "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev"}},
		{"checkpoint", assigned, "w", []string{"checkpoint", "T1", "--evidence", "done"}},
		{"accept", checked, "rev", []string{"accept", "T1"}},
		{"changes", checked, "rev", []string{"changes", "T1", "--reason", "no tests"}},
		{"merge", accepted, "orch", []string{"merge", "F"}},
		{"log --replay", stale, "orch", []string{"log", "--replay"}},
	}
}

// userLookalikes are files of the user's in the pact directory named like
// pactify's temporaries, but not exactly: no writer may remove them.
var userLookalikes = []string{".pact/.STATE.yml.tmp-foo", ".pact/.notes.txt.tmp-0123456789abcdef", ".pact/.PROJECT.md.tmp-0123456789ABCDEF"}

// TestFaultKillEveryVerb kills each writing verb with SIGKILL at moments
// spread over its run, from its start to its end (each moment jittered
// within its share of the run), with a second writer
// of its own racing it: the log is always whole lines, STATE.yml a whole
// file or absent as before, the other writer succeeds (the lock dies with
// its holder), and the next writer (init again after init, else log
// --replay) leaves no temporary file anywhere and a pact validate finds no
// error in; the user's look-alike files survive every writer.
func TestFaultKillEveryVerb(t *testing.T) {
	t.Parallel()
	for _, c := range verbCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.name != "init" {
				for _, name := range userLookalikes {
					c.from.write(name, "mine\n")
				}
			}
			probe := c.from.clone(t)
			start := time.Now()
			if r := probe.run(c.agent, c.args...); r.code != 0 {
				t.Fatalf("without a kill:\n%s", r)
			}
			span := time.Since(start)
			rng := rand.New(rand.NewPCG(uint64(len(c.name)), 7))
			killed := 0
			const kills = 10
			for i := range kills {
				p := c.from.clone(t)
				victim := exec.Command(binPath, c.args...)
				victim.Dir, victim.Env = p.dir, p.env(c.agent)
				if err := victim.Start(); err != nil {
					t.Fatal(err)
				}
				// Another writer at the same time (not for init, whose
				// second run only refreshes).
				other := make(chan result, 1)
				if c.name != "init" {
					go func() {
						r, err := runProc(p.dir, p.env("orch"), "assign", "OTHER", "--feature", "G", "--branch", "b", "--owner", "w", "--reviewer", "rev")
						if err != nil {
							r.stderr += err.Error()
						}
						other <- r
					}()
				}
				share := int64(span) / kills
				time.Sleep(time.Duration(int64(i)*share + rng.Int64N(share+1)))
				if victim.Process.Kill() == nil { // SIGKILL; TerminateProcess on Windows
					killed++
				}
				_ = victim.Wait()
				if c.name != "init" {
					if r := <-other; r.code != 0 {
						t.Fatalf("the writer racing a killed one:\n%s", r)
					}
				}
				if _, err := os.Stat(p.path(".pact/log.jsonl")); err == nil && p.read(".pact/log.jsonl") != "" {
					wholeLines(t, p)
				}
				if state, err := os.ReadFile(p.path(".pact/STATE.yml")); err == nil && !strings.HasPrefix(string(state), "# Generated by pactify") {
					t.Fatalf("STATE.yml is not a whole file after a kill: %.200q", state)
				}
				// The next writer finishes what the killed one left.
				next := []string{"log", "--replay"}
				if c.name == "init" {
					next = c.args
				}
				if r := p.run("orch", next...); r.code != 0 {
					t.Fatalf("after a kill:\n%s", r)
				}
				noTempFiles(t, p.dir)
				if rep, r := p.validate(); rep.Errors != 0 {
					t.Fatalf("after a kill and %q, validate finds errors:\n%s", next, r)
				}
				if c.name != "init" {
					for _, name := range userLookalikes {
						if _, err := os.Stat(p.path(name)); err != nil {
							t.Fatalf("the user's %s is gone: %v", name, err)
						}
					}
				}
			}
			if killed == 0 {
				t.Fatal("no writer was killed: the test tested nothing")
			}
			t.Logf("%s: %d killed", c.name, killed)
		})
	}
}

// TestFaultValidateWhileReplaying runs validate again and again while log
// --replay rewrites STATE.yml and a writer appends: validate reads under
// the shared lock, so it judges the log and STATE.yml as one writer or
// replay left them, never drift.
func TestFaultValidateWhileReplaying(t *testing.T) {
	t.Parallel()
	p := faultProject(t)
	const assigns = 10
	writer, replayer := make(chan error, 1), make(chan error, 1)
	stop := make(chan struct{})
	run := func(agent string, args ...string) error {
		r, err := runProc(p.dir, p.env(agent), args...)
		if err == nil && r.code != 0 {
			err = errors.New(r.String())
		}
		return err
	}
	go func() {
		for i := range assigns {
			if err := run("orch", "assign", fmt.Sprintf("R%d", i), "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev"); err != nil {
				writer <- err
				return
			}
		}
		writer <- nil
	}()
	replays := 0
	go func() {
		for {
			select {
			case <-stop:
				replayer <- nil
				return
			default:
			}
			if err := run("orch", "log", "--replay"); err != nil {
				replayer <- err
				return
			}
			replays++
		}
	}()
	runs := 0
	for finished := false; !finished; {
		select {
		case err := <-writer:
			if err != nil {
				t.Fatal(err)
			}
			finished = true
		default:
		}
		r, err := runProc(p.dir, p.env(unset), "validate", "--format", "json")
		if err != nil {
			t.Fatal(err)
		}
		runs++
		if r.code != 0 || !strings.Contains(r.stdout, `"errors": 0`) {
			t.Fatalf("validate while log --replay and assign run (run %d):\n%s", runs, r)
		}
	}
	close(stop)
	if err := <-replayer; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d validate runs during %d replays and %d appends", runs, replays, assigns)
}

// TestFaultNestedRepository: run inside a repository nested in the
// pact's (a submodule, whose .git is a file), pactify looks no higher
// than the inner repository, as git does: it finds no pact there and
// says so, writes nothing, and init starts the inner repository's own.
func TestFaultNestedRepository(t *testing.T) {
	t.Parallel()
	p := faultProject(t)
	if err := os.Mkdir(p.path(".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	p.write("vendor/lib/.git", "gitdir: ../../.git/modules/lib\n")
	deep := p.path("vendor/lib/src")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, p.dir)
	r := runIn(t, deep, p.env("orch"), "assign", "T1", "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev")
	if r.code != 1 || !strings.Contains(r.stderr, "there is no pact here") {
		t.Errorf("assign inside a submodule of the pact's repository:\n%s", r)
	}
	if r := runIn(t, deep, p.env(unset), "status"); r.code != 2 || !strings.Contains(r.stderr, "there is no pact in") {
		t.Errorf("status inside a submodule:\n%s", r)
	}
	sameTree(t, before, snapshot(t, p.dir))
	// From the outer repository's own subdirectory, the pact is found.
	if err := os.Mkdir(p.path("docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := runIn(t, p.path("docs"), p.env(unset), "status"); r.code != 0 || !strings.Contains(r.stdout, "project: faults") {
		t.Errorf("status from the outer repository's docs/:\n%s", r)
	}
}

// TestFaultPactDirIsAFile: --pact-dir or PACT_DIR naming a file is said
// to be one (exit 2) by every verb, which writes nothing: not "replace it
// with a directory", not "run pactify init".
func TestFaultPactDirIsAFile(t *testing.T) {
	t.Parallel()
	p := faultProject(t)
	before := snapshot(t, p.dir)
	for _, args := range [][]string{{"validate"}, {"status"}, {"log", "--replay"},
		{"assign", "T1", "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev"},
		{"init", "--project", "x", "--seat", "orch:orchestrator:AGENTS.md"}} {
		env := append(p.env("orch"), "PACT_DIR=AGENTS.md")
		r := runIn(t, p.dir, env, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "PACT_DIR names AGENTS.md, which is a file") {
			t.Errorf("PACT_DIR at a file:\n%s", r)
		}
		r = runIn(t, p.dir, p.env("orch"), append(args, "--pact-dir", ".pact/STATE.yml")...)
		if r.code != 2 || !strings.Contains(r.stderr, "--pact-dir names .pact/STATE.yml, which is a file") {
			t.Errorf("--pact-dir at a file:\n%s", r)
		}
	}
	sameTree(t, before, snapshot(t, p.dir))
}

// TestFaultCRLFLogCutAfterCR: a CRLF log whose last line lost its LF (it
// ends in CR) is cut off like any other: every writer refuses, exit 1,
// and nothing changes.
func TestFaultCRLFLogCutAfterCR(t *testing.T) {
	t.Parallel()
	p := faultProject(t)
	p.ok("orch", "assign", "T1", "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev")
	log := strings.ReplaceAll(p.read(".pact/log.jsonl"), "\n", "\r\n")
	p.write(".pact/log.jsonl", strings.TrimSuffix(log, "\n"))
	before := snapshot(t, p.dir)
	r := p.run("w", "join", "w", "--roles", "worker")
	if r.code != 1 || !strings.Contains(r.stderr, "byte(s) of .pact/log.jsonl have no line break") || !strings.Contains(r.stderr, "hint: look at the end") {
		t.Errorf("join on a CRLF log ending in CR:\n%s", r)
	}
	sameTree(t, before, snapshot(t, p.dir))
}
