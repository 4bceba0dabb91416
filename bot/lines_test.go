package bot_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/bot"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/internal/testkit/golden"
	"github.com/pact-action/pact-action/projection"
)

// TestLinesGolden pins the exact bytes of the lines the bot writes for
// representative reviews and comments. They must never change for the same
// GitHub objects: a re-delivered webhook is recognised by its event_id and
// by the line being byte for byte the one the bot would write again, so a
// changed line would read as a conflict on every branch that already holds
// one (run with -update only for a deliberate change of the format).
func TestLinesGolden(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse([]byte(rule1SeatMap))
	if err != nil {
		t.Fatal(err)
	}
	st := rule1State(t, projection.StatusAwaitingReview)
	const sha = "0123456789abcdef0123456789abcdef01234567"
	review := func(state, body string) bot.Request {
		return bot.Request{Repo: "Octo/Repo", Login: "revuser", HeadBranch: "feat/x", HeadSHA: sha,
			Review: &bot.Review{ID: 4242, State: state, Body: body, URL: "https://github.com/Octo/Repo/pull/3#pullrequestreview-4242", CommitID: sha, SubmittedAt: rule1Time}}
	}
	comment := func(onDiff bool, body string) (bot.Request, []bot.Command) {
		return bot.Request{Repo: "Octo/Repo", Login: "rev-agent[bot]", HeadBranch: "feat/x", HeadSHA: sha, CanWrite: true,
			Comment: &bot.Comment{ID: 99, OnDiff: onDiff, Body: body, URL: "https://github.com/Octo/Repo/pull/3#issuecomment-99?a=1&b=<2>", CreatedAt: rule1Time.Add(1500)}}, bot.ParseCommands(body)
	}
	// GitHub may send a review without a commit or a URL: payload.github
	// keeps its keys, payload.commit is left out.
	bare := review("approved", "")
	bare.Review.URL, bare.Review.CommitID, bare.HeadSHA = "", "", ""
	var plans []bot.Plan
	plans = append(plans,
		bot.PlanReview(bare, cfg, st),
		bot.PlanReview(review("approved", "LGTM"), cfg, st),
		bot.PlanReview(review("CHANGES_REQUESTED", "  please <b>add</b> a test & \"quote\" it: ünï 🚀\r\n\tsecond line  "), cfg, st),
		bot.PlanReview(review("changes_requested", " \n "), cfg, st),
	)
	for _, c := range []struct {
		onDiff bool
		body   string
	}{
		{false, "/pact accept T1"},
		{true, "/pact status\n/pact changes T1 it's $(rm -rf) a<b & c>d \"more\" \\ done ü 🚀"},
	} {
		req, cmds := comment(c.onDiff, c.body)
		plans = append(plans, bot.PlanComment(req, cfg, st, cmds))
	}
	var lines []string
	for _, p := range plans {
		if len(p.Intents) != 1 {
			t.Fatalf("plan %+v: want one intent", p)
		}
		line, err := projection.Encode(p.Intents[0].Draft)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(line))
	}
	golden.Check(t, filepath.Join("testdata", "lines.golden"), []byte(strings.Join(lines, "\n")+"\n"))
}
