package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/pactfile"
)

// The entry files init writes tell each seat who it is and the commands
// its roles allow (docs/pactify.md, init). These tests take the commands
// out of the generated files mechanically, as an agent reading them would,
// and run every one of them as its seat in a fresh repository.

// entrySeat is one seat's part of an entry file's managed block: the
// roles its heading names and the lines of its sh fences, in order.
type entrySeat struct {
	id, file string
	roles    []string
	lines    []string
}

var seatHeading = regexp.MustCompile(`^### Seat ([a-z0-9][a-z0-9-]*) \(([a-z, ]+)\)$`)

// entrySeats reads the managed block of an entry file: every line of a
// sh fence belongs to the seat whose heading comes before it.
func entrySeats(t *testing.T, file, text string) []*entrySeat {
	t.Helper()
	_, block, ok := strings.Cut(text, pactfile.BlockBegin)
	block, _, closed := strings.Cut(block, pactfile.BlockEnd)
	if !ok || !closed {
		t.Fatalf("%s has no managed block:\n%s", file, text)
	}
	var seats []*entrySeat
	fenced := false
	for _, l := range strings.Split(block, "\n") {
		switch {
		case fenced && l == "```":
			fenced = false
		case fenced && l != "" && !strings.HasPrefix(l, "#"):
			if len(seats) == 0 {
				t.Fatalf("%s gives a command before any seat's heading: %q", file, l)
			}
			s := seats[len(seats)-1]
			s.lines = append(s.lines, l)
		case fenced:
		case l == "```sh":
			fenced = true
		case strings.HasPrefix(l, "```"):
			t.Fatalf("%s has a fence that is not sh: %q", file, l)
		case strings.HasPrefix(l, "### "):
			m := seatHeading.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("%s: heading %q is not \"### Seat <id> (<roles>)\"", file, l)
			}
			seats = append(seats, &entrySeat{id: m[1], file: file, roles: strings.Split(m[2], ", ")})
		}
	}
	if fenced {
		t.Fatalf("%s: a fence is not closed", file)
	}
	return seats
}

// shellWords splits a command line as sh would split one made of plain
// words and double-quoted strings (what an entry file writes); anything
// else a shell would read otherwise fails the test.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
			}
			inWord = false
		case !quoted && strings.ContainsRune(`'\$;&|()<>`+"`", r):
			t.Fatalf("%q holds %q, which a shell would not take as a plain word", line, r)
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("%q: a quote is not closed", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

var placeholder = regexp.MustCompile(`<([a-z_]+)>`)

// fill puts values in place of a command's placeholders; one it has no
// value for fails the test.
func fill(t *testing.T, line string, values map[string]string) string {
	t.Helper()
	return placeholder.ReplaceAllStringFunc(line, func(m string) string {
		v, ok := values[strings.Trim(m, "<>")]
		if !ok {
			t.Fatalf("%q has placeholder %s, which an entry file does not explain", line, m)
		}
		return v
	})
}

// verbsOf is what a seat's roles allow it to run (docs/semantics.md, pact
// v1 §2.3), and status, which any seat may.
func verbsOf(roles []string) []string {
	verbs := []string{"status"}
	for _, r := range roles {
		verbs = append(verbs, map[string][]string{"orchestrator": {"assign", "merge"}, "worker": {"join", "checkpoint"}, "reviewer": {"accept", "changes"}}[r]...)
	}
	sort.Strings(verbs)
	return verbs
}

// entryPlay runs the commands of a pact's entry files as their seats.
type entryPlay struct {
	t     *testing.T
	r     *gitRepo
	seats map[string]*entrySeat
	// env is what each seat's export lines set; verbs its pactify
	// commands by verb.
	env   map[string][]string
	verbs map[string]map[string]string
	// ran counts the runs of each line, by seat and line.
	ran        map[[2]string]int
	runs, fail int
}

func newEntryPlay(t *testing.T, r *gitRepo, seats []*entrySeat) *entryPlay {
	t.Helper()
	p := &entryPlay{t: t, r: r, seats: map[string]*entrySeat{}, env: map[string][]string{}, verbs: map[string]map[string]string{}, ran: map[[2]string]int{}}
	for _, s := range seats {
		if p.seats[s.id] != nil {
			t.Fatalf("seat %s has a block in %s and in %s", s.id, p.seats[s.id].file, s.file)
		}
		p.seats[s.id] = s
		p.verbs[s.id] = map[string]string{}
		for _, l := range s.lines {
			if name, value, ok := strings.Cut(strings.TrimPrefix(l, "export "), "="); ok && strings.HasPrefix(l, "export ") {
				if name == "PACT_AGENT_ID" && value != s.id {
					t.Fatalf("%s: seat %s's block exports PACT_AGENT_ID=%s", s.file, s.id, value)
				}
				p.env[s.id] = append(p.env[s.id], name+"="+value)
				continue
			}
			// The words as they will run, placeholders filled.
			words := shellWords(t, placeholder.ReplaceAllString(l, "x"))
			if len(words) < 2 || words[0] != "pactify" {
				t.Fatalf("%s: seat %s's line %q is neither an export nor a pactify command", s.file, s.id, l)
			}
			if p.verbs[s.id][words[1]] != "" {
				t.Fatalf("%s: seat %s gives %s twice", s.file, s.id, words[1])
			}
			p.verbs[s.id][words[1]] = l
		}
		if !slices.Contains(p.env[s.id], "PACT_AGENT_ID="+s.id) {
			t.Fatalf("%s: seat %s's block does not say who it is (export PACT_AGENT_ID=%s)", s.file, s.id, s.id)
		}
		var got []string
		for v := range p.verbs[s.id] {
			got = append(got, v)
		}
		sort.Strings(got)
		if want := verbsOf(s.roles); !slices.Equal(got, want) {
			t.Errorf("%s: seat %s (%s) is told the verbs %v, want exactly those its roles allow, %v", s.file, s.id, strings.Join(s.roles, ", "), got, want)
		}
	}
	return p
}

// run runs seat's command for verb with values in place of its
// placeholders; every run must succeed.
func (p *entryPlay) run(seat, verb string, values map[string]string) {
	p.t.Helper()
	line := p.verbs[seat][verb]
	if line == "" {
		p.t.Fatalf("seat %s's entry file gives no %s command", seat, verb)
	}
	p.runLine(seat, line, values)
}

func (p *entryPlay) runLine(seat, line string, values map[string]string) {
	p.t.Helper()
	words := shellWords(p.t, fill(p.t, line, values))
	env := append(append([]string{}, p.r.env...), p.env[seat]...)
	res := runIn(p.t, p.r.dir, env, words[1:]...)
	p.runs++
	p.ran[[2]string{seat, line}]++
	if res.code != 0 {
		p.fail++
		p.t.Errorf("%s's command %q, as %s, failed:\n%s", p.seats[seat].file, line, seat, res)
	}
}

// holders are the seats that may run verb, in id order.
func (p *entryPlay) holders(verb string) []string {
	var ids []string
	for id, verbs := range p.verbs {
		if verbs[verb] != "" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// entryRoster is a pact's init and the entry files it writes.
type entryRoster struct {
	name    string
	pactDir string // "" for .pact
	seats   []string
	// example is the shipped example that init with these seats writes
	// ("" for none): its entry files must be what init writes.
	example string
}

// TestEntryFileCommandsRun: every command each entry file gives is run, as
// its seat, in a fresh repository, in the order a feature goes through
// the pact: the orchestrator assigns a task to a worker with a reviewer,
// the worker joins and checkpoints, the reviewer sends it back, the worker
// checkpoints again, the reviewer accepts, the orchestrator merges. Each
// exits 0, and each seat is told exactly the verbs its roles allow.
func TestEntryFileCommandsRun(t *testing.T) {
	t.Parallel()
	for _, ros := range []entryRoster{
		// The README's and docs/pactify.md's.
		{name: "readme", seats: []string{"lead:orchestrator,reviewer:CLAUDE.md", "dev:worker:AGENTS.md"}},
		// scripts/make-example.sh's.
		{name: "example", seats: []string{"claude-opus:orchestrator,reviewer:CLAUDE.md", "opencode:worker:AGENTS.md", "codex:worker,reviewer:AGENTS.md"}, example: "../../examples/demo"},
		// One role a seat, a seat of all three, and a pact elsewhere.
		{name: "elsewhere", pactDir: "docs/.pact", seats: []string{"orch:orchestrator:AGENTS.md", "ana:worker:AGENTS.md", "rex:reviewer:CLAUDE.md", "all:orchestrator,worker,reviewer:docs/ALL.md"}},
	} {
		t.Run(ros.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			r := newGitRepo(t, filepath.Join(root, "work"), filepath.Join(root, "home"), true)
			r.git("init", "-q", "-b", "main")
			lead, _, _ := strings.Cut(ros.seats[0], ":")
			args := []string{"init", "--project", "demo"}
			if ros.pactDir != "" {
				args = append(args, "--pact-dir", ros.pactDir)
			}
			var files []string
			for _, s := range ros.seats {
				args = append(args, "--seat", s)
				if f := s[strings.LastIndex(s, ":")+1:]; !slices.Contains(files, f) {
					files = append(files, f)
				}
			}
			r.must(lead, args...)
			var seats []*entrySeat
			for _, f := range files {
				text := r.read(f)
				if ros.example != "" {
					if want, err := os.ReadFile(filepath.Join(ros.example, f)); err != nil || string(want) != text {
						t.Errorf("%s/%s is not what init writes for its roster (%v); regenerate it with scripts/make-example.sh, or run pactify init there again:\n%s", ros.example, f, err, text)
					}
				}
				seats = append(seats, entrySeats(t, f, text)...)
			}
			p := newEntryPlay(t, r, seats)
			for _, s := range seats {
				p.run(s.id, "status", nil)
			}
			orchestrators, workers, reviewers := p.holders("assign"), p.holders("checkpoint"), p.holders("accept")
			if len(orchestrators) == 0 || len(workers) == 0 || len(reviewers) == 0 {
				t.Fatalf("no seat assigns (%v), checkpoints (%v) or accepts (%v)", orchestrators, workers, reviewers)
			}
			// Enough features that every orchestrator, worker and reviewer
			// acts in one, each task reviewed by a seat other than its owner.
			var pairs [][2]string
			worked, reviewed := map[string]bool{}, map[string]bool{}
			for _, w := range workers {
				for _, rv := range reviewers {
					if w != rv && (!worked[w] || !reviewed[rv]) {
						pairs = append(pairs, [2]string{w, rv})
						worked[w], reviewed[rv] = true, true
					}
				}
			}
			if len(worked) != len(workers) || len(reviewed) != len(reviewers) {
				t.Fatalf("no task can have owner and reviewer apart for every worker %v and reviewer %v", workers, reviewers)
			}
			var v map[string]string
			for i := range max(len(pairs), len(orchestrators)) {
				owner, reviewer := pairs[i%len(pairs)][0], pairs[i%len(pairs)][1]
				orch := orchestrators[i%len(orchestrators)]
				v = map[string]string{"task_id": fmt.Sprintf("T%d", i+1), "feature_id": fmt.Sprintf("F%d", i+1), "branch_name": fmt.Sprintf("feat/f%d", i+1),
					"worker_seat": owner, "reviewer_seat": reviewer, "evidence": "go test ./... passes", "reason": "cover the error path"}
				p.run(orch, "assign", v)
				p.run(owner, "join", v)
				p.run(owner, "checkpoint", v)
				p.run(reviewer, "changes", v)
				p.run(owner, "checkpoint", v)
				p.run(reviewer, "accept", v)
				p.run(orch, "merge", v)
			}
			// A command the story above has no place for runs at the end,
			// as its seat, and must succeed too.
			given := 0
			for _, s := range seats {
				for _, l := range s.lines {
					given++
					if !strings.HasPrefix(l, "export ") && p.ran[[2]string{s.id, l}] == 0 {
						p.runLine(s.id, l, v)
					}
				}
			}
			if res := r.pactify(unset, append([]string{"validate"}, pactDirArgs(ros.pactDir)...)...); res.code != 0 {
				t.Errorf("the pact the entry files' commands wrote is not valid:\n%s", res)
			}
			t.Logf("%d seats in %d entry files give %d lines (exports included); %d runs of their commands, %d failed", len(seats), len(files), given, p.runs, p.fail)
		})
	}
}

func pactDirArgs(dir string) []string {
	if dir == "" {
		return nil
	}
	return []string{"--pact-dir", dir}
}
