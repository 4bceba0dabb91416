package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/pact-action/pact-action/pactdir"
)

// interruptedLine is what a writer an interrupt stopped says, alone on
// stderr.
const interruptedLine = "pactify: interrupted before anything was written: nothing was recorded, and every file is as it was\n"

// waitingLine is the debug line (PACT_DEBUG) of a writer that waits for
// another writer's lock: past it, the writer handles Ctrl-C itself.
const waitingLine = "waiting for another writer to finish with .pact/log.jsonl"

// writers are the writers of faultProject's pact, one of each kind, with
// the seat that runs them: an event, an assign with its task file, log
// --replay, and init again.
var writers = map[string]struct {
	agent string
	args  []string
}{
	"join":         {"w", []string{"join", "w", "--roles", "worker"}},
	"assign":       {"orch", []string{"assign", "T1", "--feature", "F", "--branch", "b", "--owner", "w", "--reviewer", "rev"}},
	"log --replay": {"orch", []string{"log", "--replay"}},
	"init again": {"orch", []string{"init", "--project", "faults", "--seat", "orch:orchestrator:AGENTS.md",
		"--seat", "w:worker:AGENTS.md", "--seat", "rev:reviewer:AGENTS.md"}},
}

// TestInterruptedWriter: a writer interrupted (Ctrl-C) before its first
// write, here while another writer holds the lock, stops at once, says so
// in one line and exits 130, every file as it was; one interrupted after
// its write says the write is whole, and exits 0. In process, so on every
// system (TestBinaryInterruptedWriter sends the real SIGINT where there
// is one).
func TestInterruptedWriter(t *testing.T) {
	for name, w := range writers {
		t.Run(name, func(t *testing.T) {
			p := faultProject(t)
			t.Chdir(p.dir)
			before := snapshot(t, p.dir)
			holder, err := pactdir.Dir{Root: p.dir, Name: ".pact"}.Lock()
			if err != nil {
				t.Fatal(err)
			}
			defer holder()
			ctx, interrupt := context.WithCancel(t.Context())
			defer interrupt()
			lines, stderr := watchLines(t)
			var stdout strings.Builder
			code := make(chan int, 1)
			go func() {
				code <- run(ctx, w.args, nil, &stdout, stderr, p.getenv(w.agent, "PACT_DEBUG=1"))
				_ = stderr.Close()
			}()
			waitFor(t, lines, waitingLine)
			interrupt()
			if got := <-code; got != exitInterrupted {
				t.Errorf("exit %d, want %d", got, exitInterrupted)
			}
			if rest := drain(lines); rest != interruptedLine || stdout.Len() != 0 {
				t.Errorf("stdout %q, stderr after the wait %q; want nothing, then %q", stdout.String(), rest, interruptedLine)
			}
			holder()
			sameTree(t, before, snapshot(t, p.dir))
		})
	}

	t.Run("interrupted once the write began", func(t *testing.T) {
		p := faultProject(t)
		t.Chdir(p.dir)
		ctx, interrupt := context.WithCancel(t.Context())
		defer interrupt()
		// The interrupt comes as the verb says what it appended: past its
		// last write.
		stdout := &onWrite{fn: interrupt}
		var stderr strings.Builder
		join := writers["join"]
		if code := run(ctx, join.args, nil, stdout, &stderr, p.getenv(join.agent)); code != exitOK {
			t.Errorf("exit %d, want 0\nstderr: %s", code, stderr.String())
		}
		if !strings.Contains(stdout.String(), "appended event") ||
			!strings.HasPrefix(stderr.String(), "pactify: interrupted once event ") || !strings.HasSuffix(stderr.String(), " was being recorded: it was finished, not cut off\n") {
			t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
		}
		if n := wholeLines(t, p); n != 2 {
			t.Errorf("log lines = %d, want the init and the join", n)
		}
		p.mustValidate()
	})

	t.Run("interrupted while it replayed the log", func(t *testing.T) {
		p := faultProject(t)
		t.Chdir(p.dir)
		before := snapshot(t, p.dir)
		ctx, interrupt := context.WithCancel(t.Context())
		defer interrupt()
		// The debug line that follows the replay (no snapshot outside
		// git) brings the interrupt: the verb has judged its event, and
		// written nothing.
		var stdout strings.Builder
		stderr := &onWrite{fn: interrupt, when: "replaying the log"}
		assign := writers["assign"]
		if code := run(ctx, assign.args, nil, &stdout, stderr, p.getenv(assign.agent, "PACT_DEBUG=1")); code != exitInterrupted ||
			!strings.HasSuffix(stderr.String(), "\n"+interruptedLine) || stdout.Len() != 0 {
			t.Errorf("exit %d, stdout %q, stderr %q; want %d, nothing, and last %q", code, stdout.String(), stderr.String(), exitInterrupted, interruptedLine)
		}
		sameTree(t, before, snapshot(t, p.dir))
	})

	for name, fresh := range map[string]bool{"interrupted before it began": false, "init interrupted before it began": true} {
		t.Run(name, func(t *testing.T) {
			var p *project
			w := writers["assign"]
			if fresh {
				p, w = newProject(t), writers["init again"]
			} else {
				p = faultProject(t)
			}
			t.Chdir(p.dir)
			before := snapshot(t, p.dir)
			ctx, interrupt := context.WithCancel(t.Context())
			interrupt()
			var stdout, stderr strings.Builder
			if code := run(ctx, w.args, nil, &stdout, &stderr, p.getenv(w.agent)); code != exitInterrupted || stderr.String() != interruptedLine {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr.String(), exitInterrupted, interruptedLine)
			}
			sameTree(t, before, snapshot(t, p.dir))
		})
	}
}

// TestBinaryInterruptedWriter: Ctrl-C (SIGINT) to a writer waiting for
// another writer's lock: it exits 130 at once saying so, nothing written.
func TestBinaryInterruptedWriter(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("Windows cannot send one process a console Ctrl-C (os.Process.Signal(os.Interrupt) is not implemented there); TestInterruptedWriter covers the same path in process")
	}
	p := faultProject(t)
	before := snapshot(t, p.dir)
	holder, err := pactdir.Dir{Root: p.dir, Name: ".pact"}.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer holder()
	assign := writers["assign"]
	cmd := exec.Command(binPath, assign.args...)
	cmd.Dir, cmd.Env = p.dir, append(p.env(assign.agent), "PACT_DEBUG=1")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 64)
	go scanLines(errPipe, lines)
	waitFor(t, lines, waitingLine)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	rest := drain(lines)
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted || rest != interruptedLine || stdout.Len() != 0 {
		t.Errorf("exit %d (%v), stdout %q, stderr after the wait %q; want %d, nothing, %q", code, err, stdout.String(), rest, exitInterrupted, interruptedLine)
	}
	holder()
	sameTree(t, before, snapshot(t, p.dir))
}

// getenv is the environment of p.env(agent) and extra (KEY=value), for a
// verb run in process.
func (p *project) getenv(agent string, extra ...string) func(string) string {
	env := map[string]string{}
	for _, kv := range append(p.env(agent), extra...) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

// watchLines is a stderr whose lines arrive on the channel, closed when
// the writer is.
func watchLines(t *testing.T) (<-chan string, io.WriteCloser) {
	t.Helper()
	r, w := io.Pipe()
	lines := make(chan string, 64)
	go scanLines(r, lines)
	t.Cleanup(func() { _ = w.Close() })
	return lines, w
}

func scanLines(r io.Reader, lines chan<- string) {
	defer close(lines)
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			lines <- line
		}
		if err != nil {
			return
		}
	}
}

// waitFor reads lines until one holds want.
func waitFor(t *testing.T, lines <-chan string, want string) {
	t.Helper()
	for line := range lines {
		if strings.Contains(line, want) {
			return
		}
	}
	t.Fatalf("stderr ended without %q", want)
}

// drain is every line still to come, together.
func drain(lines <-chan string) string {
	var b strings.Builder
	for line := range lines {
		b.WriteString(line)
	}
	return b.String()
}

// onWrite is an output that calls fn at its first write holding when
// ("": any).
type onWrite struct {
	strings.Builder
	once sync.Once
	fn   func()
	when string
}

func (w *onWrite) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.when) {
		w.once.Do(w.fn)
	}
	return w.Builder.Write(p)
}

// TestInterruptedInitFinishesTheDriver: init, interrupted (Ctrl-C) once
// its line is written, finishes what it does after it too: git's merge
// driver of the pact set in the repository's configuration, as an init
// not interrupted leaves it. Its `git config` runs must not be cut off:
// one killed while it writes .git/config leaves git's config.lock behind,
// and every later `git config` of the repository fails until someone
// removes it. The init again of the same roster, interrupted after its
// blocks are written, the same. In process, in a git repository.
func TestInterruptedInitFinishesTheDriver(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, again := range []bool{false, true} {
		name := map[bool]string{false: "init", true: "init again"}[again]
		t.Run(name, func(t *testing.T) {
			p := newProject(t)
			t.Setenv("HOME", p.home)
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			t.Chdir(p.dir)
			if out, err := exec.Command("git", "init", "-q").CombinedOutput(); err != nil {
				t.Fatalf("git init: %v\n%s", err, out)
			}
			w := writers["init again"]
			if again {
				if code := run(t.Context(), w.args, nil, io.Discard, io.Discard, p.getenv(w.agent)); code != exitOK {
					t.Fatalf("the first init: exit %d", code)
				}
				if out, err := exec.Command("git", "config", "--local", "--remove-section", "merge.pact").CombinedOutput(); err != nil {
					t.Fatalf("git config: %v\n%s", err, out)
				}
			}
			ctx, interrupt := context.WithCancel(t.Context())
			defer interrupt()
			// The interrupt comes as init says what it wrote.
			stdout := &onWrite{fn: interrupt}
			var stderr strings.Builder

			code := run(ctx, w.args, nil, stdout, &stderr, p.getenv(w.agent))

			want := "pactify: interrupted once the managed blocks were being written: it was finished, not cut off\n"
			if !again {
				want = "pactify: interrupted once event "
			}
			if code != exitOK || !strings.HasPrefix(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 0 and the one line %q…", code, stderr.String(), want)
			}
			out, err := exec.Command("git", "config", "--local", "merge.pact.driver").Output()
			if err != nil || !strings.Contains(string(out), "pactify merge-driver") {
				t.Errorf("git's merge driver is not set after the interrupted %s: %q, %v", name, out, err)
			}
			if _, err := os.Stat(filepath.Join(p.dir, ".git", "config.lock")); err == nil {
				t.Errorf(".git/config.lock is left behind")
			}
		})
	}
}

// TestInterruptedAtEveryStep: every writing verb, interrupted (Ctrl-C) at
// each step it can be: before it begins, while it waits for another
// writer's lock, while accept asks git for HEAD, once it has replayed the
// log and judged its event, and as it reports what it wrote. Before its
// first write it stops, says so in one line, exits 130 and leaves every
// file as it was; after, its write is whole, it says the interrupt came
// once it was being written, and exits 0. In process; a moment is the
// line the verb writes there (PACT_DEBUG's, or its report).
func TestInterruptedAtEveryStep(t *testing.T) {
	cases := verbCases(t)
	for _, c := range cases {
		moments := []struct{ name, at string }{
			{"before it began", ""},
			{"waiting for the lock", waitingLine},
			{"replayed and judged", "replaying the log"},
			{"asking git for HEAD", "no git HEAD to record on accept"},
			{"reporting what it wrote", "stdout"},
		}
		for _, m := range moments {
			switch {
			case c.name == "init" && (m.at == waitingLine || m.at == "replaying the log"),
				c.name == "log --replay" && m.at == "replaying the log",
				c.name != "accept" && m.at == "no git HEAD to record on accept":
				continue // a step this verb does not take
			}
			t.Run(c.name+"/"+m.name, func(t *testing.T) {
				p := c.from.clone(t)
				t.Chdir(p.dir)
				before := snapshot(t, p.dir)
				lines := 0 // a fresh init's: none
				if _, err := os.Stat(p.path(".pact/log.jsonl")); err == nil {
					lines = len(p.logLines())
				}
				ctx, interrupt := context.WithCancel(t.Context())
				defer interrupt()
				// Each output calls interrupt at the moment's line, or never.
				stdout, stderr := &onWrite{fn: func() {}}, &onWrite{fn: func() {}}
				switch m.at {
				case "":
					interrupt()
				case "stdout":
					stdout.fn = interrupt
				default:
					stderr.fn, stderr.when = interrupt, m.at
				}
				if m.at == waitingLine {
					holder, err := pactdir.Dir{Root: p.dir, Name: ".pact"}.Lock()
					if err != nil {
						t.Fatal(err)
					}
					defer holder()
				}

				code := run(ctx, c.args, nil, stdout, stderr, p.getenv(c.agent, "PACT_DEBUG=1"))

				gotOut, gotErr := stdout.String(), stderr.String()
				if m.at != "stdout" {
					if code != exitInterrupted || !strings.HasSuffix(gotErr, interruptedLine) || gotOut != "" {
						t.Errorf("exit %d, stdout %q, stderr %q; want %d, nothing, and last %q", code, gotOut, gotErr, exitInterrupted, interruptedLine)
					}
					sameTree(t, before, snapshot(t, p.dir))
					return
				}
				// Its one line of its own (the others are PACT_DEBUG's).
				var said []string
				for _, l := range strings.SplitAfter(gotErr, "\n") {
					if strings.HasPrefix(l, "pactify: ") {
						said = append(said, l)
					}
				}
				if code != exitOK || len(said) != 1 || !strings.HasPrefix(said[0], "pactify: interrupted once ") || !strings.HasSuffix(said[0], ": it was finished, not cut off\n") {
					t.Errorf("exit %d, stderr %q; want 0 and one line saying the write was finished", code, gotErr)
				}
				want := lines + 1
				if c.name == "log --replay" {
					want = lines
				}
				if got := len(p.logLines()); got != want {
					t.Errorf("the log has %d lines, want %d", got, want)
				}
				p.mustValidate()
			})
		}
	}
}
