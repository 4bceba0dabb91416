package bot

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/projection"
)

// Review is a submitted pull-request review, as GitHub reports it when the
// bot runs (not as the webhook said: it may since have been superseded).
type Review struct {
	ID          int64
	State       string // approved, changes_requested, commented, dismissed; any case
	Body        string
	URL         string
	CommitID    string // the head commit that was reviewed
	SubmittedAt time.Time
}

// Comment is a PR comment that may hold /pact commands.
type Comment struct {
	// OnDiff is set for a review comment on the diff; those and
	// conversation comments have separate id spaces on GitHub.
	OnDiff    bool
	ID        int64
	Body      string
	URL       string
	CreatedAt time.Time
}

// Request is one GitHub event, reduced to what the pact needs.
type Request struct {
	Repo       string // owner/name: part of every derived event_id
	Login      string // who reviewed or commented
	HeadBranch string
	// HeadSHA is the commit the request was given on: the reviewed commit
	// of a review, the head of the branch when a comment was made; the
	// caller plans against the log at this commit.
	HeadSHA string
	Review  *Review
	Comment *Comment
	// CanWrite is whether Login has write permission on the repository
	// (asked of the collaborator-permission endpoint by the caller).
	CanWrite bool
}

// Intent is an event the request asks to append.
type Intent struct {
	Draft projection.Draft
	// What names the event for commit messages and replies.
	What string
	// FromComment marks an event recorded from a /pact comment: its
	// payload.commit is the head of the branch when the comment was made,
	// and it may only be written on a commit with the same code.
	FromComment bool
}

// Plan is what the bot will do for a request.
type Plan struct {
	Intents []Intent
	Replies []string
	// Status, Recheck: the comment asked for the state table or a fresh
	// check; Acknowledge: it held a command the bot handled (or refused).
	Status, Recheck, Acknowledge bool
	// Refused counts the commands asking for an event that the pact's
	// state refused (the task did not await review).
	Refused int
	// Renew lists the accepted tasks an approval may renew the coverage
	// of (docs/semantics.md §5): no event is written for them; the caller
	// judges the head again and replies RenewedReply or, when the approval
	// renewed nothing, NotRenewed.
	Renew []string
	// NotRenewed is the reply when the approval renewed no task's coverage.
	NotRenewed string
}

// EventID derives a deterministic 128-bit event_id from the GitHub object
// and the task, so a re-delivered webhook or a re-run job appends nothing
// twice.
func EventID(repo, kind string, id int64, task string) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("pact-action\x00%s\x00%s\x00%d\x00%s", strings.ToLower(repo), kind, id, task)))
	return hex.EncodeToString(sum[:16])
}

// event is the accept or changes_requested a review or command asks for,
// by task's reviewer seat: the commit it was given on, the GitHub object
// behind it, and for changes_requested the reason.
func event(typ string, t *projection.Task, reason, commit string, gh *projection.GitHubRef) projection.Draft {
	if typ == projection.TypeAccept {
		return projection.NewAccept(t.Reviewer, t.ID, t.Feature, projection.AcceptPayload{Commit: commit, GitHub: gh})
	}
	return projection.NewChangesRequested(t.Reviewer, t.ID, t.Feature, projection.ChangesRequestedPayload{Reason: reason, Commit: commit, GitHub: gh})
}

// PlanReview maps a submitted review to events: approved → accept and
// changes_requested → changes_requested, for every task on the head branch
// that awaited review, by a seat the reviewer holds, in st: the log at the
// reviewed commit (not the branch's head, which may hold tasks checkpointed
// after the review).
func PlanReview(req Request, cfg *config.Config, st *projection.State) Plan {
	r := req.Review
	var typ string
	switch strings.ToLower(r.State) {
	case "approved":
		typ = projection.TypeAccept
	case "changes_requested":
		typ = projection.TypeChangesRequested
	default:
		return Plan{} // commented, dismissed: nothing to record
	}
	seats := cfg.SeatsOf(req.Login)
	if len(seats) == 0 {
		return Plan{} // people review for many reasons; no seat, no event
	}
	var plan Plan
	var refused []string
	for _, id := range st.TaskOrder {
		t := st.Tasks[id]
		if t.Branch != req.HeadBranch || t.Status != projection.StatusAwaitingReview {
			continue
		}
		switch cfg.ReviewRight(req.Login, t.Owner, t.Reviewer) {
		case config.OwnsTheTask:
			refused = append(refused, ownerRefusal(req.Login, t, typ))
		case config.MayReview:
			plan.Intents = append(plan.Intents, reviewIntent(req, t, typ))
		}
	}
	plan.Replies = append(plan.Replies, refused...)
	if len(plan.Intents) > 0 || len(refused) > 0 {
		return plan
	}
	nothing := nothingToReview(req.Login, seats, req.HeadBranch, r.CommitID, st)
	if typ == projection.TypeAccept {
		// An approval of code an accept no longer covers renews it; the
		// judgement of the head tells.
		for _, id := range st.TaskOrder {
			t := st.Tasks[id]
			if t.Branch == req.HeadBranch && t.Status == projection.StatusAccepted && cfg.ReviewRight(req.Login, t.Owner, t.Reviewer) == config.MayReview {
				plan.Renew = append(plan.Renew, t.ID)
			}
		}
	}
	if len(plan.Renew) > 0 {
		plan.NotRenewed, plan.Recheck = nothing, true
		return plan
	}
	plan.Replies = append(plan.Replies, nothing)
	return plan
}

func reviewIntent(req Request, t *projection.Task, typ string) Intent {
	r := req.Review
	reason := strings.TrimSpace(r.Body)
	if reason == "" {
		reason = fmt.Sprintf("changes requested in review %s", r.URL)
	}
	d := event(typ, t, reason, r.CommitID, &projection.GitHubRef{ReviewID: r.ID, URL: r.URL, Login: req.Login, HeadSHA: r.CommitID})
	d.EventID, d.TS = EventID(req.Repo, "review", r.ID, t.ID), r.SubmittedAt
	return Intent{Draft: d, What: fmt.Sprintf("%s %s (review %d by @%s)", typ, t.ID, r.ID, req.Login)}
}

// PlanComment runs the /pact commands of a comment in order, against st:
// the log at the head of the branch when the comment was made.
func PlanComment(req Request, cfg *config.Config, st *projection.State, cmds []Command) Plan {
	var plan Plan
	for i, cmd := range cmds {
		switch cmd.Verb {
		case VerbHelp:
			plan.Replies = append(plan.Replies, helpReply(cmd.Problem))
			plan.Acknowledge = true
		case VerbStatus:
			plan.Status, plan.Acknowledge = true, true
		case VerbRecheck:
			if !req.CanWrite {
				plan.Replies = append(plan.Replies, noWrite(req.Login, "/pact recheck"))
				continue
			}
			plan.Recheck, plan.Acknowledge = true, true
		case VerbAccept, VerbChanges:
			intent, refusal, stateRefusal := planTaskCommand(req, cfg, st, cmd, i)
			if refusal != "" {
				plan.Replies = append(plan.Replies, refusal)
				if stateRefusal {
					// Like the engine's refusals: the command was
					// understood, the pact said no (😕).
					plan.Refused++
					plan.Acknowledge = true
				}
				continue
			}
			plan.Intents = append(plan.Intents, intent)
			plan.Acknowledge = true
		}
	}
	return plan
}

func planTaskCommand(req Request, cfg *config.Config, st *projection.State, cmd Command, index int) (in Intent, refusal string, byState bool) {
	typ := projection.TypeAccept
	if cmd.Verb == VerbChanges {
		typ = projection.TypeChangesRequested
	}
	what := "/pact " + cmd.Verb
	if !req.CanWrite {
		return Intent{}, noWrite(req.Login, what), false
	}
	t := st.Tasks[cmd.Task]
	if t == nil {
		return Intent{}, unknownTaskReply(what, cmd.Task, st, req.HeadBranch), false
	}
	switch cfg.ReviewRight(req.Login, t.Owner, t.Reviewer) {
	case config.OwnsTheTask:
		return Intent{}, ownerRefusal(req.Login, t, typ), false
	case config.NotTheReviewer:
		return Intent{}, notReviewerRefusal(req.Login, cfg.SeatsOf(req.Login), t, what), false
	}
	if t.Status != projection.StatusAwaitingReview {
		return Intent{}, notAwaitingReply(what, t, req.HeadSHA), true
	}
	c := req.Comment
	d := event(typ, t, cmd.Reason, req.HeadSHA, &projection.GitHubRef{CommentID: c.ID, URL: c.URL, Login: req.Login, HeadSHA: req.HeadSHA})
	// Every command of a comment carries the comment's own time (replay
	// orders ties by line, so they replay in comment order); the id tells
	// them apart by their place in the comment.
	d.EventID, d.TS = EventID(req.Repo, commentKind(c, index), c.ID, t.ID), c.CreatedAt
	return Intent{Draft: d, What: fmt.Sprintf("%s %s (comment %d by @%s)", typ, t.ID, c.ID, req.Login), FromComment: true}, "", false
}

// commentKind names the GitHub object an event comes from, for its
// event_id: the comment's id space and the command's place in the comment.
func commentKind(c *Comment, index int) string {
	if c.OnDiff {
		return fmt.Sprintf("review_comment#%d", index)
	}
	return fmt.Sprintf("issue_comment#%d", index)
}

// PactifyCommand is the pactify command line that records the same event
// by hand, for branches the bot cannot write (forks).
func PactifyCommand(in Intent) string {
	d := in.Draft
	if p, ok := d.Payload.(projection.ChangesRequestedPayload); ok {
		return fmt.Sprintf("PACT_AGENT_ID=%s pactify changes %s --reason %s", d.AgentID, shellQuote(d.TaskID), shellQuote(p.Reason))
	}
	return fmt.Sprintf("PACT_AGENT_ID=%s pactify accept %s", d.AgentID, shellQuote(d.TaskID))
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
