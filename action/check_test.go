package action_test

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/internal/testkit/markdown"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// Check mode on a pull request: the verdict on its head, posted as a check
// run with annotations and a summary.

// seedCleanPR is a pull request with nothing to report at all: the default
// provenance policy (warn), with every seat mapped to its account and each
// event committed by its seat's account.
func seedCleanPR(t *testing.T) (s *fakegithub.Server, number int, headSHA string) {
	t.Helper()
	s = e2e.NewServer(t)
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(base.Files(), ".github/pact.yml", "seats:\n  lead: [lead]\n  dev: [dev]\n  rev: [rev]\n"), "lead")
	work := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN")
	reviewed := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", with(work.Files(), "src/login.go", "package login\n"), "dev", fakegithub.From("main"))
	head := work.Copy().Add("rev", projection.TypeAccept, "T1", "LOGIN", map[string]any{"commit": reviewed})
	s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", head.Files(), "rev")
	number = s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/login", Base: "main", Author: "dev"})
	return s, number, s.BranchHead(e2e.Owner, e2e.Repo, "feat/login")
}

// cleanSummary is what the summary of seedCleanPR's verdict says.
func cleanSummary(headSHA string) []string {
	return []string{"## ✅ pact: pact holds", "0 error(s), 0 waiting, 0 warning(s) on `" + headSHA[:12] + "` (branch feat/login)",
		"| LOGIN | accepted | T1 | ✅ accepted | dev | rev | **feat/login** (this PR) |"}
}

func TestCheckCleanPR(t *testing.T) {
	t.Parallel()
	s, n, headSHA := seedCleanPR(t)

	out := event{name: "pull_request", payload: prPayload(t, s, n, "feat/login", "main")}.run(t, s).only(t)

	run := onlyRun(t, s, headSHA, "pact", "success")
	if len(out.Findings) != 0 {
		t.Errorf("findings = %+v, want none", out.Findings)
	}
	if len(run.Annotations) != 0 || run.Requests != 2 {
		t.Errorf("annotations %d, requests %d; want 0 and 2 (create in_progress, complete)", len(run.Annotations), run.Requests)
	}
	if run.Title != "pact holds" {
		t.Errorf("title = %q", run.Title)
	}
	checkOutcome(t, out, run, n, 0, 0, 0)
	contains(t, "check run summary", run.Summary, cleanSummary(headSHA)...)
	if strings.Contains(out.Summary, "### Findings") || strings.Contains(out.Summary, "### Waiting") {
		t.Errorf("a clean summary lists findings or waiting tasks:\n%s", out.Summary)
	}
	noViolations(t, s)
}

// TestCheckForgedSelfAccept covers the ways a PR can forge an acceptance:
// every one is a violation (Rule 1 or the roster), the forged accept does not
// count, so the feature also waits.
func TestCheckForgedSelfAccept(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// head appends the PR's events to a base log whose T1 (feature
		// LOGIN, branch feat/login) is owned by owner and reviewed by rev.
		owner    string
		head     func(l *e2e.Log) *e2e.Log
		want     []string
		wantLine int // line of the violation
		wantMsg  string
	}{
		{name: "owner holding reviewer accepts own task", owner: "solo",
			head: func(l *e2e.Log) *e2e.Log {
				return l.Join("solo").Checkpoint("solo", "T1", "LOGIN").Accept("solo", "T1", "LOGIN")
			},
			want: sorted("rule1.self_accept", "pr.unaccepted_feature"), wantLine: 5, wantMsg: "by its own owner solo"},
		{name: "owner requests changes on own task", owner: "solo",
			head: func(l *e2e.Log) *e2e.Log {
				return l.Join("solo").Checkpoint("solo", "T1", "LOGIN").
					Add("solo", projection.TypeChangesRequested, "T1", "LOGIN", map[string]any{"reason": "self review"})
			},
			want: sorted("rule1.self_accept", "pr.unaccepted_feature"), wantLine: 5},
		{name: "worker without the reviewer role accepts own task", owner: "dev",
			head: func(l *e2e.Log) *e2e.Log {
				return l.Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("dev", "T1", "LOGIN")
			},
			want: sorted("roster.role_not_held", "pr.unaccepted_feature"), wantLine: 5},
		{name: "owner's accept labelled with the worker role", owner: "dev",
			head: func(l *e2e.Log) *e2e.Log {
				l = l.Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("dev", "T1", "LOGIN")
				last := len(l.Lines) - 1
				l.Lines[last] = strings.Replace(l.Lines[last], `"role":"reviewer"`, `"role":"worker"`, 1)
				return l
			},
			want: sorted("role.mismatch", "pr.unaccepted_feature"), wantLine: 5},
		{name: "a reviewer who is not the task's reviewer accepts", owner: "dev",
			head: func(l *e2e.Log) *e2e.Log {
				return l.Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("lead", "T1", "LOGIN")
			},
			want: sorted("rule1.not_reviewer", "pr.unaccepted_feature"), wantLine: 5},
		{name: "assign makes the owner its own reviewer", owner: "dev",
			head: func(l *e2e.Log) *e2e.Log {
				return l.Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN").
					Assign("T2", "LOGIN", "feat/login", "solo", "solo")
			},
			want: sorted("rule1.owner_is_reviewer"), wantLine: 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			base := soloLog(t).Assign("T1", "LOGIN", "feat/login", tc.owner, "rev")
			head := tc.head(base.Copy())
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")

			out := sc.check(t).only(t)

			fs := out.Findings
			if got := codes(fs); !slices.Equal(got, tc.want) {
				t.Fatalf("codes = %v, want %v", got, tc.want)
			}
			for _, f := range fs {
				if f.Severity == checks.SeverityError && (f.Path != logPath || f.Line != tc.wantLine || !strings.Contains(f.Message, tc.wantMsg)) {
					t.Errorf("violation %s at %s:%d %q; want %s:%d containing %q", f.Code, f.Path, f.Line, f.Message, logPath, tc.wantLine, tc.wantMsg)
				}
			}
			run := onlyRun(t, s, sc.headSHA, "pact", "failure")
			checkAnnotations(t, run, fs)
			c := checks.Count(fs)
			if c.Errors == 0 {
				t.Error("no violation")
			}
			checkOutcome(t, out, run, sc.number, c.Errors, 0, c.Pending)
			checkSummaryFindings(t, run.Summary, fs)
			if !strings.HasPrefix(run.Title, "1 violation — merge blocked") || !strings.Contains(run.Summary, "## ❌ pact: 1 violation — merge blocked") {
				t.Errorf("title %q; summary:\n%s", run.Title, run.Summary)
			}
			noViolations(t, s)
		})
	}
}

// TestCheckDrift: STATE.yml must agree with the log; a missing one is only a
// warning.
func TestCheckDrift(t *testing.T) {
	t.Parallel()
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
	tests := []struct {
		name       string
		files      map[string]string
		code       string
		severity   checks.Severity
		conclusion string
	}{
		{name: "stale STATE.yml", files: with(head.Files(), statePath, base.Files()[statePath]),
			code: "drift.state", severity: checks.SeverityError, conclusion: "failure"},
		{name: "hand-edited STATE.yml", files: with(head.Files(), statePath, strings.Replace(head.Files()[statePath], "reviewer: rev", "reviewer: lead", 1)),
			code: "drift.state", severity: checks.SeverityError, conclusion: "failure"},
		{name: "no STATE.yml", files: without(head.Files(), statePath),
			code: "drift.missing_state", severity: checks.SeverityWarning, conclusion: "success"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			if tc.files[statePath] == head.Files()[statePath] && tc.code == "drift.state" {
				t.Fatal("the scenario's STATE.yml does not drift")
			}
			sc := seedPR(t, s, base.Files(), tc.files, "feat/login")
			if _, ok := tc.files[statePath]; !ok {
				// main has one; the PR deletes it.
				s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", map[string]string{}, "dev", fakegithub.Deleting(statePath))
				sc.headSHA = s.BranchHead(e2e.Owner, e2e.Repo, "feat/login")
				if _, still := s.FileAt(sc.headSHA, statePath); still {
					t.Fatal("STATE.yml was not deleted")
				}
			}

			out := sc.check(t).only(t)

			fs := out.Findings
			if len(fs) != 1 || string(fs[0].Code) != tc.code || fs[0].Severity != tc.severity || fs[0].Path != statePath {
				t.Fatalf("findings = %+v, want one %s (%s) on .pact/STATE.yml", fs, tc.code, tc.severity)
			}
			run := onlyRun(t, s, sc.headSHA, "pact", tc.conclusion)
			checkAnnotations(t, run, fs) // line 1 of STATE.yml: drift has no line
			c := checks.Count(fs)
			checkOutcome(t, out, run, sc.number, c.Errors, c.Warnings, 0)
			checkSummaryFindings(t, run.Summary, fs)
			noViolations(t, s)
		})
	}
}

// waitingLogs is a pull request from feat/login whose tasks wait: T1
// awaits review, T2 went back to its owner, T3 is another branch's and T4
// is accepted. Base lines: 1 init, 2 T1, 3 T2, 4 T3, 5 T4.
func waitingLogs() (base, head *e2e.Log) {
	base = e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Assign("T2", "LOGIN", "feat/login", "dev", "lead").
		Assign("T3", "OTHER", "feat/other", "dev", "rev").Assign("T4", "SSO", "feat/login", "dev", "rev")
	head = base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Checkpoint("dev", "T2", "LOGIN").
		Add("lead", projection.TypeChangesRequested, "T2", "LOGIN", map[string]any{"reason": "add tests"}).
		Checkpoint("dev", "T4", "SSO").Accept("rev", "T4", "SSO")
	return base, head
}

// TestCheckWaitingTasks: unaccepted tasks of the PR's branch are waiting,
// not violations — action_required, never success, never an error.
func TestCheckWaitingTasks(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	base, head := waitingLogs()
	sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")

	out := sc.check(t).only(t)

	fs := out.Findings
	want := []struct {
		task string
		line int
		msg  string
	}{
		{"T1", 2, "waiting for T1 (feature LOGIN): awaiting review by rev"},
		{"T2", 3, "waiting for T2 (feature LOGIN): in progress by dev after lead requested changes"},
	}
	if len(fs) != len(want) {
		t.Fatalf("findings = %+v, want %d waiting", fs, len(want))
	}
	for i, w := range want {
		f := fs[i]
		if f.Code != checks.CodePRUnaccepted || f.Severity != checks.SeverityPending || f.Path != logPath || f.Line != w.line || f.TaskID != w.task || f.Feature != "LOGIN" || f.Message != w.msg {
			t.Errorf("finding %d = %+v; want pending %s at line %d: %q", i, f, w.task, w.line, w.msg)
		}
	}
	run := onlyRun(t, s, sc.headSHA, "pact", "action_required")
	checkAnnotations(t, run, fs)
	checkOutcome(t, out, run, sc.number, 0, 0, 2) // the check run carries the block
	if run.Title != "waiting for 2 tasks — not yet mergeable" {
		t.Errorf("title = %q", run.Title)
	}
	contains(t, "summary", run.Summary, "## ⏳ pact: waiting for 2 tasks — not yet mergeable", "### Waiting",
		"- waiting for T1 \\(feature LOGIN\\): awaiting review by rev",
		"- waiting for T2 \\(feature LOGIN\\): in progress by dev after lead requested changes",
		"| LOGIN | in_progress | T2 | in_progress (1 change round(s)) | dev | lead | **feat/login** (this PR) |",
		"| OTHER | in_progress | T3 | in_progress | dev | rev | feat/other |",
		"| SSO | accepted | T4 | ✅ accepted | dev | rev | **feat/login** (this PR) |")
	if strings.Contains(run.Summary, "❌") {
		t.Errorf("waiting reads as an error:\n%s", run.Summary)
	}
	noViolations(t, s)
}

// TestCheckUnknownLogEventTypes: log events of unknown types are ignored
// (webhook events check mode does not handle: TestBinaryRefusesUnknownEvents).
func TestCheckUnknownLogEventTypes(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	head := base.Copy().
		Raw(draft(t, 40, "dev", "note", "T1", "LOGIN", map[string]any{"text": "started"})).
		Join("dev").
		Raw(`{"event_id":"`+eventID(41)+`","ts":"2026-06-09T11:00:00Z","agent_id":"ghost","role":"oracle","event_type":"prophecy_v2","task_id":"","feature":"","payload":{"x":1},"extra":true}`).
		Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
	sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")

	out := sc.check(t).only(t)

	if len(out.Findings) != 0 {
		t.Errorf("findings = %+v, want none: unknown event types are ignored", out.Findings)
	}
	run := onlyRun(t, s, sc.headSHA, "pact", "success")
	checkOutcome(t, out, run, sc.number, 0, 0, 0)
	noViolations(t, s)
}

// TestCheckProtocolVersion2: a log that needs a newer protocol fails closed —
// one finding, nothing else judged.
func TestCheckProtocolVersion2(t *testing.T) {
	t.Parallel()
	v2 := func(l *e2e.Log) *e2e.Log {
		l.Lines[0] = strings.Replace(l.Lines[0], `"protocol_version":1`, `"protocol_version":2`, 1)
		return l
	}
	tests := []struct {
		name string
		base map[string]string // nil: main has no pact
		head *e2e.Log
	}{
		{name: "PR starts a v2 pact", head: v2(e2e.NewLog()).Assign("T1", "LOGIN", "feat/login", "dev", "rev").Add("dev", "future_event", "", "", nil)},
		{name: "v2 pact on both sides", base: v2(e2e.NewLog()).Files(),
			head: v2(e2e.NewLog()).Assign("T1", "LOGIN", "feat/login", "dev", "dev").Accept("dev", "T9", "X")},
		{name: "PR rewrites the init to v2", base: e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Files(),
			head: v2(e2e.NewLog()).Assign("T1", "LOGIN", "feat/login", "dev", "rev")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			if !strings.Contains(tc.head.Lines[0], `"protocol_version":2`) {
				t.Fatal("the head log is not v2")
			}
			files := tc.head.Files()
			delete(files, statePath) // would be a warning under v1; v2 judges nothing else
			sc := seedPR(t, s, tc.base, files, "feat/login")

			out := sc.check(t).only(t)

			fs := out.Findings
			if len(fs) != 1 || fs[0].Code != projection.CodeVersionUnsupported || fs[0].Path != logPath || fs[0].Line != 1 ||
				!strings.Contains(fs[0].Message, "protocol_version 2") || !strings.Contains(fs[0].Message, "upgrade") {
				t.Fatalf("findings = %+v, want only version.unsupported on line 1", fs)
			}
			run := onlyRun(t, s, sc.headSHA, "pact", "failure")
			checkAnnotations(t, run, fs)
			checkOutcome(t, out, run, sc.number, 1, 0, 0)
			if !strings.Contains(run.Summary, "`version.unsupported`") || !strings.Contains(run.Summary, "Upgrade pact-action") {
				t.Errorf("summary does not say to upgrade:\n%s", run.Summary)
			}
			noViolations(t, s)
		})
	}
}

// manyFindingsLogs is a pull request from feat/login whose T1 is
// accepted and whose n lines after it are findings: every other one is not
// JSON, the others join a seat the roster lacks (lines 6 to 5+n).
func manyFindingsLogs(n int) (base, head *e2e.Log) {
	base = e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	head = base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
	// Past 120 findings the seat's name is long, so that what is listed
	// (MaxListed of each code) overflows GitHub's limit.
	ghost := "ghost"
	if n > 120 {
		ghost += "-" + strings.Repeat("x", 600)
	}
	for i := range n {
		if i%2 == 0 {
			head.Raw(fmt.Sprintf("{not json %d", i))
		} else {
			head.Add(ghost, projection.TypeJoin, "", "", map[string]any{"roles": []string{"worker"}})
		}
	}
	return base, head
}

// TestCheckManyFindings: the findings are annotated 50 per request, in at
// most three requests (errors first), the summary counts what is not
// annotated, and summary and text stay within GitHub's limit, saying what
// was cut.
func TestCheckManyFindings(t *testing.T) {
	t.Parallel()
	// Up to 2×MaxListed: two codes alternate, each listed in full.
	for _, n := range []int{51, 120, 2 * checks.MaxListed} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			base, head := manyFindingsLogs(n)
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")

			out := sc.check(t).only(t)

			fs := out.Findings
			if len(fs) != n {
				t.Fatalf("findings = %d, want %d", len(fs), n)
			}
			for i, f := range fs {
				want := projection.CodeMalformedJSON
				if i%2 == 1 {
					want = projection.CodeUnknownSeat
				}
				if f.Code != want || f.Line != 6+i {
					t.Errorf("finding %d = %s at line %d, want %s at line %d", i, f.Code, f.Line, want, 6+i)
				}
			}
			run := onlyRun(t, s, sc.headSHA, "pact", "failure")
			checkAnnotations(t, run, fs)
			patches := min((n+49)/50, report.MaxCheckRunAnnotations/50)
			if run.Requests != 1+patches {
				t.Errorf("check run requests = %d, want %d (create, then the annotations 50 at a time, at most 3 times)", run.Requests, 1+patches)
			}
			if got := s.CountRequests("PATCH", repoPath+"/check-runs/*"); got != patches {
				t.Errorf("PATCH requests = %d, want %d", got, patches)
			}
			note := fmt.Sprintf("%d more finding(s) are not annotated", n-report.MaxCheckRunAnnotations)
			if strings.Contains(run.Summary, note) != (n > report.MaxCheckRunAnnotations) {
				t.Errorf("summary says %q: %v, want %v", note, strings.Contains(run.Summary, note), n > report.MaxCheckRunAnnotations)
			}
			checkOutcome(t, out, run, sc.number, n, 0, 0)
			if len(run.Summary) > 65535 || len(run.Text) > 65535 {
				t.Errorf("summary %d, text %d bytes: over GitHub's limit", len(run.Summary), len(run.Text))
			}
			if !strings.Contains(run.Summary, fmt.Sprintf("%d error(s), 0 waiting, 0 warning(s)", n)) {
				t.Errorf("summary lacks the count:\n%.400s", run.Summary)
			}
			rows := strings.Count(run.Summary, "| ❌ error |")
			textEntries := strings.Count(run.Text, "Hint: ")
			if n <= 120 {
				if rows != n || textEntries != n {
					t.Errorf("summary rows %d, text entries %d, want %d", rows, textEntries, n)
				}
				return
			}
			cutNote := fmt.Sprintf("_…%d more finding(s) not shown here to fit GitHub's 65,535-character limit", n-rows)
			if rows == 0 || rows >= n || !strings.Contains(run.Summary, cutNote) {
				t.Errorf("summary shows %d of %d rows; want a cut with the note %q", rows, n, cutNote)
			}
			if textEntries == 0 || textEntries >= n || !strings.Contains(run.Text, fmt.Sprintf("_…%d more finding(s) cut to fit GitHub's limit", n-textEntries)) {
				t.Errorf("text shows %d of %d findings; want a cut with a note:\n…%s", textEntries, n, run.Text[max(0, len(run.Text)-300):])
			}
			noViolations(t, s)
		})
	}
}

// TestCheckManyWaitingTasks: every task file of hundreds of tasks is
// checked, the first 150 waiting tasks are annotated, and the summary lists
// as many as fit and says how many it left out.
func TestCheckManyWaitingTasks(t *testing.T) {
	t.Parallel()
	const n = 600
	s := e2e.NewServer(t)
	base := e2e.NewLog()
	head := base.Copy()
	for i := range n {
		head.Assign(fmt.Sprintf("T%d", i), "BIG", "feat/big", "dev", "rev")
	}
	sc := seedPR(t, s, base.Files(), head.Files(), "feat/big")

	out := sc.check(t).only(t)

	// Listed up to the cap, every one counted (docs/semantics.md §7).
	fs := out.Findings
	if c := checks.Count(fs); len(fs) != checks.MaxListed+1 || c.Pending != n || fs[len(fs)-1].Omitted != n-checks.MaxListed {
		t.Fatalf("findings %d (%+v), want %d listed of %d waiting", len(fs), c, checks.MaxListed, n)
	}
	run := onlyRun(t, s, sc.headSHA, "pact", "action_required")
	checkAnnotations(t, run, fs)
	if run.Requests != 1+report.MaxCheckRunAnnotations/50 {
		t.Errorf("check run requests = %d, want %d", run.Requests, 1+report.MaxCheckRunAnnotations/50)
	}
	checkOutcome(t, out, run, sc.number, 0, 0, n)
	listed := strings.Count(run.Summary, "\n- waiting for T")
	if len(run.Summary) > 65535 || listed != checks.MaxListed ||
		!strings.Contains(run.Summary, fmt.Sprintf("\n- %d more findings with this code not listed", n-listed)) {
		t.Errorf("summary of %d bytes lists %d of %d waiting tasks without the right note", len(run.Summary), listed, n)
	}
	// Every task file the pull request adds is read, in three GraphQL
	// requests (the head's listing, the merge base's log and listing, then
	// the added files by blob id).
	if got := s.CountRequests("GET", repoPath+"/contents/.pact/tasks/*"); got != 0 {
		t.Errorf("task files read one by one = %d, want 0", got)
	}
	if got := s.CountRequests("POST", "/graphql"); got != 3 {
		t.Errorf("GraphQL requests = %d, want 3", got)
	}
	noViolations(t, s)
}

// TestCheckSummaryEscapesUserText: text from the log cannot inject Markdown,
// HTML or @-mentions into the check run or the job summary.
func TestCheckSummaryEscapesUserText(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	const (
		task    = "T1-@admin-<img src=x onerror=alert(1)>"
		feature = "F**bold**[link](https://evil.example)|#1"
	)
	base := e2e.NewLog().Assign(task, feature, "feat/login", "dev", "rev")
	head := base.Copy().Join("dev").Checkpoint("dev", task, feature).
		Add("rev", projection.TypeChangesRequested, task, feature, map[string]any{"reason": "@admin <script>alert(1)</script>\n# heading"}).
		Raw(`{"not": "closed @admin <b>`)
	sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")

	out := sc.check(t).only(t)

	run := onlyRun(t, s, sc.headSHA, "pact", "failure")
	if got := codes(out.Findings); !slices.Equal(got, sorted("log.malformed_json", "pr.unaccepted_feature")) {
		t.Fatalf("codes = %v", got)
	}
	for name, text := range map[string]string{"check run summary": run.Summary, "check run text": run.Text, "job summary": out.Summary} {
		if live := markdown.Live(text); len(live) > 0 {
			t.Errorf("%s renders live: %s\n%s", name, strings.Join(live, "; "), text)
		}
		if strings.Contains(text, "\n# heading") {
			t.Errorf("%s lets a line break through:\n%s", name, text)
		}
	}
	for _, want := range []string{"T1-@\u200badmin-&lt;img src=x onerror=alert\\(1\\)&gt;", "@\u200badmin"} {
		if !strings.Contains(run.Summary, want) {
			t.Errorf("summary lacks the escaped %q:\n%s", want, run.Summary)
		}
	}
	noViolations(t, s)
}

// TestCheckNoPact: a repository without a pact passes, saying so.
func TestCheckNoPact(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	sc := seedPR(t, s, nil, map[string]string{"src/main.go": "package main\n"}, "feat/login")

	out := sc.check(t).only(t)

	run := onlyRun(t, s, sc.headSHA, "pact", "success")
	if !out.NoPact || !strings.Contains(run.Summary, "This commit has no .pact/log.jsonl; there is nothing to enforce.") {
		t.Errorf("no pact %v, summary:\n%s", out.NoPact, run.Summary)
	}
	checkOutcome(t, out, run, sc.number, 0, 0, 0)
	noViolations(t, s)
}

// seedMetaPactPR is a pull request whose pact lives in meta/pact/, and
// whose head accepts T1 twice: one violation, on line 6.
func seedMetaPactPR(t *testing.T) scenario {
	t.Helper()
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
	move := func(files map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range files {
			out["meta/pact/"+strings.TrimPrefix(k, ".pact/")] = v
		}
		return out
	}
	return seedPR(t, e2e.NewServer(t), move(base.Files()), move(head.Files()), "feat/login")
}

// TestCheckSettings: the check name and the pact directory (the check-name
// and pact-dir inputs: TestBinaryInputs) are honoured.
func TestCheckSettings(t *testing.T) {
	t.Parallel()
	sc := seedMetaPactPR(t)
	s := sc.s
	ev := sc.event(t)
	ev.settings = func(st *action.Settings) { st.CheckName, st.PactDir = "pact / protocol", "meta/pact/" }

	out := ev.run(t, s).only(t)

	fs := out.Findings
	if len(fs) != 1 || fs[0].Code != projection.CodeInvalidTransition || fs[0].Path != "meta/pact/log.jsonl" || fs[0].Line != 6 {
		t.Fatalf("findings = %+v, want state.invalid_transition at meta/pact/log.jsonl:6", fs)
	}
	run := onlyRun(t, s, sc.headSHA, "pact / protocol", "failure")
	checkAnnotations(t, run, fs)
	checkOutcome(t, out, run, sc.number, 1, 0, 0)
	if !strings.Contains(run.Summary, "## ❌ pact / protocol: 1 violation") {
		t.Errorf("summary:\n%s", run.Summary)
	}
	noViolations(t, s)
}

// readOnlyPR is a pull request judged with a token that cannot create
// check runs, as a fork's is: T1 waits for its review, and a seat the
// roster lacks joins.
func readOnlyPR(t *testing.T) (*fakegithub.Server, scenario) {
	t.Helper()
	s := e2e.NewServer(t)
	s.SetToken(e2e.Token, fakegithub.Token{Login: botAccount, ReadOnly: true})
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Add("ghost", projection.TypeJoin, "", "", map[string]any{"roles": []string{"worker"}})
	return s, seedPR(t, s, base.Files(), head.Files(), "feat/login")
}

// TestCheckReadOnlyToken: a token that cannot create check runs (a fork's)
// still gets the whole verdict, marked as a fallback whose summary says
// why; the binary turns it into workflow annotations
// (TestBinaryForkReadOnlyToken).
func TestCheckReadOnlyToken(t *testing.T) {
	t.Parallel()
	s, sc := readOnlyPR(t)

	out := sc.check(t).only(t)

	if !out.Fallback || out.CheckRunID != 0 || !strings.Contains(out.FallbackReason, "the token cannot create check runs") {
		t.Errorf("fallback %v (%q), check run %d", out.Fallback, out.FallbackReason, out.CheckRunID)
	}
	if runs := s.CheckRuns(sc.headSHA); len(runs) != 0 {
		t.Errorf("check runs were stored with a read-only token: %+v", runs)
	}
	if got := s.CountRequests("POST", repoPath+"/check-runs"); got != 1 {
		t.Errorf("create check run attempted %d times, want once (a 403 is not retried)", got)
	}
	if got := s.CountRequests("PATCH", repoPath+"/check-runs/*"); got != 0 {
		t.Errorf("%d check run updates without a check run", got)
	}
	if c := checks.Count(out.Findings); out.Conclusion != report.ConclusionFailure || c.Errors != 1 || c.Pending != 1 {
		t.Errorf("conclusion %s, counts %+v; want failure with 1 error and 1 waiting", out.Conclusion, c)
	}
	contains(t, "summary", out.Summary, "> "+out.FallbackReason, "(branch feat/login)", "`roster.unknown_seat`", "waiting for T1")
	noViolations(t, s)
}

// Check mode where GitHub is not cooperative: server errors, rate limits,
// retries that give up, files too large for the usual endpoints.

// TestCheckAPI5xxThenSuccess: transient server errors on every kind of call
// are retried, and the verdict is the same as without them.
func TestCheckAPI5xxThenSuccess(t *testing.T) {
	t.Parallel()
	retryAfter := http.Header{"Retry-After": []string{"1"}}
	tests := []struct {
		name, method, path string
		status             int
		header             http.Header
		times              int
	}{
		{name: "compare 502 twice", method: "GET", path: repoPath + "/compare/*", status: 502, times: 2},
		{name: "graphql 500", method: "POST", path: "/graphql", status: 500, times: 1},
		{name: "create check run 503 with Retry-After", method: "POST", path: repoPath + "/check-runs", status: 503, header: retryAfter, times: 1},
		{name: "complete check run 504", method: "PATCH", path: repoPath + "/check-runs/*", status: 504, times: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
			head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN")
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")
			s.FailNext(tc.method, tc.path, tc.status, tc.header, tc.times)

			res := sc.check(t)
			out := res.only(t)

			if got := faults(s); got != tc.times {
				t.Errorf("injected answers served = %d, want %d", got, tc.times)
			}
			if len(res.waits) != tc.times {
				t.Errorf("waited %d times (%v), want once per failed attempt", len(res.waits), res.waits)
			}
			if !strings.Contains(res.log, "github request failed, retrying") || !strings.Contains(res.log, fmt.Sprintf("status=%d", tc.status)) {
				t.Errorf("the retry is not logged:\n%s", res.log)
			}
			run := onlyRun(t, s, sc.headSHA, "pact", "action_required")
			if got := codes(out.Findings); !slices.Equal(got, []string{"pr.unaccepted_feature"}) {
				t.Errorf("codes = %v", got)
			}
			checkAnnotations(t, run, out.Findings)
			checkOutcome(t, out, run, sc.number, 0, 0, 1)
			noViolations(t, s)
		})
	}
}

// TestCheckSecondaryRateLimit: a secondary rate limit (403 or 429 with
// Retry-After) is waited out, then the run goes on.
func TestCheckSecondaryRateLimit(t *testing.T) {
	t.Parallel()
	// GitHub answers a GraphQL primary rate limit with 200 and an error.
	graphQLLimited := []byte(`{"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded for installation ID 1."}]}`)
	for _, status := range []int{403, 429, 200} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
			head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")
			// The check run creation and the read of the head's pact
			// (GraphQL) each hit the limit.
			s.FailNext("POST", repoPath+"/check-runs", max(status, 403), http.Header{"Retry-After": []string{"1"}}, 1)
			fault := fakegithub.Fault{Method: "POST", Path: "/graphql", Status: status, Header: http.Header{"Retry-After": []string{"1"}}}
			if status == 200 {
				fault.Body = graphQLLimited
			}
			s.Inject(fault)

			res := sc.check(t)
			out := res.only(t)

			if got := faults(s); got != 2 {
				t.Errorf("rate-limited answers served = %d, want 2", got)
			}
			if len(res.waits) != 2 || res.waits[0] < time.Second || res.waits[1] < time.Second {
				t.Errorf("waits = %v: did not honour Retry-After: 1 twice", res.waits)
			}
			if !strings.Contains(res.log, "rate_limited=true") {
				t.Errorf("the rate limit is not logged:\n%s", res.log)
			}
			if out.Fallback {
				t.Errorf("a rate-limited 403 was taken for a read-only token: %s", out.FallbackReason)
			}
			run := onlyRun(t, s, sc.headSHA, "pact", "success")
			if got := s.CountRequests("POST", repoPath+"/check-runs"); got != 2 {
				t.Errorf("create check run sent %d times, want 2 (limited, then created)", got)
			}
			checkOutcome(t, out, run, sc.number, 0, 0, 0)
			noViolations(t, s)
		})
	}
}

// TestCheckGivesUpLeavesRunFailed: when retries give up mid-way, the check
// run is completed as failed with the error (never left in_progress), and
// the run fails with one sentence saying what gave up (the binary's exit 2:
// TestBinaryOperationalErrors).
func TestCheckGivesUpLeavesRunFailed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, method, path string
		skip               int // requests let through first
		times              int // default: every request
		want               string
		gaveUp             string // default: the transport's "gave up after 5 attempts"
	}{
		{name: "compare", method: "GET", path: repoPath + "/compare/*", want: "find the merge base of"},
		{name: "the head's pact", method: "POST", path: "/graphql", want: "read .pact/log.jsonl, .pact/STATE.yml"},
		// The second GraphQL request reads the merge base's log and tasks/
		// listing (the pull request changes no task file, so none is read
		// by blob id in between).
		{name: "the merge base's log", method: "POST", path: "/graphql", skip: 1, want: "read the merge base"},
		// Completing fails three times (each a patch of its own, after
		// reading that the run is not completed); failing the run on the
		// way out, the third request goes through.
		{name: "complete check run", method: "PATCH", path: repoPath + "/check-runs/*", times: 5, want: "post the verdict to check run",
			gaveUp: "3 attempts"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
			head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")
			times := tc.times
			if times == 0 {
				times = 100
			}
			s.Inject(fakegithub.Fault{Method: tc.method, Path: tc.path, Status: 500, Header: http.Header{"Retry-After": []string{"1"}}, Times: times, Skip: tc.skip})

			err := sc.check(t).failed(t)
			gaveUp := tc.gaveUp
			if gaveUp == "" {
				gaveUp = "gave up after 5 attempts"
			}

			if got := faults(s); got != 5 {
				t.Errorf("attempts = %d, want 5 (the default policy)", got)
			}
			runs := s.CheckRuns(sc.headSHA)
			if len(runs) != 1 {
				t.Fatalf("check runs = %d, want 1", len(runs))
			}
			r := runs[0]
			if r.Status != "completed" || r.Conclusion != "failure" || r.Title != "pact-action failed" {
				t.Errorf("check run left %s/%s %q", r.Status, r.Conclusion, r.Title)
			}
			if !strings.Contains(r.Summary, "pact-action stopped before it finished judging this commit") || !strings.Contains(r.Summary, tc.want) ||
				!strings.Contains(r.Summary, gaveUp) {
				t.Errorf("check run summary does not carry the error:\n%s", r.Summary)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, tc.want) || !strings.Contains(msg, gaveUp) || !strings.Contains(msg, "500") {
				t.Errorf("error is not one clear line: %q", msg)
			}
			noViolations(t, s)
		})
	}
}

// TestCheckRateLimitTooLong: a rate limit asking for a longer wait than the
// policy allows gives up at once with a clear message; it is not mistaken for
// a read-only token.
func TestCheckRateLimitTooLong(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	sc := seedPR(t, s, base.Files(), base.Copy().Join("dev").Files(), "feat/login")
	s.FailNext("POST", repoPath+"/check-runs", 403, http.Header{"Retry-After": []string{"600"}}, 1)

	res := sc.check(t)
	err := res.failed(t)

	if len(res.waits) != 0 {
		t.Errorf("waited %v for a limit it was going to give up on", res.waits)
	}
	if len(res.outcomes) != 0 {
		t.Errorf("a rate limit was taken for a read-only token: %+v", res.outcomes)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, `create the "pact" check run on `) || !strings.Contains(msg, "server asked to wait 10m0s") {
		t.Errorf("error = %q", msg)
	}
	if len(s.CheckRuns(sc.headSHA)) != 0 {
		t.Error("a check run was created")
	}
	noViolations(t, s)
}

// TestCheckLargeLog: logs over 1 MB are read, through the raw media type or,
// when even that refuses them, through the blobs API.
func TestCheckLargeLog(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat("x", 60<<10)
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	for i := range 20 { // ~1.2 MB of lines of an unknown type, ignored
		base.Raw(draft(t, 100+i, "dev", "note", "", "", map[string]any{"text": pad}))
	}
	head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
	if len(base.Text()) <= 1<<20 {
		t.Fatalf("the base log is only %d bytes", len(base.Text()))
	}
	tests := []struct {
		name  string
		opts  []fakegithub.Option
		blobs bool
	}{
		{name: "raw media type"},
		{name: "blobs fallback", opts: []fakegithub.Option{fakegithub.WithRawContentLimit(512 << 10)}, blobs: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t, tc.opts...)
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")

			out := sc.check(t).only(t)

			fs := out.Findings
			// The second accept (line 26) proves the whole log was read.
			if len(fs) != 1 || fs[0].Code != projection.CodeInvalidTransition || fs[0].Line != 26 {
				t.Fatalf("findings = %+v, want state.invalid_transition on line 26", fs)
			}
			run := onlyRun(t, s, sc.headSHA, "pact", "failure")
			checkAnnotations(t, run, fs)
			checkOutcome(t, out, run, sc.number, 1, 0, 0)
			// GraphQL cuts Blob.text at 512,000 bytes: the head log and the
			// merge base's (read with the listing of its tasks/) are read by
			// their blob ids, whatever the raw media type would serve.
			if blobReads := s.CountRequests("GET", repoPath+"/git/blobs/*"); blobReads != 2 {
				t.Errorf("blob reads = %d, want 2 (the head log and the merge-base log)", blobReads)
			}
			noViolations(t, s)
		})
	}
}

// A job killed outright after it created its check run leaves the run in
// progress for good; the next check on the head completes every older run
// of this action, name and app still in progress there, with its own
// conclusion (docs/check.md, "Where it runs"), listed in the GraphQL
// request the judgement makes anyway: one write per such run, no read.

// orphanID is the external id of the n-th run a killed job left, of the
// action's own form.
func orphanID(n int) string { return fmt.Sprintf("pact-action-%032x", n) }

// verdictScenarios are pull requests whose checks conclude each way.
var verdictScenarios = map[string]struct {
	conclusion  string
	base, head  *e2e.Log
	branch      string
	wantErrors  int
	wantPending int
}{
	"passing": {conclusion: report.ConclusionSuccess, branch: "feat/x",
		base: e2e.NewLog(), head: e2e.NewLog().Join("dev")},
	"waiting": {conclusion: report.ConclusionWaiting, branch: "feat/login",
		base: e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev"),
		head: e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Join("dev").Checkpoint("dev", "T1", "LOGIN")},
	"failing": {conclusion: report.ConclusionFailure, branch: "feat/x",
		base: e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev"), head: e2e.NewLog().Join("dev")},
}

// TestCheckCompletesRunsLeftInProgress: the run a killed job left, and one
// someone posted in the action's form (the same app: any workflow of the
// repository posts as GitHub Actions), are completed with the new run's
// conclusion, dated no later than it, whatever the verdict — so the
// commit reads the same whichever run GitHub weighs. A run of another app,
// a job's own check run of the same name, a run of another name, a run on
// another commit and a completed run are left as they were. Without them
// the check makes the same requests as before, and each costs one write.
func TestCheckCompletesRunsLeftInProgress(t *testing.T) {
	t.Parallel()
	for name, v := range verdictScenarios {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clean := e2e.NewServer(t)
			cleanSc := seedPR(t, clean, v.base.Files(), v.head.Files(), v.branch)
			cleanCalls := calls(clean)
			cleanSc.check(t).only(t)
			cleanCalls = diffCalls(calls(clean), cleanCalls)

			s := e2e.NewServer(t)
			sc := seedPR(t, s, v.base.Files(), v.head.Files(), v.branch)
			other := fakegithub.App{ID: 4242, Slug: "other-ci", Name: "Other CI", Owner: e2e.Owner}
			seed := func(seed fakegithub.CheckRunSeed) int64 {
				if seed.Name == "" {
					seed.Name = "pact"
				}
				if seed.HeadSHA == "" {
					seed.HeadSHA = sc.headSHA
				}
				return s.SeedCheckRun(e2e.Owner, e2e.Repo, seed)
			}
			killed := seed(fakegithub.CheckRunSeed{ExternalID: orphanID(1)})
			forged := seed(fakegithub.CheckRunSeed{ExternalID: orphanID(2), Title: "pact holds"})
			untouched := map[int64]fakegithub.CheckRun{}
			for _, id := range []int64{
				seed(fakegithub.CheckRunSeed{App: other, ExternalID: orphanID(3)}),
				seed(fakegithub.CheckRunSeed{}), // the job's own check run, named like its job
				seed(fakegithub.CheckRunSeed{Name: "pact-lint", ExternalID: orphanID(4)}),
				seed(fakegithub.CheckRunSeed{HeadSHA: sc.baseSHA, ExternalID: orphanID(5)}),
				seed(fakegithub.CheckRunSeed{Status: "completed", Conclusion: report.ConclusionFailure, ExternalID: orphanID(6)}),
			} {
				untouched[id] = fakegithub.CheckRun{}
			}
			for _, r := range s.AllCheckRuns() {
				if _, ok := untouched[r.ID]; ok {
					untouched[r.ID] = r
				}
			}
			before := calls(s)

			res := sc.check(t)

			out := res.only(t)
			if out.Conclusion != v.conclusion {
				t.Fatalf("conclusion %s, want %s", out.Conclusion, v.conclusion)
			}
			runs := map[int64]fakegithub.CheckRun{}
			for _, r := range s.AllCheckRuns() {
				runs[r.ID] = r
			}
			own := runs[out.CheckRunID]
			if own.Status != "completed" || own.Conclusion != v.conclusion || strings.HasPrefix(own.Title, "superseded") {
				t.Errorf("the new run: %s %s %q", own.Status, own.Conclusion, own.Title)
			}
			for _, id := range []int64{killed, forged} {
				r := runs[id]
				if r.Status != "completed" || r.Conclusion != own.Conclusion || r.CompletedAt.After(own.CompletedAt) ||
					r.Title != fmt.Sprintf("superseded by check run %d: %s", own.ID, own.Title) || !strings.Contains(r.Summary, "Check run "+strconv.FormatInt(own.ID, 10)) {
					t.Errorf("run %d left in progress is now %s %s at %v, %q; want completed %s no later than %v, superseded by %d",
						id, r.Status, r.Conclusion, r.CompletedAt, r.Title, own.Conclusion, own.CompletedAt, own.ID)
				}
			}
			if !slices.Equal(out.Superseded, []int64{killed, forged}) {
				t.Errorf("Superseded = %v, want %v", out.Superseded, []int64{killed, forged})
			}
			for id, was := range untouched {
				if now := runs[id]; now.Status != was.Status || now.Conclusion != was.Conclusion || now.Requests != was.Requests {
					t.Errorf("run %d (%s, app %d) changed: %+v -> %+v", id, was.Name, was.App, was, now)
				}
			}
			// The same requests as without them, and one write each.
			got := diffCalls(calls(s), before)
			want := maps.Clone(cleanCalls)
			want["checks/update"] += 2
			if !maps.Equal(got, want) {
				t.Errorf("calls %s, want %s", perOperation(got), perOperation(want))
			}
			noViolations(t, s)
		})
	}
}

// diffCalls is what after counts beyond before.
func diffCalls(after, before map[string]int) map[string]int {
	out := map[string]int{}
	for op, n := range after {
		if d := n - before[op]; d > 0 {
			out[op] = d
		}
	}
	return out
}

// TestCheckNotFailedByARunLeftInProgress: completing a run left in
// progress is no part of the verdict. When GitHub refuses it or does not
// answer, the verdict stands posted, the job succeeds, the run is tried
// once and left for the next check, which completes it.
func TestCheckNotFailedByARunLeftInProgress(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]fakegithub.Fault{
		"refused":      {Status: 502},
		"not answered": {Stall: true},
		"a rate limit": {Status: 403, Header: map[string][]string{"Retry-After": {"30"}}},
		"answer lost":  {Drop: true},
		"gone (404)":   {Status: 404},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := verdictScenarios["waiting"]
			s := e2e.NewServer(t)
			sc := seedPR(t, s, v.base.Files(), v.head.Files(), v.branch)
			killed := s.SeedCheckRun(e2e.Owner, e2e.Repo, fakegithub.CheckRunSeed{Name: "pact", HeadSHA: sc.headSHA, ExternalID: orphanID(1)})
			patch := repoPath + "/check-runs/" + strconv.FormatInt(killed, 10)
			f.Method, f.Path, f.Times = "PATCH", patch, 1
			s.Inject(f)
			ev := sc.event(t)
			ev.retry = ghapi.RetryPolicy{AttemptTimeout: 300 * time.Millisecond}

			res := ev.run(t, s)

			out := res.only(t)
			onlyOwn := latestRun(t, s, sc.headSHA)
			if out.Conclusion != v.conclusion || onlyOwn.ID != out.CheckRunID || onlyOwn.Conclusion != v.conclusion || len(out.Superseded) != 0 {
				t.Errorf("verdict %s on run %d (newest %d, %s); superseded %v", out.Conclusion, out.CheckRunID, onlyOwn.ID, onlyOwn.Conclusion, out.Superseded)
			}
			if n := s.CountRequests("PATCH", patch); n != 1 {
				t.Errorf("completing the run left in progress: %d requests, want 1", n)
			}
			for _, r := range s.CheckRuns(sc.headSHA) {
				if r.ID == killed && r.Status != "in_progress" {
					t.Errorf("the run left in progress is %s %s", r.Status, r.Conclusion)
				}
			}
			if slices.ContainsFunc(res.waits, func(d time.Duration) bool { return d >= 30*time.Second }) {
				t.Errorf("waited %v for the run left in progress", res.waits)
			}

			again := sc.check(t).only(t)

			if !slices.Equal(again.Superseded, []int64{killed}) {
				t.Errorf("the next check completed %v, want %d", again.Superseded, killed)
			}
			noneInProgress(t, s)
		})
	}
}

// TestCheckRunsLeftInProgressByTheHundred: someone who posts runs of the
// action's form by the hundred costs each check at most maxSuperseded
// writes (10); the next checks complete the rest.
func TestCheckRunsLeftInProgressByTheHundred(t *testing.T) {
	t.Parallel()
	v := verdictScenarios["passing"]
	s := e2e.NewServer(t)
	sc := seedPR(t, s, v.base.Files(), v.head.Files(), v.branch)
	for i := range 25 {
		s.SeedCheckRun(e2e.Owner, e2e.Repo, fakegithub.CheckRunSeed{Name: "pact", HeadSHA: sc.headSHA, ExternalID: orphanID(i)})
	}
	for i, want := range []int{10, 10, 5, 0} {
		before := countOp(s, "checks/update")
		out := sc.check(t).only(t)
		if len(out.Superseded) != want {
			t.Errorf("check %d completed %d runs left in progress, want %d", i+1, len(out.Superseded), want)
		}
		if got := countOp(s, "checks/update") - before; got != want+1 {
			t.Errorf("check %d: %d updates, want %d and its own", i+1, got, want)
		}
	}
	noneInProgress(t, s)
	noViolations(t, s)
}
