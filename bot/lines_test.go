package bot_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/bot"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghfacts"
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
	review := func(state, body string) bot.Facts {
		return bot.ReviewFacts("Octo/Repo", "feat/x", ghfacts.Review{ID: 4242, AuthorLogin: "revuser", State: state, Body: body,
			URL: "https://github.com/Octo/Repo/pull/3#pullrequestreview-4242", CommitID: sha, SubmittedAt: rule1Time}, cfg, st)
	}
	comment := func(onDiff bool, body string) bot.Facts {
		at := rule1Time.Add(1500)
		return bot.CommentFacts("Octo/Repo", "feat/x", sha, ghfacts.Comment{ID: 99, OnDiff: onDiff, AuthorLogin: "rev-agent[bot]", Body: body,
			URL: "https://github.com/Octo/Repo/pull/3#issuecomment-99?a=1&b=<2>", CreatedAt: at, UpdatedAt: at}, true, cfg, st)
	}
	// GitHub may send a review without a commit or a URL: payload.github
	// keeps its keys, payload.commit is left out.
	bare := review(ghfacts.ReviewApproved, "")
	bare.Review.URL, bare.Review.CommitID, bare.PullRequest.HeadSHA, bare.Log.Commit = "", "", "", ""
	var plans []bot.Decision
	for _, f := range []bot.Facts{
		bare,
		review(ghfacts.ReviewApproved, "LGTM"),
		review(ghfacts.ReviewChangesRequested, "  please <b>add</b> a test & \"quote\" it: ünï 🚀\r\n\tsecond line  "),
		review(ghfacts.ReviewChangesRequested, " \n "),
		comment(false, "/pact accept T1"),
		comment(true, "/pact status\n/pact changes T1 it's $(rm -rf) a<b & c>d \"more\" \\ done ü 🚀"),
	} {
		plans = append(plans, bot.Decided(t, f))
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
