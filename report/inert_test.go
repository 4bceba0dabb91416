package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/markdown"
	"github.com/pact-action/pact-action/projection"
)

// Everything the check run and the job summary show is Markdown GitHub
// renders, and task ids, feature ids, branch names, reasons and messages
// quoting them come from the log or the pull request: none of it may
// render as a link, image, HTML, mention or reference
// (internal/testkit/markdown says what GitHub would make live).

// hostile are the texts a worker would write into an id, a branch or a
// reason.
var hostile = []string{
	"www.evil-login.example",
	"T1-www.evil.example",
	"WWW.EVIL.EXAMPLE/login",
	"https://evil.example/login?next=/",
	"see:https://evil.example",
	"(https://evil.example)",
	"ftp://evil.example",
	"mailto:admin@evil.example",
	"admin@evil.example",
	"@octocat",
	"@org/team",
	"fixes #12",
	"octo-org/octo-repo#12",
	"GH-12",
	"deadbeef1234567",
	"deadbee", // 7 digits: the shortest commit id GitHub links
	"octo-org/octo-repo@deadbeef12",
	"[click](https://evil.example)",
	"![p](//ev.il/p.png)",
	"<img src=x onerror=alert(1)>",
	"<details><summary>x</summary>",
	"<https://evil.example>",
	"`www.evil.example`",
	"a|www.evil.example|b",
	"x`|https://evil.example",
	"**www.evil.example**",
	"line\nwww.evil.example\r\n#12",
}

func inert(t *testing.T, what, md string) {
	t.Helper()
	if live := markdown.Live(md); len(live) > 0 {
		t.Errorf("%s renders live: %s\n%s", what, strings.Join(live, "; "), md)
	}
}

// TestEscapeIsInert: each hostile text, escaped, renders as itself with
// nothing live, in a paragraph, a table cell, a list item and bold.
func TestEscapeIsInert(t *testing.T) {
	t.Parallel()
	for _, h := range hostile {
		e := Escape(h)
		if strings.ContainsAny(e, "\r\n") {
			t.Errorf("Escape(%q) = %q has a line break", h, e)
		}
		inert(t, fmt.Sprintf("Escape(%q)", h), e)
		inert(t, "a table cell", "| a | b |\n|---|---|\n| "+e+" | x |\n")
		inert(t, "a list item", "- "+e+"\n")
		inert(t, "bold", "**"+e+"** (this PR)")
		inert(t, "after a word", "branch "+e+".")
	}
}

// TestEscapeKeepsIdsReadable: a linkable word becomes a code span of
// exactly its characters (copied as they are); ordinary text is left as
// it reads.
func TestEscapeKeepsIdsReadable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"waiting for T1 (feature LOGIN): assigned to dev", `waiting for T1 \(feature LOGIN\): assigned to dev`},
		{"since the accept on 0123456789ab.", "since the accept on `0123456789ab`."},
		{"fixed in abc1234.", "fixed in `abc1234`."}, // 7 hex digits: a commit id to GitHub
		{"fixed in abc123.", "fixed in abc123."},     // 6: no link, no span
		{"branch www.evil-login.example", "branch `www.evil-login.example`"},
		{"(https://evil.example/x)", "\\(`https://evil.example/x`\\)"},
		{"feat/login", "feat/login"},
		{"pactify accept T1", "pactify accept T1"},
		{"://", "`://`"},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// hostileLog is a pact whose ids, branch and reasons are the given texts:
// a task assigned twice, checkpointed, sent back with a reason, and an
// event by a seat nobody declared.
func hostileLog(task, feature, branch, reason string) []byte {
	n := 0
	line := func(agent, role, typ, task, feature string, payload any) string {
		n++
		b, _ := json.Marshal(map[string]any{"event_id": fmt.Sprintf("%032x", n), "ts": fmt.Sprintf("2026-06-09T10:%02d:00Z", n),
			"agent_id": agent, "role": role, "event_type": typ, "task_id": task, "feature": feature, "payload": payload})
		return string(b)
	}
	seats := []map[string]any{
		{"id": "lead", "roles": []string{"orchestrator"}, "entry": "A.md"},
		{"id": "dev", "roles": []string{"worker"}, "entry": "B.md"},
		{"id": "rev", "roles": []string{"reviewer"}, "entry": "C.md"},
	}
	assign := map[string]any{"owner": "dev", "reviewer": "rev", "branch": branch, "spec": reason}
	return []byte(strings.Join([]string{
		line("lead", "orchestrator", "init", "", "", map[string]any{"project": reason, "protocol_version": 1, "base_branch": branch, "seats": seats}),
		line("lead", "orchestrator", "assign", task, feature, assign),
		line("lead", "orchestrator", "assign", task, feature, assign),
		line("dev", "worker", "join", "", "", map[string]any{"roles": []string{"worker"}}),
		line("dev", "worker", "checkpoint", task, feature, map[string]any{"evidence": reason}),
		line("rev", "reviewer", "changes", task, feature, map[string]any{"reason": reason}),
		line(reason, "worker", "checkpoint", task, feature, map[string]any{"evidence": reason}),
		line("lead", "orchestrator", "assign", reason, reason, map[string]any{"owner": "dev", "reviewer": "rev", "branch": reason, "spec": reason}),
	}, "\n") + "\n")
}

// renderAll is every Markdown text of a check run and of the job summary
// for the hostile pact: the summary (also the job summary), the details
// text, the summary of a run stopped before its verdict (with and without
// the advice to re-run), and the job summary's section for a commit not
// judged.
func renderAll(task, feature, branch, reason string) map[string]string {
	log, res := projection.ReadEvents(hostileLog(task, feature, branch, reason))
	in := checks.Input{Dir: ".pact", Scan: &log.Scan, Replay: res, State: []byte(reason), Project: []byte(reason),
		TaskFiles: map[string][]byte{task: []byte(reason)}}
	findings := checks.Run(in)
	findings = append(findings, checks.Waiting(".pact/log.jsonl", res.State, branch, nil, nil, nil)...)
	findings = append(findings, checks.Finding{Code: checks.CodeProvenanceStale, Severity: checks.SeverityError,
		Path: ".pact/tasks/" + task + ".md", Line: 3, Message: reason + " " + task + " " + branch, Hint: reason})
	out := map[string]string{
		"summary": Summary(Verdict{CheckName: "pact", HeadBranch: branch, HeadSHA: strings.Repeat("ab", 20), Findings: findings, State: res.State}),
		"text":    Text(findings),
		"title":   Title(findings),
	}
	out["stopped"] = Stopped("read .pact/tasks/"+task+".md at "+branch+": "+reason, true)
	out["stopped, too large"] = Stopped(".pact/tasks/"+task+".md is 300 MiB "+reason, false)
	out["job summary, not judged"] = NotJudged("pact", strings.Repeat("cd", 20), out["stopped"])
	return out
}

func TestCheckRunTextsAreInert(t *testing.T) {
	t.Parallel()
	for _, h := range hostile {
		for what, md := range renderAll(h, h, h, h) {
			inert(t, fmt.Sprintf("%s for %q", what, h), md)
		}
		for what, md := range renderAll("T1", "LOGIN", h, "done") {
			inert(t, fmt.Sprintf("%s for branch %q", what, h), md)
		}
	}
}

// FuzzCheckRunTextsAreInert: whatever task id, feature id, branch name
// and reason a worker writes, no check-run text and no job summary has a
// live link, image, HTML, mention or reference.
//
//	go test ./report/ -run '^$' -fuzz '^FuzzCheckRunTextsAreInert$' -fuzztime 1m
func FuzzCheckRunTextsAreInert(f *testing.F) {
	for _, h := range hostile {
		f.Add("T1", "LOGIN", h, h)
		f.Add(h, h, "feat/login", "done")
	}
	f.Add("T1", "LOGIN", "feat/login", "done")
	f.Fuzz(func(t *testing.T, task, feature, branch, reason string) {
		for what, md := range renderAll(task, feature, branch, reason) {
			inert(t, what, md)
		}
	})
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
