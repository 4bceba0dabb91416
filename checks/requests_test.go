package checks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/projection"
)

// requestLog: T1 (opencode's, reviewed by gpt) awaiting review, T2
// (opencode's, reviewed by claude-opus) in progress, T3 (claude-opus's,
// reviewed by gpt) accepted; all on feat/a, feature F.
func requestLog() *projection.State {
	l := (&logb{}).init().
		assign("T1", "F", "opencode", "gpt", "feat/a").
		assign("T2", "F", "opencode", "claude-opus", "feat/a").
		assign("T3", "F", "claude-opus", "gpt", "feat/a").
		join("opencode").join("claude-opus").join("gpt").
		checkpoint("opencode", "T1").
		checkpoint("claude-opus", "T3").accept("gpt", "T3")
	_, res := projection.ReadBytes(l.bytes(), projection.ReadOptions{})
	return res.State
}

func TestPlanReviewRequests(t *testing.T) {
	t.Parallel()
	st := requestLog()
	const head = "1111111111111111111111111111111111111111"
	const older = "2222222222222222222222222222222222222222"
	waiting := Waiting(".pact/log.jsonl", st, "feat/a", nil, nil, nil)
	stale := Waiting(".pact/log.jsonl", st, "feat/a", map[string]string{"T3": "src/a.go changed since the accept"}, nil, nil)
	many := make([]string, 20)
	for i := range many {
		many[i] = fmt.Sprintf("r%02d", i)
	}
	review := func(login, state, commit string) map[int64]ghfacts.Review {
		return map[int64]ghfacts.Review{7: {Found: true, State: state, AuthorLogin: login, CommitID: commit}}
	}
	for _, tc := range []struct {
		name     string
		config   string
		findings []Finding
		author   string
		users    []string // requested already
		teams    []string
		reviews  map[int64]ghfacts.Review
		ask      string // the plan's Ask, joined
		standing string // per task: "T1=@a,@b T3=…"
		notes    []string
	}{
		{name: "a task awaiting review asks its reviewer seat's account",
			config: "seats: {gpt: [gpt-gh]}\n", findings: waiting, author: "dev-gh",
			ask: "@gpt-gh", standing: "T1=@gpt-gh"},
		{name: "every account of the seat",
			config: "seats: {gpt: [gpt-gh, Carol]}\n", findings: waiting, author: "dev-gh",
			ask: "@gpt-gh @Carol", standing: "T1=@gpt-gh,@Carol"},
		{name: "never the pull request's author",
			config: "seats: {gpt: [gpt-gh]}\n", findings: waiting, author: "GPT-gh",
			standing: "T1=", notes: []string{"no review was requested for T1 from seat gpt: gpt-gh: the pull request's author"}},
		{name: "never an account that also holds the owner's seat",
			config: "seats: {opencode: [dev-gh], gpt: [dev-gh, gpt-gh]}\n", findings: waiting, author: "someone",
			ask: "@gpt-gh", standing: "T1=@gpt-gh"},
		{name: "only the owner's accounts: nobody, and says why",
			config: "seats: {opencode: [dev-gh], gpt: [dev-gh]}\n", findings: waiting, author: "someone",
			standing: "T1=", notes: []string{"dev-gh: also holds seat opencode, the owner of T1 (Rule 1)"}},
		{name: "an app's account cannot be asked",
			config: "seats: {gpt: [\"review-bot[bot]\"]}\n", findings: waiting, author: "dev-gh",
			standing: "T1=", notes: []string{"review-bot[bot]: an app's account, which GitHub cannot ask for a review"}},
		{name: "a pending request stands: no call",
			config: "seats: {gpt: [gpt-gh]}\n", findings: waiting, author: "dev-gh", users: []string{"GPT-GH"},
			standing: "T1=@gpt-gh"},
		{name: "a pending request of one account, the other asked",
			config: "seats: {gpt: [gpt-gh, carol]}\n", findings: waiting, author: "dev-gh", users: []string{"carol"},
			ask: "@gpt-gh", standing: "T1=@carol,@gpt-gh"},
		{name: "a review of the head is not asked again",
			config: "seats: {gpt: [gpt-gh]}\n", findings: waiting, author: "dev-gh", reviews: review("gpt-gh", ghfacts.ReviewCommented, head),
			standing: "T1=", notes: []string{"gpt-gh: reviewed this commit already"}},
		{name: "a review of an older commit is asked again (re-request)",
			config: "seats: {gpt: [gpt-gh]}\n", findings: waiting, author: "dev-gh", reviews: review("gpt-gh", ghfacts.ReviewChangesRequested, older),
			ask: "@gpt-gh", standing: "T1=@gpt-gh"},
		{name: "a dismissed review of the head answered nothing",
			config: "seats: {gpt: [gpt-gh]}\n", findings: waiting, author: "dev-gh", reviews: review("gpt-gh", ghfacts.ReviewDismissed, head),
			ask: "@gpt-gh", standing: "T1=@gpt-gh"},
		{name: "a stale accept asks its reviewer again, who reviewed an older commit",
			config: "seats: {gpt: [gpt-gh]}\n", findings: stale, author: "dev-gh", reviews: review("gpt-gh", ghfacts.ReviewApproved, older),
			ask: "@gpt-gh", standing: "T1=@gpt-gh T3=@gpt-gh"},
		{name: "a stale accept's owner is not asked",
			config: "seats: {claude-opus: [claude-gh], gpt: [claude-gh, gpt-gh]}\n", findings: stale[1:], author: "dev-gh",
			ask: "@gpt-gh", standing: "T3=@gpt-gh"},
		{name: "a task in progress waits for its owner: nobody is asked",
			config: "seats: {claude-opus: [claude-gh]}\n", findings: Waiting(".pact/log.jsonl", st, "feat/a", nil, nil, nil)[1:2], author: "dev-gh"},
		{name: "no account mapped to the reviewer seat",
			config: "seats: {opencode: [dev-gh]}\n", findings: waiting, author: "dev-gh",
			standing: "T1=", notes: []string{"no review was requested for T1: seat gpt is mapped to no GitHub account"}},
		{name: "review-requests: off asks nobody and says nothing",
			config: "seats: {gpt: [gpt-gh]}\nreview-requests: off\n", findings: waiting, author: "dev-gh"},
		{name: "a team replaces the seat's accounts",
			config: "seats: {gpt: [gpt-gh]}\nreview-teams: {gpt: [reviewers]}\n", findings: waiting, author: "gpt-gh",
			ask: "team reviewers", standing: "T1=team reviewers"},
		{name: "a pending team request stands",
			config: "seats: {gpt: [gpt-gh]}\nreview-teams: {gpt: [Reviewers]}\n", findings: waiting, author: "dev-gh", teams: []string{"reviewers"},
			standing: "T1=team Reviewers"},
		{name: "an account reviewing two waiting tasks is asked once",
			config: "seats: {gpt: [gpt-gh]}\n", findings: stale, author: "dev-gh",
			ask: "@gpt-gh", standing: "T1=@gpt-gh T3=@gpt-gh"},
		{name: "at most 15 reviewers stand requested",
			config: "seats: {gpt: [" + strings.Join(many, ", ") + "]}\n", findings: waiting, author: "dev-gh", users: []string{"x1", "x2", "x3"},
			ask:      "@r00 @r01 @r02 @r03 @r04 @r05 @r06 @r07 @r08 @r09 @r10 @r11",
			standing: "T1=@r00,@r01,@r02,@r03,@r04,@r05,@r06,@r07,@r08,@r09,@r10,@r11",
			notes:    []string{"@r12, @r13, @r14, @r15, @r16, and 3 more left out of the review request: GitHub keeps at most 15 reviewers requested on a pull request"}},
		{name: "15 already requested: nobody more",
			config: "seats: {gpt: [gpt-gh]}\n", findings: waiting, author: "dev-gh", users: many[:15],
			standing: "T1=", notes: []string{"no review was requested for T1 from seat gpt: gpt-gh: GitHub keeps at most 15 reviewers requested", "@gpt-gh left out"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := config.Parse([]byte(tc.config))
			if err != nil {
				t.Fatal(err)
			}
			plan := PlanReviewRequests(ReviewRequestInput{Config: cfg, State: st, Findings: tc.findings, Author: tc.author, Head: head,
				RequestedUsers: tc.users, RequestedTeams: tc.teams, Reviews: tc.reviews})
			var ask []string
			for _, r := range plan.Ask {
				ask = append(ask, r.String())
			}
			if got := strings.Join(ask, " "); got != tc.ask {
				t.Errorf("asks %q, want %q", got, tc.ask)
			}
			var standing []string
			for _, a := range plan.Tasks {
				var who []string
				for _, r := range a.Standing() {
					who = append(who, r.String())
				}
				standing = append(standing, a.TaskID+"="+strings.Join(who, ","))
			}
			if got := strings.Join(standing, " "); got != tc.standing {
				t.Errorf("standing %q, want %q", got, tc.standing)
			}
			if len(plan.Notes) != len(tc.notes) {
				t.Fatalf("notes %q, want %d containing %q", plan.Notes, len(tc.notes), tc.notes)
			}
			for i, want := range tc.notes {
				if !strings.Contains(plan.Notes[i], want) {
					t.Errorf("note %q lacks %q", plan.Notes[i], want)
				}
			}
		})
	}
}

// TestPlanReviewRequestsOnlyWaits: no pending finding, nothing to ask, even
// with every account mapped; a nil configuration is the default (on, no
// seat mapped: nobody to ask and nothing to say).
func TestPlanReviewRequestsOnlyWaits(t *testing.T) {
	t.Parallel()
	st := requestLog()
	cfg, err := config.Parse([]byte("seats: {gpt: [gpt-gh], opencode: [dev-gh]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	warning := newFinding(CodeProvenanceStale, ".pact/log.jsonl", 12, "the accept of T3 does not cover the head")
	warning.TaskID = "T3"
	for name, in := range map[string]ReviewRequestInput{
		"no finding":             {Config: cfg, State: st},
		"a warning, not waiting": {Config: cfg, State: st, Findings: []Finding{warning}},
		"no state":               {Config: cfg, Findings: Waiting(".pact/log.jsonl", st, "feat/a", nil, nil, nil)},
	} {
		if plan := PlanReviewRequests(in); len(plan.Ask)+len(plan.Tasks)+len(plan.Notes) != 0 {
			t.Errorf("%s: plan %+v", name, plan)
		}
	}
	for _, cfg := range []*config.Config{nil, config.Default()} {
		plan := PlanReviewRequests(ReviewRequestInput{Config: cfg, State: st, Findings: Waiting(".pact/log.jsonl", st, "feat/a", nil, nil, nil)})
		if len(plan.Ask)+len(plan.Tasks)+len(plan.Notes) != 0 {
			t.Errorf("no seat mapped: %+v", plan)
		}
	}
}

func TestRequestable(t *testing.T) {
	t.Parallel()
	for login, want := range map[string]bool{"octocat": true, "renovate[bot]": false, "Dependabot[BOT]": false, "": false, "bot": true} {
		if got := Requestable(login); got != want {
			t.Errorf("Requestable(%q) = %v, want %v", login, got, want)
		}
	}
}
