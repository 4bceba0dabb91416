package action_test

import (
	"strings"
	"testing"

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
