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

func TestEscapeNeutralisesUserText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in  string
		forbidden []string
	}{
		{"mention", "ping @octocat and @org/team", []string{"@octocat", "@org"}},
		{"html", `<img src=x onerror=alert(1)><details>`, []string{"<", ">"}},
		// The URL itself becomes a code span (TestEscapeIsInert).
		{"link", "[click](https://evil.example)", []string{"[click]"}},
		{"table break", "a | b\n| c |", []string{"\n", " | "}},
		{"issue ref", "fixes #12", []string{"#12"}},
		{"code fence", "```\nrm -rf /\n```", []string{"```", "\n"}},
		{"emphasis", "**bold** _it_", []string{"**", " _it_"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Escape(tt.in)
			for _, f := range tt.forbidden {
				if strings.Contains(got, f) {
					t.Errorf("Escape(%q) = %q still contains %q", tt.in, got, f)
				}
			}
		})
	}
}

func TestSummaryShowsVerdictTasksWaitingAndFindings(t *testing.T) {
	t.Parallel()
	log := projection.ParseBytes([]byte(strings.Join([]string{
		`{"event_id":"a1","ts":"2026-06-09T10:00:00Z","agent_id":"lead","role":"orchestrator","event_type":"init","task_id":"","feature":"","payload":{"project":"p","protocol_version":1,"base_branch":"main","seats":[{"id":"lead","roles":["orchestrator","reviewer"],"entry":"A.md"},{"id":"dev","roles":["worker"],"entry":"B.md"}]}}`,
		`{"event_id":"a2","ts":"2026-06-09T10:01:00Z","agent_id":"lead","role":"orchestrator","event_type":"assign","task_id":"T1","feature":"F","payload":{"owner":"dev","reviewer":"lead","branch":"feat/f","spec":"x"}}`,
		`{"event_id":"a3","ts":"2026-06-09T10:02:00Z","agent_id":"dev","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":["worker"]}}`,
		`{"event_id":"a4","ts":"2026-06-09T10:03:00Z","agent_id":"dev","role":"worker","event_type":"checkpoint","task_id":"T1","feature":"F","payload":{"evidence":"done"}}`,
	}, "\n")))
	res := projection.Replay(log)
	findings := checks.Waiting(".pact/log.jsonl", res.State, "feat/f", nil)
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

// TestSummaryNamesTheReviewRequested: the waiting line says whom a review
// is requested from, and a note why nobody was; logins and GitHub's
// answers are inert like every other text (an @ that mentions nobody).
func TestSummaryNamesTheReviewRequested(t *testing.T) {
	t.Parallel()
	log := projection.ParseBytes([]byte(strings.Join([]string{
		`{"event_id":"a1","ts":"2026-06-09T10:00:00Z","agent_id":"lead","role":"orchestrator","event_type":"init","task_id":"","feature":"","payload":{"project":"p","protocol_version":1,"base_branch":"main","seats":[{"id":"lead","roles":["orchestrator","reviewer"],"entry":"A.md"},{"id":"dev","roles":["worker"],"entry":"B.md"}]}}`,
		`{"event_id":"a2","ts":"2026-06-09T10:01:00Z","agent_id":"lead","role":"orchestrator","event_type":"assign","task_id":"T1","feature":"F","payload":{"owner":"dev","reviewer":"lead","branch":"feat/f","spec":"x"}}`,
		`{"event_id":"a3","ts":"2026-06-09T10:01:30Z","agent_id":"lead","role":"orchestrator","event_type":"assign","task_id":"T2","feature":"F","payload":{"owner":"dev","reviewer":"lead","branch":"feat/f","spec":"x"}}`,
		`{"event_id":"a4","ts":"2026-06-09T10:02:00Z","agent_id":"dev","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":["worker"]}}`,
		`{"event_id":"a5","ts":"2026-06-09T10:03:00Z","agent_id":"dev","role":"worker","event_type":"checkpoint","task_id":"T1","feature":"F","payload":{"evidence":"done"}}`,
	}, "\n")))
	res := projection.Replay(log)
	findings := checks.Waiting(".pact/log.jsonl", res.State, "feat/f", nil)
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
	if len(got) > MaxText {
		t.Fatalf("summary is %d characters, over %d", len(got), MaxText)
	}
	if !strings.Contains(got, "more finding(s) not shown") {
		t.Error("the cut summary does not say findings were left out")
	}
	text := Text(findings)
	if len(text) > MaxText || !strings.Contains(text, "more finding(s) cut") {
		t.Errorf("text is %d characters or lacks the cut note", len(text))
	}
	if n := len(Annotations(findings)); n != len(findings) {
		t.Errorf("Annotations = %d, want every finding (%d)", n, len(findings))
	}
}

func TestAnnotationsPointAtALine(t *testing.T) {
	t.Parallel()
	anns := Annotations([]checks.Finding{finding(checks.SeverityError, 0, "no line"), finding(checks.SeverityWarning, 7, "w"), finding(checks.SeverityPending, 3, "p")})
	want := []struct {
		line  int
		level string
	}{{1, "failure"}, {7, "warning"}, {3, "notice"}}
	for i, w := range want {
		if anns[i].Line != w.line || anns[i].Level != w.level {
			t.Errorf("annotation %d = line %d level %s, want line %d level %s", i, anns[i].Line, anns[i].Level, w.line, w.level)
		}
	}
}

func TestByImportanceOrdersErrorsThenWaitingThenWarnings(t *testing.T) {
	t.Parallel()
	in := []checks.Finding{finding(checks.SeverityWarning, 1, "w1"), finding(checks.SeverityPending, 2, "p"), finding(checks.SeverityError, 3, "e"), finding(checks.SeverityWarning, 4, "w2")}
	got := ByImportance(in)
	var order []string
	for _, f := range got {
		order = append(order, f.Message)
	}
	if strings.Join(order, ",") != "e,p,w1,w2" {
		t.Errorf("order = %v, want e,p,w1,w2", order)
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
			if len(got) > MaxText {
				t.Errorf("summary is %d bytes, over %d", len(got), MaxText)
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

// A check run annotates at most MaxCheckRunAnnotations findings, the most
// important first; the summary counts the rest and no longer claims every
// finding is annotated.
func TestCheckRunAnnotationsAreCapped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		warnings, errors int
		wantLeft         int
	}{
		{warnings: 3, errors: 2},
		{warnings: 0, errors: MaxCheckRunAnnotations},
		{warnings: 100, errors: 100, wantLeft: 200 - MaxCheckRunAnnotations},
		{warnings: 10000, errors: 1, wantLeft: 10001 - MaxCheckRunAnnotations},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d warnings, %d errors", tt.warnings, tt.errors), func(t *testing.T) {
			t.Parallel()
			var fs []checks.Finding
			for i := range tt.warnings {
				fs = append(fs, finding(checks.SeverityWarning, i+1, "w"))
			}
			for i := range tt.errors {
				fs = append(fs, finding(checks.SeverityError, tt.warnings+i+1, "e"))
			}
			anns, left := CheckRunAnnotations(fs)
			if left != tt.wantLeft || len(anns) != len(fs)-tt.wantLeft {
				t.Fatalf("annotations %d, left %d; want %d, %d", len(anns), left, len(fs)-tt.wantLeft, tt.wantLeft)
			}
			for i, a := range anns {
				if wantErr := i < tt.errors; (a.Level == "failure") != wantErr {
					t.Fatalf("annotation %d is %s: errors must come first", i, a.Level)
				}
			}
			sum := Summary(Verdict{CheckName: "pact", Findings: fs, State: projection.NewState(), Unannotated: left})
			note := fmt.Sprintf("%d more finding(s) are not annotated", left)
			if strings.Contains(sum, note) != (left > 0) {
				t.Errorf("summary says %q: %v, want %v", note, strings.Contains(sum, note), left > 0)
			}
			if left > 0 && strings.Contains(sum, "every finding is annotated") {
				t.Error("the summary claims every finding is annotated")
			}
		})
	}
}

// A step without a check run writes at most MaxWorkflowAnnotations
// commands: errors first, and when some are left out, the last says how
// many.
func TestWorkflowAnnotationsLeaveRoomToSayWhatIsLeftOut(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		warnings, errors int
		wantAnns         int
		wantMore         string
	}{
		{warnings: 2, errors: 1, wantAnns: 3},
		{warnings: MaxWorkflowAnnotations - 1, errors: 1, wantAnns: MaxWorkflowAnnotations},
		{warnings: MaxWorkflowAnnotations, errors: 1, wantAnns: MaxWorkflowAnnotations - 1, wantMore: "pact: 2 more finding(s) are not annotated"},
	} {
		var fs []checks.Finding
		for i := range tt.warnings {
			fs = append(fs, finding(checks.SeverityWarning, i+1, "w"))
		}
		for i := range tt.errors {
			fs = append(fs, finding(checks.SeverityError, tt.warnings+i+1, "e"))
		}
		anns, more := WorkflowAnnotations(fs)
		if len(anns) != tt.wantAnns || (tt.wantMore == "") != (more == "") || !strings.Contains(more, tt.wantMore) {
			t.Errorf("%d warnings, %d errors: %d annotations, more %q; want %d, %q", tt.warnings, tt.errors, len(anns), more, tt.wantAnns, tt.wantMore)
		}
		if len(anns) > 0 && anns[0].Level != LevelFailure {
			t.Errorf("%d warnings, %d errors: the first annotation is %s, want the error", tt.warnings, tt.errors, anns[0].Level)
		}
	}
}
