package action_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/internal/testkit/loggen"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// What only the binary does, tested through it the way a GitHub runner runs
// it (internal/testkit/e2e): the runner environment and the action inputs
// (INPUT_*), mode auto per event, exit codes and fail-on, the outputs, the
// job summary and the JSON report, the fallback to workflow annotations
// when the token cannot create check runs, a GHES API path, SIGTERM and
// PACT_TIMEOUT, a manual run, and bot mode end to end. Everything else the
// action decides is tested in-process (harness_test.go).

var workflowCommand = regexp.MustCompile(`(?m)^::(error|warning|notice)( [^:]*)?::(.*)$`)

// commands lists the workflow annotation commands of stdout.
func commands(stdout string) [][]string {
	return workflowCommand.FindAllStringSubmatch(stdout, -1)
}

// wantExit fails unless the run exited with code.
func wantExit(t *testing.T, res e2e.Result, code int) {
	t.Helper()
	if res.Code != code {
		t.Fatalf("exit code %d, want %d\nstdout: %s\nstderr: %s", res.Code, code, res.Stdout, res.Stderr)
	}
}

// reportFindings decodes the findings of the JSON report's runs[i].
func reportFindings(t *testing.T, res e2e.Result, i int) []checks.Finding {
	t.Helper()
	runs, _ := res.Report["runs"].([]any)
	if len(runs) <= i {
		t.Fatalf("the JSON report has %d run(s), want at least %d: %v\nstdout: %s\nstderr: %s", len(runs), i+1, res.Report, res.Stdout, res.Stderr)
	}
	b, err := json.Marshal(runs[i].(map[string]any)["findings"])
	if err != nil {
		t.Fatal(err)
	}
	var out []checks.Finding
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("findings of the report: %v", err)
	}
	return out
}

// checkOutputs compares the step outputs and the report's conclusion with
// the verdict.
func checkOutputs(t *testing.T, res e2e.Result, conclusion string, errs, warnings, pending int) {
	t.Helper()
	if res.Outputs["conclusion"] != conclusion || res.Atoi(t, "errors") != errs || res.Atoi(t, "warnings") != warnings ||
		res.Atoi(t, "pending") != pending || res.Outputs["report"] != "pact-report.json" {
		t.Errorf("outputs = %v; want conclusion %s, errors %d, warnings %d, pending %d, report pact-report.json",
			res.Outputs, conclusion, errs, warnings, pending)
	}
	if res.Report["conclusion"] != conclusion {
		t.Errorf("report conclusion = %v, want %s", res.Report["conclusion"], conclusion)
	}
}

// checkReportRun checks runs[0] of the JSON report: the head it judged and
// the check run that carries it.
func checkReportRun(t *testing.T, res e2e.Result, headSHA string, run fakegithub.CheckRun, pr int) {
	t.Helper()
	runs, _ := res.Report["runs"].([]any)
	if len(runs) != 1 {
		t.Fatalf("report runs = %d, want 1", len(runs))
	}
	r := runs[0].(map[string]any)
	if r["head_sha"] != headSHA || r["check_run_id"] != float64(run.ID) || r["conclusion"] != run.Conclusion {
		t.Errorf("report run = head %v, check run %v, conclusion %v; want %s, %d, %s", r["head_sha"], r["check_run_id"], r["conclusion"], headSHA, run.ID, run.Conclusion)
	}
	if pr != 0 && r["pull_request"] != float64(pr) {
		t.Errorf("report run pull_request = %v, want %d", r["pull_request"], pr)
	}
}

// TestBinaryPullRequest: a pull_request run posts the check run and leaves
// the outputs, the job summary (the check run's), the JSON report and a
// verdict line on stdout.
func TestBinaryPullRequest(t *testing.T) {
	t.Parallel()
	s, n, headSHA := seedCleanPR(t)

	res := e2e.Run{Server: s, EventName: "pull_request", Payload: prPayload(t, s, n, "feat/login", "main")}.Exec(t)

	wantExit(t, res, 0)
	run := onlyRun(t, s, headSHA, "pact", "success")
	if got := reportFindings(t, res, 0); len(got) != 0 {
		t.Errorf("findings = %+v, want none", got)
	}
	checkOutputs(t, res, "success", 0, 0, 0)
	checkReportRun(t, res, headSHA, run, n)
	if strings.TrimSpace(res.Summary) != strings.TrimSpace(run.Summary) {
		t.Errorf("the job summary is not the check run's:\n%s\n---\n%s", res.Summary, run.Summary)
	}
	contains(t, "job summary", res.Summary, cleanSummary(headSHA)...)
	if !strings.Contains(res.Stdout, "pact: success on "+headSHA) {
		t.Errorf("stdout lacks the verdict line:\n%s", res.Stdout)
	}
	noViolations(t, s)
}

// TestBinaryPush: mode auto checks a push, on the runner's GITHUB_SHA; a
// commit that heads no pull request is judged for the job summary and the
// report, and gets no check run (action.NoPullRequestNote).
func TestBinaryPush(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", e2e.NewLog().Files(), "lead")
	lone := s.CommitFiles(e2e.Owner, e2e.Repo, "scratch", e2e.NewLog().Join("dev").Files(), "dev", fakegithub.From("main"))

	res := e2e.Run{Server: s, EventName: "push", Payload: e2e.Payload(t, "push/payload.json", nil), Env: map[string]string{"GITHUB_SHA": lone}}.Exec(t)

	wantExit(t, res, 0)
	if runs := s.CheckRuns(lone); len(runs) != 0 {
		t.Errorf("check runs on %s = %d, want none", lone, len(runs))
	}
	r := res.Report["runs"].([]any)[0].(map[string]any)
	if r["pull_request"] != nil || r["head_sha"] != lone {
		t.Errorf("report run = %v, want the commit without a pull request", r)
	}
	contains(t, "stdout", res.Stdout, "pact: no check run on "+lone)
	contains(t, "job summary", res.Summary, "No check run was posted")
	noViolations(t, s)
}

// TestBinaryRefusesUnknownEvents: webhook events mode auto does not know are
// refused before touching GitHub.
func TestBinaryRefusesUnknownEvents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ event, example string }{
		{"check_suite", "check_suite/rerequested.payload.json"},
		{"check_run", "check_run/rerequested.payload.json"},
		{"release", "push/payload.json"},
		{"deployment_status", "workflow_dispatch/payload.json"},
	} {
		t.Run(tc.event, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			s.CommitFiles(e2e.Owner, e2e.Repo, "main", e2e.NewLog().Files(), "lead")
			res := e2e.Run{Server: s, EventName: tc.event, Payload: e2e.Payload(t, tc.example, nil)}.Exec(t)
			wantExit(t, res, 2)
			want := fmt.Sprintf("pact-action: mode auto does not know what to do on %q events; set the mode input to check or bot", tc.event)
			if first, _, _ := strings.Cut(res.Stderr, "\n"); first != want {
				t.Errorf("stderr = %q, want first line %q", res.Stderr, want)
			}
			if n := len(s.Requests()); n != 0 {
				t.Errorf("%d API requests on an event the action refuses", n)
			}
			if res.Summary != "" || len(res.Outputs) != 0 {
				t.Errorf("summary %q, outputs %v on a refused event", res.Summary, res.Outputs)
			}
		})
	}
}

// TestBinaryFailOn: fail-on decides the exit code; the check run's conclusion
// does not change with it.
func TestBinaryFailOn(t *testing.T) {
	t.Parallel()
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	clean := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
	warning := without(clean.Files(), ".pact/tasks/T1.md")
	violation := clean.Copy().Accept("rev", "T1", "LOGIN").Files()
	waiting := base.Copy().Join("dev").Files()
	tests := []struct {
		failOn     string
		files      map[string]string
		deleteTask bool
		conclusion string
		exit       int
	}{
		{failOn: "error", files: warning, deleteTask: true, conclusion: "success", exit: 0},
		{failOn: "warning", files: warning, deleteTask: true, conclusion: "success", exit: 1},
		{failOn: "WARNING", files: violation, conclusion: "failure", exit: 1},
		{failOn: "never", files: violation, conclusion: "failure", exit: 0},
		{failOn: "never", files: warning, deleteTask: true, conclusion: "success", exit: 0},
		{failOn: "warning", files: waiting, conclusion: "action_required", exit: 0},
		{failOn: "", files: violation, conclusion: "failure", exit: 1},
	}
	for _, tc := range tests {
		t.Run(tc.failOn+"/"+tc.conclusion, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			sc := seedPR(t, s, base.Files(), tc.files, "feat/login")
			if tc.deleteTask {
				sc.headSHA = s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", map[string]string{}, "dev", fakegithub.Deleting(".pact/tasks/T1.md"))
			}

			res := e2e.Run{Server: s, EventName: "pull_request", Payload: prPayload(t, s, sc.number, sc.branch, "main"),
				Inputs: map[string]string{"fail-on": tc.failOn}}.Exec(t)

			wantExit(t, res, tc.exit)
			run := onlyRun(t, s, sc.headSHA, "pact", tc.conclusion)
			fs := reportFindings(t, res, 0)
			checkAnnotations(t, run, fs)
			if tc.deleteTask && (len(fs) != 1 || fs[0].Code != checks.CodeTaskfileMissing) {
				t.Errorf("codes = %v, want taskfile.missing", codes(fs))
			}
			noViolations(t, s)
		})
	}
	t.Run("invalid", func(t *testing.T) {
		t.Parallel()
		s := e2e.NewServer(t)
		sc := seedPR(t, s, base.Files(), clean.Files(), "feat/login")
		res := e2e.Run{Server: s, EventName: "pull_request", Payload: prPayload(t, s, sc.number, sc.branch, "main"),
			Inputs: map[string]string{"fail-on": "sometimes"}}.Exec(t)
		wantExit(t, res, 2)
		if !strings.Contains(res.Stderr, `fail-on must be error, warning or never, not "sometimes"`) {
			t.Errorf("stderr = %s", res.Stderr)
		}
		if len(s.CheckRuns(sc.headSHA)) != 0 || len(s.Requests()) != 0 {
			t.Error("a bad input still reached GitHub")
		}
	})
}

// TestBinaryInputs: check-name, pact-dir and report-path are honoured.
func TestBinaryInputs(t *testing.T) {
	t.Parallel()
	sc := seedMetaPactPR(t)
	s := sc.s

	res := e2e.Run{Server: s, EventName: "pull_request", Payload: prPayload(t, s, sc.number, sc.branch, "main"),
		Inputs: map[string]string{"check-name": "pact / protocol", "pact-dir": "meta/pact/", "report-path": "out/pact.json"}}.Exec(t)

	wantExit(t, res, 1)
	if res.Outputs["report"] != "out/pact.json" {
		t.Errorf("report output = %q", res.Outputs["report"])
	}
	fs := reportFindings(t, res, 0)
	if len(fs) != 1 || fs[0].Code != projection.CodeInvalidTransition || fs[0].Path != "meta/pact/log.jsonl" || fs[0].Line != 6 {
		t.Fatalf("findings = %+v, want state.invalid_transition at meta/pact/log.jsonl:6", fs)
	}
	run := onlyRun(t, s, sc.headSHA, "pact / protocol", "failure")
	checkAnnotations(t, run, fs)
	if !strings.Contains(res.Summary, "## ❌ pact / protocol: 1 violation") {
		t.Errorf("job summary:\n%s", res.Summary)
	}
	noViolations(t, s)
}

// TestBinaryForkReadOnlyToken: a fork's read-only token cannot create check
// runs; the verdict goes to at most 10 workflow annotations (most important
// first) and the job summary, and the job itself fails on violations and on
// waiting.
func TestBinaryForkReadOnlyToken(t *testing.T) {
	t.Parallel()
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Assign("T2", "LOGIN", "feat/login", "dev", "rev")
	waiting := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN")
	violating := waiting.Copy()
	for range 14 {
		violating.Add("ghost", projection.TypeJoin, "", "", map[string]any{"roles": []string{"worker"}})
	}
	violatingFiles := without(violating.Files(), ".pact/tasks/T2.md") // one warning too
	tests := []struct {
		name  string
		files map[string]string
		exit  int
		// errors, pending, warnings expected
		errs, pending, warnings int
		conclusion              string
	}{
		{name: "violations", files: violatingFiles, exit: 1, errs: 14, pending: 2, warnings: 1, conclusion: "failure"},
		{name: "waiting only", files: waiting.Files(), exit: 4, pending: 2, conclusion: "action_required"},
		{name: "clean", files: base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Checkpoint("dev", "T2", "LOGIN").
			Accept("rev", "T1", "LOGIN").Accept("rev", "T2", "LOGIN").Files(), exit: 0, conclusion: "success"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			s.SetToken(e2e.Token, fakegithub.Token{Login: botAccount, ReadOnly: true})
			s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(base.Files(), ".github/pact.yml", provenanceOff), "lead")
			s.ForkRepo(e2e.Owner, e2e.Repo, "forker")
			headSHA := s.CommitFiles("forker", e2e.Repo, "feat/login", tc.files, "forker", fakegithub.From("main"))
			if _, ok := tc.files[".pact/tasks/T2.md"]; !ok {
				headSHA = s.CommitFiles("forker", e2e.Repo, "feat/login", map[string]string{}, "forker", fakegithub.Deleting(".pact/tasks/T2.md"))
			}
			n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/login", Base: "main", HeadOwner: "forker"})
			edits := prEdits(s, n, "forker", "feat/login", "main", "forker")
			edits["number"], edits["pull_request.head.repo.fork"] = n, true
			payload := e2e.Payload(t, "pull_request/synchronize.payload.json", edits)

			res := e2e.Run{Server: s, EventName: "pull_request", Payload: payload}.Exec(t)

			wantExit(t, res, tc.exit)
			if runs := s.CheckRuns(headSHA); len(runs) != 0 {
				t.Errorf("check runs were stored with a read-only token: %+v", runs)
			}
			if got := s.CountRequests("POST", repoPath+"/check-runs"); got != 1 {
				t.Errorf("create check run attempted %d times, want once (a 403 is not retried)", got)
			}
			if got := s.CountRequests("PATCH", repoPath+"/check-runs/*"); got != 0 {
				t.Errorf("%d check run updates without a check run", got)
			}
			notice := "pact: the token cannot create check runs (a pull request from a fork gets a read-only token), so the verdict goes to workflow annotations and the job summary instead."
			if strings.Count(res.Stdout, notice) != 1 {
				t.Errorf("stdout does not say once, in one line, why there is no check run:\n%s", res.Stdout)
			}
			if strings.Contains(res.Stderr, "level=ERROR") {
				t.Errorf("stderr has errors besides the one-line notice:\n%s", res.Stderr)
			}
			fs := reportFindings(t, res, 0)
			c := checks.Count(fs)
			if c.Errors != tc.errs || c.Pending != tc.pending || c.Warnings != tc.warnings {
				t.Fatalf("counts = %+v, want errors %d pending %d warnings %d", c, tc.errs, tc.pending, tc.warnings)
			}
			checkOutputs(t, res, tc.conclusion, tc.errs, tc.warnings, tc.pending)
			runs := res.Report["runs"].([]any)
			if r := runs[0].(map[string]any); r["head_sha"] != headSHA || r["check_run_id"] != nil {
				t.Errorf("report run = %v; want head %s and no check run id", r, headSHA)
			}

			cmds := commands(res.Stdout)
			total := len(fs)
			if total > 10 {
				if len(cmds) != 10 {
					t.Fatalf("%d workflow annotations for %d findings, want 10:\n%s", len(cmds), total, res.Stdout)
				}
				last := cmds[9]
				if last[1] != "error" || !strings.Contains(last[3], fmt.Sprintf("%d more finding(s) are not annotated", total-9)) {
					t.Errorf("the 10th annotation does not summarise the rest: %q", last[0])
				}
				cmds = cmds[:9]
			} else if len(cmds) != total {
				t.Fatalf("%d workflow annotations for %d findings:\n%s", len(cmds), total, res.Stdout)
			}
			// Most important first: errors, then waiting, then warnings.
			rank := map[string]int{"error": 0, "notice": 1, "warning": 2}
			for i := 1; i < len(cmds); i++ {
				if rank[cmds[i][1]] < rank[cmds[i-1][1]] {
					t.Errorf("annotation %d (%s) after a less important one (%s)", i, cmds[i][1], cmds[i-1][1])
				}
			}
			for _, cmd := range cmds {
				if !strings.Contains(cmd[2], "file=.pact/") || !strings.Contains(cmd[2], "line=") {
					t.Errorf("annotation without file and line: %q", cmd[0])
				}
			}
			if tc.name == "waiting only" {
				for _, cmd := range cmds {
					if cmd[1] != "notice" || !strings.Contains(cmd[2], "title=pr.unaccepted_feature") {
						t.Errorf("waiting annotated as %q", cmd[0])
					}
				}
			}
			contains(t, "job summary", res.Summary, "> "+strings.TrimPrefix(strings.TrimSuffix(notice, "."), "pact: "), "(branch feat/login)")
			if tc.errs > 0 && strings.Count(res.Summary, "| ❌ error |") != tc.errs {
				t.Errorf("job summary does not list every violation:\n%s", res.Summary)
			}
			noViolations(t, s)
		})
	}
}

// TestBinaryWorkflowDispatch: a manual run re-judges every open pull request,
// each on its own head; with a read-only token the step still shows at most
// 10 annotations in all, and says once why.
func TestBinaryWorkflowDispatch(t *testing.T) {
	t.Parallel()
	for _, readOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("read-only=%v", readOnly), func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			if readOnly {
				s.SetToken(e2e.Token, fakegithub.Token{ReadOnly: true})
			}
			base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Assign("T2", "OTHER", "feat/other", "dev", "rev")
			s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(base.Files(), ".github/pact.yml", provenanceOff), "lead")
			login := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
			other := base.Copy().Join("dev")
			for range 8 {
				login.Add("ghost", projection.TypeJoin, "", "", map[string]any{"roles": []string{"worker"}})
				other.Add("ghost", projection.TypeJoin, "", "", map[string]any{"roles": []string{"worker"}})
			}
			loginSHA := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", login.Files(), "dev", fakegithub.From("main"))
			otherSHA := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/other", other.Files(), "dev", fakegithub.From("main"))
			n1 := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/login", Base: "main"})
			n2 := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/other", Base: "main"})

			res := e2e.Run{Server: s, EventName: "workflow_dispatch", Payload: e2e.Payload(t, "workflow_dispatch/payload.json", map[string]any{
				"repository.full_name": repoFull, "repository.name": e2e.Repo})}.Exec(t)

			wantExit(t, res, 1)
			checkOutputs(t, res, "failure", 16, 0, 1)
			runs, _ := res.Report["runs"].([]any)
			got := map[float64]string{}
			for _, r := range runs {
				m := r.(map[string]any)
				got[m["pull_request"].(float64)] = m["head_sha"].(string)
			}
			if len(runs) != 2 || got[float64(n1)] != loginSHA || got[float64(n2)] != otherSHA {
				t.Errorf("report runs = %v", runs)
			}
			if !readOnly {
				onlyRun(t, s, loginSHA, "pact", "failure")
				onlyRun(t, s, otherSHA, "pact", "failure")
				if cmds := commands(res.Stdout); len(cmds) != 0 {
					t.Errorf("workflow annotations although check runs carry the verdict: %v", cmds)
				}
				noViolations(t, s)
				return
			}
			if cmds := commands(res.Stdout); len(cmds) != 10 || !strings.Contains(cmds[9][3], "8 more finding(s) are not annotated") {
				t.Errorf("%d workflow annotations for 17 findings in one step, want 10 with the rest counted:\n%s", len(cmds), res.Stdout)
			}
			if n := strings.Count(res.Stdout, "the token cannot create check runs"); n != 1 {
				t.Errorf("the read-only notice appears %d times:\n%s", n, res.Stdout)
			}
			if strings.Count(res.Summary, "## ❌ pact: 8 violations") != 2 {
				t.Errorf("job summary lacks a verdict per PR:\n%s", res.Summary)
			}
			noViolations(t, s)
		})
	}
}

// TestBinaryBotModeOnManualAndScheduledRuns: with mode bot, a manual or
// scheduled run records nothing and re-judges every open pull request, so
// a missed event never leaves one stuck.
func TestBinaryBotModeOnManualAndScheduledRuns(t *testing.T) {
	t.Parallel()
	for _, event := range []string{"workflow_dispatch", "schedule"} {
		t.Run(event, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{})
			s := b.s
			// A second open PR, fully accepted, and a closed one.
			other := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Assign("T7", "SEARCH", "feat/search", "dev", "rev")
			other.Join("dev").Checkpoint("dev", "T7", "SEARCH").Accept("rev", "T7", "SEARCH")
			s.CommitFiles(e2e.Owner, e2e.Repo, "feat/search", other.Files(), "devuser", fakegithub.From("main"))
			n2 := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/search", Base: "main"})
			s.CommitFiles(e2e.Owner, e2e.Repo, "feat/old", map[string]string{"src/old.go": "package main\n"}, "devuser", fakegithub.From("main"))
			n3 := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/old", Base: "main"})
			s.ClosePR(n3)

			var payload []byte
			if event == "workflow_dispatch" {
				payload = e2e.Payload(t, "workflow_dispatch/payload.json", map[string]any{
					"ref": "refs/heads/main", "repository.full_name": repoFull, "repository.name": e2e.Repo, "sender.login": "leaduser",
				})
			} else {
				payload = []byte(`{"schedule":"*/30 * * * *"}`)
			}
			res := e2e.Run{Server: s, EventName: event, Payload: payload, Inputs: map[string]string{"mode": "bot"}}.Exec(t)
			wantExit(t, res, 0)

			onlyRun(t, s, b.headSHA, "pact", report.ConclusionWaiting)
			onlyRun(t, s, s.BranchHead(e2e.Owner, e2e.Repo, "feat/search"), "pact", report.ConclusionSuccess)
			if runs := s.CheckRuns(s.BranchHead(e2e.Owner, e2e.Repo, "feat/old")); len(runs) != 0 {
				t.Errorf("the closed PR was judged: %+v", runs)
			}
			if gitWrites(s) != 0 || len(s.Comments(b.pr)) != 0 || len(s.Comments(n2)) != 0 {
				t.Errorf("a re-judging run wrote or commented")
			}
			if res.Outputs["conclusion"] != report.ConclusionWaiting {
				t.Errorf("outputs = %v", res.Outputs)
			}
			if runs, _ := res.Report["runs"].([]any); len(runs) != 2 {
				t.Errorf("report runs = %d, want 2", len(runs))
			}
			noViolations(t, s)
		})
	}
}

// TestBinaryGHESAPIPath: a GitHub Enterprise Server API URL (…/api/v3) works,
// with GraphQL at /api/graphql as the runner names it in
// GITHUB_GRAPHQL_URL, or derived from GITHUB_API_URL when a runner does not.
func TestBinaryGHESAPIPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path         string
		noGraphQLURL bool
	}{{path: "/api/v3"}, {path: "/api/v3/"}, {path: "/api/v3", noGraphQLURL: true}} {
		t.Run(fmt.Sprintf("%s, GITHUB_GRAPHQL_URL unset %v", tc.path, tc.noGraphQLURL), func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
			head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")

			res := e2e.Run{Server: s, EventName: "pull_request", Payload: prPayload(t, s, sc.number, sc.branch, "main"), APIPath: tc.path, NoGraphQLURL: tc.noGraphQLURL,
				Env: map[string]string{"GITHUB_SERVER_URL": "https://ghes.example"}}.Exec(t)
			if n := s.CountRequests("POST", "/api/graphql"); n != 2 {
				t.Errorf("GraphQL requests to /api/graphql = %d, want 2 (the head's pact, its task files): %+v", n, s.Requests())
			}

			wantExit(t, res, 1)
			run := onlyRun(t, s, sc.headSHA, "pact", "failure")
			if run.DetailsURL != "https://ghes.example/octo-org/octo-repo/actions/runs/4242" {
				t.Errorf("details_url = %q, want the GHES run", run.DetailsURL)
			}
			fs := reportFindings(t, res, 0)
			if got := codes(fs); len(got) != 1 || got[0] != "state.invalid_transition" {
				t.Errorf("codes = %v", got)
			}
			checkAnnotations(t, run, fs)
			noViolations(t, s)
		})
	}
}

// TestBinaryCancelledOrTimedOut: SIGTERM (a cancelled job) and PACT_TIMEOUT
// both complete the check run as failed, even while a request hangs.
func TestBinaryCancelledOrTimedOut(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"SIGTERM", "timeout"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			if how == "SIGTERM" && runtime.GOOS == "windows" {
				t.Skip("Windows has no SIGTERM; the action runs in a Linux container")
			}
			s := e2e.NewServer(t)
			sc := seedPR(t, s, e2e.NewLog().Files(), e2e.NewLog().Join("dev").Files(), "feat/x")
			s.Inject(fakegithub.Fault{Method: "POST", Path: "/graphql", Stall: true, Times: 1})
			run := e2e.Run{Server: s, EventName: "pull_request", Payload: prPayload(t, s, sc.number, sc.branch, "main"), Timeout: 30 * time.Second}
			if how == "timeout" {
				run.Env = map[string]string{"PACT_TIMEOUT": "500ms"}
			} else {
				run.While = func(p *os.Process) {
					for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
						if stalled(s) {
							_ = p.Signal(syscall.SIGTERM)
							return
						}
					}
				}
			}
			res := run.Exec(t)
			got := latestRun(t, s, sc.headSHA)
			if got.Conclusion != report.ConclusionFailure || !strings.Contains(got.Summary, "stopped before it finished") {
				t.Errorf("check run %s:\n%s\nstderr: %s", got.Conclusion, got.Summary, res.Stderr)
			}
			if res.Code != 2 {
				t.Errorf("exit %d, want 2", res.Code)
			}
		})
	}
}

// TestBinaryOperationalErrors: when the check cannot be judged or posted,
// the job exits 2 with one line saying why and a workflow error annotation.
func TestBinaryOperationalErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, method, path string
		status             int
		header             map[string][]string
		want               string
		runFailed          bool
	}{
		{name: "the merge base cannot be found", method: "GET", path: repoPath + "/compare/*", status: 404,
			want: "find the merge base of ", runFailed: true},
		// Not mistaken for a read-only token.
		{name: "a rate limit too long to wait", method: "POST", path: repoPath + "/check-runs", status: 403, header: map[string][]string{"Retry-After": {"600"}},
			want: `create the "pact" check run on `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
			sc := seedPR(t, s, base.Files(), base.Copy().Join("dev").Files(), "feat/login")
			s.FailNext(tc.method, tc.path, tc.status, tc.header, 100)

			res := e2e.Run{Server: s, EventName: "pull_request", Payload: prPayload(t, s, sc.number, sc.branch, "main")}.Exec(t)

			wantExit(t, res, 2)
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(res.Stderr), "\n") {
				if strings.HasPrefix(l, "pact-action: ") {
					lines = append(lines, l)
				}
			}
			if len(lines) != 1 || !strings.Contains(lines[0], tc.want) || !strings.HasSuffix(strings.TrimSpace(res.Stderr), lines[0]) {
				t.Errorf("stderr does not end with one clear line saying %q:\n%s", tc.want, res.Stderr)
			}
			if strings.Contains(res.Stderr, "panic") || strings.Contains(res.Stderr, "goroutine") {
				t.Errorf("the binary crashed:\n%s", res.Stderr)
			}
			if !strings.Contains(res.Stdout, "::error::pact-action could not judge "+sc.headSHA) {
				t.Errorf("no workflow error annotation:\n%s", res.Stdout)
			}
			if strings.Contains(res.Stdout, "cannot create check runs") {
				t.Errorf("taken for a read-only token:\n%s", res.Stdout)
			}
			runs := s.CheckRuns(sc.headSHA)
			if tc.runFailed && (len(runs) != 1 || runs[0].Conclusion != report.ConclusionFailure) || !tc.runFailed && len(runs) != 0 {
				t.Errorf("check runs = %+v", runs)
			}
			noViolations(t, s)
		})
	}
}

// TestBinaryBot: bot mode end to end, chosen by mode auto for reviews and
// comments: what it recorded, replied or could not do goes to stdout and
// the job summary, a failure exits 2 with a workflow error annotation.
func TestBinaryBot(t *testing.T) {
	t.Parallel()
	t.Run("approval recorded and checked", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{})
		payload, _ := b.review(t, "revuser", "approved", "LGTM")

		res := e2e.Run{Server: b.s, EventName: "pull_request_review", Payload: payload}.Exec(t)

		wantExit(t, res, 0)
		commits := b.newCommits(t)
		if len(commits) != 1 {
			t.Fatalf("new commits on %s = %d, want exactly 1", b.branch, len(commits))
		}
		run := onlyRun(t, b.s, commits[0].SHA, "pact", report.ConclusionSuccess)
		contains(t, "stdout", res.Stdout, "recorded 1 event(s) in commit "+commits[0].SHA, "accept T1", "pact: success on "+commits[0].SHA)
		checkOutputs(t, res, report.ConclusionSuccess, 0, 0, 0)
		checkReportRun(t, res, commits[0].SHA, run, b.pr)
		noViolations(t, b.s)
	})
	t.Run("a fork is explained in the job log and summary", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{fork: true})
		payload, _ := b.review(t, "revuser", "approved", nil)

		res := e2e.Run{Server: b.s, EventName: "pull_request_review", Payload: payload}.Exec(t)

		wantExit(t, res, 0)
		b.assertNothingWritten(t)
		cmd := "PACT_AGENT_ID=rev pactify accept 'T1'"
		contains(t, "job summary", res.Summary, cmd)
		contains(t, "stdout", res.Stdout, cmd, "nothing recorded")
		noViolations(t, b.s)
	})
	t.Run("a refusal is replied", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{})
		payload, _ := b.review(t, "devuser", "approved", nil)

		res := e2e.Run{Server: b.s, EventName: "pull_request_review", Payload: payload}.Exec(t)

		wantExit(t, res, 0)
		b.assertNothingWritten(t)
		contains(t, "stdout", res.Stdout, "pact: nothing recorded", "pact: replied: 🚫 **Rule 1 (no self-acceptance):**")
	})
	t.Run("nothing to do", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{})
		payload, _ := b.comment(t, "revuser", "Please /pact accept T1 when you can.", "MEMBER")

		res := e2e.Run{Server: b.s, EventName: "issue_comment", Payload: payload}.Exec(t)

		wantExit(t, res, 0)
		contains(t, "stdout", res.Stdout, "pact: nothing to do: the comment holds no /pact command")
	})
	t.Run("an unusable configuration fails the job", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{seatMap: "seats:\n  rev: [revuser]\nreviewers: [revuser]\n"})
		payload, _ := b.comment(t, "revuser", "/pact accept T1", "MEMBER")

		res := e2e.Run{Server: b.s, EventName: "issue_comment", Payload: payload}.Exec(t)

		wantExit(t, res, 2)
		contains(t, "stdout", res.Stdout, "::error::pact-action bot mode failed: read .github/pact.yml on the default branch main")
		b.assertNothingWritten(t)
	})
}

// TestBinaryJunkPR: a pull request carrying 100 MB of junk under
// .pact/tasks/ (20 files of 5 MiB that no event names) is judged without
// reading it: a few KiB downloaded, and a peak resident set far below the
// junk.
func TestBinaryJunkPR(t *testing.T) {
	t.Parallel()
	b := seedJunk(t, 20, 5<<20)
	before := b.s.BytesServed()

	res := e2e.Run{Server: b.s, EventName: "pull_request", Payload: prPayload(t, b.s, b.pr, "feat/login", "main"), MeasureRSS: true}.Exec(t)

	wantExit(t, res, 0)
	onlyRun(t, b.s, b.head, "pact", report.ConclusionWaiting)
	served := b.s.BytesServed() - before
	t.Logf("peak RSS %s, downloaded %s, %s", prose.Bytes(res.MaxRSS), prose.Bytes(served), perOperation(calls(b.s)))
	if served > 1<<20 {
		t.Errorf("downloaded %s: the junk was read", prose.Bytes(served))
	}
	if res.MaxRSS > 64<<20 {
		t.Errorf("peak resident set %s: the junk was held", prose.Bytes(res.MaxRSS))
	}
	noViolations(t, b.s)
}

// TestBinaryRejudgeReportsFailuresAtTheEnd: a scheduled re-judge with the
// max-pact-bytes input judges every open pull request; the one over the
// budget gets a failed check run saying so and a section of the job
// summary, the others their verdicts, and the job exits 2 saying which
// head it could not judge.
func TestBinaryRejudgeReportsFailuresAtTheEnd(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	base := e2e.NewLog().Assign("T1", "A", "feat/a", "dev", "rev").Assign("T2", "B", "feat/b", "dev", "rev")
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(base.Files(), ".github/pact.yml", provenanceOff), "lead")
	other := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/b", base.Copy().Join("dev").Checkpoint("dev", "T2", "B").Files(), "dev", fakegithub.From("main"))
	s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/b", Base: "main"})
	failing := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/a", with(base.Files(), ".pact/tasks/T1.md", strings.Repeat("x", 300<<10)), "dev", fakegithub.From("main"))
	na := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/a", Base: "main"})

	res := e2e.Run{Server: s, EventName: "schedule", Payload: []byte(`{"schedule":"*/30 * * * *"}`),
		Inputs: map[string]string{"max-pact-bytes": "128KiB"}}.Exec(t)

	wantExit(t, res, 2)
	stoppedByBudget(t, s, failing, ".pact/tasks/T1.md")
	onlyRun(t, s, other, "pact", report.ConclusionWaiting)
	last := strings.TrimSpace(res.Stderr)
	last = last[strings.LastIndex(last, "\n")+1:]
	if !strings.HasPrefix(last, fmt.Sprintf("pact-action: could not judge 1 of 2 heads (the others were judged): #%d at %s: ", na, prose.ShortSHA(failing))) ||
		!strings.Contains(last, "the pact files this check must read come to more than its budget of 128 KiB") {
		t.Errorf("stderr does not end with the failure:\n%s", res.Stderr)
	}
	contains(t, "job summary", res.Summary, "## ❌ pact: not judged", "pact-action did not judge this commit:", "## ⏳ pact: waiting for 1 task")
	if res.Outputs["conclusion"] != report.ConclusionFailure {
		t.Errorf("outputs = %v, want conclusion failure", res.Outputs)
	}
	if runs, _ := res.Report["runs"].([]any); len(runs) != 1 {
		t.Errorf("report runs = %d, want the one judged", len(runs))
	}
	noViolations(t, s)
}

// TestBinaryMaxPactBytesInput: the input takes bytes or KiB, MiB, GiB;
// anything else is a usage error before any request.
func TestBinaryMaxPactBytesInput(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	sc := seedPR(t, s, base.Files(), base.Copy().Join("dev").Files(), "feat/login")
	res := e2e.Run{Server: s, EventName: "pull_request", Payload: prPayload(t, s, sc.number, sc.branch, "main"),
		Inputs: map[string]string{"max-pact-bytes": "lots"}}.Exec(t)
	wantExit(t, res, 2)
	if !strings.Contains(res.Stderr, `the max-pact-bytes input "lots" is not a size such as 268435456, 512MiB or 1GiB`) {
		t.Errorf("stderr = %s", res.Stderr)
	}
	if len(s.Requests()) != 0 {
		t.Error("a bad input still reached GitHub")
	}
}

// TestBinaryMalformedFlood: a pull request appending a million lines of
// `1` to the log (2 MB, far under max-pact-bytes) gets a failing check
// within a bounded memory (docs/semantics.md §7): 100 malformed lines
// listed, the rest counted exactly in the check run, the job summary and
// the JSON report. So does every other junk shape (loggen.Junk) at
// junkBytes.
func TestBinaryMalformedFlood(t *testing.T) {
	t.Parallel()
	const lines = 1_000_000
	rows := []struct {
		name string
		junk string
	}{{"number", strings.Repeat("1\n", lines)}}
	for _, shape := range loggen.Junk {
		if shape.Name != "number" {
			rows = append(rows, struct{ name, junk string }{shape.Name, string(loggen.JunkLog(shape, junkBytes))})
		}
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			b := seedBudget(t, 1, "off")
			flood := b.files[".pact/log.jsonl"] + row.junk
			b.head = b.s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", map[string]string{".pact/log.jsonl": flood}, provDevGH, fakegithub.Verified())

			res := e2e.Run{Server: b.s, EventName: "pull_request", Payload: prPayload(t, b.s, b.pr, "feat/login", "main"), MeasureRSS: true}.Exec(t)

			reportJSON, _ := json.Marshal(res.Report)
			runs := b.s.CheckRuns(b.head)
			if len(runs) != 1 || runs[0].Status != "completed" {
				t.Fatalf("check runs: %+v", runs)
			}
			run := runs[0]
			t.Logf("%d bytes of log: exit %d, peak RSS %s, summary %d bytes, %d annotations, report %d bytes",
				len(flood), res.Code, prose.Bytes(res.MaxRSS), len(run.Summary), len(run.Annotations), len(reportJSON))
			if res.MaxRSS > 256<<20 {
				t.Errorf("peak resident set %s, over 256 MiB", prose.Bytes(res.MaxRSS))
			}
			if len(reportJSON)+len(res.Summary)+len(res.Stdout) > 1<<20 {
				t.Errorf("report %d bytes, job summary %d, stdout %d: over 1 MiB", len(reportJSON), len(res.Summary), len(res.Stdout))
			}
			if len(run.Annotations) > report.MaxCheckRunAnnotations {
				t.Errorf("%d annotations", len(run.Annotations))
			}
			noViolations(t, b.s)
			if row.name != "number" {
				return
			}
			wantExit(t, res, 1)
			onlyRun(t, b.s, b.head, "pact", report.ConclusionFailure)
			more := fmt.Sprintf("%d more findings with this code not listed", lines-projection.MaxListed)
			contains(t, "check run summary", run.Summary, more, fmt.Sprintf("%d error(s)", lines))
			contains(t, "job summary", res.Summary, more)
			runsOut, _ := res.Report["runs"].([]any)
			if len(runsOut) != 1 {
				t.Fatalf("report runs: %v", res.Report)
			}
			r := runsOut[0].(map[string]any)
			omitted, _ := r["omitted"].([]any)
			listed := 0
			for _, f := range reportFindings(t, res, 0) {
				if f.Code == projection.CodeMalformedJSON {
					listed++
				}
			}
			if r["errors"] != float64(lines) || listed != projection.MaxListed || len(omitted) != 1 ||
				omitted[0].(map[string]any)["count"] != float64(lines-projection.MaxListed) {
				t.Errorf("report: errors %v, %d malformed lines listed, omitted %v", r["errors"], listed, omitted)
			}
		})
	}
}

// TestBinaryBotMalformedFlood: the bot's run on a pull request whose log
// was flooded with junk (the story of issue 22 item 4) stays within the
// bound of the check: an approval is recorded, through the one write
// routine that keeps the log's events, in at most 256 MiB for each junk
// shape.
func TestBinaryBotMalformedFlood(t *testing.T) {
	t.Parallel()
	for _, shape := range loggen.Junk {
		t.Run(shape.Name, func(t *testing.T) {
			t.Parallel()
			b := seedBudget(t, 1, "off")
			flood := b.files[".pact/log.jsonl"] + string(loggen.JunkLog(shape, junkBytes))
			b.head = b.s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", map[string]string{".pact/log.jsonl": flood}, provDevGH, fakegithub.Verified())

			res := e2e.Run{Server: b.s, EventName: "pull_request_review", Payload: b.approval(t), MeasureRSS: true}.Exec(t)

			t.Logf("%s: %d bytes of log: exit %d, peak RSS %s", shape.Name, len(flood), res.Code, prose.Bytes(res.MaxRSS))
			// The check of the new head fails on the junk, except on lines
			// of a type v1 ignores.
			if shape.Name == "unknown type" {
				wantExit(t, res, 0)
			} else {
				wantExit(t, res, 1)
			}
			contains(t, "stdout", res.Stdout, "recorded 1 event(s) in commit", "accept T1")
			if res.MaxRSS > 256<<20 {
				t.Errorf("peak resident set %s, over 256 MiB", prose.Bytes(res.MaxRSS))
			}
			noViolations(t, b.s)
		})
	}
}

// TestBinaryValidFlood: a pull request appending 48 MB of distinct, valid
// events (rounds of changes requested and checkpoints) is judged, a review
// of it recorded, and its pact previewed with check --local, each within
// 256 MiB (docs/semantics.md §7): the smallest flood at which the costs
// this bound was set against pass it twice over (docs/performance.md,
// "Memory of a flood of valid events"). Provenance is
// require, whose gathering blew up: the changes_requested lines, committed
// by the worker's account, are each unverified, and counted exactly. A
// review dated before the events of a flood of 20 MB is not recorded (the
// replay that would judge it holds every event): the bot replies so.
func TestBinaryValidFlood(t *testing.T) {
	t.Parallel()
	const size = 48_000_000
	before := mustTime(reviewTS).Add(-24 * time.Hour)
	flood, changes := validFlood(size, before)
	// Past the bot's 16 MiB for replaying a log with its events.
	later, _ := validFlood(20_000_000, before.Add(48*time.Hour))
	for _, mode := range []string{"check", "bot", "bot, review dated before the flood", "check --local"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			b := seedBudget(t, 1, "require")
			log := b.files[".pact/log.jsonl"] + flood
			if mode == "bot, review dated before the flood" {
				log = b.files[".pact/log.jsonl"] + later
			}
			_, replay := projection.ReadBytes([]byte(log), projection.ReadOptions{})
			files := with(b.files, ".pact/log.jsonl", log, ".pact/STATE.yml", string(projection.RenderBytes(replay.State)))
			b.head = b.s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", files, provDevGH, fakegithub.Verified())
			run := e2e.Run{Server: b.s, EventName: "pull_request", Payload: prPayload(t, b.s, b.pr, "feat/login", "main"), MeasureRSS: true, Timeout: 3 * time.Minute}
			switch mode {
			case "bot", "bot, review dated before the flood":
				run.EventName, run.Payload = "pull_request_review", b.approval(t)
			case "check --local":
				dir := t.TempDir()
				base, _ := b.s.FileAt(b.s.BranchHead(e2e.Owner, e2e.Repo, "main"), ".pact/log.jsonl")
				for p, text := range with(files, "base.jsonl", base) {
					if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				run.Args = []string{"check", "--local", dir, "--base-log", filepath.Join(dir, "base.jsonl"), "--branch", "feat/login", "--format", "json"}
			}

			res := run.Exec(t)

			t.Logf("%s: %d bytes of log: exit %d, peak RSS %s", mode, len(log), res.Code, prose.Bytes(res.MaxRSS))
			if res.MaxRSS > 256<<20 {
				t.Errorf("peak resident set %s, over 256 MiB", prose.Bytes(res.MaxRSS))
			}
			switch mode {
			case "check":
				wantExit(t, res, 1)
				onlyRun(t, b.s, b.head, "pact", report.ConclusionFailure)
				if n := reportCount(t, res, checks.CodeProvenanceUnverified); n != changes {
					t.Errorf("%d unverified events in the report, want %d", n, changes)
				}
			case "bot":
				wantExit(t, res, 1)
				contains(t, "stdout", res.Stdout, "recorded 1 event(s) in commit", "accept T1")
			case "bot, review dated before the flood":
				wantExit(t, res, 0)
				contains(t, "stdout", res.Stdout, "pact: nothing recorded", "which pact-action does only for a log of at most 16 MiB")
				if h := b.s.BranchHead(e2e.Owner, e2e.Repo, "feat/login"); h != b.head {
					t.Errorf("the branch moved to %s: something was written", h)
				}
			case "check --local":
				// No provenance without GitHub: the task waits for its
				// review, with no error.
				wantExit(t, res, 4)
				contains(t, "stdout", res.Stdout, `"conclusion": "action_required"`)
			}
			noViolations(t, b.s)
		})
	}
}

// reportCount is how many findings of code the first run of the JSON
// report holds, listed and counted.
func reportCount(t *testing.T, res e2e.Result, code projection.Code) int {
	t.Helper()
	n := 0
	for _, f := range reportFindings(t, res, 0) {
		if f.Code == code {
			n++
		}
	}
	run := res.Report["runs"].([]any)[0].(map[string]any)
	omitted, _ := run["omitted"].([]any)
	for _, o := range omitted {
		if o := o.(map[string]any); o["code"] == string(code) {
			n += int(o["count"].(float64))
		}
	}
	return n
}

// validFlood is about size bytes of distinct valid events for the pact of
// seedBudget: rounds of rev's changes_requested and dev's checkpoint of T1
// (awaiting review once more at the end), a tenth of a second apart from
// at; changes is how many changes_requested it holds.
func validFlood(size int, at time.Time) (flood string, changes int) {
	var b strings.Builder
	b.Grow(size + 512)
	for i := 0; b.Len() < size || i%2 == 1; i++ {
		d := projection.NewCheckpoint("dev", "T1", "LOGIN", fmt.Sprintf("tests pass, round %d", i))
		if i%2 == 0 {
			d = projection.NewChangesRequested("rev", "T1", "LOGIN", projection.ChangesRequestedPayload{Reason: fmt.Sprintf("round %d: cover the error path of the login form", i)})
			changes++
		}
		d.EventID, d.TS = fmt.Sprintf("f%031x", i), at.Add(time.Duration(i)*100*time.Millisecond)
		line, err := projection.Encode(d)
		if err != nil {
			panic(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String(), changes
}

// junkBytes is how much of each junk shape the binary's flood tests
// append to the log: 1.5 MB, enough for the costs these tests were
// written against to pass the 256 MiB bound at least twice over
// (docs/performance.md), and for the shapes of 1 MiB lines to write more
// than the 1 MiB of output allowed had their values not been clipped.
const junkBytes = 3 << 19

// TestBinaryJobNamedLikeTheCheck: GitHub posts a check run for every job,
// named after it; a job whose id is the check's name would put a passing
// "pact" of the same app beside a verdict that is not one. Such a job
// fails while the verdict is not success, whatever fail-on says, and says
// why once; a job with another id exits as fail-on says. So does a job
// whose id is check but whose name: is pact, which GITHUB_JOB does not
// say: its own check run, named pact and in progress on the head, does.
func TestBinaryJobNamedLikeTheCheck(t *testing.T) {
	t.Parallel()
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	waiting := base.Copy().Join("dev").Files()
	violation := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN").Files()
	clean := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN").Files()
	for _, tc := range []struct {
		name, job, failOn string
		files             map[string]string
		exit              int
		says              bool
		// namesake seeds the job's own check run, named pact (its name:).
		namesake bool
	}{
		{"waiting, the job named pact", "pact", "", waiting, 4, true, false},
		{"waiting, the job named PACT", "PACT", "", waiting, 4, true, false},
		{"waiting, the job named check", "check", "", waiting, 0, false, false},
		{"a violation under fail-on never, the job named pact", "pact", "never", violation, 1, true, false},
		{"a violation under fail-on never, the job named check", "check", "never", violation, 0, false, false},
		{"a pass, the job named pact", "pact", "", clean, 0, false, false},
		{"waiting, the job check with name: pact", "check", "", waiting, 4, true, true},
		{"a violation under fail-on never, the job check with name: pact", "check", "never", violation, 1, true, true},
		{"a pass, the job check with name: pact", "check", "", clean, 0, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			sc := seedPR(t, s, base.Files(), tc.files, "feat/login")
			runs := 1
			if tc.namesake {
				// GitHub's check run of the job, in progress while it runs.
				s.SeedCheckRun(e2e.Owner, e2e.Repo, fakegithub.CheckRunSeed{Name: "pact", HeadSHA: sc.headSHA, ExternalID: "5264e576-3c6f-51f6-f055-fab409685f20"})
				runs++
			}
			res := e2e.Run{Server: s, EventName: "pull_request", Payload: prPayload(t, s, sc.number, sc.branch, "main"),
				Inputs: map[string]string{"fail-on": tc.failOn}, Env: map[string]string{"GITHUB_JOB": tc.job}}.Exec(t)
			wantExit(t, res, tc.exit)
			warning := map[bool]string{false: "::warning::this job's id is", true: "is in progress on " + sc.headSHA + ", and pact-action did not create it"}[tc.namesake]
			if got := strings.Count(res.Stdout, warning); got != map[bool]int{true: 1, false: 0}[tc.says] {
				t.Errorf("%d warnings about the job's name, want says=%v:\n%s", got, tc.says, res.Stdout)
			}
			if len(s.CheckRuns(sc.headSHA)) != runs {
				t.Errorf("%d check runs, want the one verdict", len(s.CheckRuns(sc.headSHA)))
			}
		})
	}
}

// TestBinaryMergeQueueStacked: the stacked queue through the binary: the
// group ahead passes, the group behind it fails with log.rewritten against
// the group ahead, and its job summary speaks of the group.
func TestBinaryMergeQueueStacked(t *testing.T) {
	t.Parallel()
	s, g1, g2, prs := stackedQueue(t)
	for _, tc := range []struct {
		g          fakegithub.MergeGroup
		exit       int
		conclusion string
	}{{g1, 0, "success"}, {g2, 1, "failure"}} {
		res := e2e.Run{Server: s, EventName: "merge_group", Payload: mergeGroupPayload(t, tc.g.HeadSHA, tc.g.HeadRef, tc.g.BaseSHA),
			Env: map[string]string{"GITHUB_SHA": tc.g.HeadSHA}}.Exec(t)
		wantExit(t, res, tc.exit)
		run := onlyRun(t, s, tc.g.HeadSHA, "pact", tc.conclusion)
		if strings.Contains(run.Summary, "this PR") {
			t.Errorf("%s: the group's summary speaks of a pull request:\n%s", tc.conclusion, run.Summary)
		}
		if tc.g == g2 {
			if got := codes(reportFindings(t, res, 0)); !slices.Equal(got, []string{"log.rewritten"}) {
				t.Errorf("group 2: %v", got)
			}
			contains(t, "group 2's job summary", res.Summary, fmt.Sprintf("the merge group of pull requests #%d, #%d into main", prs[0], prs[1]), "the commit this merge group is queued behind")
		}
	}
	noViolations(t, s)
}

// Issue 22 item 2, through the binary: T1 was accepted on main for earlier
// code; the branch name is reused with new code, and the pull request also
// adds the orchestrator's signed merge of LOGIN. Shipping LOGIN in the
// head's replay exempts nothing (docs/semantics.md §5 "Coverage"): under
// require, tree and unmapped-branches: block, T1 waits for a fresh review.
func TestBinaryCoverageWhenThePullRequestAddsTheMerge(t *testing.T) {
	t.Parallel()
	p, reviewed := shippedLogin(t, "require", "tree")
	p.s.CommitFiles(e2e.Owner, e2e.Repo, "main", map[string]string{".github/pact.yml": provPactYML("require", "tree") + "unmapped-branches: block\n"}, provLeadGH, fakegithub.Verified())
	n := reuseBranch(t, p, provBranch, map[string]string{"src/login.go": "package login\n\nfunc Backdoor() {}\n"})
	text, _ := p.s.FileAt("main", logPath)
	log := &e2e.Log{Lines: strings.Split(strings.TrimSuffix(text, "\n"), "\n")}
	merge := projection.NewMerge("lead", "LOGIN")
	merge.EventID, merge.TS = strings.Repeat("e", 32), mustTime(reviewTS).Add(time.Hour)
	line, err := projection.Encode(merge)
	if err != nil {
		t.Fatal(err)
	}
	log.Raw(string(line))
	head := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, log.Files(), provLeadGH, fakegithub.Verified())

	res := e2e.Run{Server: p.s, EventName: "pull_request", Payload: prPayload(t, p.s, n, provBranch, "main")}.Exec(t)

	run := latestRun(t, p.s, head)
	if run.Conclusion == report.ConclusionSuccess {
		t.Fatalf("adding the merge of LOGIN shipped unreviewed code:\n%s", run.Summary)
	}
	var waiting bool
	for _, f := range reportFindings(t, res, 0) {
		waiting = waiting || f.Code == checks.CodePRUnaccepted && f.TaskID == "T1" && strings.Contains(f.Message, reviewed[:7])
	}
	if !waiting {
		t.Errorf("T1 does not wait for a fresh review of the new code:\n%s", run.Summary)
	}
	noViolations(t, p.s)
}

// TestBinaryReviewRequestLog: the binary's job log says whom it asked and
// why, and its job summary carries the waiting line; with a read-only
// token the log warns and the summary says why nobody was asked.
func TestBinaryReviewRequestLog(t *testing.T) {
	t.Parallel()
	for _, readOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("read-only %v", readOnly), func(t *testing.T) {
			t.Parallel()
			p := requestSeed(t)
			if readOnly {
				p.s.SetToken(e2e.Token, fakegithub.Token{ReadOnly: true})
			}
			res := e2e.Run{Server: p.s, EventName: "pull_request", Payload: prPayload(t, p.s, p.n, provBranch, "main")}.Exec(t)
			exit := 0 // waiting: the check run carries the block
			if readOnly {
				exit = 4 // no check run: the job fails on waiting
			}
			wantExit(t, res, exit)
			line := waitingLine(t, res.Summary)
			switch {
			case !readOnly:
				for _, want := range []string{`msg="review requested"`, "task=T1", "from=@rev-gh", `why="T1 is awaiting review"`, "seat=rev"} {
					if !strings.Contains(res.Stderr, want) {
						t.Errorf("the job log lacks %q:\n%s", want, res.Stderr)
					}
				}
				if !strings.HasSuffix(line, "review requested from "+report.Escape("@"+provRevGH)) {
					t.Errorf("job summary's waiting line %q", line)
				}
			default:
				if !strings.Contains(res.Stderr, `level=WARN msg="could not request reviews"`) || strings.Contains(res.Stderr, "level=ERROR") {
					t.Errorf("the job log does not warn once:\n%s", res.Stderr)
				}
				if strings.Contains(line, "review requested") || !strings.Contains(res.Summary, report.Escape("no review was requested from @rev-gh: the token may not request reviews")) {
					t.Errorf("job summary:\n%s", res.Summary)
				}
			}
		})
	}
}

// TestBinaryCommentAcceptAfterForcePushBack: issue 22 item 1 through the
// binary. The bot, run on the comment, refuses to write the accept and
// says the branch moved; the line the bot would write, committed on B with
// payload.commit = B from the worker's own workflow (github-actions[bot]
// signs it), does not turn the check green under require and tree.
// Before, both held only a comparison's word: A...B lists no file.
func TestBinaryCommentAcceptAfterForcePushBack(t *testing.T) {
	t.Parallel()
	p, b, _, id := storyPR(t)

	res := e2e.Run{Server: p.s, EventName: "issue_comment", Payload: commentPayload(t, p.n, id, reviewTS, provRevGH, "/pact accept T1", "COLLABORATOR")}.Exec(t)
	if h := p.head(); h != b {
		t.Fatalf("the bot wrote on the branch it had to refuse: head %s, was %s", h, b)
	}
	wantExit(t, res, 0)
	replies := p.s.Comments(p.n)
	moved := slices.ContainsFunc(replies, func(c fakegithub.Comment) bool {
		return strings.Contains(c.Body, "The branch moved after your comment") && strings.Contains(c.Body, "approve the pull request with a review")
	})
	if !moved {
		t.Errorf("no reply says the branch moved and to approve with a review: %+v", replies)
	}

	p.log.AddAt(mustTime(reviewTS), "rev", projection.TypeAccept, "T1", "LOGIN", map[string]any{"commit": b,
		"github": map[string]any{"comment_id": id, "login": provRevGH}})
	forged := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, p.log.Files(), botAccount, fakegithub.Verified())
	res = e2e.Run{Server: p.s, EventName: "pull_request", Payload: prPayload(t, p.s, p.n, provBranch, "main")}.Exec(t)
	wantExit(t, res, 1)
	run := latestRun(t, p.s, forged)
	if run.Conclusion != report.ConclusionFailure {
		t.Fatalf("the check passed B's code: %s\n%s", run.Conclusion, run.Summary)
	}
	var unverified bool
	for _, f := range reportFindings(t, res, 0) {
		unverified = unverified || f.Code == checks.CodeProvenanceUnverified && strings.Contains(f.Message, "files outside .pact/ differ")
	}
	if !unverified {
		t.Errorf("no provenance.unverified finding says the comment did not cover B's code:\n%s", run.Summary)
	}
	noViolations(t, p.s)
}

// TestBinaryDecoyBase: the decoy story through the binary: the run on the
// pull request into scratch fails and leaves no passing check on the head.
func TestBinaryDecoyBase(t *testing.T) {
	t.Parallel()
	p, head := decoyStory(t, decoys[0].yml)
	p.open(t, "scratch")
	res := e2e.Run{Server: p.s, EventName: "pull_request", Payload: prPayload(t, p.s, p.n, provBranch, "scratch")}.Exec(t)
	wantExit(t, res, 1)
	run := onlyRun(t, p.s, head, "pact", report.ConclusionFailure)
	contains(t, "summary", run.Summary, string(checks.CodeProvenanceUnverified), ".github/pact.yml on main")
	noPassingRun(t, p.s, head)
	noViolations(t, p.s)
}
