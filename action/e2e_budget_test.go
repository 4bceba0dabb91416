package action_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

// API budgets of issue 9, counted on the fake GitHub for the real binary: a
// check, a check with provenance and the bot's approval → commit → check
// make a bounded number of calls, whatever the number of tasks and log
// lines. The README's table comes from this test:
//
//	go test ./action -run TestAPIBudget -v
//
// prints it.

const (
	budgetCheck      = 12 // a check of a PR without provenance
	budgetProvenance = 16 // a check with provenance: a few added events
	budgetBotWrite   = 20 // the bot's approval → commit → check
)

// budgetSizes are the numbers of tasks the budgets are held for.
var budgetSizes = []int{2, 20, 200, 1000}

// budgetRepo is main with n tasks (T1 on feat/login, the rest on other
// branches), each with its task file, and a pull request from feat/login
// that adds dev's join (one commit) and T1's checkpoint with code (a second
// commit): a realistic PR of a few added events.
type budgetRepo struct {
	s     *fakegithub.Server
	pr    int
	head  string
	files map[string]string // the head commit's files
}

const (
	budgetLead = "lead-gh"
	budgetDev  = "dev-gh"
	budgetRev  = "rev-gh"
)

func seedBudget(t *testing.T, tasks int, provenance string) *budgetRepo {
	t.Helper()
	s := e2e.NewServer(t)
	base := e2e.NewLog()
	for i := 1; i <= tasks; i++ {
		branch := fmt.Sprintf("feat/other-%d", i)
		if i == 1 {
			branch = "feat/login"
		}
		feature := fmt.Sprintf("F%d", i%10)
		if i == 1 {
			feature = "LOGIN"
		}
		base.Assign(fmt.Sprintf("T%d", i), feature, branch, "dev", "rev")
	}
	cfg := fmt.Sprintf("seats:\n  lead: [%s]\n  dev: [%s]\n  rev: [%s]\nprovenance:\n  mode: %s\n", budgetLead, budgetDev, budgetRev, provenance)
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(base.Files(), ".github/pact.yml", cfg, "src/main.go", "package main\n"), budgetLead, fakegithub.Verified())
	joined := base.Copy().Join("dev")
	s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", joined.Files(), budgetDev, fakegithub.From("main"), fakegithub.Verified())
	work := joined.Copy().Checkpoint("dev", "T1", "LOGIN")
	files := with(work.Files(), "src/login.go", "package main\n\nfunc login() {}\n")
	head := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", files, budgetDev, fakegithub.Verified())
	n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/login", Base: "main", Author: budgetDev})
	s.SetPermission(budgetRev, fakegithub.Write)
	return &budgetRepo{s: s, pr: n, head: head, files: files}
}

// approval submits rev's approval of the head and returns its webhook.
func (b *budgetRepo) approval(t *testing.T) []byte {
	t.Helper()
	b.s.SetNow(mustTime(botReviewTS))
	id := b.s.AddReview(b.pr, fakegithub.ReviewSeed{Login: budgetRev, State: "APPROVED", CommitID: b.head})
	return e2e.Payload(t, "pull_request_review/submitted.payload.json", map[string]any{
		"action": "submitted", "pull_request.number": b.pr, "pull_request.state": "open",
		"pull_request.head.ref": "feat/login", "pull_request.head.sha": b.head,
		"pull_request.head.repo.full_name": botRepoFull, "pull_request.base.ref": "main",
		"pull_request.base.repo.full_name": botRepoFull,
		"repository.full_name":             botRepoFull, "repository.name": e2e.Repo, "repository.owner.login": e2e.Owner,
		"sender.login": budgetRev, "review.id": id, "review.state": "approved", "review.body": nil,
		"review.user.login": budgetRev, "review.commit_id": b.head, "review.submitted_at": botReviewTS,
		"review.html_url": botReviewURL(b.pr, id),
	})
}

// calls counts the fake's requests by operation ("graphql" for GraphQL).
func calls(s *fakegithub.Server) map[string]int {
	out := map[string]int{}
	for _, r := range s.Requests() {
		op := r.Operation
		if op == "" {
			op = r.Method + " " + r.Path
		}
		out[op]++
	}
	return out
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// budgetCase is one kind of run whose calls are counted.
type budgetCase struct {
	name   string
	budget int
	run    func(t *testing.T, tasks int) (*fakegithub.Server, e2e.Result)
}

var budgetCases = []budgetCase{
	{name: "check", budget: budgetCheck, run: func(t *testing.T, tasks int) (*fakegithub.Server, e2e.Result) {
		b := seedBudget(t, tasks, "off")
		return b.s, e2e.Run{Server: b.s, EventName: "pull_request", Payload: prPayload(t, b.s, b.pr, "feat/login", "main")}.Exec(t)
	}},
	{name: "check, head checked out", budget: budgetCheck, run: func(t *testing.T, tasks int) (*fakegithub.Server, e2e.Result) {
		b := seedBudget(t, tasks, "off")
		ws := writeWorkspace(t, b.files, map[string]string{"HEAD": b.head + "\n"})
		return b.s, e2e.Run{Server: b.s, EventName: "pull_request", Payload: prPayload(t, b.s, b.pr, "feat/login", "main"), Workspace: ws}.Exec(t)
	}},
	{name: "check with provenance", budget: budgetProvenance, run: func(t *testing.T, tasks int) (*fakegithub.Server, e2e.Result) {
		b := seedBudget(t, tasks, "require")
		return b.s, e2e.Run{Server: b.s, EventName: "pull_request", Payload: prPayload(t, b.s, b.pr, "feat/login", "main")}.Exec(t)
	}},
	{name: "check with provenance, head checked out", budget: budgetProvenance, run: func(t *testing.T, tasks int) (*fakegithub.Server, e2e.Result) {
		b := seedBudget(t, tasks, "require")
		ws := writeWorkspace(t, b.files, map[string]string{"HEAD": b.head + "\n"})
		return b.s, e2e.Run{Server: b.s, EventName: "pull_request", Payload: prPayload(t, b.s, b.pr, "feat/login", "main"), Workspace: ws}.Exec(t)
	}},
	{name: "bot: approval → commit → check", budget: budgetBotWrite, run: func(t *testing.T, tasks int) (*fakegithub.Server, e2e.Result) {
		b := seedBudget(t, tasks, "require")
		res := e2e.Run{Server: b.s, EventName: "pull_request_review", Payload: b.approval(t)}.Exec(t)
		if h := b.s.BranchHead(e2e.Owner, e2e.Repo, "feat/login"); h == b.head {
			t.Fatalf("the bot wrote nothing\nstdout: %s\nstderr: %s", res.Stdout, res.Stderr)
		}
		return b.s, res
	}},
}

// TestAPIBudget holds every budget for 2, 20, 200 and 1000 tasks, and holds
// the count the same for every size.
func TestAPIBudget(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	counts := map[string]map[int]map[string]int{}
	t.Run("runs", func(t *testing.T) {
		for _, bc := range budgetCases {
			for _, n := range budgetSizes {
				t.Run(fmt.Sprintf("%s/%d tasks", bc.name, n), func(t *testing.T) {
					t.Parallel()
					s, res := bc.run(t, n)
					if res.Code != 0 {
						t.Fatalf("exit %d\nstdout: %s\nstderr: %s", res.Code, res.Stdout, res.Stderr)
					}
					noViolations(t, s)
					got := calls(s)
					mu.Lock()
					defer mu.Unlock()
					if counts[bc.name] == nil {
						counts[bc.name] = map[int]map[string]int{}
					}
					counts[bc.name][n] = got
				})
			}
		}
	})
	var table strings.Builder
	table.WriteString("| run | " + strings.Join(mapSizes(func(n int) string { return fmt.Sprintf("%d tasks", n) }), " | ") + " | budget |\n")
	table.WriteString("|---" + strings.Repeat("|---", len(budgetSizes)) + "|---|\n")
	for _, bc := range budgetCases {
		row := counts[bc.name]
		if len(row) != len(budgetSizes) {
			continue // a run failed above
		}
		cells := mapSizes(func(n int) string { return fmt.Sprint(total(row[n])) })
		fmt.Fprintf(&table, "| %s | %s | ≤ %d |\n", bc.name, strings.Join(cells, " | "), bc.budget)
		first := row[budgetSizes[0]]
		for _, n := range budgetSizes {
			if got := total(row[n]); got > bc.budget {
				t.Errorf("%s with %d tasks: %d API calls, budget %d: %s", bc.name, n, got, bc.budget, perOperation(row[n]))
			}
			if !maps.Equal(row[n], first) {
				t.Errorf("%s: the calls grow with the tasks: %d tasks %s; %d tasks %s", bc.name, budgetSizes[0], perOperation(first), n, perOperation(row[n]))
			}
		}
		t.Logf("%s: %s", bc.name, perOperation(first))
	}
	t.Logf("API calls per run:\n%s", table.String())
}

func mapSizes(f func(int) string) []string {
	var out []string
	for _, n := range budgetSizes {
		out = append(out, f(n))
	}
	return out
}

func perOperation(m map[string]int) string {
	keys := slices.Sorted(maps.Keys(m))
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, m[k]))
	}
	return fmt.Sprintf("%d: %s", total(m), strings.Join(parts, ", "))
}
