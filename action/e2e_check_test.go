package action_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// End-to-end tests of check mode: the real pact-action binary, a runner-like
// environment and real webhook payloads, against the stateful fake GitHub.

// prPayload adapts GitHub's real pull_request example to a PR of ours.
func prPayload(t *testing.T, s *fakegithub.Server, number int, head, base string) []byte {
	t.Helper()
	return e2e.Payload(t, "pull_request/synchronize.payload.json", map[string]any{
		"number": number, "pull_request.number": number,
		"pull_request.head.ref": head, "pull_request.head.sha": s.BranchHead(e2e.Owner, e2e.Repo, head),
		"pull_request.head.repo.full_name": e2e.Owner + "/" + e2e.Repo,
		"pull_request.base.ref":            base, "pull_request.base.sha": s.BranchHead(e2e.Owner, e2e.Repo, base),
		"pull_request.base.repo.full_name": e2e.Owner + "/" + e2e.Repo,
		"repository.full_name":             e2e.Owner + "/" + e2e.Repo, "repository.name": e2e.Repo,
	})
}

func TestCheckCleanPR(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	// The default provenance policy (warn), with every seat mapped to its
	// account and each event committed by its seat's account: nothing to
	// report at all.
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", with(base.Files(), ".github/pact.yml", "seats:\n  lead: [lead]\n  dev: [dev]\n  rev: [rev]\n"), "lead")
	work := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN")
	reviewed := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", with(work.Files(), "src/login.go", "package login\n"), "dev", fakegithub.From("main"))
	head := work.Copy().Add("rev", projection.TypeAccept, "T1", "LOGIN", map[string]any{"commit": reviewed})
	s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", head.Files(), "rev")
	n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/login", Base: "main", Author: "dev"})
	headSHA := s.BranchHead(e2e.Owner, e2e.Repo, "feat/login")

	res := e2e.Run{Server: s, EventName: "pull_request", Payload: prPayload(t, s, n, "feat/login", "main")}.Exec(t)

	wantExit(t, res, 0)
	run := onlyRun(t, s, headSHA, "pact", "success")
	if got := findings(t, res, 0); len(got) != 0 {
		t.Errorf("findings = %+v, want none", got)
	}
	if len(run.Annotations) != 0 || run.Requests != 2 {
		t.Errorf("annotations %d, requests %d; want 0 and 2 (create in_progress, complete)", len(run.Annotations), run.Requests)
	}
	if run.Title != "pact holds" {
		t.Errorf("title = %q", run.Title)
	}
	checkOutputs(t, res, "success", 0, 0, 0)
	checkReportRun(t, res, headSHA, run, n)
	for _, want := range []string{"## ✅ pact: pact holds", "0 error(s), 0 waiting, 0 warning(s) on `" + headSHA[:12] + "` (branch feat/login)",
		"| LOGIN | accepted | T1 | ✅ accepted | dev | rev | **feat/login** (this PR) |"} {
		if !strings.Contains(run.Summary, want) {
			t.Errorf("check run summary lacks %q:\n%s", want, run.Summary)
		}
		if !strings.Contains(res.Summary, want) {
			t.Errorf("job summary lacks %q:\n%s", want, res.Summary)
		}
	}
	if strings.Contains(res.Summary, "### Findings") || strings.Contains(res.Summary, "### Waiting") {
		t.Errorf("a clean summary lists findings or waiting tasks:\n%s", res.Summary)
	}
	if !strings.Contains(res.Stdout, "pact: success on "+headSHA) {
		t.Errorf("stdout lacks the verdict line:\n%s", res.Stdout)
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

			res := sc.run(t, nil)

			wantExit(t, res, 1)
			fs := findings(t, res, 0)
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
			checkOutputs(t, res, "failure", c.Errors, 0, c.Pending)
			checkReportRun(t, res, sc.headSHA, run, sc.number)
			checkSummaryFindings(t, run.Summary, fs)
			checkSummaryFindings(t, res.Summary, fs)
			if !strings.HasPrefix(run.Title, "1 violation — merge blocked") || !strings.Contains(res.Summary, "## ❌ pact: 1 violation — merge blocked") {
				t.Errorf("title %q; job summary:\n%s", run.Title, res.Summary)
			}
			noViolations(t, s)
		})
	}
}

// TestCheckRewrittenHistory: the merge base's lines must be an exact prefix
// of the head's.
func TestCheckRewrittenHistory(t *testing.T) {
	t.Parallel()
	// Lines: 1 init, 2 assign T1, 3 assign T2 (another branch), 4 join,
	// 5 checkpoint T1.
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Assign("T2", "OTHER", "feat/other", "dev", "rev").
		Join("dev").Checkpoint("dev", "T1", "LOGIN")
	accept := base.Copy().Accept("rev", "T1", "LOGIN").Lines[5]
	lines := func(ls ...string) *e2e.Log { return &e2e.Log{Lines: ls} }
	b := base.Lines
	tests := []struct {
		name     string
		head     *e2e.Log
		want     []string
		wantLine int
		wantMsg  string
	}{
		{name: "line edited", head: lines(b[0], b[1], b[2], b[3], strings.Replace(b[4], "tests pass", "tests pass, honestly", 1), accept),
			want: sorted("log.rewritten"), wantLine: 5, wantMsg: "line 5 of the merge-base log was changed"},
		{name: "line deleted", head: lines(b[0], b[1], b[3], b[4], accept),
			want: sorted("log.rewritten"), wantLine: 3},
		{name: "lines reordered", head: lines(b[0], b[2], b[1], b[3], b[4], accept),
			want: sorted("log.rewritten"), wantLine: 2},
		{name: "line inserted before the end", head: lines(b[0], b[1], b[2], b[3], accept, b[4]),
			want: sorted("log.rewritten"), wantLine: 5, wantMsg: "a line was inserted before line 5"},
		{name: "tail truncated", head: lines(b[0], b[1], b[2], b[3]),
			want: sorted("log.rewritten", "pr.unaccepted_feature"), wantLine: 4, wantMsg: "line 5 and every line after it were deleted"},
		{name: "CRLF line terminators are not a rewrite", head: lines(b[0]+"\r", b[1]+"\r", b[2]+"\r", b[3]+"\r", b[4]+"\r", accept),
			want: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			sc := seedPR(t, s, base.Files(), tc.head.Files(), "feat/login")

			res := sc.run(t, nil)

			fs := findings(t, res, 0)
			if got := codes(fs); !slices.Equal(got, tc.want) {
				t.Fatalf("codes = %v, want %v\n%v", got, tc.want, fs)
			}
			if len(tc.want) == 0 {
				wantExit(t, res, 0)
				onlyRun(t, s, sc.headSHA, "pact", "success")
				return
			}
			wantExit(t, res, 1)
			for _, f := range fs {
				if f.Code == "log.rewritten" && (f.Path != logPath || f.Line != tc.wantLine || f.Severity != checks.SeverityError || !strings.Contains(f.Message, tc.wantMsg)) {
					t.Errorf("log.rewritten at %s:%d (%s) %q; want %s:%d containing %q", f.Path, f.Line, f.Severity, f.Message, logPath, tc.wantLine, tc.wantMsg)
				}
			}
			run := onlyRun(t, s, sc.headSHA, "pact", "failure")
			checkAnnotations(t, run, fs)
			c := checks.Count(fs)
			checkOutputs(t, res, "failure", c.Errors, 0, c.Pending)
			checkSummaryFindings(t, run.Summary, fs)
			if !strings.Contains(run.Text, "`log.rewritten`") {
				t.Errorf("summary or text lacks the code:\n%s\n%s", run.Summary, run.Text)
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
		exit       int
	}{
		{name: "stale STATE.yml", files: with(head.Files(), ".pact/STATE.yml", base.Files()[".pact/STATE.yml"]),
			code: "drift.state", severity: checks.SeverityError, conclusion: "failure", exit: 1},
		{name: "hand-edited STATE.yml", files: with(head.Files(), ".pact/STATE.yml", strings.Replace(head.Files()[".pact/STATE.yml"], "reviewer: rev", "reviewer: lead", 1)),
			code: "drift.state", severity: checks.SeverityError, conclusion: "failure", exit: 1},
		{name: "no STATE.yml", files: without(head.Files(), ".pact/STATE.yml"),
			code: "drift.missing_state", severity: checks.SeverityWarning, conclusion: "success", exit: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			if tc.files[".pact/STATE.yml"] == head.Files()[".pact/STATE.yml"] && tc.code == "drift.state" {
				t.Fatal("the scenario's STATE.yml does not drift")
			}
			sc := seedPR(t, s, base.Files(), tc.files, "feat/login")
			if _, ok := tc.files[".pact/STATE.yml"]; !ok {
				// main has one; the PR deletes it.
				s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", map[string]string{}, "dev", fakegithub.Deleting(".pact/STATE.yml"))
				sc.headSHA = s.BranchHead(e2e.Owner, e2e.Repo, "feat/login")
				if _, still := s.FileAt(sc.headSHA, ".pact/STATE.yml"); still {
					t.Fatal("STATE.yml was not deleted")
				}
			}

			res := sc.run(t, nil)

			wantExit(t, res, tc.exit)
			fs := findings(t, res, 0)
			if len(fs) != 1 || string(fs[0].Code) != tc.code || fs[0].Severity != tc.severity || fs[0].Path != ".pact/STATE.yml" {
				t.Fatalf("findings = %+v, want one %s (%s) on .pact/STATE.yml", fs, tc.code, tc.severity)
			}
			run := onlyRun(t, s, sc.headSHA, "pact", tc.conclusion)
			checkAnnotations(t, run, fs) // line 1 of STATE.yml: drift has no line
			c := checks.Count(fs)
			checkOutputs(t, res, tc.conclusion, c.Errors, c.Warnings, 0)
			checkSummaryFindings(t, res.Summary, fs)
			noViolations(t, s)
		})
	}
}

// TestCheckWaitingTasks: unaccepted tasks of the PR's branch are waiting,
// not violations — action_required, never success, never an error.
func TestCheckWaitingTasks(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	// Lines: 1 init, 2 T1, 3 T2, 4 T3 (another branch), 5 T4.
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Assign("T2", "LOGIN", "feat/login", "dev", "lead").
		Assign("T3", "OTHER", "feat/other", "dev", "rev").Assign("T4", "SSO", "feat/login", "dev", "rev")
	head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Checkpoint("dev", "T2", "LOGIN").
		Add("lead", projection.TypeChangesRequested, "T2", "LOGIN", map[string]any{"reason": "add tests"}).
		Checkpoint("dev", "T4", "SSO").Accept("rev", "T4", "SSO")
	sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")

	res := sc.run(t, nil)

	wantExit(t, res, 0) // the check run carries the block
	fs := findings(t, res, 0)
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
	checkOutputs(t, res, "action_required", 0, 0, 2)
	checkReportRun(t, res, sc.headSHA, run, sc.number)
	if run.Title != "waiting for 2 tasks — not yet mergeable" {
		t.Errorf("title = %q", run.Title)
	}
	for _, summary := range []string{run.Summary, res.Summary} {
		for _, w := range []string{"## ⏳ pact: waiting for 2 tasks — not yet mergeable", "### Waiting",
			"- waiting for T1 \\(feature LOGIN\\): awaiting review by rev",
			"- waiting for T2 \\(feature LOGIN\\): in progress by dev after lead requested changes",
			"| LOGIN | in_progress | T2 | in_progress (1 change round(s)) | dev | lead | **feat/login** (this PR) |",
			"| OTHER | in_progress | T3 | in_progress | dev | rev | feat/other |",
			"| SSO | accepted | T4 | ✅ accepted | dev | rev | **feat/login** (this PR) |"} {
			if !strings.Contains(summary, w) {
				t.Errorf("summary lacks %q:\n%s", w, summary)
			}
		}
		if strings.Contains(summary, "❌") {
			t.Errorf("waiting reads as an error:\n%s", summary)
		}
	}
	noViolations(t, s)
}

// TestCheckUnknownEventTypes: webhook events check mode does not handle are
// refused before touching GitHub; log events of unknown types are ignored.
func TestCheckUnknownEventTypes(t *testing.T) {
	t.Parallel()
	t.Run("webhook events", func(t *testing.T) {
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
	})
	t.Run("log event types", func(t *testing.T) {
		t.Parallel()
		s := e2e.NewServer(t)
		base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
		head := base.Copy().
			Raw(draft(t, 40, "dev", "note", "T1", "LOGIN", map[string]any{"text": "started"})).
			Join("dev").
			Raw(`{"event_id":"`+eventID(41)+`","ts":"2026-06-09T11:00:00Z","agent_id":"ghost","role":"oracle","event_type":"prophecy_v2","task_id":"","feature":"","payload":{"x":1},"extra":true}`).
			Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
		sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")

		res := sc.run(t, nil)

		wantExit(t, res, 0)
		if fs := findings(t, res, 0); len(fs) != 0 {
			t.Errorf("findings = %+v, want none: unknown event types are ignored", fs)
		}
		onlyRun(t, s, sc.headSHA, "pact", "success")
		checkOutputs(t, res, "success", 0, 0, 0)
		noViolations(t, s)
	})
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
			delete(files, ".pact/STATE.yml") // would be a warning under v1; v2 judges nothing else
			sc := seedPR(t, s, tc.base, files, "feat/login")

			res := sc.run(t, nil)

			wantExit(t, res, 1)
			fs := findings(t, res, 0)
			if len(fs) != 1 || fs[0].Code != projection.CodeVersionUnsupported || fs[0].Path != logPath || fs[0].Line != 1 ||
				!strings.Contains(fs[0].Message, "protocol_version 2") || !strings.Contains(fs[0].Message, "upgrade") {
				t.Fatalf("findings = %+v, want only version.unsupported on line 1", fs)
			}
			run := onlyRun(t, s, sc.headSHA, "pact", "failure")
			checkAnnotations(t, run, fs)
			checkOutputs(t, res, "failure", 1, 0, 0)
			if !strings.Contains(run.Summary, "`version.unsupported`") || !strings.Contains(run.Summary, "Upgrade pact-action") {
				t.Errorf("summary does not say to upgrade:\n%s", run.Summary)
			}
			noViolations(t, s)
		})
	}
}

// mergeGroupPayload adapts GitHub's real merge_group example.
func mergeGroupPayload(t *testing.T, headSHA, headRef, baseSHA string) []byte {
	t.Helper()
	return e2e.Payload(t, "merge_group/checks_requested.payload.json", map[string]any{
		"merge_group.head_sha": headSHA, "merge_group.head_ref": "refs/heads/" + headRef,
		"merge_group.base_sha": baseSHA, "merge_group.base_ref": "refs/heads/main",
		"merge_group.head_commit.id": headSHA,
		"repository.full_name":       e2e.Owner + "/" + e2e.Repo, "repository.name": e2e.Repo,
	})
}

// TestCheckMergeGroup: the queue's merge commit is judged for real, and Rule
// 2 applies to the branch of every queued PR.
func TestCheckMergeGroup(t *testing.T) {
	t.Parallel()
	base := soloLog(t).Assign("T1", "LOGIN", "feat/login", "solo", "rev").Assign("T2", "OTHER", "feat/other", "dev", "rev")
	review := base.Copy().Join("solo").Checkpoint("solo", "T1", "LOGIN")
	accepted := review.Copy().Accept("rev", "T1", "LOGIN")
	tests := []struct {
		name string
		// pr is the PR branch's pact; group the merge commit's.
		pr, group  *e2e.Log
		conclusion string
		exit       int
		want       []string
	}{
		{name: "accepted", pr: accepted, group: accepted, conclusion: "success", exit: 0, want: []string{}},
		{name: "forged accept in the group commit", pr: review, group: review.Copy().Accept("solo", "T1", "LOGIN"),
			conclusion: "failure", exit: 1, want: sorted("rule1.self_accept", "pr.unaccepted_feature")},
		{name: "queued PR still waiting", pr: review, group: review, conclusion: "action_required", exit: 0,
			want: []string{"pr.unaccepted_feature"}},
		{name: "group commit rewrites the base", pr: accepted,
			group:      &e2e.Log{Lines: append([]string{accepted.Lines[0], accepted.Lines[2], accepted.Lines[1]}, accepted.Lines[3:]...)},
			conclusion: "failure", exit: 1, want: []string{"log.rewritten"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			sc := seedPR(t, s, base.Files(), tc.pr.Files(), "feat/login")
			queue := fmt.Sprintf("gh-readonly-queue/main/pr-%d-%s", sc.number, sc.baseSHA)
			groupSHA := s.CommitFiles(e2e.Owner, e2e.Repo, queue, tc.group.Files(), "", fakegithub.WithParents(sc.baseSHA, sc.headSHA),
				fakegithub.WithMessage(fmt.Sprintf("Merge pull request #%d", sc.number)))

			res := e2e.Run{Server: s, EventName: "merge_group", Payload: mergeGroupPayload(t, groupSHA, queue, sc.baseSHA),
				Env: map[string]string{"GITHUB_SHA": groupSHA, "GITHUB_REF": "refs/heads/" + queue}}.Exec(t)

			wantExit(t, res, tc.exit)
			fs := findings(t, res, 0)
			if got := codes(fs); !slices.Equal(got, tc.want) {
				t.Fatalf("codes = %v, want %v\n%+v", got, tc.want, fs)
			}
			run := onlyRun(t, s, groupSHA, "pact", tc.conclusion)
			if runs := s.CheckRuns(sc.headSHA); len(runs) != 0 {
				t.Errorf("check runs on the PR head: %+v", runs)
			}
			checkAnnotations(t, run, fs)
			c := checks.Count(fs)
			checkOutputs(t, res, tc.conclusion, c.Errors, c.Warnings, c.Pending)
			checkReportRun(t, res, groupSHA, run, 0)
			for _, f := range fs {
				if f.Code == checks.CodePRUnaccepted && f.TaskID != "T1" {
					t.Errorf("waiting for %s, which is not on a queued PR's branch", f.TaskID)
				}
			}
			if n := s.CountRequests("GET", repoPath+"/pulls/"+fmt.Sprint(sc.number)); n != 1 {
				t.Errorf("read the queued PR %d times, want 1", n)
			}
			noViolations(t, s)
		})
	}
}

// TestCheckManyFindings: the findings are annotated 50 per request, in at
// most three requests (errors first), the summary counts what is not
// annotated, and summary and text stay within GitHub's limit, saying what
// was cut.
func TestCheckManyFindings(t *testing.T) {
	t.Parallel()
	for _, n := range []int{51, 120, 400} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
			head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
			for i := range n {
				if i%2 == 0 {
					head.Raw(fmt.Sprintf("{not json %d", i))
				} else {
					head.Add("ghost", projection.TypeJoin, "", "", map[string]any{"roles": []string{"worker"}})
				}
			}
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")

			res := sc.run(t, nil)

			wantExit(t, res, 1)
			fs := findings(t, res, 0)
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
			checkOutputs(t, res, "failure", n, 0, 0)
			if len(run.Summary) > 65535 || len(run.Text) > 65535 || len(res.Summary) > 65535+2 {
				t.Errorf("summary %d, text %d, job summary %d bytes: over GitHub's limit", len(run.Summary), len(run.Text), len(res.Summary))
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

	res := sc.run(t, nil)

	wantExit(t, res, 0)
	fs := findings(t, res, 0)
	if c := checks.Count(fs); len(fs) != n || c.Pending != n {
		t.Fatalf("findings %d (%+v), want %d waiting", len(fs), c, n)
	}
	run := onlyRun(t, s, sc.headSHA, "pact", "action_required")
	checkAnnotations(t, run, fs)
	if run.Requests != 1+report.MaxCheckRunAnnotations/50 {
		t.Errorf("check run requests = %d, want %d", run.Requests, 1+report.MaxCheckRunAnnotations/50)
	}
	checkOutputs(t, res, "action_required", 0, 0, n)
	listed := strings.Count(run.Summary, "\n- waiting for T")
	if len(run.Summary) > 65535 || listed == 0 || listed >= n ||
		!strings.Contains(run.Summary, fmt.Sprintf("_…%d more waiting task(s) not listed here", n-listed)) {
		t.Errorf("summary of %d bytes lists %d of %d waiting tasks without the right note", len(run.Summary), listed, n)
	}
	// Every task file is read, in the one GraphQL request of the head.
	if got := s.CountRequests("GET", repoPath+"/contents/.pact/tasks/*"); got != 0 {
		t.Errorf("task files read one by one = %d, want 0", got)
	}
	if got := s.CountRequests("POST", "/graphql"); got != 1 {
		t.Errorf("GraphQL requests = %d, want 1", got)
	}
	noViolations(t, s)
}
