package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/loggen"
	"github.com/pact-action/pact-action/internal/testkit/loggen/repogen"
	"github.com/pact-action/pact-action/projection"
)

// The fault suite on a pact whose STATE.yml is rendered in ranges on
// several workers (more than 2048 tasks: projection's render plan), through
// the real binary where a kill or the system's limits need it.

// largeTasks is the fewest tasks largeProject's pact has.
const largeTasks = 2048 + 512

// largeProject is a pact of loggen's roster (lead orchestrates) with more
// than largeTasks tasks, its STATE.yml written by log --replay and no task
// files (validate warns of them, no error).
func largeProject(t *testing.T) *project {
	t.Helper()
	p := newProject(t)
	if _, err := repogen.Write(p.dir, loggen.Config{Lines: 14_000, Seed: 11, Swaps: 0.01}, repogen.Options{LogOnly: true}); err != nil {
		t.Fatal(err)
	}
	p.succeed("lead", "log", "--replay")
	_, res := projection.ReadBytes([]byte(p.read(".pact/log.jsonl")), projection.ReadOptions{})
	if n := len(res.State.TaskOrder); n < largeTasks {
		t.Fatalf("the generated pact has %d tasks, fewer than %d", n, largeTasks)
	}
	return p
}

// succeed runs a verb that must succeed; unlike ok, it leaves judging
// the pact to the caller (a pact without task files has warnings).
func (p *project) succeed(agent string, args ...string) result {
	p.t.Helper()
	r := p.run(agent, args...)
	if r.code != 0 {
		p.t.Fatalf("want exit 0\n%s", r)
	}
	return r
}

// largeAssign is an assign of a new task K on largeProject's pact.
func largeAssign(k string) []string {
	return []string{"assign", k, "--feature", "FX", "--branch", "b", "--owner", "opencode", "--reviewer", "gemini-pro"}
}

// noErrors fails unless validate finds no error in p, and returns its
// JSON output.
func noErrors(t *testing.T, p *project, what string) string {
	t.Helper()
	rep, r := p.validate()
	if rep.Errors != 0 {
		t.Fatalf("%s: validate finds errors:\n%s", what, r)
	}
	return r.stdout
}

// TestFaultKillLargePact kills log --replay (rebuilding a stale STATE.yml)
// and an assign (replaying the log, or starting from the writers'
// snapshot), on a pact of thousands of tasks, at moments spread over
// their run: STATE.yml is always exactly the old bytes or the new ones,
// the log exactly what it was or that plus the assign's line, never
// STATE.yml new with the log old; validate then finds an error (drift.state)
// exactly when STATE.yml is not the log's; and the next writer (log
// --replay, or another assign where the snapshot is kept) leaves no
// temporary file and STATE.yml exactly the render of the log's replay.
func TestFaultKillLargePact(t *testing.T) {
	t.Parallel()
	tmpl := largeProject(t)
	done := tmpl.clone(t)
	done.succeed("lead", largeAssign("K")...)
	stale := done.clone(t)
	stale.write(".pact/STATE.yml", tmpl.read(".pact/STATE.yml"))
	cases := []struct {
		name string
		// from makes the pact a victim starts from (and the probe).
		from func(t *testing.T) *project
		args []string
		next []string
	}{
		{"log --replay", func(t *testing.T) *project { return stale.clone(t) }, []string{"log", "--replay"}, []string{"log", "--replay"}},
		{"assign", func(t *testing.T) *project { return tmpl.clone(t) }, largeAssign("K"), []string{"log", "--replay"}},
		{"assign from the snapshot", func(t *testing.T) *project {
			p := tmpl.clone(t)
			withSnapshot(t, p)
			return p
		}, largeAssign("K"), largeAssign("K2")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			probe := c.from(t)
			oldState := probe.read(".pact/STATE.yml")
			start := time.Now()
			r, _ := debugRun(t, probe, "lead", c.args...)
			span := time.Since(start)
			newState := probe.read(".pact/STATE.yml")
			if used := !strings.Contains(r.stderr, "no snapshot used"); c.name == "assign from the snapshot" && !used {
				t.Fatalf("the writer did not start from the snapshot:\n%s", r)
			}
			if r.code != 0 || newState == oldState {
				t.Fatalf("without a kill, STATE.yml changed: %v\n%s", newState != oldState, r)
			}
			rng := rand.New(rand.NewPCG(uint64(len(c.name)), 30))
			// Few: each kill copies a pact of thousands of tasks, and
			// TestFaultKillEveryVerb sweeps the moments on small ones.
			const kills = 5
			killed, outcomes := 0, map[string]int{}
			for i := range kills {
				p := c.from(t)
				oldLog := p.read(".pact/log.jsonl")
				if p.read(".pact/STATE.yml") != oldState {
					t.Fatal("two pacts to start from have two STATE.yml")
				}
				victim := exec.Command(binPath, c.args...)
				victim.Dir, victim.Env = p.dir, p.env("lead")
				if err := victim.Start(); err != nil {
					t.Fatal(err)
				}
				share := int64(span) / kills
				time.Sleep(time.Duration(int64(i)*share + rng.Int64N(share+1)))
				if victim.Process.Kill() == nil {
					killed++
				}
				_ = victim.Wait()
				// The log as commands read it: a line the kill cut off
				// half-written is not (pactdir's torn.go).
				state, log := p.read(".pact/STATE.yml"), readableLog(t, p)
				logNew := c.name == "log --replay"
				if log != oldLog {
					// The line's event_id is the victim's own.
					added, ok := strings.CutPrefix(log, oldLog)
					logNew = ok && strings.Count(added, "\n") == 1 && strings.HasSuffix(added, "\n") && strings.Contains(added, `"task_id":"K"`)
					if !logNew {
						t.Fatalf("kill %d: the log is neither the old one nor it plus the line (%d bytes, was %d)", i, len(log), len(oldLog))
					}
				}
				stateNew := state == newState
				switch {
				case !stateNew && state != oldState:
					t.Fatalf("kill %d: STATE.yml is neither the old bytes nor the new ones (%d bytes; %d or %d): %.200q", i, len(state), len(oldState), len(newState), state)
				case stateNew && !logNew:
					t.Fatalf("kill %d: STATE.yml is new, the log old", i)
				}
				outcomes[map[bool]string{false: "STATE.yml old", true: "STATE.yml new"}[stateNew]]++
				rep, vr := p.validate()
				drift := slices.ContainsFunc(rep.Findings, func(f checks.Finding) bool { return f.Code == "drift.state" })
				if (rep.Errors != 0) != (stateNew != logNew) || (rep.Errors != 0) != drift {
					t.Fatalf("kill %d: STATE.yml new %v, the log new %v, and validate says:\n%s", i, stateNew, logNew, vr)
				}
				if r := p.run("lead", c.next...); r.code != 0 {
					t.Fatalf("kill %d: the next writer: %s", i, r)
				}
				noTempFiles(t, p.dir)
				_, res := projection.ReadBytes([]byte(p.read(".pact/log.jsonl")), projection.ReadOptions{})
				if p.read(".pact/STATE.yml") != string(projection.RenderBytes(res.State)) {
					t.Fatalf("kill %d: the next writer left another STATE.yml than that of the log", i)
				}
			}
			if killed == 0 {
				t.Fatal("no process was killed: the test tested nothing")
			}
			t.Logf("%s on %d KB of STATE.yml: %d killed: %v", c.name, len(newState)>>10, killed, outcomes)
		})
	}
}

// TestLargePactGOMAXPROCS: log --replay and validate, in one goroutine's
// worth of processors and in four, write byte-identical STATE.yml and
// print byte-identical reports, for a pact whose render uses ranges.
func TestLargePactGOMAXPROCS(t *testing.T) {
	t.Parallel()
	tmpl := largeProject(t)
	want := tmpl.read(".pact/STATE.yml")
	var states, reports []string
	for _, procs := range []string{"1", "2", "4"} {
		p := tmpl.clone(t)
		p.remove(".pact/STATE.yml")
		env := func(agent string) []string { return append(p.env(agent), "GOMAXPROCS="+procs) }
		if r := runIn(t, p.dir, env("lead"), "log", "--replay"); r.code != 0 {
			t.Fatalf("GOMAXPROCS=%s: %s", procs, r)
		}
		states = append(states, p.read(".pact/STATE.yml"))
		var report bytes.Buffer
		for _, format := range []string{"json", "text", "sarif"} {
			r := runIn(t, p.dir, env(unset), "validate", "--format", format)
			if r.code != 0 {
				t.Fatalf("GOMAXPROCS=%s, validate --format %s: %s", procs, format, r)
			}
			report.WriteString(r.stdout)
		}
		reports = append(reports, report.String())
	}
	for i := range states {
		if states[i] != want || reports[i] != reports[0] {
			t.Fatalf("GOMAXPROCS run %d: STATE.yml equal %v (%d bytes, want %d), reports equal %v",
				i, states[i] == want, len(states[i]), len(want), reports[i] == reports[0])
		}
	}
}

// withSnapshot makes p a git repository (a .git directory is all the
// writers' snapshot needs), has a first assign (K0) write its snapshot,
// dated after the log, and returns the snapshot's bytes and path relative
// to p. A snapshot names the pact's absolute path: a clone's is not used.
func withSnapshot(t *testing.T, p *project) ([]byte, string) {
	t.Helper()
	if err := os.Mkdir(p.path(".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	p.succeed("lead", largeAssign("K0")...)
	aged(t, p)
	name := snapshotFile(t, p)
	snap, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(p.dir, name)
	if err != nil {
		t.Fatal(err)
	}
	return snap, rel
}

// TestSnapshotDamagedLargePact: a writer on a pact of thousands of tasks
// whose snapshot is of the format before this one (as the previous
// release wrote it: its format word 1), cut short anywhere, or with a
// byte flipped anywhere, replays the log, says why (PACT_DEBUG=1), and
// does what a writer without a snapshot does: the same refusal of a
// duplicate with every file as it was, the same STATE.yml after a new
// assign, and validate says the same, no error; the snapshot it leaves is
// used by the next writer.
func TestSnapshotDamagedLargePact(t *testing.T) {
	t.Parallel()
	tmpl := largeProject(t)
	// Without a snapshot: what every damaged one must come to.
	bare := tmpl.clone(t)
	bare.succeed("lead", largeAssign("K0")...)
	if r := bare.run("lead", largeAssign("K0")...); r.code != 1 || !strings.Contains(r.stderr, "task.duplicate_id") {
		t.Fatalf("a duplicate without a snapshot:\n%s", r)
	}
	bare.succeed("lead", largeAssign("K1")...)
	wantState := bare.read(".pact/STATE.yml")
	wantReport := noErrors(t, bare, "after the writer without a snapshot")

	type damage struct {
		name, why string
		spoil     func(snap []byte, format int) []byte
	}
	damages := []damage{
		{"intact", "", func(snap []byte, _ int) []byte { return snap }},
		{"format 1", "format 1, not 2", func(snap []byte, format int) []byte { snap[format] = 1; return snap }},
	}
	cut := func(at func(n, format int) int) func([]byte, int) []byte {
		return func(snap []byte, format int) []byte { return snap[:at(len(snap), format)] }
	}
	damages = append(damages,
		damage{"empty", "", cut(func(int, int) int { return 0 })},
		damage{"cut after the format word", "", cut(func(_, format int) int { return format + 4 })},
		damage{"cut in half", "", cut(func(n, _ int) int { return n / 2 })},
		damage{"cut by a byte", "", cut(func(n, _ int) int { return n - 1 })})
	for i := range 7 {
		damages = append(damages, damage{"byte " + strconv.Itoa(i) + "/6 flipped", "", func(snap []byte, _ int) []byte {
			snap[i*(len(snap)-1)/6] ^= 0x10
			return snap
		}})
	}
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			p := tmpl.clone(t)
			snap, rel := withSnapshot(t, p)
			format := bytes.Index(snap, []byte("PACTSNAP")) + len("PACTSNAP")
			if format < len("PACTSNAP") || snap[format] != projection.SnapshotFormat {
				t.Fatalf("no format word %d in the snapshot", projection.SnapshotFormat)
			}
			p.write(rel, string(d.spoil(snap, format)))
			aged(t, p)
			// A duplicate first: refused, every file as it was.
			before := snapshot(t, p.dir)
			r, used := debugRun(t, p, "lead", largeAssign("K0")...)
			if r.code != 1 || used != (d.name == "intact") || !strings.Contains(r.stderr, "task.duplicate_id") || !strings.Contains(r.stderr, d.why) {
				t.Fatalf("assign K0 again (snapshot used: %v):\n%s", used, r)
			}
			sameTree(t, before, snapshot(t, p.dir))
			for _, line := range strings.Split(r.stderr, "\n") {
				if strings.Contains(line, "no snapshot used") {
					t.Log(line)
				}
			}
			r, used = debugRun(t, p, "lead", largeAssign("K1")...)
			if r.code != 0 || used != (d.name == "intact") {
				t.Fatalf("assign K1 (snapshot used: %v):\n%s", used, r)
			}
			if p.read(".pact/STATE.yml") != wantState {
				t.Fatal("the writer wrote another STATE.yml than a writer without a snapshot")
			}
			if got := noErrors(t, p, d.name); got != wantReport {
				t.Fatalf("validate says\n%s\nafter a writer without a snapshot\n%s", got, wantReport)
			}
			aged(t, p)
			if r, used := debugRun(t, p, "opencode", "join", "opencode", "--roles", "worker"); r.code != 0 || !used {
				t.Fatalf("the snapshot the writer left is not used:\n%s", r)
			}
		})
	}
}
