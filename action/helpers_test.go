package action_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// Helpers every test of the package shares: payloads, file maps, logs and
// the assertions on what GitHub shows. The repositories the tests start
// from are seeded in scenarios_test.go.

const (
	logPath   = ".pact/log.jsonl"
	statePath = ".pact/STATE.yml"
	// repoFull names the scenario repository; repoPath is the fake's
	// request path prefix for it.
	repoFull = e2e.Owner + "/" + e2e.Repo
	repoPath = "/repos/" + repoFull
	// botAccount is the workflow token's account (e2e.NewServer).
	botAccount = fakegithub.DefaultLogin
	// replyMarker is the hidden tag of the bot's replies: comments that
	// carry it are never acted on, so it may not change.
	replyMarker = "<!-- pact-action -->"
	// reviewTS and commentTS are when the bot scenarios' reviews and
	// comments are made: after every event of the e2e logs, as a real
	// review would be.
	reviewTS  = "2026-06-10T12:00:00Z"
	commentTS = "2026-06-10T12:30:00Z"
)

// provenanceOff is a .github/pact.yml that turns the provenance rules off: the
// check-mode scenarios write their events in single commits by one account,
// which provenance would rightly question (see TestCheckCleanPR for a PR
// that satisfies the default policy).
const provenanceOff = "provenance:\n  mode: off\n"

// without returns a copy of files without the named paths.
func without(files map[string]string, paths ...string) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		if !slices.Contains(paths, k) {
			out[k] = v
		}
	}
	return out
}

// with returns a copy of files with the given paths replaced.
func with(files map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// codes lists finding codes, sorted.
func codes(fs []checks.Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, string(f.Code))
	}
	slices.Sort(out)
	return out
}

// sorted returns a sorted copy.
func sorted(s ...string) []string {
	out := append([]string{}, s...)
	slices.Sort(out)
	return out
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// eventID and ts are what e2e.Log writes for its n-th event.
func eventID(n int) string { return fmt.Sprintf("%032x", n) }

func ts(n int) time.Time {
	return time.Date(2026, 6, 9, 10, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Minute)
}

// draft encodes one log line, for lines the e2e.Log helpers do not write.
func draft(t *testing.T, n int, agent, typ, task, feature string, payload any) string {
	t.Helper()
	line, err := projection.Encode(projection.Draft{EventID: eventID(n), TS: ts(n), AgentID: agent, Type: typ, TaskID: task, Feature: feature, Payload: payload})
	if err != nil {
		t.Fatal(err)
	}
	return string(line)
}

// soloLog is e2e.NewLog with one more seat, solo, that holds both worker and
// reviewer: the seat a self-acceptance needs.
func soloLog(t *testing.T) *e2e.Log {
	t.Helper()
	l := e2e.NewLog()
	l.Lines[0] = draft(t, 1, "lead", projection.TypeInit, "", "", map[string]any{"project": "demo", "protocol_version": 1, "base_branch": "main",
		"seats": []map[string]any{
			{"id": "lead", "roles": []string{"orchestrator", "reviewer"}, "entry": "CLAUDE.md"},
			{"id": "dev", "roles": []string{"worker"}, "entry": "AGENTS.md"},
			{"id": "rev", "roles": []string{"reviewer"}, "entry": "REVIEW.md"},
			{"id": "solo", "roles": []string{"worker", "reviewer"}, "entry": "SOLO.md"},
		}})
	return l
}

// writeWorkspace writes files under a new directory with a .git whose HEAD
// is head (a detached checkout), and returns the directory.
func writeWorkspace(t *testing.T, files map[string]string, gitFiles map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{}
	for k, v := range files {
		all[k] = v
	}
	for k, v := range gitFiles {
		all[".git/"+k] = v
	}
	for p, content := range all {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// ---- webhook payloads, adapted from GitHub's real examples ----

// prEdits adapts a payload's pull_request, repository and sender to pull
// request number, whose head branch lives in headOwner's copy of the
// repository.
func prEdits(s *fakegithub.Server, number int, headOwner, head, base, sender string) map[string]any {
	return map[string]any{
		"pull_request.number": number, "pull_request.state": "open",
		"pull_request.head.ref": head, "pull_request.head.sha": s.BranchHead(headOwner, e2e.Repo, head),
		"pull_request.head.repo.full_name": headOwner + "/" + e2e.Repo, "pull_request.head.repo.name": e2e.Repo,
		"pull_request.base.ref": base, "pull_request.base.sha": s.BranchHead(e2e.Owner, e2e.Repo, base),
		"pull_request.base.repo.full_name": repoFull, "pull_request.base.repo.name": e2e.Repo,
		"repository.full_name": repoFull, "repository.name": e2e.Repo, "repository.owner.login": e2e.Owner,
		"sender.login": sender,
	}
}

// prPayload is the pull_request (synchronize) webhook of a pull request
// from head into base of the scenario repository.
func prPayload(t *testing.T, s *fakegithub.Server, number int, head, base string) []byte {
	t.Helper()
	edits := prEdits(s, number, e2e.Owner, head, base, "octocat")
	edits["number"] = number
	return e2e.Payload(t, "pull_request/synchronize.payload.json", edits)
}

// reviewWebhook is a submitted review as the pull_request_review webhook
// carries it: state lower-case as GitHub sends it (a test may override
// it), body nil for a review without one (JSON null).
type reviewWebhook struct {
	id       int64
	login    string
	state    string
	body     any
	commitID string
}

// reviewPayload is the pull_request_review (submitted) webhook of a review
// on pull request number from headOwner's branch head into main.
func reviewPayload(t *testing.T, s *fakegithub.Server, number int, headOwner, head string, rv reviewWebhook) []byte {
	t.Helper()
	edits := prEdits(s, number, headOwner, head, "main", rv.login)
	edits["action"] = "submitted"
	edits["review.id"] = rv.id
	edits["review.state"] = rv.state
	edits["review.body"] = rv.body
	edits["review.user.login"] = rv.login
	edits["review.commit_id"] = rv.commitID
	edits["review.submitted_at"] = reviewTS
	edits["review.html_url"] = reviewURL(number, rv.id)
	return e2e.Payload(t, "pull_request_review/submitted.payload.json", edits)
}

func reviewURL(pr int, id int64) string {
	return fmt.Sprintf("https://github.example/%s/pull/%d#pullrequestreview-%d", repoFull, pr, id)
}

// commentPayload is the issue_comment (created) webhook of comment id on
// pull request number, made at when.
func commentPayload(t *testing.T, number int, id int64, when, login, body, association string) []byte {
	t.Helper()
	return e2e.Payload(t, "issue_comment/created.on-pull-request.go-playground-webhooks.json", map[string]any{
		"action":       "created",
		"issue.number": number, "issue.state": "open",
		"issue.pull_request.url":      fmt.Sprintf("https://api.github.example/repos/%s/pulls/%d", repoFull, number),
		"issue.pull_request.html_url": fmt.Sprintf("https://github.example/%s/pull/%d", repoFull, number),
		"comment.id":                  id, "comment.body": body, "comment.user.login": login,
		"comment.created_at": when, "comment.updated_at": when,
		"comment.author_association": association,
		"comment.html_url":           fmt.Sprintf("https://github.example/%s/pull/%d#issuecomment-%d", repoFull, number, id),
		"repository.full_name":       repoFull, "repository.name": e2e.Repo, "repository.owner.login": e2e.Owner,
		"sender.login": login,
	})
}

// mergeGroupPayload adapts GitHub's real merge_group example.
func mergeGroupPayload(t *testing.T, headSHA, headRef, baseSHA string) []byte {
	t.Helper()
	return e2e.Payload(t, "merge_group/checks_requested.payload.json", map[string]any{
		"merge_group.head_sha": headSHA, "merge_group.head_ref": "refs/heads/" + headRef,
		"merge_group.base_sha": baseSHA, "merge_group.base_ref": "refs/heads/main",
		"merge_group.head_commit.id": headSHA,
		"repository.full_name":       repoFull, "repository.name": e2e.Repo,
	})
}

// ---- what GitHub shows ----

// onlyRun returns the single check run on sha, checking that it carries the
// check name and that it is completed with conclusion.
func onlyRun(t *testing.T, s *fakegithub.Server, sha, name, conclusion string) fakegithub.CheckRun {
	t.Helper()
	runs := s.CheckRuns(sha)
	if len(runs) != 1 {
		t.Fatalf("check runs on %s = %d, want 1: %+v", sha, len(runs), runs)
	}
	r := runs[0]
	if r.Name != name || r.HeadSHA != sha || r.Status != "completed" || r.Conclusion != conclusion {
		t.Errorf("check run: name %q head_sha %s status %q conclusion %q; want %q %s completed %q (title %q)",
			r.Name, r.HeadSHA, r.Status, r.Conclusion, name, sha, conclusion, r.Title)
	}
	if r.Repo != repoFull {
		t.Errorf("check run posted on %s", r.Repo)
	}
	if !strings.HasSuffix(r.DetailsURL, "/"+repoFull+"/actions/runs/4242") {
		t.Errorf("details_url = %q", r.DetailsURL)
	}
	return r
}

// latestRun is the check run branch protection reads: the newest on sha.
func latestRun(t *testing.T, s *fakegithub.Server, sha string) fakegithub.CheckRun {
	t.Helper()
	runs := s.CheckRuns(sha)
	if len(runs) == 0 {
		t.Fatalf("no check run on %s", sha)
	}
	run := runs[len(runs)-1]
	if run.Status != "completed" {
		t.Fatalf("the newest check run on %s is %s, never left in progress", sha, run.Status)
	}
	return run
}

// checkOutcome checks that the verdict is the one the check run shows —
// the same run, head, conclusion and summary (the job summary the binary
// writes), and the pull request judged (pr, unless 0) — and that its
// findings count errs errors, warnings warnings and pending waiting tasks
// (the outputs the binary sets; errors make it exit 1).
func checkOutcome(t *testing.T, out *action.Outcome, run fakegithub.CheckRun, pr int, errs, warnings, pending int) {
	t.Helper()
	checkPosted(t, out, run)
	if pr != 0 && !slices.Equal(out.PRs, []int{pr}) {
		t.Errorf("judged pull requests %v, want [%d]", out.PRs, pr)
	}
	if c := checks.Count(out.Findings); c.Errors != errs || c.Warnings != warnings || c.Pending != pending {
		t.Errorf("counts = %+v; want errors %d, warnings %d, pending %d", c, errs, warnings, pending)
	}
}

// checkPosted checks that the verdict is the one the check run shows.
func checkPosted(t *testing.T, out *action.Outcome, run fakegithub.CheckRun) {
	t.Helper()
	if out == nil {
		t.Fatalf("no verdict; the check run %d is %s", run.ID, run.Conclusion)
	}
	if out.Fallback || out.CheckRunID != run.ID || out.Target.HeadSHA != run.HeadSHA || out.Conclusion != run.Conclusion {
		t.Errorf("outcome = check run %d on %s, %s (fallback %v); the check run is %d on %s, %s",
			out.CheckRunID, out.Target.HeadSHA, out.Conclusion, out.Fallback, run.ID, run.HeadSHA, run.Conclusion)
	}
	if out.Summary != run.Summary {
		t.Errorf("the outcome's summary is not the check run's:\n%s\n---\n%s", out.Summary, run.Summary)
	}
}

// annotationLevel is the check-run annotation level of a severity.
func annotationLevel(s checks.Severity) string {
	switch s {
	case checks.SeverityError:
		return "failure"
	case checks.SeverityWarning:
		return "warning"
	}
	return "notice"
}

// checkAnnotations compares the annotations the fake stored with the
// findings: one per finding, most important first (errors, waiting,
// warnings, each in file order), at most report.MaxCheckRunAnnotations, on
// the finding's path and line (line 1 for a finding without one), at the
// level of its severity, titled by code.
func checkAnnotations(t *testing.T, run fakegithub.CheckRun, fs []checks.Finding) {
	t.Helper()
	fs = report.ByImportance(fs)
	if len(fs) > report.MaxCheckRunAnnotations {
		fs = fs[:report.MaxCheckRunAnnotations]
	}
	if len(run.Annotations) != len(fs) {
		t.Fatalf("annotations stored = %d, want %d", len(run.Annotations), len(fs))
	}
	for i, f := range fs {
		a := run.Annotations[i]
		line := max(f.Line, 1)
		if a.Path != f.Path || a.StartLine != line || a.EndLine != line || a.Level != annotationLevel(f.Severity) || !strings.HasPrefix(a.Title, string(f.Code)) {
			t.Errorf("annotation %d = %s:%d-%d %s %q; want %s:%d %s %s", i, a.Path, a.StartLine, a.EndLine, a.Level, a.Title, f.Path, line, annotationLevel(f.Severity), f.Code)
		}
		if !strings.Contains(a.Message, "Hint: ") {
			t.Errorf("annotation %d has no fix hint: %q", i, a.Message)
		}
	}
}

// checkSummaryFindings checks that summary shows every finding's code, and its
// message and fix hint escaped.
func checkSummaryFindings(t *testing.T, summary string, fs []checks.Finding) {
	t.Helper()
	for _, f := range fs {
		for _, want := range []string{"`" + string(f.Code) + "`", report.Escape(f.Message), report.Escape(f.Hint)} {
			if !strings.Contains(summary, want) {
				t.Errorf("summary lacks %q of finding %s", want, f.Code)
			}
		}
	}
}

// contains fails unless text holds every part.
func contains(t *testing.T, what, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Errorf("%s lacks %q:\n%s", what, p, text)
		}
	}
}

// ---- the fake's request log ----

// noViolations fails on OpenAPI or GraphQL schema violations the fake
// recorded.
func noViolations(t *testing.T, s *fakegithub.Server) {
	t.Helper()
	if v := s.Violations(); len(v) != 0 {
		t.Errorf("OpenAPI violations: %v", v)
	}
}

// faults counts the injected answers of the request log.
func faults(s *fakegithub.Server) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Fault {
			n++
		}
	}
	return n
}

// stalled reports whether the fake is holding a request (a Stall fault).
func stalled(s *fakegithub.Server) bool {
	for _, r := range s.Requests() {
		if r.Fault && r.Status == 0 {
			return true
		}
	}
	return false
}

// countOp counts the requests to one operation (an OpenAPI operationId,
// or fakegithub.GraphQLOperation).
func countOp(s *fakegithub.Server, operation string) int {
	return calls(s)[operation]
}

// calls counts the fake's requests by operation ("METHOD path" for a
// request no operation answers).
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

// gitWrites counts Git Data API writes (blobs, trees, commits, ref moves).
func gitWrites(s *fakegithub.Server) int {
	c := calls(s)
	return c["git/create-blob"] + c["git/create-tree"] + c["git/create-commit"] + c["git/update-ref"] + c["repos/create-or-update-file-contents"]
}
