package checks_test

import (
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/ghfacts"
)

func TestStandingDecision(t *testing.T) {
	t.Parallel()
	at := func(minutes int) time.Time {
		return time.Date(2026, 6, 9, 11, 0, 0, 0, time.UTC).Add(time.Duration(minutes) * time.Minute)
	}
	review := func(login, state string, minute int) ghfacts.Review {
		return ghfacts.Review{Found: true, State: state, AuthorLogin: login, SubmittedAt: at(minute)}
	}
	const id = int64(10)
	tests := []struct {
		name    string
		reviews map[int64]ghfacts.Review
		want    string // a part of why it does not stand; "" stands
	}{
		{"an approval stands", map[int64]ghfacts.Review{id: review("rev", "APPROVED", 0)}, ""},
		{"a request for changes stands", map[int64]ghfacts.Review{id: review("rev", "CHANGES_REQUESTED", 0)}, ""},
		{"no such review", map[int64]ghfacts.Review{11: review("rev", "APPROVED", 0)}, "review 10 does not exist on this pull request"},
		{"a review GitHub does not have", map[int64]ghfacts.Review{id: {}}, "review 10 does not exist"},
		{"dismissed", map[int64]ghfacts.Review{id: review("rev", "DISMISSED", 0)}, "review 10 by account rev was dismissed"},
		{"a comment is no decision", map[int64]ghfacts.Review{id: review("rev", "COMMENTED", 0)}, "is commented, not a decision"},
		{"a pending review is no decision", map[int64]ghfacts.Review{id: review("rev", "PENDING", 0)}, "is pending, not a decision"},
		{"overridden by a later request for changes", map[int64]ghfacts.Review{id: review("rev", "APPROVED", 0), 11: review("rev", "CHANGES_REQUESTED", 5)},
			"overridden by their later review 11, which is changes_requested"},
		{"a request for changes overridden by a later approval", map[int64]ghfacts.Review{id: review("rev", "CHANGES_REQUESTED", 0), 11: review("rev", "APPROVED", 5)},
			"overridden by their later review 11, which is approved"},
		{"a later sibling dismissed", map[int64]ghfacts.Review{id: review("rev", "APPROVED", 0), 11: review("rev", "DISMISSED", 5)},
			"which is dismissed"},
		{"two approvals in a row both stand", map[int64]ghfacts.Review{id: review("rev", "APPROVED", 0), 11: review("rev", "APPROVED", 5)}, ""},
		{"later comments change nothing", map[int64]ghfacts.Review{id: review("rev", "APPROVED", 0), 11: review("rev", "COMMENTED", 5), 12: review("rev", "PENDING", 6)}, ""},
		{"other accounts' decisions change nothing", map[int64]ghfacts.Review{id: review("rev", "APPROVED", 0), 11: review("lead", "CHANGES_REQUESTED", 5)}, ""},
		{"the same account in another case", map[int64]ghfacts.Review{id: review("rev", "APPROVED", 0), 11: review("REV", "CHANGES_REQUESTED", 5)}, "overridden by their later review 11"},
		{"an earlier request for changes changes nothing", map[int64]ghfacts.Review{id: review("rev", "APPROVED", 5), 11: review("rev", "CHANGES_REQUESTED", 0)}, ""},
		{"at the same instant the later id is the later review", map[int64]ghfacts.Review{id: review("rev", "APPROVED", 0), 11: review("rev", "CHANGES_REQUESTED", 0)}, "overridden by their later review 11"},
		{"at the same instant an earlier id is not", map[int64]ghfacts.Review{id: review("rev", "APPROVED", 0), 9: review("rev", "CHANGES_REQUESTED", 0)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := checks.StandingDecision(tt.reviews, id)
			if (got == "") != (tt.want == "") || !strings.Contains(got, tt.want) {
				t.Errorf("StandingDecision = %q, want %q", got, tt.want)
			}
		})
	}
}
