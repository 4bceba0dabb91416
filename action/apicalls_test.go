package action_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

// API budgets of issue 9, counted on the fake GitHub: a check, a check
// with provenance and the bot's approval → commit → check make a bounded
// number of calls, whatever the number of tasks and log lines. The table
// in docs/performance.md ("API calls per run") comes from this test:
//
//	go test ./action -run TestAPIBudget -v
//
// prints it.

const (
	budgetCheck      = 12 // a check of a PR without provenance
	budgetProvenance = 16 // a check with provenance: a few added events
	budgetBotWrite   = 20 // the bot's approval → commit → check
	budgetCoverage   = 16 // a check of a reused branch: accepts from the merge base, a fresh review
	budgetUpdate     = 20 // the updater: a push to main → the listing → one merge commit → its check
	budgetNoUpdate   = 1  // the updater on a push that leaves every pull request mergeable
)

// budgetSizes are the numbers of tasks the budgets are held for.
var budgetSizes = []int{2, 20, 200, 1000}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// budgetCase is one kind of run whose calls are counted; run returns the
// verdicts it posted.
type budgetCase struct {
	name   string
	budget int
	run    func(t *testing.T, tasks int) (*fakegithub.Server, []checks.Finding)
}

// checkPR runs check mode on the budget repository's pull request, with
// the head checked out when workspace is set.
func (b *budgetRepo) checkPR(t *testing.T, workspace bool) []checks.Finding {
	t.Helper()
	ev := event{name: "pull_request", payload: prPayload(t, b.s, b.pr, "feat/login", "main")}
	if workspace {
		ev.workspace = writeWorkspace(t, b.files, map[string]string{"HEAD": b.head + "\n"})
	}
	return ev.run(t, b.s).only(t).Findings
}

var budgetCases = []budgetCase{
	{name: "check", budget: budgetCheck, run: func(t *testing.T, tasks int) (*fakegithub.Server, []checks.Finding) {
		b := seedBudget(t, tasks, "off")
		return b.s, b.checkPR(t, false)
	}},
	{name: "check, head checked out", budget: budgetCheck, run: func(t *testing.T, tasks int) (*fakegithub.Server, []checks.Finding) {
		b := seedBudget(t, tasks, "off")
		return b.s, b.checkPR(t, true)
	}},
	{name: "check with provenance", budget: budgetProvenance, run: func(t *testing.T, tasks int) (*fakegithub.Server, []checks.Finding) {
		b := seedBudget(t, tasks, "require")
		return b.s, b.checkPR(t, false)
	}},
	{name: "check with provenance, head checked out", budget: budgetProvenance, run: func(t *testing.T, tasks int) (*fakegithub.Server, []checks.Finding) {
		b := seedBudget(t, tasks, "require")
		return b.s, b.checkPR(t, true)
	}},
	{name: "check of a reused branch, fresh review", budget: budgetCoverage, run: func(t *testing.T, tasks int) (*fakegithub.Server, []checks.Finding) {
		b := seedBudget(t, tasks, "require")
		// T1 accepted by rev on the reviewed head and merged; the branch
		// name reused for new code, which rev approved again.
		log, _ := b.s.FileAt(b.head, logPath)
		accepted := &e2e.Log{Lines: strings.Split(strings.TrimSuffix(log, "\n"), "\n")}
		accepted.Raw(draft(t, 9999, "rev", "accept", "T1", "LOGIN", map[string]any{"commit": b.head}))
		b.s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", accepted.Files(), provRevGH, fakegithub.Verified())
		mergePR(t, b.s, b.pr, "feat/login")
		n := reuseBranch(t, &provPR{s: b.s}, "feat/login", map[string]string{"src/login.go": "package main\n\nfunc login2() {}\n"})
		b.s.AddReview(n, fakegithub.ReviewSeed{Login: provRevGH, State: "APPROVED"})
		out := event{name: "pull_request", payload: prPayload(t, b.s, n, "feat/login", "main")}.run(t, b.s).only(t)
		if c := checks.Count(out.Findings); c.Pending != 0 {
			t.Fatalf("the fresh review did not renew T1: %+v", out.Findings)
		}
		return b.s, out.Findings
	}},
	// The pull request adds that many files under .pact/tasks/ that no
	// event names, each over GitHub's cut of Blob.text (lowered here):
	// before, each cost a blobs-API read.
	{name: "check, junk files under tasks/", budget: budgetCheck, run: func(t *testing.T, junk int) (*fakegithub.Server, []checks.Finding) {
		b := seedJunk(t, junk, 2048, fakegithub.WithGraphQLTextLimit(1024))
		return b.s, b.checkPR(t, false)
	}},
	{name: "check that requests the review", budget: budgetCheck, run: func(t *testing.T, tasks int) (*fakegithub.Server, []checks.Finding) {
		b := seedBudget(t, tasks, "off")
		// rev's review of an earlier commit answered the standing request,
		// so the check asks again.
		b.s.AddReview(b.pr, fakegithub.ReviewSeed{Login: provRevGH, State: "COMMENTED", CommitID: b.s.BranchHead(e2e.Owner, e2e.Repo, "main")})
		fs := b.checkPR(t, false)
		if users, _ := b.s.RequestedReviewers(b.pr); len(users) != 1 {
			t.Fatalf("no review requested: %v", users)
		}
		return b.s, fs
	}},
	{name: "check of a reused branch that asks for a fresh review", budget: budgetCoverage, run: func(t *testing.T, tasks int) (*fakegithub.Server, []checks.Finding) {
		b := seedBudget(t, tasks, "require")
		log, _ := b.s.FileAt(b.head, logPath)
		accepted := &e2e.Log{Lines: strings.Split(strings.TrimSuffix(log, "\n"), "\n")}
		accepted.Raw(draft(t, 9999, "rev", "accept", "T1", "LOGIN", map[string]any{"commit": b.head}))
		b.s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", accepted.Files(), provRevGH, fakegithub.Verified())
		mergePR(t, b.s, b.pr, "feat/login")
		n := reuseBranch(t, &provPR{s: b.s}, "feat/login", map[string]string{"src/login.go": "package main\n\nfunc login2() {}\n"})
		out := event{name: "pull_request", payload: prPayload(t, b.s, n, "feat/login", "main")}.run(t, b.s).only(t)
		if users, _ := b.s.RequestedReviewers(n); len(users) != 1 || checks.Count(out.Findings).Pending != 1 {
			t.Fatalf("no fresh review requested: %v, %+v", users, out.Findings)
		}
		return b.s, out.Findings
	}},
	// A job killed outright left its check run in progress on the head:
	// completing it is one write, its listing no request.
	{name: "check that completes a run left in progress", budget: budgetCheck, run: func(t *testing.T, tasks int) (*fakegithub.Server, []checks.Finding) {
		b := seedBudget(t, tasks, "off")
		b.s.SeedCheckRun(e2e.Owner, e2e.Repo, fakegithub.CheckRunSeed{Name: "pact", HeadSHA: b.head, ExternalID: orphanID(1)})
		fs := b.checkPR(t, false)
		noneInProgress(t, b.s)
		return b.s, fs
	}},
	// main moves on (lead assigns a task there), so the pull request's
	// pact conflicts with it; the push brings it up to date.
	{name: "bot: push to main → update → check", budget: budgetUpdate, run: func(t *testing.T, tasks int) (*fakegithub.Server, []checks.Finding) {
		b := seedBudget(t, tasks, "require")
		log, _ := b.s.FileAt(b.s.BranchHead(e2e.Owner, e2e.Repo, "main"), logPath)
		main := (&e2e.Log{Lines: strings.Split(strings.TrimSuffix(log, "\n"), "\n")}).Raw(draft(t, 9999, "lead", "assign", "T0", "F0",
			map[string]any{"owner": "dev", "reviewer": "rev", "branch": "feat/zero", "spec": ".pact/tasks/T0.md"}))
		b.s.CommitFiles(e2e.Owner, e2e.Repo, "main", map[string]string{logPath: main.Text()}, provLeadGH, fakegithub.Verified())
		res := event{name: "push", payload: pushPayload(t, b.s, "main")}.run(t, b.s)
		if res.err != nil || res.update == nil || len(res.update.Updated) != 1 || res.update.Updated[0].Check == nil {
			t.Fatalf("the push updated nothing: %v %+v", res.err, res.update)
		}
		return b.s, res.update.Updated[0].Check.Findings
	}},
	{name: "bot: push to main, nothing conflicts", budget: budgetNoUpdate, run: func(t *testing.T, tasks int) (*fakegithub.Server, []checks.Finding) {
		b := seedBudget(t, tasks, "require")
		b.s.CommitFiles(e2e.Owner, e2e.Repo, "main", map[string]string{"docs/guide.md": "guide\n"}, provLeadGH, fakegithub.Verified())
		res := event{name: "push", payload: pushPayload(t, b.s, "main")}.run(t, b.s)
		if res.err != nil || res.update == nil || res.update.Listed != 1 || res.update.Conflicting != 0 {
			t.Fatalf("the push: %v %+v", res.err, res.update)
		}
		return b.s, nil
	}},
	{name: "bot: approval → commit → check", budget: budgetBotWrite, run: func(t *testing.T, tasks int) (*fakegithub.Server, []checks.Finding) {
		b := seedBudget(t, tasks, "require")
		out := event{name: "pull_request_review", payload: b.approval(t)}.run(t, b.s).botDone(t)
		if h := b.s.BranchHead(e2e.Owner, e2e.Repo, "feat/login"); h == b.head || out.Check == nil {
			t.Fatalf("the bot wrote nothing: %+v", out)
		}
		return b.s, out.Check.Findings
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
					s, fs := bc.run(t, n)
					if c := checks.Count(fs); c.Errors != 0 {
						t.Fatalf("%d violation(s): %+v", c.Errors, fs)
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

// The check after the bot's write asks GitHub for the reviews again: one
// may have been dismissed while the bot committed (facts.go, forget).
func TestBotCheckRereadsReviewsAfterWrite(t *testing.T) {
	t.Parallel()
	b := seedBudget(t, 2, "require")
	out := event{name: "pull_request_review", payload: b.approval(t)}.run(t, b.s).botDone(t)
	if out.NewHead == "" || out.Check == nil {
		t.Fatalf("the bot wrote nothing: %+v", out)
	}
	if n := calls(b.s)["pulls/list-reviews"]; n != 2 {
		t.Errorf("reviews listed %d times, want 2: once for the decision, once for the check after the write", n)
	}
}
