package bot

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

const seatMap = `
seats:
  lead: [octocat]
  dev: [hubot]
  both: [mallory]
  rev2: [mallory, carol]
`

// stateLog is a small pact: T1 (dev, reviewed by lead) and T2 (both,
// reviewed by rev2) await review on feat/x; T3 on another branch.
var stateLog = []byte(strings.Join([]string{
	`{"event_id":"e1","ts":"2026-06-09T10:00:00Z","agent_id":"lead","role":"orchestrator","event_type":"init","task_id":"","feature":"","payload":{"project":"p","protocol_version":1,"base_branch":"main","seats":[{"id":"lead","roles":["orchestrator","reviewer"],"entry":"A.md"},{"id":"dev","roles":["worker"],"entry":"B.md"},{"id":"both","roles":["worker"],"entry":"B.md"},{"id":"rev2","roles":["reviewer"],"entry":"C.md"}]}}`,
	`{"event_id":"e2","ts":"2026-06-09T10:01:00Z","agent_id":"lead","role":"orchestrator","event_type":"assign","task_id":"T1","feature":"F","payload":{"owner":"dev","reviewer":"lead","branch":"feat/x","spec":"s"}}`,
	`{"event_id":"e3","ts":"2026-06-09T10:02:00Z","agent_id":"lead","role":"orchestrator","event_type":"assign","task_id":"T2","feature":"F","payload":{"owner":"both","reviewer":"rev2","branch":"feat/x","spec":"s"}}`,
	`{"event_id":"e4","ts":"2026-06-09T10:03:00Z","agent_id":"lead","role":"orchestrator","event_type":"assign","task_id":"T3","feature":"G","payload":{"owner":"dev","reviewer":"lead","branch":"feat/y","spec":"s"}}`,
	`{"event_id":"e5","ts":"2026-06-09T10:04:00Z","agent_id":"dev","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":["worker"]}}`,
	`{"event_id":"e6","ts":"2026-06-09T10:05:00Z","agent_id":"both","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":["worker"]}}`,
	`{"event_id":"e7","ts":"2026-06-09T10:06:00Z","agent_id":"dev","role":"worker","event_type":"checkpoint","task_id":"T1","feature":"F","payload":{"evidence":"ok"}}`,
	`{"event_id":"e8","ts":"2026-06-09T10:07:00Z","agent_id":"both","role":"worker","event_type":"checkpoint","task_id":"T2","feature":"F","payload":{"evidence":"ok"}}`,
}, "\n"))

// state replays stateLog.
func state(t *testing.T) *projection.State {
	t.Helper()
	_, res := projection.ReadEvents(stateLog)
	if len(res.Rejections) != 0 {
		t.Fatalf("fixture log has rejections: %+v", res.Rejections)
	}
	return res.State
}

func seats(t *testing.T) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(seatMap))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

var submitted = time.Date(2026, 6, 9, 11, 0, 0, 0, time.UTC)

func TestParseCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want []Command
	}{
		{"none", "LGTM, thanks!", nil},
		{"accept", "/pact accept T1", []Command{{Verb: VerbAccept, Task: "T1"}}},
		{"leading spaces and CRLF", "  /pact accept T1\r\n", []Command{{Verb: VerbAccept, Task: "T1"}}},
		{"changes with reason", "/pact changes T2 please add tests\nfor the edge case", []Command{{Verb: VerbChanges, Task: "T2", Reason: "please add tests"}}},
		{"several in order", "/pact status\ntext\n/pact recheck", []Command{{Verb: verbStatus}, {Verb: verbRecheck}}},
		{"not at line start", "please run /pact accept T1", nil},
		{"quoted line", "> /pact accept T1", nil},
		{"inside a code fence", "```\n/pact accept T1\n```", nil},
		{"prefix of another word", "/pactify accept T1", nil},
		{"bare /pact is help", "/pact", []Command{{Verb: verbHelp}}},
		{"unknown word", "/pact approve T1", []Command{{Verb: verbHelp, Problem: "`approve` is not a /pact command."}}},
		{"accept without task", "/pact accept", []Command{{Verb: verbHelp, Problem: "`/pact accept` takes exactly one task id."}}},
		{"changes without reason", "/pact changes T1", []Command{{Verb: verbHelp, Problem: "`/pact changes` needs a task id and a reason."}}},
		{"case of the verb", "/pact ACCEPT T1", []Command{{Verb: VerbAccept, Task: "T1"}}},
		// What GitHub does not render as a paragraph's plain text is not a
		// command (CommonMark + GFM, as GitHub renders comments).
		{"HTML comment", "<!--\n/pact accept T1\n-->", nil},
		{"HTML comment after text", "ok <!--\n/pact accept T1\n-->", nil},
		{"one-line HTML comment", "<!-- /pact accept T1 -->", nil},
		{"indented code block", "text\n\n    /pact accept T1", nil},
		{"fence closed by an indented fence", "```\n/pact accept T1\n   ```\n/pact accept T2", []Command{{Verb: VerbAccept, Task: "T2"}}},
		{"fence not closed by a shorter fence", "````\n```\n/pact accept T1\n````", nil},
		{"tilde fence", "~~~\n/pact accept T1\n~~~", nil},
		{"unclosed fence runs to the end", "```\n/pact accept T1", nil},
		{"lazy blockquote continuation", "> quoted\n/pact accept T1", nil},
		{"blockquote then a paragraph", "> quoted\n\n/pact accept T1", []Command{{Verb: VerbAccept, Task: "T1"}}},
		{"list item", "- /pact accept T1", nil},
		{"setext heading", "/pact accept T1\n---", nil},
		{"ATX heading", "# /pact accept T1", nil},
		{"HTML block", "<details>\n/pact accept T1\n</details>", nil},
		{"inline code", "`/pact accept T1`", nil},
		{"code span in the line", "/pact accept `T1`", nil},
		{"emphasis in the line", "/pact accept *T1*", nil},
		{"strikethrough", "~~/pact accept T1~~", nil},
		{"link in the line", "/pact accept [T1](https://example.com)", nil},
		{"a code span on the next line leaves this one", "/pact accept T1\n`x` y", []Command{{Verb: VerbAccept, Task: "T1"}}},
		{"a code span on the previous line leaves this one", "`x` y\n/pact accept T1", []Command{{Verb: VerbAccept, Task: "T1"}}},
		{"table", "| a |\n|---|\n| /pact accept T1 |", nil},
		{"three leading spaces are still a paragraph", "   /pact accept T1", []Command{{Verb: VerbAccept, Task: "T1"}}},
		{"hard line break", "/pact accept T1  \n/pact accept T2", []Command{{Verb: VerbAccept, Task: "T1"}, {Verb: VerbAccept, Task: "T2"}}},
		{"after a blank paragraph", "LGTM\n\n/pact accept T1", []Command{{Verb: VerbAccept, Task: "T1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ParseCommands(tt.body)
			if len(got) != len(tt.want) {
				t.Fatalf("ParseCommands(%q) = %+v, want %+v", tt.body, got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("command %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// reviewOn is Decide on a review by login of the head abc of branch.
func reviewOn(t *testing.T, branch, login, verdict, body string) Decision {
	t.Helper()
	r := ghfacts.Review{ID: 77, AuthorLogin: login, State: verdict, Body: body, URL: "https://github.com/o/r/pull/1#pullrequestreview-77", CommitID: "abc", SubmittedAt: submitted}
	return Decided(t, ReviewFacts("o/r", branch, r, seats(t), state(t)))
}

// commentOn is Decide on a comment by login made when head was the head
// of branch.
func commentOn(t *testing.T, cfg *config.Config, branch, head, login string, canWrite bool, body string) Decision {
	t.Helper()
	c := ghfacts.Comment{ID: 5, AuthorLogin: login, Body: body, URL: "u", CreatedAt: submitted, UpdatedAt: submitted}
	return Decided(t, CommentFacts("o/r", branch, head, c, canWrite, cfg, state(t)))
}

func TestDecideReview(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		login       string
		state       string
		body        string
		wantTasks   []string
		wantType    string
		wantReplies []string
	}{
		{"reviewer approves", "octocat", ghfacts.ReviewApproved, "", []string{"T1"}, projection.TypeAccept, nil},
		{"REST upper-case state", "octocat", "APPROVED", "", []string{"T1"}, projection.TypeAccept, nil},
		{"changes requested with body", "octocat", ghfacts.ReviewChangesRequested, "fix the bug", []string{"T1"}, projection.TypeChangesRequested, nil},
		{"commented does nothing", "octocat", ghfacts.ReviewCommented, "", nil, "", nil},
		{"dismissed does nothing", "octocat", ghfacts.ReviewDismissed, "", nil, "", nil},
		{"no seat is ignored quietly", "stranger", ghfacts.ReviewApproved, "", nil, "", nil},
		{"owner approving is refused", "hubot", ghfacts.ReviewApproved, "", nil, "", []string{"Rule 1", "`dev`, which owns task `T1`"}},
		{"owner holding the reviewer seat too is refused", "mallory", ghfacts.ReviewApproved, "", nil, "", []string{"Rule 1", "owns task `T2`", "even if it also holds the reviewer seat `rev2`"}},
		{"other reviewer of another task", "carol", ghfacts.ReviewApproved, "", []string{"T2"}, projection.TypeAccept, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plan := reviewOn(t, "feat/x", tt.login, tt.state, tt.body)
			var tasks []string
			for _, in := range plan.Intents {
				tasks = append(tasks, in.Draft.TaskID)
				if in.Draft.Type != tt.wantType {
					t.Errorf("type = %s, want %s", in.Draft.Type, tt.wantType)
				}
				if !in.Draft.TS.Equal(submitted) {
					t.Errorf("ts = %s, want the review's submitted_at", in.Draft.TS)
				}
			}
			if strings.Join(tasks, ",") != strings.Join(tt.wantTasks, ",") {
				t.Errorf("tasks = %v, want %v", tasks, tt.wantTasks)
			}
			all := strings.Join(plan.Replies, "\n")
			for _, w := range tt.wantReplies {
				if !strings.Contains(all, w) {
					t.Errorf("replies lack %q: %q", w, all)
				}
			}
			if len(tt.wantReplies) == 0 && len(plan.Replies) != 0 {
				t.Errorf("unexpected replies: %q", plan.Replies)
			}
		})
	}
}

func TestReviewEventIsDeterministicAndCarriesProvenance(t *testing.T) {
	t.Parallel()
	a := reviewOn(t, "feat/x", "octocat", ghfacts.ReviewApproved, "")
	b := reviewOn(t, "feat/x", "octocat", ghfacts.ReviewApproved, "")
	if a.Intents[0].Draft.EventID != b.Intents[0].Draft.EventID || len(a.Intents[0].Draft.EventID) != 32 {
		t.Fatalf("event ids %q and %q: want the same 128-bit hex for the same review", a.Intents[0].Draft.EventID, b.Intents[0].Draft.EventID)
	}
	line, err := projection.Encode(a.Intents[0].Draft)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		AgentID string `json:"agent_id"`
		Role    string `json:"role"`
		Payload struct {
			Commit string               `json:"commit"`
			GitHub projection.GitHubRef `json:"github"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatal(err)
	}
	if got.AgentID != "lead" || got.Role != "reviewer" || got.Payload.GitHub.ReviewID != 77 || got.Payload.GitHub.Login != "octocat" || got.Payload.Commit != "abc" {
		t.Errorf("event = %s", line)
	}
}

func TestChangesRequestedWithoutBodyLinksTheReview(t *testing.T) {
	t.Parallel()
	plan := reviewOn(t, "feat/x", "octocat", ghfacts.ReviewChangesRequested, "  ")
	p := plan.Intents[0].Draft.Payload.(projection.ChangesRequestedPayload)
	if !strings.Contains(p.Reason, "pullrequestreview-77") {
		t.Errorf("reason = %q, want a default that links the review", p.Reason)
	}
}

func TestReviewThatConcernsNoTaskExplainsTheBranch(t *testing.T) {
	t.Parallel()
	plan := reviewOn(t, "feat/y", "octocat", ghfacts.ReviewApproved, "") // T3 is in progress, not awaiting review
	if len(plan.Intents) != 0 || len(plan.Replies) != 1 || !strings.Contains(plan.Replies[0], "`T3`") || !strings.Contains(plan.Replies[0], "has not joined") && !strings.Contains(plan.Replies[0], "in progress") {
		t.Errorf("plan = %+v", plan)
	}
}

func TestDecideComment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		login       string
		canWrite    bool
		body        string
		wantTasks   []string
		wantReplies []string
		status      bool
		recheck     bool
	}{
		{"writer with the reviewer seat accepts", "octocat", true, "/pact accept T1", []string{"T1"}, nil, false, false},
		{"read-only user is refused", "octocat", false, "/pact accept T1", nil, []string{"needs write permission"}, false, false},
		{"owner is refused", "hubot", true, "/pact accept T1", nil, []string{"Rule 1", "owns task `T1`"}, false, false},
		{"wrong seat is refused", "carol", true, "/pact accept T1", nil, []string{"reviewed by seat `lead`", "holds `rev2`"}, false, false},
		{"no seat is refused", "stranger", true, "/pact changes T1 add tests", nil, []string{"holds no seat"}, false, false},
		{"unknown task", "octocat", true, "/pact accept T9", nil, []string{"no task `T9`"}, false, false},
		{"unknown command gets help", "octocat", true, "/pact merge F", nil, []string{"is not a /pact command", "/pact accept <task>"}, false, false},
		{"status and recheck", "octocat", true, "/pact status\n/pact recheck", nil, nil, true, true},
		{"recheck needs write", "octocat", false, "/pact recheck", nil, []string{"needs write permission"}, false, false},
		{"two commands run in order", "mallory", true, "/pact changes T2 nope\n/pact accept T1", nil, []string{"owns task `T2`", "reviewed by seat `lead`"}, false, false},
		{"a mention in a task id stays inert", "octocat", true, "/pact accept T9@org/team", nil, []string{"`T9@org/team`"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plan := commentOn(t, seats(t), "feat/x", "abc", tt.login, tt.canWrite, tt.body)
			var tasks []string
			for _, in := range plan.Intents {
				tasks = append(tasks, in.Draft.TaskID)
			}
			if strings.Join(tasks, ",") != strings.Join(tt.wantTasks, ",") {
				t.Errorf("tasks = %v, want %v", tasks, tt.wantTasks)
			}
			all := strings.Join(plan.Replies, "\n")
			for _, w := range tt.wantReplies {
				if !strings.Contains(all, w) {
					t.Errorf("replies lack %q: %q", w, all)
				}
			}
			if plan.Status != tt.status || plan.Recheck != tt.recheck {
				t.Errorf("status/recheck = %v/%v, want %v/%v", plan.Status, plan.Recheck, tt.status, tt.recheck)
			}
		})
	}
}

func TestPactifyCommandQuotesUserText(t *testing.T) {
	t.Parallel()
	in := Intent{Draft: projection.Draft{AgentID: "lead", Type: projection.TypeChangesRequested, TaskID: "T1", Payload: projection.ChangesRequestedPayload{Reason: "it's $(rm -rf /)"}}}
	got := PactifyCommand(in)
	want := `PACT_AGENT_ID=lead pactify changes 'T1' --reason 'it'\''s $(rm -rf /)'`
	if got != want {
		t.Errorf("PactifyCommand = %s, want %s", got, want)
	}
}

func FuzzParseCommands(f *testing.F) {
	for _, s := range []string{"/pact accept T1", "/pact changes T1 why\n/pact status", "```\n/pact\n```", "/pact \t", "\r\n/pact help"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, c := range ParseCommands(body) {
			switch c.Verb {
			case VerbAccept, VerbChanges:
				if c.Task == "" {
					t.Fatalf("%s without a task from %q", c.Verb, body)
				}
			case verbStatus, verbRecheck, verbHelp:
			default:
				t.Fatalf("unknown verb %q from %q", c.Verb, body)
			}
		}
	})
}

// Everything a reply quotes from a comment stays inert: rendered the way
// GitHub renders comments, a reply holds no link, image, autolink or HTML,
// and @ or # never starts a mention or reference except the @login of the
// commenter the bot answers.
func assertInert(t *testing.T, reply, login string) {
	t.Helper()
	src := []byte(reply)
	doc := markdown.Parser().Parse(text.NewReader(src))
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindCodeSpan:
			return ast.WalkSkipChildren, nil // GitHub links nothing in code
		case ast.KindLink, ast.KindImage, ast.KindAutoLink, ast.KindRawHTML:
			return ast.WalkStop, fmt.Errorf("a live %s", n.Kind())
		case ast.KindHTMLBlock:
			if n.(*ast.HTMLBlock).HTMLBlockType != ast.HTMLBlockType2 { // the marker comment
				return ast.WalkStop, fmt.Errorf("a live HTML block")
			}
		case ast.KindText:
			// GitHub turns @name and #123 in text (not in code) into
			// mentions and references.
			txt := string(n.(*ast.Text).Segment.Value(src))
			for i := 0; i < len(txt); i++ {
				if txt[i] != '@' && txt[i] != '#' {
					continue
				}
				rest := txt[i+1:]
				if rest == "" || rest[0] != '_' && (rest[0] < 'a' || rest[0] > 'z') && (rest[0] < 'A' || rest[0] > 'Z') && (rest[0] < '0' || rest[0] > '9') {
					continue
				}
				if txt[i] == '@' && strings.HasPrefix(rest, report.Escape(login)) {
					continue
				}
				return ast.WalkStop, fmt.Errorf("a live %q in %q", txt[i:min(len(txt), i+20)], txt)
			}
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Errorf("reply is not inert (%v):\n%s", err, reply)
	}
}

func TestRepliesAreInert(t *testing.T) {
	t.Parallel()
	hostile := []string{
		"/pact x`@org/team`![p](//ev.il/p.png)",
		"/pact accept x`@org/team`![p](//ev.il/p.png)",
		"/pact changes T1 `x` @org/team ![p](//ev.il/p.png) <img src=x> #12",
		"/pact accept <b>@admin</b>",
		"/pact status\n/pact ```@org/team```",
		"/pact accept T9@org/team",
		"/pact accept [a](javascript:alert(1))",
		"/pact accept https://ev.il/x.png",
		"/pact accept www.ev.il",
		"/pact help me #1 @all",
	}
	for _, body := range hostile {
		for _, login := range []string{"octocat", "stranger", "hubot"} {
			for _, r := range commentOn(t, seats(t), "feat/x", "abc", login, true, body).Replies {
				assertInert(t, r, login)
			}
		}
	}
}

// githubLogin is the shape of a GitHub login (schemas/pact-config.schema.json).
var githubLogin = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(\[bot\])?$`)

func FuzzRepliesAreInert(f *testing.F) {
	for _, s := range []string{"/pact x`@org/team`![p](//ev.il/p.png)", "/pact accept <img src=x>", "/pact changes T1 ```\n@a"} {
		f.Add(s, "octocat")
	}
	f.Fuzz(func(t *testing.T, body, login string) {
		if !githubLogin.MatchString(login) {
			return // GitHub sends only real logins
		}
		for _, r := range commentOn(t, seats(t), "feat/x", "abc", login, true, body).Replies {
			assertInert(t, r, login)
		}
	})
}

func TestCommandsOfOneCommentShareItsTime(t *testing.T) {
	t.Parallel()
	body := "/pact accept T1\n/pact accept T2"
	cfg := seats(t)
	cfg.Seats["lead"] = append(cfg.Seats["lead"], "carol")
	plan := commentOn(t, cfg, "feat/x", "abc", "carol", true, body)
	if len(plan.Intents) != 2 {
		t.Fatalf("plan = %+v", plan)
	}
	a, b := plan.Intents[0].Draft, plan.Intents[1].Draft
	if !a.TS.Equal(submitted) || !b.TS.Equal(submitted) || a.EventID == b.EventID {
		t.Errorf("ts %s and %s (want both the comment's), ids %s and %s (want distinct)", a.TS, b.TS, a.EventID, b.EventID)
	}
	if p := plan.Intents[0].Draft.Payload.(projection.AcceptPayload); p.Commit != "abc" || p.GitHub.HeadSHA != "abc" || !plan.Intents[0].FromComment {
		t.Errorf("a comment-backed accept records the head when the comment was made: %+v", p)
	}
}

func TestCommentOnATaskNotAwaitingReviewIsRefused(t *testing.T) {
	t.Parallel()
	body := "/pact accept T3" // T3 is in progress, never checkpointed
	plan := commentOn(t, seats(t), "feat/y", "abcdef0123456789", "octocat", true, body)
	if len(plan.Intents) != 0 || len(plan.Replies) != 1 || !strings.Contains(plan.Replies[0], "was not awaiting review at commit `abcdef012345`") {
		t.Errorf("plan = %+v", plan)
	}
}
