package bot_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/bot"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/projection"
)

// Rule 1 with real identities, as one table (in the manner of prow's lgtm
// plugin tests): who asks (an account and the seats .github/pact.yml maps
// it to) × the state of the task (owner dev, reviewer rev) × what they ask
// (a review, or a /pact command with or without write permission) → the
// event the bot would record, or the one reply it gives instead.

// rule1SeatMap maps the seats to accounts: rev has two (one an app),
// "both" holds the owner's and the reviewer's seat, leaduser a reviewer
// seat that is not T1's.
const rule1SeatMap = `
seats:
  lead: [leaduser]
  dev: [devuser, both]
  rev: [revuser, "rev-agent[bot]", both]
`

var rule1Time = time.Date(2026, 6, 9, 12, 0, 0, 0, time.UTC)

// rule1State replays a pact whose task T1 (feature F, owner dev, reviewer
// rev) on branch feat/x is in status.
func rule1State(t *testing.T, status projection.TaskStatus) *projection.State {
	t.Helper()
	var lines []string
	add := func(agent, typ, task string, payload any) {
		line, err := projection.Encode(projection.Draft{EventID: fmt.Sprintf("%032x", len(lines)+1), TS: rule1Time.Add(time.Duration(len(lines)-60) * time.Minute),
			AgentID: agent, Type: typ, TaskID: task, Feature: map[bool]string{true: "F"}[task != ""], Payload: payload})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(line))
	}
	add("lead", projection.TypeInit, "", map[string]any{"project": "p", "protocol_version": 1, "base_branch": "main", "seats": []map[string]any{
		{"id": "lead", "roles": []string{"orchestrator", "reviewer"}, "entry": "A.md"},
		{"id": "dev", "roles": []string{"worker"}, "entry": "B.md"},
		{"id": "rev", "roles": []string{"reviewer"}, "entry": "C.md"},
	}})
	add("lead", projection.TypeAssign, "T1", map[string]any{"owner": "dev", "reviewer": "rev", "branch": "feat/x", "spec": "s"})
	if status != projection.StatusAssigned {
		add("dev", projection.TypeJoin, "", map[string]any{"roles": []string{"worker"}})
	}
	switch status {
	case projection.StatusAwaitingReview, projection.StatusAccepted, "changes":
		add("dev", projection.TypeCheckpoint, "T1", map[string]any{"evidence": "tests pass"})
	}
	switch status {
	case projection.StatusAccepted:
		add("rev", projection.TypeAccept, "T1", map[string]any{})
	case "changes":
		add("rev", projection.TypeChangesRequested, "T1", map[string]any{"reason": "add a test"})
	}
	_, res := projection.ReadEvents([]byte(strings.Join(lines, "\n")))
	if len(res.Rejections) != 0 {
		t.Fatalf("fixture log has rejections: %+v", res.Rejections)
	}
	want := status
	if status == "changes" {
		want = projection.StatusInProgress
	}
	if got := res.State.Tasks["T1"].Status; got != want {
		t.Fatalf("T1 is %s, want %s", got, want)
	}
	return res.State
}

func TestRule1Decisions(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse([]byte(rule1SeatMap))
	if err != nil {
		t.Fatal(err)
	}
	const (
		awaiting = projection.StatusAwaitingReview
		assigned = projection.StatusAssigned
		working  = projection.StatusInProgress
		accepted = projection.StatusAccepted
		changes  = projection.TaskStatus("changes") // in progress after a round of changes
		accept   = projection.TypeAccept
		reject   = projection.TypeChangesRequested

		selfAccept  = "**Rule 1 (no self-acceptance):**"
		notReviewer = "**Rule 1 (only the reviewer reviews):**"
		noWrite     = "needs write permission"
		notAwaiting = "was not awaiting review at commit"
		nothing     = "so this review recorded nothing"
	)
	type ask struct {
		review   string // a review in this state, or
		command  string // a /pact command in a comment
		canWrite bool
	}
	approve, requestChanges := ask{review: ghfacts.ReviewApproved}, ask{review: ghfacts.ReviewChangesRequested}
	acceptCmd, changesCmd := ask{command: "/pact accept T1", canWrite: true}, ask{command: "/pact changes T1 add a test", canWrite: true}
	tests := []struct {
		login  string
		status projection.TaskStatus
		ask    ask
		branch string // the pull request's head branch; "" is T1's
		// intent is the type of the one event recorded for T1; reply a
		// part of the one reply (none when both are empty: the bot
		// stays silent).
		intent string
		reply  []string
		// refused: the pact's state said no (😕); acknowledged: the
		// comment held a command the bot handled or refused that way.
		refused, acknowledged bool
		// renew: an approval of an accepted task may renew its accept's
		// coverage (judged on the head, then replied): no event, no
		// reply yet, and the reply for when it renews nothing ready.
		renew bool
	}{
		// Reviews: every task of the branch awaiting review by a seat the
		// reviewer holds, never the owner's; a seat holder whose review
		// concerns no task is told so, anyone else reviews in silence.
		{login: "revuser", status: awaiting, ask: approve, intent: accept},
		{login: "rev-agent[bot]", status: awaiting, ask: approve, intent: accept},
		{login: "RevUser", status: awaiting, ask: approve, intent: accept},
		{login: "revuser", status: awaiting, ask: requestChanges, intent: reject},
		{login: "revuser", status: awaiting, ask: ask{review: ghfacts.ReviewApproved}, intent: accept},
		{login: "revuser", status: awaiting, ask: ask{review: ghfacts.ReviewCommented}},
		{login: "revuser", status: awaiting, ask: ask{review: ghfacts.ReviewDismissed}},
		{login: "devuser", status: awaiting, ask: approve, reply: []string{selfAccept, "@devuser", "`dev`", "can never accept it"}},
		{login: "devuser", status: awaiting, ask: requestChanges, reply: []string{selfAccept, "can never request changes on it"}},
		{login: "both", status: awaiting, ask: approve, reply: []string{selfAccept, "even if it also holds the reviewer seat `rev`"}},
		{login: "both", status: awaiting, ask: ask{review: ghfacts.ReviewCommented}},
		{login: "leaduser", status: awaiting, ask: approve, reply: []string{nothing, "@leaduser holds seat(s) `lead`", "`T1`"}},
		{login: "stranger", status: awaiting, ask: approve},
		{login: "stranger", status: awaiting, ask: requestChanges},
		{login: "revuser", status: assigned, ask: approve, reply: []string{nothing}},
		{login: "revuser", status: working, ask: approve, reply: []string{nothing}},
		{login: "revuser", status: changes, ask: requestChanges, reply: []string{nothing}},
		{login: "revuser", status: accepted, ask: approve, renew: true},
		{login: "devuser", status: accepted, ask: approve, reply: []string{nothing}},
		{login: "leaduser", status: accepted, ask: approve, reply: []string{nothing}},
		{login: "revuser", status: accepted, ask: requestChanges, reply: []string{nothing}},
		{login: "devuser", status: working, ask: approve, reply: []string{nothing}},
		{login: "revuser", status: awaiting, ask: approve, branch: "feat/y", reply: []string{nothing, "This branch has no pact tasks."}},

		// Commands: write permission first, then who may review the
		// task, then whether it awaits review.
		{login: "revuser", status: awaiting, ask: acceptCmd, intent: accept, acknowledged: true},
		{login: "rev-agent[bot]", status: awaiting, ask: acceptCmd, intent: accept, acknowledged: true},
		{login: "revuser", status: awaiting, ask: changesCmd, intent: reject, acknowledged: true},
		{login: "devuser", status: awaiting, ask: acceptCmd, reply: []string{selfAccept, "can never accept it"}},
		{login: "devuser", status: awaiting, ask: changesCmd, reply: []string{selfAccept, "can never request changes on it"}},
		{login: "both", status: awaiting, ask: acceptCmd, reply: []string{selfAccept, "even if it also holds the reviewer seat `rev`"}},
		{login: "leaduser", status: awaiting, ask: acceptCmd, reply: []string{notReviewer, "reviewed by seat `rev`", "@leaduser holds `lead`"}},
		{login: "stranger", status: awaiting, ask: acceptCmd, reply: []string{notReviewer, "@stranger holds no seat"}},
		{login: "devuser", status: working, ask: acceptCmd, reply: []string{selfAccept}},
		{login: "leaduser", status: accepted, ask: acceptCmd, reply: []string{notReviewer}},
		{login: "revuser", status: assigned, ask: acceptCmd, reply: []string{notAwaiting}, refused: true, acknowledged: true},
		{login: "revuser", status: working, ask: acceptCmd, reply: []string{notAwaiting}, refused: true, acknowledged: true},
		{login: "revuser", status: changes, ask: acceptCmd, reply: []string{notAwaiting, "after rev requested changes"}, refused: true, acknowledged: true},
		{login: "revuser", status: accepted, ask: changesCmd, reply: []string{notAwaiting}, refused: true, acknowledged: true},
		{login: "revuser", status: awaiting, ask: ask{command: "/pact accept T1"}, reply: []string{noWrite, "`/pact accept`"}},
		{login: "devuser", status: awaiting, ask: ask{command: "/pact accept T1"}, reply: []string{noWrite}},
		{login: "stranger", status: awaiting, ask: ask{command: "/pact changes T1 no"}, reply: []string{noWrite, "`/pact changes`"}},
		{login: "revuser", status: awaiting, ask: ask{command: "/pact accept T9", canWrite: true}, reply: []string{"there is no task `T9`", "`T1`"}},
	}
	for _, tc := range tests {
		what := tc.ask.review
		if tc.ask.command != "" {
			what = fmt.Sprintf("%q (write %v)", tc.ask.command, tc.ask.canWrite)
		}
		t.Run(fmt.Sprintf("%s %s T1 %s", tc.login, what, tc.status), func(t *testing.T) {
			t.Parallel()
			st := rule1State(t, tc.status)
			const sha = "0123456789abcdef"
			branch := "feat/x"
			if tc.branch != "" {
				branch = tc.branch
			}
			var f bot.Facts
			if tc.ask.review != "" {
				f = bot.ReviewFacts("o/r", branch, ghfacts.Review{ID: 7, AuthorLogin: tc.login, State: tc.ask.review,
					URL: "https://github.example/o/r/pull/1#pullrequestreview-7", CommitID: sha, SubmittedAt: rule1Time}, cfg, st)
			} else {
				f = bot.CommentFacts("o/r", branch, sha, ghfacts.Comment{ID: 9, AuthorLogin: tc.login, Body: tc.ask.command,
					URL: "https://github.example/o/r/pull/1#issuecomment-9", CreatedAt: rule1Time, UpdatedAt: rule1Time}, tc.ask.canWrite, cfg, st)
			}
			plan := bot.Decided(t, f)

			switch {
			case tc.intent == "" && len(plan.Intents) != 0:
				t.Errorf("recorded %q, want nothing", plan.Intents[0].What)
			case tc.intent != "":
				if len(plan.Intents) != 1 {
					t.Fatalf("intents = %+v, want one %s", plan.Intents, tc.intent)
				}
				d := plan.Intents[0].Draft
				// The event is the task's reviewer seat's, whatever other
				// seats the account holds, at the review's or comment's
				// time, on the commit it was given on.
				if d.Type != tc.intent || d.TaskID != "T1" || d.Feature != "F" || d.AgentID != "rev" || !d.TS.Equal(rule1Time) || plan.Intents[0].FromComment != (tc.ask.command != "") {
					t.Errorf("intent = %+v (from a comment %v)", d, plan.Intents[0].FromComment)
				}
				if _, err := projection.Encode(d); err != nil {
					t.Errorf("the intent does not encode: %v", err)
				}
			}
			if len(tc.reply) == 0 && len(plan.Replies) != 0 {
				t.Errorf("replies = %q, want none", plan.Replies)
			}
			if len(tc.reply) > 0 {
				if len(plan.Replies) != 1 {
					t.Fatalf("replies = %q, want one", plan.Replies)
				}
				for _, part := range tc.reply {
					if !strings.Contains(plan.Replies[0], part) {
						t.Errorf("reply lacks %q:\n%s", part, plan.Replies[0])
					}
				}
			}
			if (plan.Refused > 0) != tc.refused || plan.Acknowledge != tc.acknowledged {
				t.Errorf("refused %d, acknowledged %v; want refused %v, acknowledged %v", plan.Refused, plan.Acknowledge, tc.refused, tc.acknowledged)
			}
			if plan.Status || plan.Recheck != tc.renew {
				t.Errorf("status %v, recheck %v for %s", plan.Status, plan.Recheck, what)
			}
			if tc.renew != (len(plan.Renew) > 0) || tc.renew && (!slices.Equal(plan.Renew, []string{"T1"}) || !strings.Contains(plan.NotRenewed, nothing)) {
				t.Errorf("renew %q (else %q), want renew %v", plan.Renew, plan.NotRenewed, tc.renew)
			}
		})
	}
}
