package action_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/projection"
)

// The coverage invariant (docs/semantics.md §5), held against generated
// histories: a branch worked on, its tasks accepted at different commits
// (on the head, on an earlier commit, or recording no commit), merged
// into main and its name reused, rebased onto main, main moving on, fresh
// reviews on the head or on older code, and pull requests from forks.
// The check's verdict must equal an independent model's: every task of
// every shipped feature has an accept covering the head (or a fresh
// review renewing it), computed from the history the generator built —
// its own record of each commit's code, parents and log — never from
// GitHub or the engine.

// covModel is the generator's own record of the repository.
type covModel struct {
	commits map[string]*covCommit
	accepts map[string]covAccept // by event id
}

type covCommit struct {
	author  string
	parents []string
	code    map[string]string // files outside .pact/
	log     map[string]bool   // accept event ids in its log
}

type covAccept struct {
	task, anchor string // anchor: payload.commit ("" when it records none)
}

func (m *covModel) add(sha, author string, parents []string, code map[string]string, log map[string]bool) {
	m.commits[sha] = &covCommit{author: author, parents: parents, code: maps.Clone(code), log: maps.Clone(log)}
}

// reach is sha and every ancestor.
func (m *covModel) reach(sha string) map[string]bool {
	out := map[string]bool{}
	stack := []string{sha}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if out[c] {
			continue
		}
		out[c] = true
		stack = append(stack, m.commits[c].parents...)
	}
	return out
}

// mergeBase is the common ancestor of a and b that no other common
// ancestor descends from (the generator makes no criss-cross merges).
func (m *covModel) mergeBase(a, b string) string {
	ra, rb := m.reach(a), m.reach(b)
	var common []string
	for c := range ra {
		if rb[c] {
			common = append(common, c)
		}
	}
	for _, c := range common {
		best := true
		for _, o := range common {
			if o != c && m.reach(o)[c] {
				best = false
				break
			}
		}
		if best {
			return c
		}
	}
	return ""
}

// intro is the commit of head's history whose log first holds accept id:
// it holds it and none of its parents do.
func (m *covModel) intro(head, id string) string {
	for c := range m.reach(head) {
		if !m.commits[c].log[id] {
			continue
		}
		first := true
		for _, p := range m.commits[c].parents {
			if m.commits[p].log[id] {
				first = false
			}
		}
		if first {
			return c
		}
	}
	return ""
}

// covers is the invariant itself, for one accept and the head.
func (m *covModel) covers(policy, head, id string) bool {
	a := m.accepts[id]
	intro := m.intro(head, id)
	anchor := a.anchor
	if anchor == "" && intro != "" && len(m.commits[intro].parents) > 0 {
		anchor = m.commits[intro].parents[0]
	}
	switch {
	case policy == "sticky":
		return true
	case anchor == "":
		return false
	case policy == "tree":
		return maps.Equal(m.commits[anchor].code, m.commits[head].code)
	}
	// push: the head builds on the anchor, and nothing but the commit
	// that recorded the accept came after it.
	rh, ra := m.reach(head), m.reach(anchor)
	if !rh[anchor] {
		return false
	}
	for c := range rh {
		if !ra[c] && c != intro {
			return false
		}
	}
	return true
}

// covTask is one task of feature F on branch feat/f.
type covTask struct{ id, reviewer string }

var covTasks = []covTask{{"T1", "rev"}, {"T2", "lead"}, {"T3", "rev"}}

var covLogins = map[string]string{"lead": "lead-gh", "dev": "dev-gh", "rev": "rev-gh"}

// covCase is one generated history, driven by a stream of choices.
type covCase struct {
	t      *testing.T
	s      *fakegithub.Server
	m      *covModel
	choose func(n int) int
	policy string
	tasks  []covTask
	log    *e2e.Log // the branch's log
	head   string   // the branch's head
	main   string
	code   map[string]string // the branch's code
	inLog  map[string]bool   // accept ids in the branch's log
	story  []string
}

const covBranch = "feat/f"

func (c *covCase) say(format string, args ...any) {
	c.story = append(c.story, fmt.Sprintf(format, args...))
}

// commit commits the branch's pact and the given code on branch (the
// feature branch or main), by author, and records it in the model.
func (c *covCase) commit(branch string, parents []string, files map[string]string, author string, code map[string]string, log map[string]bool) string {
	c.t.Helper()
	opts := []fakegithub.CommitOption{fakegithub.Verified(), fakegithub.WithParents(parents...)}
	sha := c.s.CommitFiles(e2e.Owner, e2e.Repo, branch, files, author, opts...)
	c.m.add(sha, author, parents, code, log)
	return sha
}

// branchFiles are the branch's pact and the code it changed.
func (c *covCase) branchFiles() map[string]string {
	files := c.log.Files()
	for p, v := range c.code {
		if p != "src/main.go" {
			files[p] = v
		}
	}
	return files
}

func (c *covCase) commitBranch(author string, files map[string]string) {
	c.head = c.commit(covBranch, []string{c.head}, files, author, c.code, c.inLog)
}

func (c *covCase) step() {
	_, replayed := projection.ReadEvents([]byte(c.log.Text()))
	state := replayed.State
	switch op := c.choose(11); {
	case op < 3: // new code on the branch (a few contents, so code repeats)
		path := []string{"src/a.go", "src/b.go"}[c.choose(2)]
		content := fmt.Sprintf("package src // v%d\n", c.choose(3))
		c.code[path] = content
		c.commitBranch("dev-gh", map[string]string{path: content})
		c.say("code %s=%s at %.7s", path, strings.TrimSpace(content[strings.LastIndex(content, "v"):]), c.head)
	case op < 4: // a commit that only touches the pact directory
		c.commitBranch("dev-gh", map[string]string{".pact/notes.md": fmt.Sprintf("notes %d\n", len(c.story))})
		c.say("pact-only commit %.7s", c.head)
	case op < 7: // work on a task and have its reviewer accept it
		var open []covTask
		for _, tk := range c.tasks {
			if state.Tasks[tk.id].Status != projection.StatusAccepted {
				open = append(open, tk)
			}
		}
		if len(open) == 0 {
			return
		}
		tk := open[c.choose(len(open))]
		if state.Tasks[tk.id].Status == projection.StatusAssigned {
			c.log.Join("dev")
		}
		c.log.Checkpoint("dev", tk.id, "F")
		c.commitBranch("dev-gh", c.log.Files())
		payload := map[string]any{}
		anchor := ""
		switch c.choose(6) {
		case 0: // records no commit: given on the parent of its commit
		case 1: // given on an earlier commit of the branch
			history := slices.Sorted(maps.Keys(c.m.reach(c.head)))
			anchor = history[c.choose(len(history))]
		default:
			anchor = c.head
		}
		if anchor != "" {
			payload["commit"] = anchor
		}
		c.log.Add(tk.reviewer, projection.TypeAccept, tk.id, "F", payload)
		id := fmt.Sprintf("%032x", len(c.log.Lines))
		c.m.accepts[id] = covAccept{task: tk.id, anchor: anchor}
		c.inLog[id] = true
		c.commitBranch(covLogins[tk.reviewer], c.log.Files())
		c.say("accept %s on %.7s in %.7s", tk.id, anchor, c.head)
	case op < 8: // main moves on
		main := maps.Clone(c.m.commits[c.main].code)
		main["src/main.go"] = fmt.Sprintf("package main // %d\n", len(c.story))
		c.main = c.commit("main", []string{c.main}, map[string]string{"src/main.go": main["src/main.go"]}, "lead-gh", main, c.m.commits[c.main].log)
		c.say("main moves to %.7s", c.main)
	case op < 10: // merged into main, and the branch name reused from there
		if c.head == c.main {
			return
		}
		merged := maps.Clone(c.m.commits[c.main].code)
		maps.Copy(merged, c.code)
		c.main = c.commit("main", []string{c.main, c.head}, c.branchFiles(), "web-flow", merged, c.inLog)
		c.s.SetBranch(e2e.Owner, e2e.Repo, covBranch, c.main)
		c.head, c.code = c.main, maps.Clone(merged)
		c.say("merged into main as %.7s; branch reused from there", c.main)
	default: // rebased onto main (one commit holding the branch's changes)
		rebased := maps.Clone(c.m.commits[c.main].code)
		for p, v := range c.code {
			if p != "src/main.go" {
				rebased[p] = v
			}
		}
		c.code = rebased
		c.s.SetBranch(e2e.Owner, e2e.Repo, covBranch, c.main)
		c.head = c.main
		c.commitBranch("dev-gh", c.branchFiles())
		c.say("rebased onto main as %.7s", c.head)
	}
}

// runCoverageCase generates one history from choose, opens the pull
// request, runs the check and compares its verdict with the model's.
func runCoverageCase(t *testing.T, choose func(n int) int) {
	t.Helper()
	s := e2e.NewServer(t)
	c := &covCase{t: t, s: s, m: &covModel{commits: map[string]*covCommit{}, accepts: map[string]covAccept{}}, choose: choose,
		policy: []string{"tree", "push", "sticky"}[choose(3)], inLog: map[string]bool{}}
	c.tasks = covTasks[:1+choose(len(covTasks))]
	c.log = e2e.NewLog()
	for _, tk := range c.tasks {
		c.log.Assign(tk.id, "F", covBranch, "dev", tk.reviewer)
	}
	c.code = map[string]string{"src/main.go": "package main\n"}
	files := c.log.Files()
	files["src/main.go"] = c.code["src/main.go"]
	files[".github/pact.yml"] = fmt.Sprintf("seats:\n  lead: [lead-gh]\n  dev: [dev-gh]\n  rev: [rev-gh]\nprovenance:\n  mode: require\n  stale: %s\n", c.policy)
	c.main = s.CommitFiles(e2e.Owner, e2e.Repo, "main", files, "lead-gh", fakegithub.Verified())
	c.m.add(c.main, "lead-gh", nil, c.code, nil)
	c.head = c.main
	c.s.SetBranch(e2e.Owner, e2e.Repo, covBranch, c.main)
	c.say("policy %s, %d task(s)", c.policy, len(c.tasks))
	for range 3 + choose(8) {
		c.step()
	}
	if c.head == c.main || c.m.reach(c.main)[c.head] {
		c.code["src/a.go"] = "package src // last\n"
		c.commitBranch("dev-gh", map[string]string{"src/a.go": c.code["src/a.go"]})
		c.say("code at %.7s", c.head)
	}
	pr := fakegithub.PRSeed{Head: covBranch, Base: "main", Author: "dev-gh"}
	if choose(5) == 0 {
		// An outsider's fork with a branch of the same name and the
		// same history.
		s.ForkRepo(e2e.Owner, e2e.Repo, "outsider")
		pr.HeadOwner, pr.Author = "outsider", "outsider"
		c.say("from a fork")
	}
	n := s.OpenPR(e2e.Owner, e2e.Repo, pr)
	// Fresh reviews: rev's approval of the head or of older code, or the
	// owner's approval (which renews nothing).
	var approval string
	switch choose(4) {
	case 0:
		approval = c.head
	case 1:
		history := slices.Sorted(maps.Keys(c.m.reach(c.head)))
		approval = history[choose(len(history))]
	case 2:
		s.AddReview(n, fakegithub.ReviewSeed{Login: "dev-gh", State: "APPROVED", CommitID: c.head})
		c.say("dev approves the head")
	}
	if approval != "" {
		s.AddReview(n, fakegithub.ReviewSeed{Login: "rev-gh", State: "APPROVED", CommitID: approval})
		c.say("rev approves %.7s", approval)
	}

	out := event{name: "pull_request", payload: prPayload(t, s, n, covBranch, "main")}.run(t, s).only(t)

	// The model's verdict. An accept the pull request adds proves its
	// seat only from a commit its reviewer's account authored (a rebase
	// by the worker re-authors it); one that does not leaves its task
	// waiting, whatever covers it.
	base := c.m.mergeBase(c.main, c.head)
	wantWaiting, wantStale, wantUnverified := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, tk := range c.tasks {
		id := ""
		for aid, a := range c.m.accepts {
			if a.task == tk.id && c.m.commits[c.head].log[aid] {
				id = aid
			}
		}
		if id == "" {
			wantWaiting[tk.id] = true
			continue
		}
		added := !c.m.commits[base].log[id]
		if added && c.m.commits[c.m.intro(c.head, id)].author != covLogins[tk.reviewer] {
			wantUnverified[tk.id], wantWaiting[tk.id] = true, true
		}
		renewed := tk.reviewer == "rev" && approval != "" && maps.Equal(c.m.commits[approval].code, c.m.commits[c.head].code)
		if c.m.covers(c.policy, c.head, id) || renewed {
			continue
		}
		wantWaiting[tk.id] = true
		if added {
			wantStale[tk.id] = true
		}
	}
	gotWaiting, gotStale, gotUnverified := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var others []string
	for _, f := range out.Findings {
		switch {
		case f.Code == checks.CodePRUnaccepted:
			gotWaiting[f.TaskID] = true
		case f.Code == checks.CodeProvenanceStale && f.Severity == checks.SeverityError:
			gotStale[f.TaskID] = true
		case f.Code == checks.CodeProvenanceUnverified && f.Severity == checks.SeverityError:
			gotUnverified[f.TaskID] = true
		case f.Severity == checks.SeverityError:
			others = append(others, fmt.Sprintf("%s: %s", f.Code, f.Message))
		}
	}
	if !maps.Equal(gotWaiting, wantWaiting) || !maps.Equal(gotStale, wantStale) || !maps.Equal(gotUnverified, wantUnverified) || len(others) > 0 {
		var b strings.Builder
		for _, f := range out.Findings {
			fmt.Fprintf(&b, "  %s %s line %d %s: %s\n", f.Severity, f.Code, f.Line, f.TaskID, f.Message)
		}
		t.Fatalf("history:\n  %s\nwaiting %v, want %v; stale errors %v, want %v; unverified %v, want %v; other errors %q\nfindings:\n%s",
			strings.Join(c.story, "\n  "), slices.Sorted(maps.Keys(gotWaiting)), slices.Sorted(maps.Keys(wantWaiting)),
			slices.Sorted(maps.Keys(gotStale)), slices.Sorted(maps.Keys(wantStale)),
			slices.Sorted(maps.Keys(gotUnverified)), slices.Sorted(maps.Keys(wantUnverified)), others, b.String())
	}
	noViolations(t, s)
}

// TestCoverageProperty runs generated histories (PACT_COVERAGE_CASES sets
// how many; 60 by default, 12 with -short).
func TestCoverageProperty(t *testing.T) {
	t.Parallel()
	cases := 60
	if testing.Short() {
		cases = 12
	}
	if n, err := strconv.Atoi(os.Getenv("PACT_COVERAGE_CASES")); err == nil {
		cases = n
	}
	for seed := range cases {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
			runCoverageCase(t, r.IntN)
		})
	}
}

// FuzzCoverage drives the same generator from fuzzed bytes.
func FuzzCoverage(f *testing.F) {
	f.Add([]byte{0, 0, 1, 5, 5, 5, 8, 0, 3, 0})
	f.Add([]byte{1, 2, 7, 4, 0, 6, 2, 8, 0, 0, 9, 1, 1})
	f.Add([]byte{2, 1, 5, 5, 5, 1, 8, 9, 0, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		i := 0
		runCoverageCase(t, func(n int) int {
			if i >= len(data) {
				return 0
			}
			i++
			return int(data[i-1]) % n
		})
	})
}
