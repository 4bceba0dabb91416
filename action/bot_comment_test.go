package action_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/bot"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// Bot mode on /pact commands in pull request comments.

func TestBotSlashAcceptByWriter(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, id := b.comment(t, "revuser", "Looks good to me.\n/pact accept T1\n", "MEMBER")

	out := b.run(t, "issue_comment", payload).botDone(t)

	commits := b.newCommits(t)
	if len(commits) != 1 {
		t.Fatalf("new commits = %d, want 1", len(commits))
	}
	_, evs := appended(t, b.s, b.headSHA, commits[0].SHA)
	if len(evs) != 1 {
		t.Fatalf("appended %d events", len(evs))
	}
	ev := evs[0]
	if ev.EventID != bot.EventID(repoFull, "issue_comment#0", id, "T1") || ev.TS != commentTS || ev.AgentID != "rev" ||
		ev.Role != "reviewer" || ev.EventType != "accept" || ev.TaskID != "T1" || ev.Feature != "LOGIN" || ev.Payload.Commit != b.headSHA {
		t.Errorf("appended event = %+v", ev)
	}
	if g := ev.Payload.GitHub; g == nil || g.CommentID != id || g.ReviewID != 0 || g.Login != "revuser" || g.HeadSHA != b.headSHA ||
		!strings.HasSuffix(g.URL, fmt.Sprintf("#issuecomment-%d", id)) {
		t.Errorf("payload.github = %+v", g)
	}
	stateReplays(t, b.s, commits[0].SHA)
	b.assertOnlyPactChanged(t, commits[0].SHA)
	checkPosted(t, out.Check, onlyRun(t, b.s, commits[0].SHA, "pact", report.ConclusionSuccess))
	if out.NewHead != commits[0].SHA || len(out.Appended) != 1 {
		t.Errorf("outcome: new head %s, appended %q", out.NewHead, out.Appended)
	}
	if got := b.reactions(id); !slices.Equal(got, []string{botAccount + ":+1"}) {
		t.Errorf("reactions = %q, want the bot's +1", got)
	}
	if r := b.replies(t); len(r) != 0 {
		t.Errorf("replies: %q", r)
	}
	if n := countOp(b.s, "repos/get-collaborator-permission-level"); n != 1 {
		t.Errorf("permission endpoint asked %d times, want 1 (author_association MEMBER grants nothing by itself)", n)
	}
	noViolations(t, b.s)
}

func TestBotSameCommentTwiceAppendsOnce(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, id := b.comment(t, "revuser", "/pact accept T1", "MEMBER")

	b.run(t, "issue_comment", payload).botDone(t)
	first := b.head()
	b.run(t, "issue_comment", payload).botDone(t)

	if h := b.head(); h != first {
		t.Errorf("the redelivery moved the branch")
	}
	if commits := b.newCommits(t); len(commits) != 1 {
		t.Errorf("new commits = %d, want 1", len(commits))
	}
	if _, evs := appended(t, b.s, b.headSHA, b.head()); len(evs) != 1 {
		t.Errorf("appended = %+v, want one accept", evs)
	}
	// Already recorded is not a failure: no "confused" reaction.
	if got := b.reactions(id); !slices.Equal(got, []string{botAccount + ":+1"}) {
		t.Errorf("reactions = %q, want only the bot's +1", got)
	}
	if r := b.replies(t); len(r) != 0 {
		t.Errorf("replies: %q", r)
	}
	noViolations(t, b.s)
}

func TestBotCommandRefusedByReplayOfCurrentLog(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	// Its reviewer approves and, a little later, also types the command;
	// the approval is recorded first. At the comment's head T1 awaited
	// review, so the bot plans the accept, and the engine refuses it
	// against the branch's current log.
	review, _ := b.review(t, "revuser", "approved", nil)
	payload, id := b.comment(t, "revuser", "/pact accept T1", "MEMBER")
	b.run(t, "pull_request_review", review).botDone(t)
	accepted := b.head()
	writes := gitWrites(b.s)

	b.run(t, "issue_comment", payload).botDone(t)

	if h := b.head(); h != accepted || gitWrites(b.s) != writes {
		t.Errorf("a refused command wrote to the branch")
	}
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q, want one refusal", r)
	}
	contains(t, "refusal", r[0], "refused", "accept T1", "state.invalid_transition", "Nothing was recorded")
	if got := b.reactions(id); !slices.Equal(got, []string{botAccount + ":confused"}) {
		t.Errorf("reactions = %q, want the bot's confused", got)
	}
	if runs := b.s.CheckRuns(accepted); len(runs) != 1 {
		t.Errorf("check runs on the head = %d, want only the approval's", len(runs))
	}
	noViolations(t, b.s)

	// Typed once more now that T1 is accepted at the head: the bot plans
	// against the log when the comment was made, and refuses there.
	again, againID := b.commentAt(t, "2026-06-10T13:30:00Z", "revuser", "/pact accept T1", "MEMBER")
	b.run(t, "issue_comment", again).botDone(t)
	r = b.replies(t)
	if len(r) != 2 {
		t.Fatalf("replies = %q, want a second refusal", r)
	}
	contains(t, "refusal", r[1], "T1", "was not awaiting review at commit", "nothing was recorded")
	if got := b.reactions(againID); !slices.Equal(got, []string{botAccount + ":confused"}) {
		t.Errorf("reactions = %q, want the bot's confused", got)
	}
}

func TestBotSlashChangesInReviewComment(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, id := b.reviewComment(t, "revuser", "/pact changes T1 the error path returns nil, please return the error")

	b.run(t, "pull_request_review_comment", payload).botDone(t)

	commits := b.newCommits(t)
	if len(commits) != 1 {
		t.Fatalf("new commits = %d, want 1", len(commits))
	}
	_, evs := appended(t, b.s, b.headSHA, commits[0].SHA)
	if len(evs) != 1 || evs[0].EventType != "changes_requested" || evs[0].Payload.Reason == nil ||
		*evs[0].Payload.Reason != "the error path returns nil, please return the error" || evs[0].AgentID != "rev" || evs[0].TS != commentTS {
		t.Fatalf("appended = %+v", evs)
	}
	stateReplays(t, b.s, commits[0].SHA)
	onlyRun(t, b.s, commits[0].SHA, "pact", report.ConclusionWaiting)
	if c, ok := b.s.ReviewComment(id); !ok || !slices.Equal(c.Reactions, []string{botAccount + ":+1"}) {
		t.Errorf("review comment reactions = %+v", c.Reactions)
	}
	noViolations(t, b.s)
}

func TestBotSlashCommandByReadOnlyUser(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, association string
		askEndpoint       int
	}{
		// author_association never grants: the endpoint says read.
		{"association OWNER", "OWNER", 1},
		{"association CONTRIBUTOR", "CONTRIBUTOR", 1},
		// A read-only association refuses at once.
		{"association NONE", "NONE", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{seatMap: "seats:\n  lead: [leaduser]\n  dev: [devuser]\n  rev: [reader]\n"})
			payload, id := b.comment(t, "reader", "/pact accept T1", tc.association)

			b.run(t, "issue_comment", payload).botDone(t)

			b.assertNothingWritten(t)
			r := b.replies(t)
			if len(r) != 1 {
				t.Fatalf("replies = %q, want one", r)
			}
			contains(t, "refusal", r[0], "@reader", "write permission", "`/pact accept`", "nothing was recorded")
			if got := b.reactions(id); len(got) != 0 {
				t.Errorf("reactions on a refused command: %q", got)
			}
			if n := countOp(b.s, "repos/get-collaborator-permission-level"); n != tc.askEndpoint {
				t.Errorf("permission endpoint asked %d times, want %d", n, tc.askEndpoint)
			}
			noViolations(t, b.s)
		})
	}
}

func TestBotSlashCommandRule1Refusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, login, body string
		want              []string
	}{
		{"owner accepts", "devuser", "/pact accept T1", []string{"Rule 1", "no self-acceptance", "`T1`", "`dev`", "`rev`", "Nothing was recorded"}},
		{"owner requests changes", "devuser", "/pact changes T1 meh", []string{"Rule 1", "request changes on", "`T1`", "`dev`"}},
		{"another seat's holder", "leaduser", "/pact accept T1", []string{"Rule 1", "only the reviewer", "`T1`", "seat `rev`", "holds `lead`", "/pact accept T1"}},
		{"no seat at all", "mallory", "/pact accept T1", []string{"Rule 1", "`T1`", "seat `rev`", "@mallory holds no seat"}},
		{"unknown task", "revuser", "/pact accept T9", []string{"no task `T9`", "nothing was recorded", "`T1`"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{})
			payload, id := b.comment(t, tc.login, tc.body, "COLLABORATOR")

			b.run(t, "issue_comment", payload).botDone(t)

			b.assertNothingWritten(t)
			r := b.replies(t)
			if len(r) != 1 {
				t.Fatalf("replies = %q, want one", r)
			}
			contains(t, "refusal", r[0], tc.want...)
			if got := b.reactions(id); len(got) != 0 {
				t.Errorf("reactions on a refused command: %q", got)
			}
			noViolations(t, b.s)
		})
	}
}

func TestBotSeveralCommandsInOneComment(t *testing.T) {
	t.Parallel()
	// revuser holds rev (T1's reviewer) and lead (T2's reviewer).
	b := newBotScenario(t, botOpts{twoTasks: true, seatMap: "seats:\n  lead: [leaduser, revuser]\n  dev: [devuser]\n  rev: [revuser]\n"})
	body := "Two things:\r\n\r\n/pact accept T1\r\n  /pact changes T2 needs a test for the expired token\r\n/pact status\r\nthanks"
	payload, id := b.comment(t, "revuser", body, "MEMBER")

	b.run(t, "issue_comment", payload).botDone(t)

	commits := b.newCommits(t)
	if len(commits) != 1 {
		t.Fatalf("new commits = %d, want one commit holding both events", len(commits))
	}
	newHead := commits[0].SHA
	_, evs := appended(t, b.s, b.headSHA, newHead)
	if len(evs) != 2 {
		t.Fatalf("appended %d events, want 2: %+v", len(evs), evs)
	}
	if e := evs[0]; e.EventType != "accept" || e.TaskID != "T1" || e.AgentID != "rev" || e.TS != commentTS ||
		e.EventID != bot.EventID(repoFull, "issue_comment#0", id, "T1") {
		t.Errorf("first event = %+v", e)
	}
	if e := evs[1]; e.EventType != "changes_requested" || e.TaskID != "T2" || e.AgentID != "lead" || e.Role != "reviewer" ||
		e.TS != commentTS || e.EventID != bot.EventID(repoFull, "issue_comment#1", id, "T2") ||
		e.Payload.Reason == nil || *e.Payload.Reason != "needs a test for the expired token" {
		t.Errorf("second event = %+v", e)
	}
	if evs[0].EventID == evs[1].EventID {
		t.Errorf("both events share event_id %s", evs[0].EventID)
	}
	st := stateReplays(t, b.s, newHead)
	if taskStatus(st, "T1") != projection.StatusAccepted || taskStatus(st, "T2") != projection.StatusInProgress {
		t.Errorf("T1 %s, T2 %s", taskStatus(st, "T1"), taskStatus(st, "T2"))
	}
	onlyRun(t, b.s, newHead, "pact", report.ConclusionWaiting)
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q, want the status table", r)
	}
	// The status is the pact after this comment's own commands.
	contains(t, "status reply", r[0], "pact status for `feat/login`", "T1", "T2", "waiting")
	if !strings.Contains(r[0], "| T1 | ✅ accepted |") || !strings.Contains(r[0], "| T2 | in_progress (1 change round(s)) |") {
		t.Errorf("the status reply does not show this comment's own events (judged before the write?):\n%s", r[0])
	}
	if got := b.reactions(id); !slices.Equal(got, []string{botAccount + ":+1"}) {
		t.Errorf("reactions = %q", got)
	}
	noViolations(t, b.s)
}

func TestBotStatusRecheckAndHelp(t *testing.T) {
	t.Parallel()
	t.Run("status", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{})
		// Reading the status needs no write permission.
		payload, id := b.comment(t, "reader", "/pact status", "NONE")
		b.run(t, "issue_comment", payload).botDone(t)
		b.assertNothingWritten(t)
		r := b.replies(t)
		if len(r) != 1 {
			t.Fatalf("replies = %q", r)
		}
		contains(t, "status", r[0], "pact status for `feat/login`", "waiting", "T1", "awaiting")
		if got := b.reactions(id); !slices.Equal(got, []string{botAccount + ":+1"}) {
			t.Errorf("reactions = %q", got)
		}
		if n := countOp(b.s, "repos/get-collaborator-permission-level"); n != 0 {
			t.Errorf("status asked for permissions %d times", n)
		}
		noViolations(t, b.s)
	})
	t.Run("recheck by a writer", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{})
		payload, id := b.comment(t, "devuser", "/pact recheck", "CONTRIBUTOR")
		b.run(t, "issue_comment", payload).botDone(t)
		if h := b.head(); h != b.headSHA || gitWrites(b.s) != 0 {
			t.Errorf("recheck wrote to the branch")
		}
		onlyRun(t, b.s, b.headSHA, "pact", report.ConclusionWaiting)
		if got := b.reactions(id); !slices.Equal(got, []string{botAccount + ":+1"}) {
			t.Errorf("reactions = %q", got)
		}
		if r := b.replies(t); len(r) != 0 {
			t.Errorf("replies: %q", r)
		}
		noViolations(t, b.s)
	})
	t.Run("recheck by a read-only user", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{})
		payload, _ := b.comment(t, "reader", "/pact recheck", "CONTRIBUTOR")
		b.run(t, "issue_comment", payload).botDone(t)
		b.assertNothingWritten(t)
		r := b.replies(t)
		if len(r) != 1 {
			t.Fatalf("replies = %q", r)
		}
		contains(t, "refusal", r[0], "write permission", "`/pact recheck`")
		noViolations(t, b.s)
	})
	t.Run("help", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{})
		payload, id := b.comment(t, "mallory", "/pact help", "NONE")
		b.run(t, "issue_comment", payload).botDone(t)
		b.assertNothingWritten(t)
		if r := b.replies(t); len(r) != 1 || r[0] != bot.HelpText {
			t.Errorf("replies = %q, want the help text", r)
		}
		if got := b.reactions(id); !slices.Equal(got, []string{botAccount + ":+1"}) {
			t.Errorf("reactions = %q", got)
		}
		noViolations(t, b.s)
	})
}

func TestBotMalformedAndUnknownCommandsGetHelp(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	body := "/pact acept T1\n/pact accept\n/pact changes T1\n/pact status please\n/PACT frobnicate"
	payload, _ := b.comment(t, "revuser", body, "MEMBER")

	b.run(t, "issue_comment", payload).botDone(t)

	b.assertNothingWritten(t)
	r := b.replies(t)
	want := []string{
		"`acept` is not a /pact command.",
		"`/pact accept` takes exactly one task id.",
		"`/pact changes` needs a task id and a reason.",
		"`/pact status` takes no arguments.",
	}
	if len(r) != len(want) {
		t.Fatalf("replies = %q, want %d help replies", r, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(r[i], "❓ "+w) || !strings.HasSuffix(r[i], bot.HelpText) {
			t.Errorf("reply %d = %q, want %q then the help text", i, r[i], w)
		}
	}
	if n := countOp(b.s, "repos/get-collaborator-permission-level"); n != 0 {
		t.Errorf("permission endpoint asked %d times for commands that cannot run", n)
	}
	noViolations(t, b.s)
}

func TestBotIgnoresWhatIsNotACommand(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		"Please /pact accept T1 when you can.",
		"/pactaccept T1",
		"```\n/pact accept T1\n```",
		"> /pact accept T1",
	} {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{})
			payload, id := b.comment(t, "revuser", body, "MEMBER")
			out := b.run(t, "issue_comment", payload).botDone(t)
			b.assertNothingWritten(t)
			if r := b.replies(t); len(r) != 0 {
				t.Errorf("replies: %q", r)
			}
			if got := b.reactions(id); len(got) != 0 {
				t.Errorf("reactions: %q", got)
			}
			if out.Ignored == "" {
				t.Error("not ignored")
			}
			noViolations(t, b.s)
		})
	}
}

func TestBotIgnoresCommentsOnPlainIssues(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload := e2e.Payload(t, "issue_comment/created.payload.json", map[string]any{
		"comment.body": "/pact accept T1", "comment.user.login": "revuser", "comment.author_association": "MEMBER",
		"repository.full_name": repoFull, "repository.name": e2e.Repo, "sender.login": "revuser",
	})

	out := b.run(t, "issue_comment", payload).botDone(t)

	b.assertNothingWritten(t)
	if n := len(b.s.Requests()); n != 0 {
		t.Errorf("%d API requests for a comment on an issue: %+v", n, b.s.Requests())
	}
	contains(t, "why it is ignored", out.Ignored, "not a pull request")
	noViolations(t, b.s)
}

func TestBotIgnoresItsOwnAccount(t *testing.T) {
	t.Parallel()
	t.Run("github-actions[bot]", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{})
		payload, _ := b.comment(t, botAccount, "/pact accept T1", "NONE")
		out := b.run(t, "issue_comment", payload).botDone(t)
		b.assertNothingWritten(t)
		if n := len(b.s.Requests()); n != 0 {
			t.Errorf("%d API requests for the bot's own comment", n)
		}
		contains(t, "why it is ignored", out.Ignored, "bot's own")
		noViolations(t, b.s)
	})
	t.Run("a reply carrying the marker", func(t *testing.T) {
		t.Parallel()
		// An app token posts as another account; the marker still stops a loop.
		b := newBotScenario(t, botOpts{})
		payload, _ := b.comment(t, "pact-app[bot]", "/pact help\n\n"+replyMarker, "NONE")
		out := b.run(t, "issue_comment", payload).botDone(t)
		b.assertNothingWritten(t)
		if r := b.replies(t); len(r) != 0 {
			t.Errorf("replies: %q", r)
		}
		contains(t, "why it is ignored", out.Ignored, "bot's own")
		noViolations(t, b.s)
	})
}

func TestBotConfigWithUnknownKeyIsAnError(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{seatMap: "seats:\n  rev: [revuser]\nreviewers: [revuser]\n"})
	payload, _ := b.comment(t, "revuser", "/pact accept T1", "MEMBER")

	err := b.run(t, "issue_comment", payload).failed(t)

	contains(t, "error", err.Error(), ".github/pact.yml", "main", "reviewers")
	b.assertNothingWritten(t)
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q", r)
	}
	contains(t, "reply", r[0], ".github/pact.yml", "main", "reviewers", "Nothing was recorded")
	noViolations(t, b.s)
}
