package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-action/pact-action/pactdir"
)

// The fault suite: what a writer leaves when it is killed, when the system
// refuses a write, and what validate sees while writers append (see
// docs/pactify.md, "When a write fails"). Through the real binary.

// faultProject is a pact of one orchestrator, one worker and one
// reviewer, with nothing assigned.
func faultProject(t *testing.T) *project {
	t.Helper()
	p := newProject(t)
	p.now = ""
	if r := p.run("orch", "init", "--project", "faults", "--seat", "orch:orchestrator:AGENTS.md",
		"--seat", "w:worker:AGENTS.md", "--seat", "rev:reviewer:AGENTS.md"); r.code != 0 {
		t.Fatalf("init:\n%s", r)
	}
	return p
}

// readableLog is p's log as every command reads it (pactdir.Dir.OpenLog).
func readableLog(t *testing.T, p *project) string {
	t.Helper()
	f, _, err := pactdir.Dir{Root: p.dir, Name: ".pact"}.OpenLog()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wholeLines fails unless the log, as every command reads it, is whole
// JSON lines, each ending in a line break: a valid prefix of what the
// writers appended. (A line a killed writer left half-written is not read,
// and the next writer cuts it back: pactdir's torn.go and its tests.)
func wholeLines(t *testing.T, p *project) int {
	t.Helper()
	text := readableLog(t, p)
	if !strings.HasSuffix(text, "\n") {
		t.Fatalf("the log ends in a torn line: %q", text[max(0, len(text)-120):])
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("line %d is not JSON: %.120q", i+1, l)
		}
	}
	return len(lines)
}

// TestFaultKilledWriters kills writers at random moments of their run,
// for a couple of seconds: the log stays whole lines (a valid prefix),
// STATE.yml is always a whole file (the old one or the new one), and the
// next writer removes every temporary file a killed one left, and brings
// STATE.yml up to date.
func TestFaultKilledWriters(t *testing.T) {
	t.Parallel()
	p := faultProject(t)
	// How long one writer takes here, to spread the kills over its run.
	start := time.Now()
	if r := p.run("orch", "assign", "W0", "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev"); r.code != 0 {
		t.Fatalf("assign:\n%s", r)
	}
	span := time.Since(start)
	rng := rand.New(rand.NewPCG(1, 2))
	killed, leftTemps := 0, 0
	for i := 1; i <= 60 && (i <= 10 || time.Since(start) < 3*time.Second); i++ {
		cmd := exec.Command(binPath, "assign", fmt.Sprintf("K%d", i), "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev")
		cmd.Dir, cmd.Env = p.dir, p.env("orch")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Int64N(int64(span) + 1)))
		if cmd.Process.Kill() == nil {
			killed++
		}
		_ = cmd.Wait()
		wholeLines(t, p)
		if hasTempFiles(t, p.dir) {
			leftTemps++
		}
		if state := p.read(".pact/STATE.yml"); !strings.HasPrefix(state, "# ") && !strings.Contains(state, "project:") {
			t.Fatalf("STATE.yml is not a whole file after a kill: %.200q", state)
		}
	}
	if killed == 0 {
		t.Fatal("no writer was killed: the test tested nothing")
	}
	// The next writer cleans up after them all.
	if r := p.run("orch", "assign", "AFTER", "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev"); r.code != 0 {
		t.Fatalf("the writer after the kills:\n%s", r)
	}
	noTempFiles(t, p.dir)
	rep, r := p.validate()
	for _, f := range rep.Findings {
		if f.Severity == "error" {
			t.Fatalf("after %d kills and one more writer, validate finds an error:\n%s", killed, r)
		}
	}
	t.Logf("%d writers killed, %d of them leaving temporary files; the log holds %d lines", killed, leftTemps, wholeLines(t, p))
}

// TestFaultValidateWhileWriting runs validate again and again while
// writers append: it judges one moment (the log and STATE.yml as one writer
// left them), so it never reports drift (or any error) on a pact whose
// every writer succeeds.
func TestFaultValidateWhileWriting(t *testing.T) {
	t.Parallel()
	p := faultProject(t)
	const writers, each = 2, 12
	var wg sync.WaitGroup
	done := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				r, err := runProc(p.dir, p.env("orch"), "assign", fmt.Sprintf("V%d-%d", w, i), "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev")
				if err != nil || r.code != 0 {
					t.Errorf("writer: %v\n%s", err, r)
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	runs := 0
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true // one more run after the last append
		default:
		}
		r, err := runProc(p.dir, p.env(unset), "validate", "--format", "json")
		if err != nil {
			t.Fatal(err)
		}
		runs++
		var rep validateJSON
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 || rep.Errors != 0 {
			t.Fatalf("validate during appends (run %d):\n%s", runs, r)
		}
	}
	if n := wholeLines(t, p); n != 1+writers*each {
		t.Fatalf("%d lines, want %d", n, 1+writers*each)
	}
	t.Logf("%d validate runs while %d writers appended %d lines", runs, writers, writers*each)
}

// limitedRun runs pactify under a shell's file-size limit of blocks
// 512-byte blocks (unix only; see faults_unix_test.go).
var limitedRun func(t *testing.T, p *project, agent string, blocks int64, args ...string) result

// TestFaultFileSizeLimit: a writer whose file-size limit stops it half-way
// through the append (ulimit -f) leaves every file byte for byte as it
// was, says which limit it met and that nothing was recorded, and exits 2;
// an assign leaves no task file. Without the limit the same command
// succeeds.
func TestFaultFileSizeLimit(t *testing.T) {
	t.Parallel()
	if limitedRun == nil {
		t.Skip("a file-size limit needs a POSIX shell's ulimit -f, which this system lacks")
	}
	p := faultProject(t)
	if r := p.run("orch", "assign", "T1", "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev"); r.code != 0 {
		t.Fatal(r)
	}
	if r := p.run("w", "join", "w", "--roles", "worker"); r.code != 0 {
		t.Fatal(r)
	}
	// The limit lies past the log's end, so the append begins and is cut
	// off: the line is longer than what is left below the limit, while
	// STATE.yml and the task file, written first, stay below it (the
	// evidence of a checkpoint is in the log alone).
	limit := func() (blocks, room int64) {
		fi, err := os.Stat(p.path(".pact/log.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		blocks = fi.Size()/512 + 1
		return blocks, blocks*512 - fi.Size()
	}
	cutOff := func(agent string, blocks int64, args ...string) {
		t.Helper()
		before := snapshot(t, p.dir)
		log := p.read(".pact/log.jsonl")
		r := limitedRun(t, p, agent, blocks, args...)
		t.Logf("%s under ulimit -f %d: %s", args[0], blocks, strings.SplitN(r.stderr, "\n", 2)[0])
		if r.code != 2 || !strings.Contains(r.stderr, "append to .pact/log.jsonl: the file would exceed the file-size limit") ||
			!strings.Contains(r.stderr, "nothing was recorded") || !strings.Contains(r.stderr, "hint: raise the file-size limit") {
			t.Errorf("%s under a file-size limit:\n%s", args[0], r)
		}
		if got := p.read(".pact/log.jsonl"); got != log {
			t.Fatalf("the log changed: %d bytes, was %d", len(got), len(log))
		}
		sameTree(t, before, snapshot(t, p.dir))
	}
	blocks, room := limit()
	evidence := strings.Repeat("e", int(room)+3000)
	cutOff("w", blocks, "checkpoint", "T1", "--evidence", evidence)
	// Without the limit, the same command succeeds: no fragment stands in
	// its way.
	p.ok("w", "checkpoint", "T1", "--evidence", evidence)

	blocks, room = limit()
	branch := strings.Repeat("b", int(room)+100)
	cutOff("orch", blocks, "assign", "T2", "--feature", "F", "--branch", branch, "--owner", "w", "--reviewer", "rev")
	p.ok("orch", "assign", "T2", "--feature", "F", "--branch", branch, "--owner", "w", "--reviewer", "rev")
	if !strings.Contains(p.read(".pact/tasks/T2.md"), "T2") {
		t.Error("tasks/T2.md was not written by the assign that succeeded")
	}
}

// hasTempFiles reports whether a temporary file of a writer is under dir.
func hasTempFiles(t *testing.T, dir string) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		found = found || (err == nil && strings.Contains(d.Name(), ".tmp-"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// tornRecord is the record a writer keeps while it appends buf to a log of
// size bytes (pactdir's torn.go: its magic line, the size and the length,
// then the bytes).
func tornRecord(size int, buf string) string {
	return fmt.Sprintf("pactify append 1\n%d %d\n%s", size, len(buf), buf)
}

// TestFaultTornLeftover leaves what each writing verb leaves when it is
// killed half-way through its append's write (part of its line, and its
// record): every command reads the log as it was, validate finds no error
// in it, and the same verb run again succeeds, appending exactly one line
// after the old ones and leaving no record or temporary file. For init,
// that is the run of init again that a killed init's hint asks for.
func TestFaultTornLeftover(t *testing.T) {
	t.Parallel()
	for _, c := range verbCases(t) {
		if c.name == "log --replay" {
			continue // it appends nothing
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			probe := c.from.clone(t)
			old := ""
			if _, err := os.Stat(probe.path(".pact/log.jsonl")); err == nil {
				old = probe.read(".pact/log.jsonl")
			}
			probe.ok(c.agent, c.args...)
			line := strings.TrimPrefix(probe.read(".pact/log.jsonl"), old)
			p := c.from.clone(t)
			p.write(".pact/log.jsonl", old+line[:len(line)/2])
			p.write(".pact/.log.jsonl.tmp-append", tornRecord(len(old), line))
			if got := readableLog(t, p); got != old {
				t.Fatalf("commands read %d bytes of the log, want the %d it had", len(got), len(old))
			}
			if c.name != "init" {
				rep, r := p.validate()
				if rep.Errors != 0 {
					t.Fatalf("validate on a killed writer's leftover finds errors:\n%s", r)
				}
				for _, r := range []result{r, p.run(c.agent, "status"), p.run(c.agent, "log")} {
					if !strings.Contains(r.stderr, "a line a killed pactify was writing and never recorded") {
						t.Fatalf("a reader does not say what it read the log without:\n%s", r)
					}
				}
			}
			if r := p.run(c.agent, c.args...); r.code != 0 {
				t.Fatalf("the same %s after the kill:\n%s", c.name, r)
			}
			log := p.read(".pact/log.jsonl")
			if !strings.HasPrefix(log, old) || strings.Count(strings.TrimPrefix(log, old), "\n") != 1 || wholeLines(t, p) != strings.Count(old, "\n")+1 {
				t.Fatalf("after the same %s the log is %q, want the old lines and one more", c.name, log)
			}
			noTempFiles(t, p.dir)
			if rep, r := p.validate(); rep.Errors != 0 || strings.Contains(r.stderr, "killed") {
				t.Fatalf("after the same %s, validate finds errors or a torn line:\n%s", c.name, r)
			}
		})
	}
}
