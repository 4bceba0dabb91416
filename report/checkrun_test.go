package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/projection"
)

func finding(sev checks.Severity, line int, msg string) checks.Finding {
	return checks.Finding{Code: projection.CodeSelfAccept, Severity: sev, Path: ".pact/log.jsonl", Line: line, Message: msg, Hint: "ask the reviewer"}
}

func TestConclusion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		findings []checks.Finding
		want     string
	}{
		{"clean", nil, ConclusionSuccess},
		{"warnings only pass", []checks.Finding{finding(checks.SeverityWarning, 1, "w")}, ConclusionSuccess},
		{"waiting is not passing", []checks.Finding{finding(checks.SeverityPending, 1, "p")}, ConclusionWaiting},
		{"any error fails", []checks.Finding{finding(checks.SeverityPending, 1, "p"), finding(checks.SeverityError, 2, "e")}, ConclusionFailure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Conclusion(tt.findings); got != tt.want {
				t.Errorf("Conclusion = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestSummaryShowsVerdictTasksWaitingAndFindings(t *testing.T) {
	t.Parallel()
	_, res := projection.ReadEvents([]byte(strings.Join([]string{
		`{"event_id":"a1","ts":"2026-06-09T10:00:00Z","agent_id":"lead","role":"orchestrator","event_type":"init","task_id":"","feature":"","payload":{"project":"p","protocol_version":1,"base_branch":"main","seats":[{"id":"lead","roles":["orchestrator","reviewer"],"entry":"A.md"},{"id":"dev","roles":["worker"],"entry":"B.md"}]}}`,
		`{"event_id":"a2","ts":"2026-06-09T10:01:00Z","agent_id":"lead","role":"orchestrator","event_type":"assign","task_id":"T1","feature":"F","payload":{"owner":"dev","reviewer":"lead","branch":"feat/f","spec":"x"}}`,
		`{"event_id":"a3","ts":"2026-06-09T10:02:00Z","agent_id":"dev","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":["worker"]}}`,
		`{"event_id":"a4","ts":"2026-06-09T10:03:00Z","agent_id":"dev","role":"worker","event_type":"checkpoint","task_id":"T1","feature":"F","payload":{"evidence":"done"}}`,
	}, "\n")))
	findings := checks.Waiting(".pact/log.jsonl", res.State, "feat/f", nil, nil, nil)
	findings = append(findings, finding(checks.SeverityError, 9, "forged accept by <b>@dev</b>"))
	got := Summary(Verdict{CheckName: "pact", HeadBranch: "feat/f", HeadSHA: "0123456789abcdef0123", Findings: findings, State: res.State})
	for _, want := range []string{"❌ pact: 1 violation — merge blocked", "### Features and tasks", "| F | awaiting_review | T1 | awaiting_review | dev | lead |",
		"### Waiting", "awaiting review by lead", "`rule1.self_accept`", "`.pact/log.jsonl:9`", "ask the reviewer", "`0123456789ab`"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "@dev") || strings.Contains(got, "<b>") {
		t.Errorf("summary lets log text through unescaped:\n%s", got)
	}
}

// TestSummaryOfAMergeGroup: a merge queue's commit heads no pull request:
// its summary names the group, its pull requests and their branches, and
// marks their tasks as the group's, never as "this PR".
func TestSummaryOfAMergeGroup(t *testing.T) {
	t.Parallel()
	st := projection.NewState()
	st.TaskOrder = []string{"T1", "T2", "T3"}
	st.FeatureOrder = []string{"F"}
	st.Features = map[string]*projection.Feature{"F": {Tasks: []string{"T1", "T2", "T3"}}}
	st.Tasks = map[string]*projection.Task{"T1": {Branch: "feat/a"}, "T2": {Branch: "feat/<b>"}, "T3": {Branch: "feat/c"}}
	for _, tc := range []struct {
		group *Group
		want  []string
	}{
		{&Group{PRs: []int{7}, Branches: []string{"feat/a"}, BaseRef: "main"},
			[]string{"on `0123456789ab`, the merge group of pull request #7 into main (branch feat/a).", "**feat/a** (in this group)"}},
		{&Group{PRs: []int{7, 9}, Branches: []string{"feat/a", "feat/<b>"}, BaseRef: "main"},
			[]string{"the merge group of pull requests #7, #9 into main (branches feat/a, " + Escape("feat/<b>") + ").", "**feat/a** (in this group)", "**" + Escape("feat/<b>") + "** (in this group)", "| feat/c |"}},
	} {
		got := Summary(Verdict{CheckName: "pact", HeadBranch: "feat/a", HeadSHA: "0123456789abcdef0123", State: st, Group: tc.group})
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("summary lacks %q:\n%s", w, got)
			}
		}
		if strings.Contains(got, "this PR") || strings.Contains(got, "(branch feat/a).\n") && len(tc.group.PRs) > 1 {
			t.Errorf("the group's summary speaks of a pull request:\n%s", got)
		}
	}
}

// TestSummaryNamesTheReviewRequested: the waiting line says whom a review
// is requested from, and a note why nobody was; logins and GitHub's
// answers are inert like every other text (an @ that mentions nobody).
func TestSummaryNamesTheReviewRequested(t *testing.T) {
	t.Parallel()
	_, res := projection.ReadEvents([]byte(strings.Join([]string{
		`{"event_id":"a1","ts":"2026-06-09T10:00:00Z","agent_id":"lead","role":"orchestrator","event_type":"init","task_id":"","feature":"","payload":{"project":"p","protocol_version":1,"base_branch":"main","seats":[{"id":"lead","roles":["orchestrator","reviewer"],"entry":"A.md"},{"id":"dev","roles":["worker"],"entry":"B.md"}]}}`,
		`{"event_id":"a2","ts":"2026-06-09T10:01:00Z","agent_id":"lead","role":"orchestrator","event_type":"assign","task_id":"T1","feature":"F","payload":{"owner":"dev","reviewer":"lead","branch":"feat/f","spec":"x"}}`,
		`{"event_id":"a3","ts":"2026-06-09T10:01:30Z","agent_id":"lead","role":"orchestrator","event_type":"assign","task_id":"T2","feature":"F","payload":{"owner":"dev","reviewer":"lead","branch":"feat/f","spec":"x"}}`,
		`{"event_id":"a4","ts":"2026-06-09T10:02:00Z","agent_id":"dev","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":["worker"]}}`,
		`{"event_id":"a5","ts":"2026-06-09T10:03:00Z","agent_id":"dev","role":"worker","event_type":"checkpoint","task_id":"T1","feature":"F","payload":{"evidence":"done"}}`,
	}, "\n")))
	findings := checks.Waiting(".pact/log.jsonl", res.State, "feat/f", nil, nil, nil)
	got := Summary(Verdict{CheckName: "pact", HeadBranch: "feat/f", Findings: findings, State: res.State,
		Requested:    map[string][]checks.Reviewer{"T1": {{Login: "lead-gh"}, {Team: "core_team"}}},
		RequestNotes: []string{"GitHub refused the request from @mallory: 422 <b>Reviews may only be requested from collaborators</b>"}})
	for _, want := range []string{
		"- waiting for T1 \\(feature F\\): awaiting review by lead; review requested from @\u200blead-gh, team core\\_team\n",
		"- waiting for T2 \\(feature F\\): in progress by dev, not yet checkpointed\n",
		"- review request: GitHub refused the request from @\u200bmallory: 422 &lt;b&gt;Reviews",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "@lead-gh") || strings.Contains(got, "@mallory") || strings.Contains(got, "<b>") {
		t.Errorf("summary lets a name or GitHub's answer through unescaped:\n%s", got)
	}
}

func TestSummaryStaysUnderGitHubsLimitAndSaysWhatWasCut(t *testing.T) {
	t.Parallel()
	var findings []checks.Finding
	for i := 1; i <= 3000; i++ {
		findings = append(findings, finding(checks.SeverityError, i, strings.Repeat("x", 60)+fmt.Sprint(i)))
	}
	got := Summary(Verdict{CheckName: "pact", Findings: findings, State: projection.NewState()})
	if len(got) > maxText {
		t.Fatalf("summary is %d characters, over %d", len(got), maxText)
	}
	if !strings.Contains(got, "more finding(s) not shown") {
		t.Error("the cut summary does not say findings were left out")
	}
	text := Text(findings)
	if len(text) > maxText || !strings.Contains(text, "more finding(s) cut") {
		t.Errorf("text is %d characters or lacks the cut note", len(text))
	}
	if n := len(annotations(findings)); n != len(findings) {
		t.Errorf("Annotations = %d, want every finding (%d)", n, len(findings))
	}
}

// TestSummaryCutsEveryPartWithANote: whatever outgrows GitHub's limit — the
// waiting list, the task table without any finding, the findings — is cut
// with a note saying so, and Summary never panics on negative budgets.
func TestSummaryCutsEveryPartWithANote(t *testing.T) {
	t.Parallel()
	many := func(n int, sev checks.Severity) []checks.Finding {
		var fs []checks.Finding
		for i := range n {
			fs = append(fs, finding(sev, i+2, fmt.Sprintf("waiting for T%d (feature LOGIN): assigned to dev, who has not joined yet", i)))
		}
		return fs
	}
	bigState := func(n int) *projection.State {
		st := projection.NewState()
		st.Features["LOGIN"] = &projection.Feature{ID: "LOGIN"}
		st.FeatureOrder = []string{"LOGIN"}
		for i := range n {
			id := fmt.Sprintf("T%d", i)
			st.Tasks[id] = &projection.Task{ID: id, Feature: "LOGIN", Owner: "dev", Reviewer: "rev", Branch: "feat/login", Status: projection.StatusAccepted}
			st.TaskOrder = append(st.TaskOrder, id)
			st.Features["LOGIN"].Tasks = append(st.Features["LOGIN"].Tasks, id)
		}
		return st
	}
	tests := []struct {
		name  string
		v     Verdict
		notes []string
	}{
		{"waiting list", Verdict{CheckName: "pact", Findings: many(1500, checks.SeverityPending)},
			[]string{"more waiting task(s) not listed here", "more finding(s) not shown here"}},
		{"task table without findings", Verdict{CheckName: "pact", HeadBranch: "feat/login", State: bigState(3000)},
			[]string{"the task table was cut"}},
		{"everything", Verdict{CheckName: "pact", HeadBranch: "feat/login", State: bigState(3000), Findings: many(1500, checks.SeverityPending)},
			[]string{"more waiting task(s) not listed here", "the task table was cut", "more finding(s) not shown here"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Summary(tt.v)
			if len(got) > maxText {
				t.Errorf("summary is %d bytes, over %d", len(got), maxText)
			}
			for _, n := range tt.notes {
				if !strings.Contains(got, n) {
					t.Errorf("summary lacks the note %q", n)
				}
			}
			if !strings.Contains(got, "Finding codes are explained") {
				t.Error("summary lost its footer")
			}
		})
	}
}
