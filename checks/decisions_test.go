package checks_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/projection"
)

// Decisions of the pull-request judgement that only the action's tests
// reached before: which review is still its author's standing decision, a
// /pact changes comment as evidence, and the newer protocol failing closed.

func TestStandingDecision(t *testing.T) {
	t.Parallel()
	at := func(minutes int) time.Time {
		return time.Date(2026, 6, 9, 11, 0, 0, 0, time.UTC).Add(time.Duration(minutes) * time.Minute)
	}
	review := func(login, state string, minute int) checks.ReviewFact {
		return checks.ReviewFact{Found: true, State: state, AuthorLogin: login, SubmittedAt: at(minute)}
	}
	const id = int64(10)
	tests := []struct {
		name    string
		reviews map[int64]checks.ReviewFact
		want    string // a part of why it does not stand; "" stands
	}{
		{"an approval stands", map[int64]checks.ReviewFact{id: review("rev", "APPROVED", 0)}, ""},
		{"a request for changes stands", map[int64]checks.ReviewFact{id: review("rev", "CHANGES_REQUESTED", 0)}, ""},
		{"the state in any case", map[int64]checks.ReviewFact{id: review("rev", "approved", 0)}, ""},
		{"no such review", map[int64]checks.ReviewFact{11: review("rev", "APPROVED", 0)}, "review 10 does not exist on this pull request"},
		{"a review GitHub does not have", map[int64]checks.ReviewFact{id: {}}, "review 10 does not exist"},
		{"dismissed", map[int64]checks.ReviewFact{id: review("rev", "DISMISSED", 0)}, "review 10 by account rev was dismissed"},
		{"a comment is no decision", map[int64]checks.ReviewFact{id: review("rev", "COMMENTED", 0)}, "is commented, not a decision"},
		{"a pending review is no decision", map[int64]checks.ReviewFact{id: review("rev", "PENDING", 0)}, "is pending, not a decision"},
		{"overridden by a later request for changes", map[int64]checks.ReviewFact{id: review("rev", "APPROVED", 0), 11: review("rev", "CHANGES_REQUESTED", 5)},
			"overridden by their later review 11, which is changes_requested"},
		{"a request for changes overridden by a later approval", map[int64]checks.ReviewFact{id: review("rev", "CHANGES_REQUESTED", 0), 11: review("rev", "APPROVED", 5)},
			"overridden by their later review 11, which is approved"},
		{"a later sibling dismissed", map[int64]checks.ReviewFact{id: review("rev", "APPROVED", 0), 11: review("rev", "DISMISSED", 5)},
			"which is dismissed"},
		{"two approvals in a row both stand", map[int64]checks.ReviewFact{id: review("rev", "APPROVED", 0), 11: review("rev", "APPROVED", 5)}, ""},
		{"later comments change nothing", map[int64]checks.ReviewFact{id: review("rev", "APPROVED", 0), 11: review("rev", "COMMENTED", 5), 12: review("rev", "PENDING", 6)}, ""},
		{"other accounts' decisions change nothing", map[int64]checks.ReviewFact{id: review("rev", "APPROVED", 0), 11: review("lead", "CHANGES_REQUESTED", 5)}, ""},
		{"the same account in another case", map[int64]checks.ReviewFact{id: review("rev", "APPROVED", 0), 11: review("REV", "CHANGES_REQUESTED", 5)}, "overridden by their later review 11"},
		{"an earlier request for changes changes nothing", map[int64]checks.ReviewFact{id: review("rev", "APPROVED", 5), 11: review("rev", "CHANGES_REQUESTED", 0)}, ""},
		{"at the same instant the later id is the later review", map[int64]checks.ReviewFact{id: review("rev", "APPROVED", 0), 11: review("rev", "CHANGES_REQUESTED", 0)}, "overridden by their later review 11"},
		{"at the same instant an earlier id is not", map[int64]checks.ReviewFact{id: review("rev", "APPROVED", 0), 9: review("rev", "CHANGES_REQUESTED", 0)}, ""},
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

// A bot-written changes_requested backed by a /pact changes comment is
// verified only by a comment holding that command for that task.
func TestProvenanceCommentBackedChanges(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		command checks.CommentCommand
		want    string // a part of the unverified finding; "" verified
	}{
		{"the comment asks for changes on the task", checks.CommentCommand{Type: projection.TypeChangesRequested, Task: "T1"}, ""},
		{"the comment accepts the task instead", checks.CommentCommand{Type: projection.TypeAccept, Task: "T1"}, "holds no /pact changes T1 command"},
		{"the comment asks for changes on another task", checks.CommentCommand{Type: projection.TypeChangesRequested, Task: "T2"}, "holds no /pact changes T1 command"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Written by the bot on the commit the comment was made on.
			botSigned := commitBy("c0ffee0000000000000000000000000000000005", provBot, true)
			botSigned.Parents = []string{provReviewed}
			in := provInput(t, provConfig(t, "warn", "sticky", ""), "rev", nil, botSigned)
			ev := *in.Events[2].Event
			ev.Type = projection.TypeChangesRequested
			ev.Payload = projection.Payload{Reason: "fix", Commit: provReviewed, GitHub: &projection.GitHubRef{CommentID: provCommentID, Login: "rev-acct", HeadSHA: provReviewed}}
			in.Events[2].Event = &ev
			in.Comments[provCommentID] = commented("rev-acct", tt.command)

			fs := checks.Provenance(in).Findings

			if tt.want == "" {
				if len(fs) != 0 {
					t.Errorf("findings = %s, want none", provDump(fs))
				}
				return
			}
			if len(fs) != 1 || fs[0].Code != checks.CodeProvenanceUnverified || fs[0].Line != 5 || !strings.Contains(fs[0].Message, tt.want) {
				t.Errorf("findings = %s, want one unverified saying %q", provDump(fs), tt.want)
			}
		})
	}
}

// A head log that needs a newer protocol gets that one finding from the
// whole pull-request judgement: no history, Rule 2, provenance or policy
// finding is judged on a log this version cannot read.
func TestPullRequestFailsClosedOnANewerProtocol(t *testing.T) {
	t.Parallel()
	raw := bytes.Replace(provLog(t, "dev", nil), []byte(`"protocol_version":1`), []byte(`"protocol_version":2`), 1)
	log := projection.ParseBytes(raw)
	res := projection.Replay(log)
	if res.Unsupported == nil {
		t.Fatal("the fixture is not a newer protocol's log")
	}
	facts := provInput(t, provConfig(t, "require", "tree", "unmapped-branches: block\n"), "dev", nil, commitBy("dddd", "dev-acct", true))
	in := checks.Input{Dir: ".pact", Scan: &log.Scan, Replay: res, State: projection.RenderBytes(res.State), TaskFiles: map[string][]byte{}}

	got := checks.PullRequest(in, checks.PullRequestFacts{BaseLog: []byte("{}\n"), HeadLog: raw, Branches: []string{"feat/other"},
		Config: checks.ParseConfig([]byte("provenance:\n  mode: require\nunmapped-branches: block\n")), Provenance: &facts, ChangesOutsidePact: true})

	if len(got) != 1 || got[0].Code != projection.CodeVersionUnsupported || got[0].Line != 1 {
		t.Errorf("findings = %s, want only %s on line 1", provDump(got), projection.CodeVersionUnsupported)
	}
}
