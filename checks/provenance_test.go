package checks_test

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/projection"
)

// The pure provenance judgement: every rule and mode, on a small pact whose
// base has the init and the assign of T1 (lines 1–2) and whose pull request
// adds dev's join and checkpoint (lines 3–4) and rev's accept (line 5).

const (
	provReviewID  = int64(9001)
	provCommentID = int64(7001)
	provReviewed  = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" // the head the review was given on
	provOtherSHA  = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	provBot       = "github-actions[bot]"
)

// provLog is the scenario's log with the accept's payload and seat.
func provLog(t *testing.T, acceptSeat string, acceptPayload any) []byte {
	t.Helper()
	at := time.Date(2026, 6, 9, 10, 0, 0, 0, time.UTC)
	drafts := []projection.Draft{
		{AgentID: "lead", Type: projection.TypeInit, Payload: map[string]any{"project": "demo", "protocol_version": 1, "base_branch": "main",
			"seats": []map[string]any{
				{"id": "lead", "roles": []string{"orchestrator", "reviewer"}, "entry": "CLAUDE.md"},
				{"id": "dev", "roles": []string{"worker"}, "entry": "AGENTS.md"},
				{"id": "rev", "roles": []string{"reviewer"}, "entry": "REVIEW.md"},
			}}},
		{AgentID: "lead", Type: projection.TypeAssign, TaskID: "T1", Feature: "LOGIN", Payload: map[string]any{"owner": "dev", "reviewer": "rev", "branch": "feat/login", "spec": ".pact/tasks/T1.md"}},
		{AgentID: "dev", Type: projection.TypeJoin, Payload: map[string]any{"roles": []string{"worker"}}},
		{AgentID: "dev", Type: projection.TypeCheckpoint, TaskID: "T1", Feature: "LOGIN", Payload: map[string]any{"evidence": "tests pass"}},
		{AgentID: acceptSeat, Type: projection.TypeAccept, TaskID: "T1", Feature: "LOGIN", Payload: acceptPayload},
	}
	var lines []string
	for i, d := range drafts {
		d.EventID, d.TS = fmt.Sprintf("%032x", i+1), at.Add(time.Duration(i+1)*time.Minute)
		b, err := projection.Encode(d)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

func provConfig(t *testing.T, mode, stale, extra string) *config.Config {
	t.Helper()
	yml := fmt.Sprintf("seats:\n  lead: [lead-acct]\n  dev: [dev-acct]\n  rev: [rev-acct]\n%sprovenance:\n  mode: %s\n  stale: %s\n", extra, mode, stale)
	cfg, err := config.Parse([]byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func commitBy(sha, author string, verified bool) *ghfacts.Commit {
	return &ghfacts.Commit{SHA: sha, AuthorLogin: author, CommitterLogin: author, Verified: verified}
}

// provCase is a provenance judgement under test: its input, with the
// events it adds as a slice the cases edit (Events shadows the input's
// sequence, which input makes of it).
type provCase struct {
	checks.ProvenanceInput
	Events []checks.AddedEvent
}

func (c provCase) input() checks.ProvenanceInput {
	in := c.ProvenanceInput
	in.Events = slices.Values(c.Events)
	return in
}

// provInput judges the scenario: lines 3–5 added, 3–4 by dev-acct (signed),
// the accept by acceptCommit.
func provInput(t *testing.T, cfg *config.Config, acceptSeat string, payload any, acceptCommit *ghfacts.Commit) provCase {
	t.Helper()
	log, res := projection.ReadEvents(provLog(t, acceptSeat, payload))
	in := provCase{ProvenanceInput: checks.ProvenanceInput{
		LogPath: ".pact/log.jsonl", ConfigBranch: "main", Config: cfg, BotLogins: []string{provBot},
		Branches: []string{"feat/login"}, PRNumber: 7, State: res.State,
		Reviews: map[int64]ghfacts.Review{}, Comments: map[int64]ghfacts.Comment{}, Stale: map[int]checks.StaleFacts{},
		// T1 awaited review at the reviewed commit, where the branch was
		// when a comment was made, which says /pact accept T1.
		Awaiting:        map[string][]string{provReviewed: {"T1"}},
		CommentHeads:    map[int64]ghfacts.HeadAt{provCommentID: {SHA: provReviewed}},
		CommentCommands: map[int64][]checks.CommentCommand{provCommentID: {{Type: projection.TypeAccept, Task: "T1"}}},
	}}
	for i := range log.Events {
		ev := &log.Events[i]
		if ev.Line <= 2 {
			continue
		}
		ae := checks.AddedEvent{Event: ev, Commit: commitBy(fmt.Sprintf("%040d", ev.Line), "dev-acct", true)}
		if ev.Line == 5 {
			ae.Commit = acceptCommit
			if acceptCommit == nil {
				ae.Unattributed = "GitHub does not know commit 123456789abc"
			}
		}
		in.Events = append(in.Events, ae)
	}
	return in
}

func botReviewPayload() map[string]any {
	return map[string]any{"commit": provReviewed, "github": map[string]any{"review_id": provReviewID, "url": "https://github.example/pr/7#review", "login": "rev-acct", "head_sha": provReviewed}}
}

func botCommentPayload() map[string]any {
	return map[string]any{"commit": provReviewed, "github": map[string]any{"comment_id": provCommentID, "url": "https://github.example/pr/7#comment", "login": "rev-acct", "head_sha": provReviewed}}
}

// provAcceptTS is the ts provLog gives the accept on line 5: the time of
// the review or comment that backs it.
var provAcceptTS = time.Date(2026, 6, 9, 10, 5, 0, 0, time.UTC)

// approved is a standing approval given on provReviewed (where T1 awaited
// review: provInput), at the accept's ts.
func approved(login string) ghfacts.Review {
	return ghfacts.Review{Found: true, State: "APPROVED", AuthorLogin: login, CommitID: provReviewed, SubmittedAt: provAcceptTS}
}

// reviewed is a review in another state, otherwise like approved.
func reviewed(login, state string) ghfacts.Review {
	r := approved(login)
	r.State = state
	return r
}

// commented is a comment by login on pull request 7 (its commands, and the
// head when it was made, are provInput's: /pact accept T1 on provReviewed,
// where T1 awaited review).
func commented(login string) ghfacts.Comment {
	return ghfacts.Comment{Found: true, AuthorLogin: login, Number: 7, CreatedAt: provAcceptTS}
}

type provWant struct {
	code     projection.Code
	severity checks.Severity
	line     int
	// says are substrings the message must hold (the missing evidence).
	says []string
}

func TestProvenanceRules(t *testing.T) {
	t.Parallel()
	botSigned := commitBy("c0ffee0000000000000000000000000000000005", provBot, true)
	botSigned.Parents = []string{provReviewed}
	botUnsigned := commitBy("c0ffee0000000000000000000000000000000005", provBot, false)
	botUnsigned.Parents = []string{provReviewed}
	tests := []struct {
		name        string
		mode, stale string
		extraConfig string
		seat        string // the accept's agent_id (default rev)
		payload     any
		commit      *ghfacts.Commit
		setup       func(in *provCase)
		want        []provWant
		notAccepted []string
	}{
		{name: "forged accept by the owner's account warns under warn", mode: "warn", stale: "sticky",
			commit: commitBy("f0f0", "dev-acct", true),
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5,
				[]string{"authored by account dev-acct", "does not hold seat rev", "maps it to rev-acct"}}}},
		{name: "forged accept by the owner's account blocks under require", mode: "require", stale: "sticky",
			commit: commitBy("f0f0", "dev-acct", true),
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5,
				[]string{"authored by account dev-acct", "does not hold seat rev"}}},
			notAccepted: []string{"T1"}},
		{name: "off judges nothing", mode: "off", stale: "tree",
			commit: commitBy("f0f0", "dev-acct", false),
			setup:  func(in *provCase) { in.Stale[5] = checks.StaleFacts{Anchor: ""} }},
		{name: "accept committed by the reviewer's account (warn)", mode: "warn", stale: "sticky",
			commit: commitBy("ac1", "rev-acct", false)},
		{name: "accept committed and signed by the reviewer's account (require)", mode: "require", stale: "sticky",
			commit: commitBy("ac1", "rev-acct", true)},
		{name: "reviewer's account without a verified signature under require", mode: "require", stale: "sticky",
			commit: commitBy("ac1", "rev-acct", false),
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5,
				[]string{"account rev-acct, who holds seat rev", "no signature GitHub verified"}}},
			notAccepted: []string{"T1"}},
		{name: "signature of a committer who is not the author does not vouch for it", mode: "require", stale: "sticky",
			commit: &ghfacts.Commit{SHA: "ac1", AuthorLogin: "rev-acct", CommitterLogin: "dev-acct", Verified: true},
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5,
				[]string{"committer account dev-acct", "does not vouch"}}},
			notAccepted: []string{"T1"}},
		// A verified signature whose committer GitHub links to no account
		// is nobody's: it vouches for no author, whatever GitHub reports.
		{name: "a verified signature of a committer linked to no account vouches for nobody", mode: "require", stale: "sticky",
			commit: &ghfacts.Commit{SHA: "ac1", AuthorLogin: "rev-acct", CommitterLogin: "", Verified: true},
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5,
				[]string{"its verified signature is that of its committer no GitHub account", "does not vouch"}}},
			notAccepted: []string{"T1"}},
		{name: "a bot commit verified for a committer linked to no account", mode: "require", stale: "sticky",
			payload: botReviewPayload(), commit: &ghfacts.Commit{SHA: "c0ffee0000000000000000000000000000000005", Parents: []string{provReviewed},
				AuthorLogin: provBot, CommitterLogin: "", Verified: true},
			setup:       func(in *provCase) { in.Reviews[provReviewID] = approved("rev-acct") },
			want:        []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"no verified signature by the bot"}}},
			notAccepted: []string{"T1"}},
		{name: "a web commit signed by GitHub for the author counts", mode: "require", stale: "sticky",
			commit: &ghfacts.Commit{SHA: "ac1", AuthorLogin: "rev-acct", CommitterLogin: "web-flow", Verified: true}},
		{name: "author e-mail linked to no account", mode: "warn", stale: "sticky",
			commit: commitBy("ac1", "", false),
			want:   []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5, []string{"links to no account"}}}},
		{name: "an account holding the reviewer and the owner seat may not accept", mode: "warn", stale: "sticky",
			extraConfig: "", commit: commitBy("ac1", "both-acct", false),
			setup: func(in *provCase) {
				in.Config.Seats["rev"] = append(in.Config.Seats["rev"], "both-acct")
				in.Config.Seats["dev"] = append(in.Config.Seats["dev"], "both-acct")
			},
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5, []string{"also holds seat dev, the owner of T1", "Rule 1"}}}},
		{name: "no account mapped to the seat", mode: "warn", stale: "sticky",
			commit: commitBy("ac1", "rev-acct", false),
			setup:  func(in *provCase) { delete(in.Config.Seats, "rev") },
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5,
				[]string{"no GitHub account is mapped to it in .github/pact.yml on main"}}}},
		{name: "the line could not be traced to a commit", mode: "require", stale: "sticky",
			commit:      nil,
			want:        []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"could not be traced", "GitHub does not know commit"}}},
			notAccepted: []string{"T1"}},
		{name: "a join by the worker's own account is verified; by another it is not", mode: "warn", stale: "sticky",
			commit: commitBy("ac1", "rev-acct", false),
			setup: func(in *provCase) {
				in.Events[0].Commit = commitBy("j1", "rev-acct", false)
			},
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 3, []string{"the join on line 3", "account rev-acct, who does not hold seat dev"}}}},
		{name: "the bot committing an event no review backs", mode: "warn", stale: "sticky",
			commit: commitBy("ac1", "rev-acct", false),
			setup: func(in *provCase) {
				in.Events[1].Commit = botSigned
			},
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 4, []string{"the pact bot's", "backed by a review"}}}},

		// Path (a): bot-written, backed by a review.
		{name: "bot-written accept backed by a real approval (warn)", mode: "warn", stale: "sticky",
			payload: botReviewPayload(), commit: botUnsigned,
			setup: func(in *provCase) { in.Reviews[provReviewID] = approved("rev-acct") }},
		{name: "bot-written accept backed by a real approval (require, bot-signed)", mode: "require", stale: "sticky",
			payload: botReviewPayload(), commit: botSigned,
			setup: func(in *provCase) { in.Reviews[provReviewID] = approved("rev-acct") }},
		{name: "a bot login given as input counts as the bot", mode: "require", stale: "sticky",
			payload: botReviewPayload(), commit: commitBy("c0ffee", "pact-app[bot]", true),
			setup: func(in *provCase) {
				in.BotLogins = append(in.BotLogins, "pact-app[bot]")
				in.Reviews[provReviewID] = approved("rev-acct")
			}},
		{name: "bot-looking commit without the bot's verified signature under require", mode: "require", stale: "sticky",
			payload: botReviewPayload(), commit: botUnsigned,
			setup:       func(in *provCase) { in.Reviews[provReviewID] = approved("rev-acct") },
			want:        []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"no verified signature by the bot"}}},
			notAccepted: []string{"T1"}},
		{name: "an approval covers the tasks that awaited review at its commit", mode: "require", stale: "sticky",
			payload: botReviewPayload(), commit: botSigned,
			setup: func(in *provCase) {
				in.Reviews[provReviewID] = approved("rev-acct")
				in.Awaiting[provReviewed] = []string{"T0", "T1"}
			}},
		{name: "an approval reused for a task that was not awaiting review at its commit", mode: "require", stale: "sticky",
			payload: botReviewPayload(), commit: botSigned,
			setup: func(in *provCase) {
				in.Reviews[provReviewID] = approved("rev-acct")
				in.Awaiting[provReviewed] = []string{"T0"}
			},
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5,
				[]string{"T1 was not awaiting review in the log at commit aaaaaaaaaaaa, which review 9001 was given on"}}},
			notAccepted: []string{"T1"}},
		{name: "bot-written accept naming a review that does not exist", mode: "require", stale: "sticky",
			payload: botReviewPayload(), commit: botSigned,
			setup:       func(in *provCase) { in.Reviews[provReviewID] = ghfacts.Review{} },
			want:        []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"review 9001, which does not exist on pull request #7"}}},
			notAccepted: []string{"T1"}},
		{name: "bot-written accept backed by a review of the wrong login", mode: "warn", stale: "sticky",
			payload: map[string]any{"commit": provReviewed, "github": map[string]any{"review_id": provReviewID, "login": "lead-acct", "head_sha": provReviewed}},
			commit:  botSigned,
			setup:   func(in *provCase) { in.Reviews[provReviewID] = approved("lead-acct") },
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5,
				[]string{"review 9001 (approved) was made by account lead-acct, who does not hold seat rev"}}}},
		{name: "payload login differs from the review's author", mode: "warn", stale: "sticky",
			payload: botReviewPayload(), commit: botSigned,
			setup: func(in *provCase) { in.Reviews[provReviewID] = approved("lead-acct") },
			want:  []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5, []string{"names account rev-acct", "made by account lead-acct"}}}},
		{name: "an approval by the owner's account", mode: "require", stale: "sticky",
			payload: map[string]any{"commit": provReviewed, "github": map[string]any{"review_id": provReviewID}},
			commit:  botSigned,
			setup: func(in *provCase) {
				in.Config.Seats["rev"] = append(in.Config.Seats["rev"], "dev-acct")
				in.Reviews[provReviewID] = approved("dev-acct")
			},
			want:        []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"also holds seat dev, the owner of T1"}}},
			notAccepted: []string{"T1"}},
		{name: "a review that requested changes does not back an accept", mode: "warn", stale: "sticky",
			payload: botReviewPayload(), commit: botSigned,
			setup: func(in *provCase) {
				in.Reviews[provReviewID] = reviewed("rev-acct", "CHANGES_REQUESTED")
			},
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5, []string{"is changes_requested, not approved"}}}},
		{name: "a dismissed approval backs nothing", mode: "warn", stale: "sticky",
			payload: botReviewPayload(), commit: botSigned,
			setup: func(in *provCase) {
				in.Reviews[provReviewID] = reviewed("rev-acct", "DISMISSED")
			},
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5, []string{"was dismissed"}}}},
		{name: "payload.commit moved past the reviewed commit", mode: "warn", stale: "sticky",
			payload: map[string]any{"commit": provOtherSHA, "github": map[string]any{"review_id": provReviewID, "login": "rev-acct"}},
			commit:  botSigned,
			setup:   func(in *provCase) { in.Reviews[provReviewID] = approved("rev-acct") },
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5,
				[]string{"given on commit bbbbbbbbbbbb, but review 9001 was given on aaaaaaaaaaaa"}}}},
		{name: "a review of this pull request does not cover a task of another branch", mode: "warn", stale: "sticky",
			payload: botReviewPayload(), commit: botSigned,
			setup: func(in *provCase) {
				in.Branches = []string{"feat/other"}
				in.Reviews[provReviewID] = approved("rev-acct")
			},
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5, []string{"on branch feat/login, not on this pull request's branch"}}}},
		{name: "a real review copied into a worker's commit is still only a claim", mode: "require", stale: "sticky",
			payload: botReviewPayload(), commit: commitBy("f0f0", "dev-acct", true),
			setup: func(in *provCase) { in.Reviews[provReviewID] = approved("rev-acct") },
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5,
				[]string{"names GitHub review 9001", "authored by account dev-acct, not by the pact bot", "does not hold seat rev"}}},
			notAccepted: []string{"T1"}},
		{name: "bot-written changes_requested backed by a review requesting changes", mode: "require", stale: "tree",
			payload: nil, commit: botSigned,
			setup: func(in *provCase) {
				// Replace the accept by a changes_requested (not applied as
				// an accept, so no staleness either).
				ev := *in.Events[2].Event
				ev.Type = projection.TypeChangesRequested
				ev.Payload = projection.Payload{Reason: "fix", Commit: provReviewed, GitHub: &projection.GitHubRef{ReviewID: provReviewID, Login: "rev-acct"}}
				in.Events[2].Event = &ev
				in.Reviews[provReviewID] = reviewed("rev-acct", "CHANGES_REQUESTED")
			}},

		// A replayed review verifies nothing: only the reviewer's standing
		// decision, at its own time, for a task it covered.
		{name: "an approval the reviewer later overrode by requesting changes", mode: "require", stale: "sticky",
			payload: botReviewPayload(), commit: botSigned,
			setup: func(in *provCase) {
				in.Reviews[provReviewID] = approved("rev-acct")
				later := reviewed("rev-acct", "CHANGES_REQUESTED")
				later.SubmittedAt = provAcceptTS.Add(time.Hour)
				in.Reviews[provReviewID+1] = later
			},
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5,
				[]string{"overridden by their later review 9002, which is changes_requested"}}},
			notAccepted: []string{"T1"}},
		{name: "a later approval keeps an earlier one standing; comments and other accounts change nothing", mode: "require", stale: "sticky",
			payload: botReviewPayload(), commit: botSigned,
			setup: func(in *provCase) {
				in.Reviews[provReviewID] = approved("rev-acct")
				for i, r := range []ghfacts.Review{approved("rev-acct"), reviewed("rev-acct", "COMMENTED"), reviewed("lead-acct", "CHANGES_REQUESTED")} {
					r.SubmittedAt = provAcceptTS.Add(time.Duration(i+1) * time.Hour)
					in.Reviews[provReviewID+int64(i)+1] = r
				}
			}},
		{name: "an approval whose later sibling was dismissed no longer stands", mode: "require", stale: "sticky",
			payload: botReviewPayload(), commit: botSigned,
			setup: func(in *provCase) {
				in.Reviews[provReviewID] = approved("rev-acct")
				later := reviewed("rev-acct", "DISMISSED")
				later.SubmittedAt = provAcceptTS.Add(time.Hour)
				in.Reviews[provReviewID+1] = later
			},
			want:        []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"later review 9002, which is dismissed"}}},
			notAccepted: []string{"T1"}},
		{name: "an accept stamped at another time than its review", mode: "require", stale: "sticky",
			payload: botReviewPayload(), commit: botSigned,
			setup: func(in *provCase) {
				r := approved("rev-acct")
				r.SubmittedAt = provAcceptTS.Add(-time.Minute)
				in.Reviews[provReviewID] = r
			},
			want:        []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"ts 2026-06-09T10:05:00Z is not the time review 9001 was submitted (2026-06-09T10:04:00Z)"}}},
			notAccepted: []string{"T1"}},
		{name: "whether the task awaited review at the reviewed commit cannot be read: not verified", mode: "require", stale: "sticky",
			payload: botReviewPayload(), commit: botSigned,
			setup: func(in *provCase) {
				in.Reviews[provReviewID] = approved("rev-acct")
				delete(in.Awaiting, provReviewed)
			},
			want:        []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"could not be read"}}},
			notAccepted: []string{"T1"}},

		// A replayed comment verifies nothing either.
		{name: "a comment edited after it was posted", mode: "require", stale: "sticky",
			payload: botCommentPayload(), commit: botSigned,
			setup: func(in *provCase) {
				cf := commented("rev-acct")
				cf.UpdatedAt = cf.CreatedAt.Add(time.Minute)
				in.Comments[provCommentID] = cf
			},
			want:        []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"was edited after it was posted"}}},
			notAccepted: []string{"T1"}},
		{name: "a comment made while the task did not await review (the bot refused it)", mode: "require", stale: "sticky",
			payload: botCommentPayload(), commit: botSigned,
			setup: func(in *provCase) {
				in.Comments[provCommentID] = commented("rev-acct")
				in.Awaiting[provReviewed] = []string{}
			},
			want:        []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"T1 was not awaiting review at commit aaaaaaaaaaaa, the head when comment 7001 was made"}}},
			notAccepted: []string{"T1"}},
		{name: "a comment-backed accept whose payload.commit is not the commit its line was recorded on", mode: "require", stale: "sticky",
			payload: map[string]any{"commit": provOtherSHA, "github": map[string]any{"comment_id": provCommentID, "login": "rev-acct"}}, commit: botSigned,
			setup:       func(in *provCase) { in.Comments[provCommentID] = commented("rev-acct") },
			want:        []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"payload.commit is bbbbbbbbbbbb, but the line was recorded on commit aaaaaaaaaaaa and the branch was at aaaaaaaaaaaa"}}},
			notAccepted: []string{"T1"}},
		{name: "a comment-backed accept recorded on code pushed after the comment", mode: "require", stale: "sticky",
			payload: map[string]any{"github": map[string]any{"comment_id": provCommentID, "login": "rev-acct"}}, commit: botSigned,
			setup: func(in *provCase) {
				in.Comments[provCommentID] = commented("rev-acct")
				in.CommentHeads[provCommentID] = ghfacts.HeadAt{SHA: provOtherSHA}
				in.Awaiting[provOtherSHA] = []string{"T1"}
				in.Unchanged = map[checks.Span]bool{{From: provOtherSHA, To: provReviewed}: false}
			},
			want:        []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"made when the branch was at bbbbbbbbbbbb, but the line was recorded on aaaaaaaaaaaa, whose files outside .pact/ differ"}}},
			notAccepted: []string{"T1"}},
		{name: "a comment-backed accept recorded after another pact-only commit", mode: "require", stale: "sticky",
			payload: map[string]any{"commit": provOtherSHA, "github": map[string]any{"comment_id": provCommentID, "login": "rev-acct"}}, commit: botSigned,
			setup: func(in *provCase) {
				in.Comments[provCommentID] = commented("rev-acct")
				in.CommentHeads[provCommentID] = ghfacts.HeadAt{SHA: provOtherSHA}
				in.Awaiting[provOtherSHA] = []string{"T1"}
				in.Unchanged = map[checks.Span]bool{{From: provOtherSHA, To: provReviewed}: true}
			}},
		{name: "the head at the comment's time cannot be told", mode: "require", stale: "sticky",
			payload: botCommentPayload(), commit: botSigned,
			setup: func(in *provCase) {
				in.Comments[provCommentID] = commented("rev-acct")
				in.CommentHeads[provCommentID] = ghfacts.HeadAt{Why: "GitHub's push history of the branch does not reach back that far"}
			},
			want:        []provWant{{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"cannot be told (GitHub's push history"}}},
			notAccepted: []string{"T1"}},
		{name: "a comment-backed accept stamped at another time than the comment", mode: "warn", stale: "sticky",
			payload: botCommentPayload(), commit: botSigned,
			setup: func(in *provCase) {
				cf := commented("rev-acct")
				cf.CreatedAt = provAcceptTS.Add(-time.Nanosecond)
				in.Comments[provCommentID] = cf
			},
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5, []string{"is not the time comment 7001 was made"}}}},

		// Timestamps far ahead of the commit that added the line.
		{name: "an event stamped days ahead of its commit and of the check", mode: "require", stale: "sticky",
			commit: commitBy("ac1", "rev-acct", true),
			setup: func(in *provCase) {
				in.Events[2].Commit.CommitterDate = provAcceptTS.Add(-72 * time.Hour)
				in.Now = provAcceptTS.Add(-71 * time.Hour)
			},
			want: []provWant{{checks.CodeProvenanceFutureTS, checks.SeverityError, 5, []string{"stamped 2026-06-09T10:05:00Z, 2 days ahead of commit ac1"}}}},
		{name: "a commit dated in the future is the reference then", mode: "warn", stale: "sticky",
			commit: commitBy("ac1", "rev-acct", true),
			setup: func(in *provCase) {
				in.Events[2].Commit.CommitterDate = provAcceptTS.Add(-30 * time.Hour)
				in.Now = provAcceptTS.Add(-40 * time.Hour)
			},
			want: []provWant{{checks.CodeProvenanceFutureTS, checks.SeverityWarning, 5, []string{"30 hours ahead of commit ac1"}}}},
		{name: "stamped after its commit but no longer in the future", mode: "require", stale: "sticky",
			commit: commitBy("ac1", "rev-acct", true),
			setup: func(in *provCase) {
				in.Events[2].Commit.CommitterDate = provAcceptTS.Add(-72 * time.Hour)
				in.Now = provAcceptTS.Add(time.Hour)
			}},
		{name: "a day of clock skew is fine", mode: "require", stale: "sticky",
			commit: commitBy("ac1", "rev-acct", true),
			setup: func(in *provCase) {
				in.Events[2].Commit.CommitterDate = provAcceptTS.Add(-23 * time.Hour)
				in.Now = provAcceptTS.Add(-23 * time.Hour)
			}},
		// The slack's boundary: a day ahead exactly is still skew, a
		// nanosecond more is the future (ts is exact to the nanosecond).
		{name: "exactly a day ahead of its commit and of the check is fine", mode: "require", stale: "sticky",
			commit: commitBy("ac1", "rev-acct", true),
			setup: func(in *provCase) {
				in.Events[2].Commit.CommitterDate = provAcceptTS.Add(-24 * time.Hour)
				in.Now = provAcceptTS.Add(-24 * time.Hour)
			}},
		{name: "a nanosecond more than a day ahead is stamped in the future", mode: "require", stale: "sticky",
			commit: commitBy("ac1", "rev-acct", true),
			setup: func(in *provCase) {
				in.Events[2].Commit.CommitterDate = provAcceptTS.Add(-24*time.Hour - time.Nanosecond)
				in.Now = provAcceptTS.Add(-24*time.Hour - time.Nanosecond)
			},
			want: []provWant{{checks.CodeProvenanceFutureTS, checks.SeverityError, 5, []string{"stamped 2026-06-09T10:05:00Z, 24 hours ahead of commit ac1"}}}},

		// Path (a): bot-written, backed by a /pact comment.
		{name: "bot-written accept backed by a /pact accept comment", mode: "require", stale: "sticky",
			payload: botCommentPayload(), commit: botSigned,
			setup: func(in *provCase) {
				in.Comments[provCommentID] = commented("rev-acct")
			}},
		{name: "a comment that accepts another task", mode: "warn", stale: "sticky",
			payload: botCommentPayload(), commit: botSigned,
			setup: func(in *provCase) {
				in.Comments[provCommentID] = commented("rev-acct")
				in.CommentCommands[provCommentID] = []checks.CommentCommand{{Type: projection.TypeAccept, Task: "T2"}}
			},
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5, []string{"holds no /pact accept T1 command"}}}},
		{name: "a comment on another pull request", mode: "warn", stale: "sticky",
			payload: botCommentPayload(), commit: botSigned,
			setup: func(in *provCase) {
				cf := commented("rev-acct")
				cf.Number = 8
				in.Comments[provCommentID] = cf
			},
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5, []string{"belongs to #8, not to this pull request #7"}}}},
		{name: "a comment that does not exist", mode: "warn", stale: "sticky",
			payload: botCommentPayload(), commit: botSigned,
			setup: func(in *provCase) { in.Comments[provCommentID] = ghfacts.Comment{} },
			want:  []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5, []string{"comment 7001, which does not exist"}}}},
		{name: "a comment by an account without the seat", mode: "warn", stale: "sticky",
			payload: map[string]any{"commit": provReviewed, "github": map[string]any{"comment_id": provCommentID}}, commit: botSigned,
			setup: func(in *provCase) {
				in.Comments[provCommentID] = commented("dev-acct")
			},
			want: []provWant{{checks.CodeProvenanceUnverified, checks.SeverityWarning, 5, []string{"comment 7001 (/pact accept T1) was made by account dev-acct, who does not hold seat rev"}}}},

		// Staleness.
		{name: "code changed after the accept is stale under tree (warn: still accepted)", mode: "warn", stale: "tree",
			payload: map[string]any{"commit": provReviewed}, commit: commitBy("ac1", "rev-acct", true),
			setup: func(in *provCase) {
				in.Stale[5] = checks.StaleFacts{Anchor: provReviewed, After: []string{provOtherSHA}, Changed: []string{"src/login.go"}, Touching: []string{provOtherSHA}}
			},
			want: []provWant{{checks.CodeProvenanceStale, checks.SeverityWarning, 5,
				[]string{"given on commit aaaaaaaaaaaa", "files outside .pact/ changed since: src/login.go", "changed by bbbbbbbbbbbb"}}}},
		{name: "code changed after the accept is stale under tree (require: not accepted)", mode: "require", stale: "tree",
			payload: map[string]any{"commit": provReviewed}, commit: commitBy("ac1", "rev-acct", true),
			setup: func(in *provCase) {
				in.Stale[5] = checks.StaleFacts{Anchor: provReviewed, After: []string{provOtherSHA}, Changed: []string{"src/login.go"}, Touching: []string{provOtherSHA}}
			},
			want:        []provWant{{checks.CodeProvenanceStale, checks.SeverityError, 5, []string{"changed by bbbbbbbbbbbb"}}},
			notAccepted: []string{"T1"}},
		{name: "a pact-only commit after the accept is not stale under tree", mode: "require", stale: "tree",
			payload: map[string]any{"commit": provReviewed}, commit: commitBy("ac1", "rev-acct", true),
			setup: func(in *provCase) {
				in.Stale[5] = checks.StaleFacts{Anchor: provReviewed, After: []string{provOtherSHA}}
				in.HeadCode = map[string]bool{provReviewed: true}
			}},
		{name: "any commit after the accept is stale under push", mode: "require", stale: "push",
			payload: map[string]any{"commit": provReviewed}, commit: commitBy("ac1", "rev-acct", true),
			setup: func(in *provCase) {
				in.Stale[5] = checks.StaleFacts{Anchor: provReviewed, After: []string{provOtherSHA}}
			},
			want:        []provWant{{checks.CodeProvenanceStale, checks.SeverityError, 5, []string{"1 commit came after it: bbbbbbbbbbbb", "push"}}},
			notAccepted: []string{"T1"}},
		{name: "no later commit is not stale under push", mode: "require", stale: "push",
			payload: map[string]any{"commit": provReviewed}, commit: commitBy("ac1", "rev-acct", true),
			setup: func(in *provCase) { in.Stale[5] = checks.StaleFacts{Anchor: provReviewed} }},
		{name: "sticky never goes stale", mode: "require", stale: "sticky",
			payload: map[string]any{"commit": provReviewed}, commit: commitBy("ac1", "rev-acct", true),
			setup: func(in *provCase) {
				in.Stale[5] = checks.StaleFacts{Anchor: provReviewed, After: []string{provOtherSHA}, Changed: []string{"src/login.go"}}
			}},
		{name: "an accept that records no commit is stale under tree", mode: "warn", stale: "tree",
			commit: commitBy("ac1", "rev-acct", true),
			setup:  func(in *provCase) { in.Stale[5] = checks.StaleFacts{} },
			want:   []provWant{{checks.CodeProvenanceStale, checks.SeverityWarning, 5, []string{"does not record the commit it was given on"}}}},
		{name: "an accept given on a commit GitHub does not know is stale", mode: "require", stale: "tree",
			payload: map[string]any{"commit": provOtherSHA}, commit: commitBy("ac1", "rev-acct", true),
			setup:       func(in *provCase) { in.Stale[5] = checks.StaleFacts{Anchor: provOtherSHA, Missing: true} },
			want:        []provWant{{checks.CodeProvenanceStale, checks.SeverityError, 5, []string{"which GitHub does not know"}}},
			notAccepted: []string{"T1"}},
		{name: "a truncated comparison counts as changed", mode: "warn", stale: "tree",
			payload: map[string]any{"commit": provReviewed}, commit: commitBy("ac1", "rev-acct", true),
			setup: func(in *provCase) {
				in.Stale[5] = checks.StaleFacts{Anchor: provReviewed, Truncated: true, Unexamined: 12}
			},
			want: []provWant{{checks.CodeProvenanceStale, checks.SeverityWarning, 5, []string{"cut short", "12 commits after it were not examined"}}}},
		{name: "a rewritten history is stale when nothing in the pull request explains the change", mode: "warn", stale: "tree",
			payload: map[string]any{"commit": provReviewed}, commit: commitBy("ac1", "rev-acct", true),
			setup: func(in *provCase) {
				in.Stale[5] = checks.StaleFacts{Anchor: provReviewed, Changed: []string{"a.go", "b.go", "c.go", "d.go", "e.go", "f.go", "g.go"}}
			},
			want: []provWant{{checks.CodeProvenanceStale, checks.SeverityWarning, 5, []string{"a.go, b.go, c.go, d.go, e.go, and 2 more", "rewritten"}}}},
		{name: "a forged and stale accept under require is reported twice and not accepted", mode: "require", stale: "tree",
			payload: map[string]any{"commit": provReviewed}, commit: commitBy("f0f0", "dev-acct", true),
			setup: func(in *provCase) {
				in.Stale[5] = checks.StaleFacts{Anchor: provReviewed, Changed: []string{"src/login.go"}, Touching: []string{provOtherSHA}}
			},
			want: []provWant{
				{checks.CodeProvenanceUnverified, checks.SeverityError, 5, []string{"dev-acct"}},
				{checks.CodeProvenanceStale, checks.SeverityError, 5, []string{"src/login.go"}},
			},
			notAccepted: []string{"T1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			seat := tt.seat
			if seat == "" {
				seat = "rev"
			}
			in := provInput(t, provConfig(t, tt.mode, tt.stale, tt.extraConfig), seat, tt.payload, tt.commit)
			if tt.setup != nil {
				tt.setup(&in)
			}
			res := checks.Provenance(in.input())
			if len(res.Findings) != len(tt.want) {
				t.Fatalf("findings = %d, want %d:\n%s", len(res.Findings), len(tt.want), provDump(res.Findings))
			}
			for i, w := range tt.want {
				f := res.Findings[i]
				if f.Code != w.code || f.Severity != w.severity || f.Line != w.line || f.Path != ".pact/log.jsonl" {
					t.Errorf("finding %d = %s %s %s:%d, want %s %s line %d", i, f.Code, f.Severity, f.Path, f.Line, w.code, w.severity, w.line)
				}
				for _, s := range w.says {
					if !strings.Contains(f.Message, s) {
						t.Errorf("finding %d message %q does not say %q", i, f.Message, s)
					}
				}
				if f.Hint == "" {
					t.Errorf("finding %d has no hint", i)
				}
				if w.line == 5 && (f.TaskID != "T1" || f.Feature != "LOGIN" || f.EventID != fmt.Sprintf("%032x", 5)) {
					t.Errorf("finding %d names task %q feature %q event %q", i, f.TaskID, f.Feature, f.EventID)
				}
			}
			got := slices.Sorted(maps.Keys(res.NotAccepted))
			want := tt.notAccepted
			if want == nil {
				want = []string{}
			}
			if got == nil {
				got = []string{}
			}
			if !slices.Equal(got, want) {
				t.Errorf("not accepted = %v, want %v", res.NotAccepted, want)
			}
			if tt.mode == "off" && len(res.Evidence) != 0 {
				t.Errorf("off verified lines: %v", res.Evidence)
			}
		})
	}
}

func provDump(fs []checks.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s %s line %d: %s\n", f.Code, f.Severity, f.Line, f.Message)
	}
	return b.String()
}

// Verified lines say what proved them.
func TestProvenanceEvidence(t *testing.T) {
	t.Parallel()
	in := provInput(t, provConfig(t, "require", "sticky", ""), "rev", botReviewPayload(), commitBy("c0ffee", provBot, true))
	in.Reviews[provReviewID] = approved("rev-acct")
	res := checks.Provenance(in.input())
	if len(res.Findings) != 0 {
		t.Fatalf("findings:\n%s", provDump(res.Findings))
	}
	if !strings.Contains(res.Evidence[5], "review 9001 (approved) by account rev-acct, who holds seat rev") {
		t.Errorf("evidence of line 5 = %q", res.Evidence[5])
	}
	if !strings.Contains(res.Evidence[3], "authored and signed by account dev-acct") {
		t.Errorf("evidence of line 3 = %q", res.Evidence[3])
	}
}

// Without a configuration the default policy is warn and no seat is mapped,
// so nothing the PR adds can be verified: one warning says so, on the first
// line, rather than one per line.
func TestProvenanceDefaultConfigWarnsOnce(t *testing.T) {
	t.Parallel()
	in := provInput(t, nil, "rev", nil, commitBy("ac1", "rev-acct", true))
	res := checks.Provenance(in.input())
	if len(res.Findings) != 1 {
		t.Fatalf("findings:\n%s", provDump(res.Findings))
	}
	f := res.Findings[0]
	if f.Code != checks.CodeProvenanceUnverified || f.Severity != checks.SeverityWarning || f.Line != 3 ||
		!strings.Contains(f.Message, "none of the 3 events this pull request adds (lines 3–5) can be verified") ||
		!strings.Contains(f.Message, ".github/pact.yml on main maps no GitHub account to any seat") {
		t.Errorf("finding %s %s line %d: %s", f.Code, f.Severity, f.Line, f.Message)
	}
	if len(res.NotAccepted) != 0 {
		t.Errorf("warn changed Rule 2: %v", res.NotAccepted)
	}
	// Its hint, followed: each seat mapped to the accounts that act for
	// it, every line is verified.
	if !strings.HasPrefix(f.Hint, "Map each seat to the GitHub accounts that act for it under seats:") {
		t.Errorf("hint %q", f.Hint)
	}
	if res := checks.Provenance(provInput(t, provConfig(t, "warn", "sticky", ""), "rev", nil, commitBy("ac1", "rev-acct", true)).input()); len(res.Findings) != 0 {
		t.Errorf("with every seat mapped:\n%s", provDump(res.Findings))
	}
	// Under require every line still fails on its own.
	cfg := provConfig(t, "require", "sticky", "")
	cfg.Seats = map[string][]string{}
	res = checks.Provenance(provInput(t, cfg, "rev", nil, commitBy("ac1", "rev-acct", true)).input())
	if len(res.Findings) != 3 || res.Findings[2].Severity != checks.SeverityError || res.Findings[2].Line != 5 {
		t.Errorf("require without seats:\n%s", provDump(res.Findings))
	}
}

// An accept the replay did not apply is not judged for staleness (only its
// provenance), and does not make its task not accepted.
func TestProvenanceStaleOnlyForAppliedAccepts(t *testing.T) {
	t.Parallel()
	// lead accepts: a seat that is not the reviewer, so replay rejects it.
	in := provInput(t, provConfig(t, "require", "tree", ""), "lead", map[string]any{"commit": provReviewed}, commitBy("ac1", "lead-acct", true))
	in.Stale[5] = checks.StaleFacts{Anchor: provReviewed, Changed: []string{"x.go"}}
	res := checks.Provenance(in.input())
	if len(res.Findings) != 0 || len(res.NotAccepted) != 0 {
		t.Fatalf("findings:\n%s not accepted %v", provDump(res.Findings), res.NotAccepted)
	}
}

func TestAcceptAnchor(t *testing.T) {
	t.Parallel()
	ev := &projection.Event{Payload: projection.Payload{GitHub: &projection.GitHubRef{ReviewID: 1}}}
	reviews := map[int64]ghfacts.Review{1: {Found: true, CommitID: provReviewed}}
	if got := checks.AcceptAnchor(ev, reviews, "p"); got != provReviewed {
		t.Errorf("anchor from the review = %q", got)
	}
	ev.Payload.Commit = provOtherSHA
	if got := checks.AcceptAnchor(ev, reviews, "p"); got != provOtherSHA {
		t.Errorf("anchor from payload.commit = %q", got)
	}
	if got := checks.AcceptAnchor(&projection.Event{}, reviews, "p"); got != "p" {
		t.Errorf("anchor of an accept without commit or review = %q, want the parent of its commit", got)
	}
	if got := checks.AcceptAnchor(&projection.Event{}, reviews, ""); got != "" {
		t.Errorf("anchor of nothing = %q", got)
	}
	if !checks.IsBotLogin("GitHub-Actions[bot]", []string{provBot}) || checks.IsBotLogin("", []string{provBot}) {
		t.Error("IsBotLogin")
	}
}

// checks.PullRequest weighs the provenance facts itself, under the policy
// of the configuration it is given: a forged accept fails and keeps its
// task waiting under require, and only warns under warn.
func TestPullRequestWeighsProvenance(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"require", "warn", "off"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			yml := fmt.Sprintf("seats:\n  lead: [lead-acct]\n  dev: [dev-acct]\n  rev: [rev-acct]\nprovenance:\n  mode: %s\n  stale: sticky\n", mode)
			facts := provInput(t, nil, "rev", nil, commitBy("f0f0", "dev-acct", true)).input()
			raw := provLog(t, "rev", nil)
			log, res := projection.ReadEvents(raw)
			in := checks.Input{Dir: ".pact", Scan: &log.Scan, Replay: res, State: projection.RenderBytes(res.State), TaskFiles: map[string][]byte{}}
			got := checks.PullRequest(in, checks.PullRequestFacts{HeadLog: raw, Branches: []string{"feat/login"},
				Config: config.ParseFile([]byte(yml), "", ""), Provenance: &facts})
			var codes []string
			for _, f := range got {
				if f.Code == checks.CodeProvenanceUnverified || f.Code == checks.CodePRUnaccepted {
					codes = append(codes, fmt.Sprintf("%s/%s", f.Code, f.Severity))
				}
			}
			want := map[string][]string{
				"require": {"pr.unaccepted_feature/pending", "provenance.unverified/error"},
				"warn":    {"provenance.unverified/warning"},
				"off":     nil,
			}[mode]
			slices.Sort(codes)
			if !slices.Equal(codes, want) {
				t.Errorf("findings %v, want %v", codes, want)
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
			in.Comments[provCommentID] = commented("rev-acct")
			in.CommentCommands[provCommentID] = []checks.CommentCommand{tt.command}

			fs := checks.Provenance(in.input()).Findings

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
	log, res := projection.ReadEvents(raw)
	if res.Unsupported == nil {
		t.Fatal("the fixture is not a newer protocol's log")
	}
	facts := provInput(t, provConfig(t, "require", "tree", "unmapped-branches: block\n"), "dev", nil, commitBy("dddd", "dev-acct", true)).input()
	in := checks.Input{Dir: ".pact", Scan: &log.Scan, Replay: res, State: projection.RenderBytes(res.State), TaskFiles: map[string][]byte{}}

	got := checks.PullRequest(in, checks.PullRequestFacts{BaseLog: []byte("{}\n"), HeadLog: raw, Branches: []string{"feat/other"},
		Config: config.ParseFile([]byte("provenance:\n  mode: require\nunmapped-branches: block\n"), "", ""), Provenance: &facts, ChangesOutsidePact: true})

	if len(got) != 1 || got[0].Code != projection.CodeVersionUnsupported || got[0].Line != 1 {
		t.Errorf("findings = %s, want only %s on line 1", provDump(got), projection.CodeVersionUnsupported)
	}
}

// TestProvenanceFloodIsListed: a pull request that adds thousands of
// events holds a listing of their findings and evidence, not one entry per
// line, with every count exact (docs/semantics.md §7). The events come one
// at a time in one Event the sequence reuses, as action decodes them.
func TestProvenanceFloodIsListed(t *testing.T) {
	t.Parallel()
	const flood = 5_000
	var lines []string
	at := time.Date(2026, 6, 9, 11, 0, 0, 0, time.UTC)
	for i := range flood {
		b, err := projection.Encode(projection.Draft{EventID: fmt.Sprintf("f%031x", i), TS: at.Add(time.Duration(i) * time.Second),
			AgentID: "dev", Type: projection.TypeCheckpoint, TaskID: "T1", Feature: "LOGIN", Payload: projection.CheckpointPayload{Evidence: fmt.Sprint(i)}})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	raw := append(provLog(t, "rev", nil), strings.Join(lines, "\n")+"\n"...)
	_, res := projection.ReadBytes(raw, projection.ReadOptions{})
	for _, tc := range []struct {
		name   string
		commit *ghfacts.Commit
		// unverified and future are the counts of those codes; evidence
		// the verified lines that say why.
		unverified, future, evidence int
	}{
		{"verified", commitBy("d1", "dev-acct", true), 0, 0, checks.MaxListed},
		{"by another account", commitBy("r1", "rev-acct", true), flood, 0, 0},
		{"stamped ahead of a commit and of the check", &ghfacts.Commit{SHA: "d2", AuthorLogin: "rev-acct", CommitterDate: at.Add(-72 * time.Hour)}, flood, flood, 0},
	} {
		in := checks.ProvenanceInput{LogPath: ".pact/log.jsonl", Config: provConfig(t, "require", "sticky", ""), BotLogins: []string{provBot},
			Branches: []string{"feat/login"}, PRNumber: 7, State: res.State, Now: at.Add(-48 * time.Hour)}
		in.Events = func(yield func(checks.AddedEvent) bool) {
			projection.EachEvent(raw, func(ev *projection.Event) {
				if ev.Line > 5 {
					yield(checks.AddedEvent{Event: ev, Commit: tc.commit})
				}
			})
		}
		got := checks.Provenance(in)
		n := map[projection.Code]int{}
		for _, f := range got.Findings {
			n[f.Code] += max(f.Omitted, 1)
		}
		if n[checks.CodeProvenanceUnverified] != tc.unverified || n[checks.CodeProvenanceFutureTS] != tc.future || len(got.Evidence) != tc.evidence {
			t.Errorf("%s: %d unverified, %d future, %d lines with evidence; want %d, %d, %d", tc.name,
				n[checks.CodeProvenanceUnverified], n[checks.CodeProvenanceFutureTS], len(got.Evidence), tc.unverified, tc.future, tc.evidence)
		}
		if most := 4*checks.MaxListed + 4*(checks.MaxListed+1); len(got.Findings) > most {
			t.Errorf("%s: %d findings held, over %d", tc.name, len(got.Findings), most)
		}
		capped := checks.Cap(got.Findings)
		for _, f := range capped {
			if f.Omitted == 0 && (f.Line <= 5 || f.Line > 5+checks.MaxListed) {
				t.Errorf("%s: line %d listed, not one of the first %d added", tc.name, f.Line, checks.MaxListed)
			}
		}
	}
}
