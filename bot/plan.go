package bot

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/projection"
)

// request is one review or comment, as GitHub has it, with what the
// plan needs around it.
type request struct {
	Repo       string // owner/name: part of every derived event_id
	Login      string // who reviewed or commented
	HeadBranch string
	// HeadSHA is the commit the request was given on: the reviewed commit
	// of a review, the head of the branch when a comment was made; the
	// plan is made against the log at this commit.
	HeadSHA string
	Review  *ghfacts.Review
	Comment *ghfacts.Comment
	// CanWrite is whether Login has write permission on the repository.
	CanWrite bool
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

// planReview maps a submitted review to events: approved → accept and
// changes_requested → changes_requested, for every task on the head branch
// that awaited review, by a seat the reviewer holds, in st: the log at the
// reviewed commit (not the branch's head, which may hold tasks checkpointed
// after the review). Decide has tested the seat.
func planReview(d Decision, req request, cfg *config.Config, st *projection.State) Decision {
	r := req.Review
	var typ string
	switch r.State {
	case ghfacts.ReviewApproved:
		typ = projection.TypeAccept
	case ghfacts.ReviewChangesRequested:
		typ = projection.TypeChangesRequested
	default:
		return d // commented, dismissed: nothing to record
	}
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
			d.Intents = append(d.Intents, reviewIntent(req, t, typ))
		}
	}
	d.Replies = append(d.Replies, refused...)
	if len(d.Intents) > 0 || len(refused) > 0 {
		return d
	}
	nothing := nothingToReview(req.Login, cfg.SeatsOf(req.Login), req.HeadBranch, r.CommitID, st)
	if typ == projection.TypeAccept {
		// An approval of code an accept no longer covers renews it; the
		// judgement of the head tells.
		for _, id := range st.TaskOrder {
			t := st.Tasks[id]
			if t.Branch == req.HeadBranch && t.Status == projection.StatusAccepted && cfg.ReviewRight(req.Login, t.Owner, t.Reviewer) == config.MayReview {
				d.Renew = append(d.Renew, t.ID)
			}
		}
	}
	if len(d.Renew) > 0 {
		d.NotRenewed, d.Recheck = nothing, true
		return d
	}
	d.Replies = append(d.Replies, nothing)
	return d
}

func reviewIntent(req request, t *projection.Task, typ string) Intent {
	r := req.Review
	reason := strings.TrimSpace(r.Body)
	if reason == "" {
		reason = fmt.Sprintf("changes requested in review %s", r.URL)
	}
	d := event(typ, t, reason, r.CommitID, &projection.GitHubRef{ReviewID: r.ID, URL: r.URL, Login: req.Login, HeadSHA: r.CommitID})
	d.EventID, d.TS = EventID(req.Repo, "review", r.ID, t.ID), r.SubmittedAt
	return Intent{Draft: d, What: fmt.Sprintf("%s %s (review %d by @%s)", typ, t.ID, r.ID, req.Login)}
}

// planComment runs the /pact commands of a comment in order, against st:
// the log at the head of the branch when the comment was made.
func planComment(plan Decision, req request, cfg *config.Config, st *projection.State, cmds []Command) Decision {
	for i, cmd := range cmds {
		switch cmd.Verb {
		case verbHelp:
			plan.Replies = append(plan.Replies, helpReply(cmd.Problem))
			plan.Acknowledge = true
		case verbStatus:
			plan.Status, plan.Acknowledge = true, true
		case verbRecheck:
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

func planTaskCommand(req request, cfg *config.Config, st *projection.State, cmd Command, index int) (in Intent, refusal string, byState bool) {
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
func commentKind(c *ghfacts.Comment, index int) string {
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
