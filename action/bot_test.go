package action_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-action/pact-action/bot"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/report"
)

// Bot mode on reviews: an approval or a request for changes by the
// holder of a task's reviewer seat becomes an event on the branch (see
// newBotScenario for the repository every test starts from).

func TestBotApproveByReviewerRecordsAcceptAndChecksNewHead(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, id := b.review(t, "revuser", "approved", "LGTM")

	out := b.run(t, "pull_request_review", payload).botDone(t)

	commits := b.newCommits(t)
	if len(commits) != 1 {
		t.Fatalf("new commits on %s = %d, want exactly 1", b.branch, len(commits))
	}
	c := commits[0]
	if c.AuthorLogin != botAccount || !c.Verified {
		t.Errorf("commit author %q verified %v, want the workflow token's account and a GitHub-signed commit", c.AuthorLogin, c.Verified)
	}
	if !strings.HasPrefix(c.Message, "pact: accept T1") {
		t.Errorf("commit message %q", c.Message)
	}
	lines, evs := appended(t, b.s, b.headSHA, c.SHA)
	if len(evs) != 1 {
		t.Fatalf("appended %d lines, want 1: %q", len(evs), lines)
	}
	ev := evs[0]
	wantID := bot.EventID(repoFull, "review", id, "T1")
	if ev.EventID != wantID || len(ev.EventID) != 32 {
		t.Errorf("event_id = %q, want %q (derived from the review)", ev.EventID, wantID)
	}
	if ev.TS != reviewTS || ev.AgentID != "rev" || ev.Role != "reviewer" || ev.EventType != "accept" || ev.TaskID != "T1" || ev.Feature != "LOGIN" {
		t.Errorf("appended event = %+v", ev)
	}
	if ev.Payload.Commit != b.headSHA {
		t.Errorf("payload.commit = %q, want the reviewed head %s", ev.Payload.Commit, b.headSHA)
	}
	g := ev.Payload.GitHub
	if g == nil || g.ReviewID != id || g.CommentID != 0 || g.URL != reviewURL(b.pr, id) || g.Login != "revuser" || g.HeadSHA != b.headSHA {
		t.Errorf("payload.github = %+v", g)
	}
	st := stateReplays(t, b.s, c.SHA)
	if got := taskStatus(st, "T1"); got != projection.StatusAccepted {
		t.Errorf("T1 is %s after the approval", got)
	}
	b.assertOnlyPactChanged(t, c.SHA)

	run := onlyRun(t, b.s, c.SHA, "pact", report.ConclusionSuccess)
	checkPosted(t, out.Check, run)
	if run.DetailsURL == "" {
		t.Errorf("check run without details URL")
	}
	if runs := b.s.CheckRuns(b.headSHA); len(runs) != 0 {
		t.Errorf("the bot posted on the old head too: %+v", runs)
	}
	if r := b.replies(t); len(r) != 0 {
		t.Errorf("replies to a recorded approval: %q", r)
	}
	if out.NewHead != c.SHA || len(out.Appended) != 1 || !strings.HasPrefix(out.Appended[0], "accept T1") {
		t.Errorf("outcome: new head %s, appended %q; want %s and the accept of T1", out.NewHead, out.Appended, c.SHA)
	}
	noViolations(t, b.s)
}

func TestBotReviewStateIsCaseInsensitiveAndSeatsHaveSeveralLogins(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	// The REST spelling, from the seat's second account (an app).
	payload, id := b.review(t, "rev-agent[bot]", "APPROVED", nil)

	b.run(t, "pull_request_review", payload).botDone(t)

	commits := b.newCommits(t)
	if len(commits) != 1 {
		t.Fatalf("new commits = %d, want 1", len(commits))
	}
	_, evs := appended(t, b.s, b.headSHA, commits[0].SHA)
	if len(evs) != 1 || evs[0].EventType != "accept" || evs[0].AgentID != "rev" || evs[0].Payload.GitHub == nil ||
		evs[0].Payload.GitHub.Login != "rev-agent[bot]" || evs[0].EventID != bot.EventID(repoFull, "review", id, "T1") {
		t.Errorf("appended = %+v", evs)
	}
	onlyRun(t, b.s, commits[0].SHA, "pact", report.ConclusionSuccess)
	noViolations(t, b.s)
}

func TestBotSameDeliveryTwiceAppendsOnce(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, id := b.review(t, "revuser", "approved", nil)

	b.run(t, "pull_request_review", payload).botDone(t)
	first := b.head()
	writes := gitWrites(b.s)
	// GitHub redelivers the webhook (or the job is re-run): same payload.
	out := b.run(t, "pull_request_review", payload).botDone(t)

	if h := b.head(); h != first {
		t.Errorf("the redelivery moved the branch from %s to %s", first, h)
	}
	if n := gitWrites(b.s); n != writes {
		t.Errorf("the redelivery made %d Git writes", n-writes)
	}
	commits := b.newCommits(t)
	if len(commits) != 1 {
		t.Fatalf("new commits = %d, want 1", len(commits))
	}
	_, evs := appended(t, b.s, b.headSHA, b.head())
	if len(evs) != 1 || evs[0].EventID != bot.EventID(repoFull, "review", id, "T1") {
		t.Errorf("appended after two deliveries = %+v, want the one accept", evs)
	}
	logText, _ := b.s.FileAt(b.head(), logPath)
	if n := strings.Count(logText, evs[0].EventID); n != 1 {
		t.Errorf("event_id appears %d times in the log", n)
	}
	if r := b.replies(t); len(r) != 0 {
		t.Errorf("replies: %q", r)
	}
	if out.Ignored != "" || out.NewHead != "" || len(out.Appended) != 0 {
		t.Errorf("the redelivery: ignored %q, new head %q, appended %q; want nothing recorded", out.Ignored, out.NewHead, out.Appended)
	}
	onlyRun(t, b.s, first, "pact", report.ConclusionSuccess)
	noViolations(t, b.s)
}

func TestBotApproveByOwnerIsRefused(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, _ := b.review(t, "devuser", "approved", "self-review, looks fine")

	b.run(t, "pull_request_review", payload).botDone(t)

	b.assertNothingWritten(t)
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q, want one refusal", r)
	}
	contains(t, "refusal", r[0], "Rule 1", "no self-acceptance", "@devuser", "`dev`", "`T1`", "`rev`", "Nothing was recorded",
		"Ask an account that holds `rev` and not `dev`", ".github/pact.yml")
	noViolations(t, b.s)
}

func TestBotApproveByOwnerHoldingReviewerSeatTooIsRefused(t *testing.T) {
	t.Parallel()
	// devuser holds both seats of T1: Rule 1 still refuses.
	b := newBotScenario(t, botOpts{seatMap: "seats:\n  lead: [leaduser]\n  dev: [devuser]\n  rev: [revuser, devuser]\n"})
	payload, _ := b.review(t, "devuser", "approved", nil)

	b.run(t, "pull_request_review", payload).botDone(t)

	b.assertNothingWritten(t)
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q, want one refusal", r)
	}
	contains(t, "refusal", r[0], "Rule 1", "owns task `T1`", "`dev`", "even if it also holds the reviewer seat `rev`")
	noViolations(t, b.s)
}

func TestBotChangesRequested(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		body any
	}{
		{"with body", "Please handle the expired-token case.\n\nAnd add a test."},
		{"without body", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{})
			payload, id := b.review(t, "revuser", "changes_requested", tc.body)

			b.run(t, "pull_request_review", payload).botDone(t)

			commits := b.newCommits(t)
			if len(commits) != 1 {
				t.Fatalf("new commits = %d, want 1", len(commits))
			}
			_, evs := appended(t, b.s, b.headSHA, commits[0].SHA)
			if len(evs) != 1 {
				t.Fatalf("appended %d events", len(evs))
			}
			ev := evs[0]
			if ev.EventType != "changes_requested" || ev.AgentID != "rev" || ev.Role != "reviewer" || ev.TaskID != "T1" ||
				ev.TS != reviewTS || ev.EventID != bot.EventID(repoFull, "review", id, "T1") {
				t.Errorf("appended event = %+v", ev)
			}
			if ev.Payload.Reason == nil {
				t.Fatalf("changes_requested without payload.reason")
			}
			if body, ok := tc.body.(string); ok {
				if *ev.Payload.Reason != body {
					t.Errorf("reason = %q, want the review body %q", *ev.Payload.Reason, body)
				}
			} else if !strings.Contains(*ev.Payload.Reason, reviewURL(b.pr, id)) {
				t.Errorf("default reason %q does not link the review", *ev.Payload.Reason)
			}
			if g := ev.Payload.GitHub; g == nil || g.ReviewID != id || g.Login != "revuser" || g.HeadSHA != b.headSHA {
				t.Errorf("payload.github = %+v", g)
			}
			st := stateReplays(t, b.s, commits[0].SHA)
			if got := taskStatus(st, "T1"); got != projection.StatusInProgress {
				t.Errorf("T1 is %s after changes were requested, want in_progress", got)
			}
			if task := st.Tasks["T1"]; task == nil || task.Rounds != 1 {
				t.Errorf("T1 after one round of changes: %+v", task)
			}
			// Waiting again: the check blocks the merge without failing.
			onlyRun(t, b.s, commits[0].SHA, "pact", report.ConclusionWaiting)
			if r := b.replies(t); len(r) != 0 {
				t.Errorf("replies: %q", r)
			}
			noViolations(t, b.s)
		})
	}
}

func TestBotReviewsThatRecordNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		payload func(t *testing.T, b *botScenario) []byte
	}{
		{"commented", func(t *testing.T, b *botScenario) []byte {
			p, _ := b.review(t, "revuser", "commented", "a question")
			return p
		}},
		{"commented upper case", func(t *testing.T, b *botScenario) []byte {
			p, _ := b.review(t, "revuser", "COMMENTED", "a question")
			return p
		}},
		{"approved by a reviewer with no seat", func(t *testing.T, b *botScenario) []byte {
			p, _ := b.review(t, "mallory", "approved", "drive-by LGTM")
			return p
		}},
		{"changes requested by a reviewer with no seat", func(t *testing.T, b *botScenario) []byte {
			p, _ := b.review(t, "mallory", "changes_requested", "no")
			return p
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{})
			out := b.run(t, "pull_request_review", tc.payload(t, b)).botDone(t)
			b.assertNothingWritten(t)
			if out.Ignored == "" {
				t.Errorf("not ignored: %+v", out)
			}
			if c := b.s.Comments(b.pr); len(c) != 0 {
				t.Errorf("comments: %+v", c)
			}
			noViolations(t, b.s)
		})
	}
}

// A dismissed review records nothing, but what backs the log changed (an
// accept that cited it no longer verifies), so the check is judged again on
// the head.
func TestBotDismissedReviewRejudgesTheHead(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	id := b.s.AddReview(b.pr, fakegithub.ReviewSeed{Login: "revuser", State: "DISMISSED"})
	edits := prEdits(b.s, b.pr, b.headOwner, b.branch, "main", "leaduser")
	edits["review.id"] = id
	edits["review.user.login"] = "revuser"
	edits["review.commit_id"] = b.headSHA
	edits["review.submitted_at"] = reviewTS
	out := b.run(t, "pull_request_review", e2e.Payload(t, "pull_request_review/dismissed.payload.json", edits)).botDone(t)
	if h := b.head(); h != b.headSHA || gitWrites(b.s) != 0 {
		t.Errorf("a dismissal wrote to the branch")
	}
	checkPosted(t, out.Check, onlyRun(t, b.s, b.headSHA, "pact", report.ConclusionWaiting))
	if c := b.s.Comments(b.pr); len(c) != 0 {
		t.Errorf("comments: %+v", c)
	}
	noViolations(t, b.s)
}

func TestBotSeatHolderWhoseReviewConcernsNoTaskGetsAShortReply(t *testing.T) {
	t.Parallel()
	// leaduser holds lead, but T1 is reviewed by rev.
	b := newBotScenario(t, botOpts{})
	payload, _ := b.review(t, "leaduser", "approved", nil)

	b.run(t, "pull_request_review", payload).botDone(t)

	b.assertNothingWritten(t)
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q, want one", r)
	}
	contains(t, "reply", r[0], "@leaduser", "`lead`", "feat/login", "recorded nothing", "`T1`", "LOGIN", "rev")
	noViolations(t, b.s)
}

func TestBotBaseBranchSeatMapWins(t *testing.T) {
	t.Parallel()
	// The PR rewrites .github/pact.yml so that its author, T1's owner, holds
	// the reviewer seat and nothing else. The bot must read main's file.
	headConfig := "seats:\n  lead: [leaduser]\n  dev: [someone-else]\n  rev: [devuser]\n"
	t.Run("review", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{headFiles: map[string]string{".github/pact.yml": headConfig}})
		if got, _ := b.s.FileAt(b.headSHA, ".github/pact.yml"); got != headConfig {
			t.Fatalf("fixture: the head does not carry the edited seat map")
		}
		payload, _ := b.review(t, "devuser", "approved", nil)
		b.run(t, "pull_request_review", payload).botDone(t)
		b.assertNothingWritten(t)
		r := b.replies(t)
		if len(r) != 1 {
			t.Fatalf("replies = %q, want one refusal", r)
		}
		contains(t, "refusal", r[0], "Rule 1", "`T1`", "`dev`")
		noViolations(t, b.s)
	})
	t.Run("command", func(t *testing.T) {
		t.Parallel()
		b := newBotScenario(t, botOpts{headFiles: map[string]string{".github/pact.yml": headConfig}})
		payload, id := b.comment(t, "devuser", "/pact accept T1", "CONTRIBUTOR")
		b.run(t, "issue_comment", payload).botDone(t)
		b.assertNothingWritten(t)
		r := b.replies(t)
		if len(r) != 1 {
			t.Fatalf("replies = %q, want one refusal", r)
		}
		contains(t, "refusal", r[0], "Rule 1", "`T1`", "`dev`")
		if got := b.reactions(id); len(got) != 0 {
			t.Errorf("a refused command got reactions %q", got)
		}
		noViolations(t, b.s)
	})
}

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

// Bot mode writing to the branch: races with other deliveries and pushes,
// bounded retries, and branches it cannot write (forks, read-only tokens).

func TestBotTwoDeliveriesRacingOnOneBranch(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{twoTasks: true})
	p1, id1 := b.review(t, "revuser", "approved", nil)  // accepts T1 (reviewer rev)
	p2, id2 := b.review(t, "leaduser", "approved", nil) // accepts T2 (reviewer lead)
	// Hold the first two ref updates until both runs have built their commit
	// on the same parent: exactly one wins, the other must re-read and retry.
	holdFirstRefUpdates(b.s, 2)

	var wg sync.WaitGroup
	results := make([]result, 2)
	for i, p := range [][]byte{p1, p2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = b.run(t, "pull_request_review", p)
		}()
	}
	wg.Wait()
	for _, res := range results {
		res.botDone(t)
	}

	if n := countOp(b.s, "git/update-ref"); n != 3 {
		t.Errorf("update-ref requests = %d, want 3 (two racing, one retry)", n)
	}
	commits := b.newCommits(t)
	if len(commits) != 2 {
		t.Fatalf("new commits = %d, want 2", len(commits))
	}
	_, evs := appended(t, b.s, b.headSHA, b.head())
	var ids []string
	for _, e := range evs {
		ids = append(ids, e.EventID)
	}
	slices.Sort(ids)
	want := []string{bot.EventID(repoFull, "review", id1, "T1"), bot.EventID(repoFull, "review", id2, "T2")}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Fatalf("events in the final log = %+v, want both accepts", evs)
	}
	st := stateReplays(t, b.s, b.head())
	if taskStatus(st, "T1") != projection.StatusAccepted || taskStatus(st, "T2") != projection.StatusAccepted {
		t.Errorf("T1 %s, T2 %s: an update was lost", taskStatus(st, "T1"), taskStatus(st, "T2"))
	}
	// Each run checked the head it wrote; the final one is mergeable.
	stateReplays(t, b.s, commits[0].SHA)
	onlyRun(t, b.s, commits[0].SHA, "pact", report.ConclusionWaiting)
	onlyRun(t, b.s, commits[1].SHA, "pact", report.ConclusionSuccess)
	noViolations(t, b.s)
}

// holdFirstRefUpdates makes the first n ref updates wait for each other, so
// n runs build their commits on the same parent before any of them lands.
func holdFirstRefUpdates(s *fakegithub.Server, n int) {
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	s.BeforeUpdateRef(func(owner, repo, ref string) {
		mu.Lock()
		arrived++
		k := arrived
		mu.Unlock()
		if k == n {
			close(all)
		}
		if k <= n {
			select {
			case <-all:
			case <-time.After(20 * time.Second):
			}
		}
	})
}

func TestBotSameDeliveryRacingItselfAppendsOnce(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, id := b.review(t, "revuser", "approved", nil)
	holdFirstRefUpdates(b.s, 2)

	var wg sync.WaitGroup
	results := make([]result, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = b.run(t, "pull_request_review", payload)
		}()
	}
	wg.Wait()
	for _, res := range results {
		res.botDone(t)
	}

	if n := countOp(b.s, "git/update-ref"); n != 2 {
		t.Errorf("update-ref requests = %d, want 2 (the loser re-reads and finds its event recorded)", n)
	}
	if commits := b.newCommits(t); len(commits) != 1 {
		t.Errorf("new commits = %d, want 1", len(commits))
	}
	if _, evs := appended(t, b.s, b.headSHA, b.head()); len(evs) != 1 || evs[0].EventID != bot.EventID(repoFull, "review", id, "T1") {
		t.Errorf("appended = %+v, want the one accept", evs)
	}
	stateReplays(t, b.s, b.head())
	// The loser finds its event written and, when the winner's verdict is
	// not yet posted, checks the head too (a delivery cannot tell a winner
	// still at work from one that was killed): one or two runs, each with
	// the verdict.
	runs := b.s.CheckRuns(b.head())
	if len(runs) == 0 || len(runs) > 2 {
		t.Errorf("check runs on the head = %d, want 1 or 2", len(runs))
	}
	for _, r := range runs {
		if r.Status != "completed" || r.Conclusion != report.ConclusionSuccess {
			t.Errorf("check run %d is %s %s, want completed %s", r.ID, r.Status, r.Conclusion, report.ConclusionSuccess)
		}
	}
	noViolations(t, b.s)
}

func TestBotNonFastForwardThenSuccess(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{twoTasks: true})
	payload, id := b.review(t, "revuser", "approved", nil)
	// While the bot writes, lead accepts T2 with pactify and pushes, along
	// with a code change.
	pushed := b.headLog.Copy().Accept("lead", "T2", "LOGIN")
	var once sync.Once
	var concurrent string
	b.s.BeforeUpdateRef(func(owner, repo, ref string) {
		once.Do(func() {
			files := pushed.Files()
			files["src/login.go"] = "package main\n\nfunc login() error { return nil }\n"
			concurrent = b.s.CommitFiles(e2e.Owner, e2e.Repo, b.branch, files, "leaduser")
		})
	})

	res := b.run(t, "pull_request_review", payload)
	out := res.botDone(t)

	if n := countOp(b.s, "git/update-ref"); n != 2 {
		t.Errorf("update-ref requests = %d, want 2 (refused, then retried)", n)
	}
	if len(res.waits) != 1 {
		t.Errorf("waits = %v, want one before the retry", res.waits)
	}
	commits := b.newCommits(t)
	if len(commits) != 2 || commits[0].SHA != concurrent {
		t.Fatalf("history = %+v, want the concurrent push then the bot's commit on top of it", commits)
	}
	if commits[1].AuthorLogin != botAccount {
		t.Errorf("the top commit is by %q", commits[1].AuthorLogin)
	}
	// The retry re-read the branch: the concurrent line is kept, the bot's
	// line follows it, and STATE.yml reflects both.
	_, evs := appended(t, b.s, concurrent, b.head())
	if len(evs) != 1 || evs[0].EventID != bot.EventID(repoFull, "review", id, "T1") {
		t.Fatalf("appended by the bot = %+v", evs)
	}
	if got, _ := b.s.FileAt(b.head(), "src/login.go"); !strings.Contains(got, "error") {
		t.Errorf("the concurrent code change was lost: %q", got)
	}
	st := stateReplays(t, b.s, b.head())
	if taskStatus(st, "T1") != projection.StatusAccepted || taskStatus(st, "T2") != projection.StatusAccepted {
		t.Errorf("T1 %s, T2 %s", taskStatus(st, "T1"), taskStatus(st, "T2"))
	}
	checkPosted(t, out.Check, onlyRun(t, b.s, b.head(), "pact", report.ConclusionSuccess))
	noViolations(t, b.s)
}

func TestBotGivesUpAfterBoundedRetries(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	payload, _ := b.review(t, "revuser", "approved", nil)
	// Someone pushes before every one of the bot's ref updates.
	var mu sync.Mutex
	pushes := 0
	b.s.BeforeUpdateRef(func(owner, repo, ref string) {
		mu.Lock()
		pushes++
		n := pushes
		mu.Unlock()
		b.s.CommitFiles(e2e.Owner, e2e.Repo, b.branch, map[string]string{"src/busy.go": fmt.Sprintf("package main // %d\n", n)}, "devuser")
	})

	res := b.run(t, "pull_request_review", payload)

	contains(t, "error", res.failed(t).Error(), "after 6 attempt(s)", "not a fast forward")
	if len(res.waits) != 5 {
		t.Errorf("waits = %v, want one between each two of the 6 attempts", res.waits)
	}
	if n := countOp(b.s, "git/update-ref"); n != 6 {
		t.Errorf("update-ref requests = %d, want 6 (bounded)", n)
	}
	for _, c := range b.newCommits(t) {
		if c.AuthorLogin == botAccount {
			t.Errorf("the bot's commit %s landed", c.SHA)
		}
	}
	noViolations(t, b.s)
}

func TestBotForkPullRequestExplains(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{fork: true})
	payload, _ := b.review(t, "revuser", "approved", nil)

	out := b.run(t, "pull_request_review", payload).botDone(t)

	b.assertNothingWritten(t)
	if h := b.s.BranchHead(e2e.Owner, e2e.Repo, b.branch); h != "" {
		t.Errorf("the bot created %s in the base repository", b.branch)
	}
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q, want one explanation", r)
	}
	cmd := "PACT_AGENT_ID=rev pactify accept 'T1'"
	contains(t, "reply", r[0], "fork", "recorded nothing", cmd, "git push")
	contains(t, "notices (the job log and summary)", strings.Join(out.Notices, "\n"), cmd)
	noViolations(t, b.s)
}

func TestBotForkPullRequestCommandExplains(t *testing.T) {
	t.Parallel()
	// The comment payload names no head: the bot reads the PR from the API,
	// which says it comes from a fork.
	b := newBotScenario(t, botOpts{fork: true})
	payload, id := b.comment(t, "revuser", "/pact changes T1 it's not done", "MEMBER")

	out := b.run(t, "issue_comment", payload).botDone(t)

	b.assertNothingWritten(t)
	r := b.replies(t)
	if len(r) != 1 {
		t.Fatalf("replies = %q, want one explanation", r)
	}
	cmd := `PACT_AGENT_ID=rev pactify changes 'T1' --reason 'it'\''s not done'`
	contains(t, "reply", r[0], "fork", cmd)
	contains(t, "notices (the job log and summary)", strings.Join(out.Notices, "\n"), cmd)
	if got := b.reactions(id); !slices.Equal(got, []string{botAccount + ":confused"}) {
		t.Errorf("reactions = %q, want confused: nothing was recorded", got)
	}
	noViolations(t, b.s)
}

func TestBotReadOnlyTokenExplainsInJobLog(t *testing.T) {
	t.Parallel()
	b := newBotScenario(t, botOpts{})
	b.s.SetToken(e2e.Token, fakegithub.Token{Login: botAccount, ReadOnly: true})
	payload, _ := b.review(t, "revuser", "changes_requested", "rename it")

	out := b.run(t, "pull_request_review", payload).botDone(t)

	if h := b.head(); h != b.headSHA {
		t.Errorf("the branch moved")
	}
	cmd := "PACT_AGENT_ID=rev pactify changes 'T1' --reason 'rename it'"
	// The reply cannot be posted either: the job log and summary say it all.
	notices := strings.Join(out.Notices, "\n")
	contains(t, "notices (the job log and summary)", notices, cmd, "token")
	if strings.Contains(notices, "comes from a fork") {
		t.Errorf("a same-repository PR is explained as a fork:\n%s", notices)
	}
	noViolations(t, b.s)
}

// A log committed with CRLF line endings is continued in CRLF, as pactify
// continues one (pactfile.AppendLines): the bot never mixes the two.
func TestBotAppendsInTheLogsLineEnding(t *testing.T) {
	t.Parallel()
	crlf := strings.ReplaceAll(e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Join("dev").Checkpoint("dev", "T1", "LOGIN").Text(), "\n", "\r\n")
	b := newBotScenario(t, botOpts{headFiles: map[string]string{logPath: crlf}})
	payload, _ := b.review(t, "revuser", "approved", "LGTM")
	out := b.run(t, "pull_request_review", payload).botDone(t)
	if out.NewHead == "" {
		t.Fatalf("nothing recorded: %+v", out)
	}
	log, _ := b.s.FileAt(out.NewHead, logPath)
	rest, ok := strings.CutPrefix(log, crlf)
	if !ok || !strings.HasSuffix(rest, "\r\n") || strings.Count(rest, "\n") != 1 || strings.Count(rest, "\r\n") != 1 {
		t.Errorf("the bot appended %q to a CRLF log; want one line ending in CRLF after the log as it was", rest)
	}
}

// A branch's log whose last line has no line break (a write cut off
// half-way, or a CRLF line whose LF is missing) is refused, never sealed
// into an event line by the bot's append (pactfile.Unterminated, the rule
// pactify follows): nothing is written, and the reply says why and how to
// mend it.
func TestBotRefusesALogCutOff(t *testing.T) {
	t.Parallel()
	whole := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Join("dev").Checkpoint("dev", "T1", "LOGIN").Text()
	for name, log := range map[string]string{
		"fragment":      whole + `{"event_id":"0123`,
		"crlf-cr-alone": strings.ReplaceAll(whole, "\n", "\r\n") + `{"v":1}` + "\r",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := newBotScenario(t, botOpts{headFiles: map[string]string{logPath: log}})
			payload, _ := b.review(t, "revuser", "approved", "LGTM")
			out := b.run(t, "pull_request_review", payload).botDone(t)
			if out.NewHead != "" || len(out.Appended) != 0 {
				t.Fatalf("the bot appended %q after a cut-off line", out.Appended)
			}
			b.assertNothingWritten(t)
			r := b.replies(t)
			if len(r) != 1 {
				t.Fatalf("replies = %q, want one refusal", r)
			}
			contains(t, "reply", r[0], "has no line break", "Nothing was recorded", "accept T1", "cut the file back")
			noViolations(t, b.s)
		})
	}
}
