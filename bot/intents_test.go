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

// What the bot writes besides the Rule 1 decision: event ids that tell
// GitHub's objects apart, the pactify command for a branch it cannot
// write, and which lines of a log are stamped in the future.

// Comments on the diff and in the conversation have separate id spaces on
// GitHub, and one comment may hold several commands: each gets an event id
// of its own, the same on every delivery.
func TestCommentEventIDs(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse([]byte(rule1SeatMap))
	if err != nil {
		t.Fatal(err)
	}
	st := rule1State(t, projection.StatusAwaitingReview)
	plan := func(onDiff bool, body string) []string {
		c := ghfacts.Comment{ID: 9, OnDiff: onDiff, AuthorLogin: "revuser", Body: body, CreatedAt: rule1Time, UpdatedAt: rule1Time}
		var ids []string
		for _, in := range bot.Decided(t, bot.CommentFacts("O/R", "feat/x", "abc", c, true, cfg, st)).Intents {
			ids = append(ids, in.Draft.EventID)
		}
		return ids
	}
	conversation, diff := plan(false, "/pact accept T1"), plan(true, "/pact accept T1")
	second := plan(false, "/pact status\n/pact accept T1")
	want := map[string][]string{
		"conversation":   {bot.EventID("o/r", "issue_comment#0", 9, "T1")},
		"diff":           {bot.EventID("o/r", "review_comment#0", 9, "T1")},
		"second command": {bot.EventID("o/r", "issue_comment#1", 9, "T1")},
	}
	for name, got := range map[string][]string{"conversation": conversation, "diff": diff, "second command": second} {
		if !slices.Equal(got, want[name]) || len(got[0]) != 32 {
			t.Errorf("%s: event ids %v, want %v", name, got, want[name])
		}
	}
	if conversation[0] == diff[0] || conversation[0] == second[0] {
		t.Errorf("ids collide: %v %v %v", conversation, diff, second)
	}
}

func TestPactifyCommand(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse([]byte(rule1SeatMap))
	if err != nil {
		t.Fatal(err)
	}
	st := rule1State(t, projection.StatusAwaitingReview)
	for body, want := range map[string]string{
		"/pact accept T1":                "PACT_AGENT_ID=rev pactify accept 'T1'",
		"/pact changes T1 it's $(wrong)": `PACT_AGENT_ID=rev pactify changes 'T1' --reason 'it'\''s $(wrong)'`,
	} {
		c := ghfacts.Comment{ID: 9, AuthorLogin: "revuser", Body: body, CreatedAt: rule1Time, UpdatedAt: rule1Time}
		intents := bot.Decided(t, bot.CommentFacts("o/r", "feat/x", "abc", c, true, cfg, st)).Intents
		if len(intents) != 1 || bot.PactifyCommand(intents[0]) != want {
			t.Errorf("%q: %+v, want %s", body, intents, want)
		}
	}
}

// FutureLines lists the events stamped more than a day after now (a day
// of clock skew is fine), with the latest stamp as written.
func TestFutureLines(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 9, 12, 0, 0, 0, time.UTC)
	stamps := []string{"2026-06-09T11:00:00Z", "2026-06-10T11:59:00Z", "2026-06-10T12:00:01Z", "2099-01-01T00:00:00Z", "2030-01-01T00:00:00Z"}
	var lines []string
	for i, ts := range stamps {
		lines = append(lines, fmt.Sprintf(`{"event_id":"%032x","ts":%q,"agent_id":"dev","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":["worker"]}}`, i+1, ts))
	}
	got, latest := bot.FutureLines([]byte(strings.Join(lines, "\n")), now)
	if !slices.Equal(got, []int{3, 4, 5}) || latest != "2099-01-01T00:00:00Z" {
		t.Errorf("FutureLines = %v, %q; want lines 3, 4, 5 up to 2099-01-01T00:00:00Z", got, latest)
	}
	if got, latest := bot.FutureLines([]byte(lines[0]), now); got != nil || latest != "" {
		t.Errorf("FutureLines of a log of the past = %v, %q", got, latest)
	}
}
