package action_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// Helpers shared by the end-to-end tests of check mode.

const logPath = ".pact/log.jsonl"

// repoPath is the fake's request path prefix of the scenario repository.
const repoPath = "/repos/" + e2e.Owner + "/" + e2e.Repo

// scenario is one pull request seeded in a fake GitHub: base files on main,
// head files on branch (started from main).
type scenario struct {
	s       *fakegithub.Server
	number  int
	branch  string
	baseSHA string
	headSHA string
}

// provenanceOff is a .github/pact.yml that turns provenance checks off: the
// check-mode scenarios write their events in single commits by one account,
// which provenance would rightly question (see TestCheckCleanPR for a PR
// that satisfies the default policy).
const provenanceOff = "provenance:\n  mode: off\n"

// seedPR commits base's pact to main (with provenanceOff) and head's pact to
// branch, and opens the pull request. A nil base leaves main without a pact.
func seedPR(t *testing.T, s *fakegithub.Server, base, head map[string]string, branch string) scenario {
	t.Helper()
	if base == nil {
		base = map[string]string{"README.md": "demo\n"}
	}
	base = with(base, ".github/pact.yml", provenanceOff)
	baseSHA := s.CommitFiles(e2e.Owner, e2e.Repo, "main", base, "lead")
	headSHA := s.CommitFiles(e2e.Owner, e2e.Repo, branch, head, "dev", fakegithub.From("main"))
	n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: branch, Base: "main"})
	return scenario{s: s, number: n, branch: branch, baseSHA: baseSHA, headSHA: headSHA}
}

// payload is the pull_request webhook of the scenario's PR.
func (sc scenario) payload(t *testing.T) []byte {
	t.Helper()
	return prPayload(t, sc.s, sc.number, sc.branch, "main")
}

// run runs the action on the scenario's pull_request event.
func (sc scenario) run(t *testing.T, inputs map[string]string) e2e.Result {
	t.Helper()
	return e2e.Run{Server: sc.s, EventName: "pull_request", Payload: sc.payload(t), Inputs: inputs}.Exec(t)
}

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

// findings decodes the findings of the JSON report's runs[i].
func findings(t *testing.T, res e2e.Result, i int) []checks.Finding {
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

// wantExit fails unless the run exited with code.
func wantExit(t *testing.T, res e2e.Result, code int) {
	t.Helper()
	if res.Code != code {
		t.Fatalf("exit code %d, want %d\nstdout: %s\nstderr: %s", res.Code, code, res.Stdout, res.Stderr)
	}
}

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
		t.Errorf("check run: name %q head_sha %s status %q conclusion %q; want %q %s completed %q",
			r.Name, r.HeadSHA, r.Status, r.Conclusion, name, sha, conclusion)
	}
	if r.Repo != e2e.Owner+"/"+e2e.Repo {
		t.Errorf("check run posted on %s", r.Repo)
	}
	if !strings.HasSuffix(r.DetailsURL, "/"+e2e.Owner+"/"+e2e.Repo+"/actions/runs/4242") {
		t.Errorf("details_url = %q", r.DetailsURL)
	}
	return r
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

// checkAnnotations compares the annotations the fake stored with the report's
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

// checkOutputs compares the step outputs with the verdict.
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

// noViolations fails on OpenAPI violations the fake recorded.
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

// eventID and ts are what e2e.Log writes for its n-th event.
func eventID(n int) string { return fmt.Sprintf("%032x", n) }

func ts(n int) time.Time {
	return time.Date(2026, 6, 9, 10, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Minute)
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

// draft encodes one log line, for lines the e2e.Log helpers do not write.
func draft(t *testing.T, n int, agent, typ, task, feature string, payload any) string {
	t.Helper()
	line, err := projection.Encode(projection.Draft{EventID: eventID(n), TS: ts(n), AgentID: agent, Type: typ, TaskID: task, Feature: feature, Payload: payload})
	if err != nil {
		t.Fatal(err)
	}
	return string(line)
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
