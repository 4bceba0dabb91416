package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/projection"
)

func TestSeatMap(t *testing.T) {
	c, err := Parse([]byte(`seats:
  claude-opus: [octocat, Shared-Bot]
  opencode: [hubot, "opencode-agent[bot]", shared-bot]
  lead: [OctoCat]
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		login string
		want  []string
	}{
		{"octocat", []string{"claude-opus", "lead"}},
		{"OCTOCAT", []string{"claude-opus", "lead"}},
		{"hubot", []string{"opencode"}},
		{"HuBot", []string{"opencode"}},
		{"opencode-agent[bot]", []string{"opencode"}},
		{"OpenCode-Agent[BOT]", []string{"opencode"}},
		{"shared-bot", []string{"claude-opus", "opencode"}},
		{"opencode-agent", nil},
		{"nobody", nil},
		{"", nil},
	} {
		if got := c.SeatsOf(tc.login); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SeatsOf(%q) = %v, want %v", tc.login, got, tc.want)
		}
		for _, seat := range []string{"claude-opus", "opencode", "lead", "ghost"} {
			want := false
			for _, s := range tc.want {
				want = want || s == seat
			}
			if got := c.Holds(tc.login, seat); got != want {
				t.Errorf("Holds(%q, %q) = %v, want %v", tc.login, seat, got, want)
			}
		}
	}
	if got := c.LoginsOf("opencode"); !reflect.DeepEqual(got, []string{"hubot", "opencode-agent[bot]", "shared-bot"}) {
		t.Errorf("LoginsOf(opencode) = %v", got)
	}
	if got := c.LoginsOf("ghost"); len(got) != 0 {
		t.Errorf("LoginsOf(ghost) = %v", got)
	}
	c.LoginsOf("lead")[0] = "changed"
	if c.Seats["lead"][0] != "OctoCat" {
		t.Error("LoginsOf returned the config's own slice")
	}
	if c.Holds("octocat", "Lead") {
		t.Error("seat ids are matched case-insensitively; they are slugs and must match exactly")
	}
	var nilConfig *Config
	if nilConfig.SeatsOf("a") != nil || nilConfig.Holds("a", "b") || nilConfig.LoginsOf("b") != nil || nilConfig.RosterProblems(nil) != nil {
		t.Error("a nil *Config must behave as one without seats")
	}
}

func TestRosterProblems(t *testing.T) {
	roster := []projection.Seat{
		{ID: "lead", Roles: []string{"orchestrator"}, Entry: "AGENTS.md"},
		{ID: "opencode", Roles: []string{"worker"}, Entry: "AGENTS.md"},
		{ID: "claude-opus", Roles: []string{"reviewer"}, Entry: "CLAUDE.md"},
	}
	for _, tc := range []struct {
		name   string
		doc    string
		roster []projection.Seat
		want   []string // seats reported, in order
	}{
		{"all seats in the roster", example, roster, nil},
		{"no seats configured", "", roster, nil},
		{"seat not in the roster", "seats:\n  lead: [a]\n  gpt-5: [b]\n  claude: [c]\n", roster, []string{"claude", "gpt-5"}},
		{"empty roster", "seats: {lead: [a]}\n", nil, []string{"lead"}},
		{"review team of a seat not in the roster", "review-teams: {lead: [a], rev: [b]}\n", roster, []string{"rev"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			got := c.RosterProblems(tc.roster)
			if len(got) != len(tc.want) {
				t.Fatalf("Check = %q, want problems for %v", got, tc.want)
			}
			for i, seat := range tc.want {
				if !strings.HasPrefix(got[i], `seat "`+seat+`" is not in the roster`) && !strings.HasPrefix(got[i], `seat "`+seat+`" of review-teams is not in the roster`) {
					t.Errorf("problem %d = %q, want one about %q", i, got[i], seat)
				}
				if !strings.Contains(got[i], "; remove it") {
					t.Errorf("problem %q does not say what to do", got[i])
				}
				if len(tc.roster) > 0 && !strings.Contains(got[i], "lead, opencode, claude-opus") {
					t.Errorf("problem %q does not list the roster", got[i])
				}
			}
		})
	}
}

func TestReviewRight(t *testing.T) {
	t.Parallel()
	c, err := Parse([]byte("seats:\n  dev: [bob, Mallory]\n  rev: [carol, mallory]\n  lead: [alice]\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		login string
		want  reviewRight
	}{
		{"carol", MayReview},
		{"CAROL", MayReview}, // logins match case-insensitively
		{"bob", OwnsTheTask},
		{"mallory", OwnsTheTask}, // the reviewer seat too changes nothing
		{"alice", NotTheReviewer},
		{"stranger", NotTheReviewer},
	} {
		if got := c.ReviewRight(tc.login, "dev", "rev"); got != tc.want {
			t.Errorf("ReviewRight(%s) = %d, want %d", tc.login, got, tc.want)
		}
	}
}
