package action

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pact-action/pact-action/bot"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/projection"
)

// Backing evidence: the review or /pact comment a bot-written event names,
// as GitHub has it now — the reviewer's reviews, the comment's body and
// times, the head of the branch when it was made — and the tasks that
// awaited review at the commit it covered.

// fetchBacking gathers what the review or comment a bot-written event
// names is judged on: the pull request's reviews (once), or the comment
// (once per id) with the head of the branch when it was made, and whether
// the task awaited review there. parent is the commit the event's line was
// recorded on.
func (g *gatherer) fetchBacking(ref *projection.GitHubRef, parent string, pin *checks.ProvenanceInput) error {
	switch {
	case ref.ReviewID != 0:
		if err := g.listReviews(pin); err != nil {
			return err
		}
		rf, ok := pin.Reviews[ref.ReviewID]
		if !ok {
			return nil
		}
		// The tasks awaiting review there go to pin.Awaiting when they
		// can be read.
		return g.awaitingAt(rf.CommitID)
	case ref.CommentID != 0:
		if _, asked := pin.Comments[ref.CommentID]; !asked {
			if err := g.comment(ref.CommentID, pin); err != nil {
				return err
			}
		}
		if h := pin.CommentHeads[ref.CommentID].SHA; h != "" && parent != "" && h != parent {
			if _, asked := pin.Unchanged[checks.Span{From: h, To: parent}]; !asked {
				same, err := g.code.same(g.ctx, h, parent)
				if err != nil {
					return err
				}
				pin.Unchanged[checks.Span{From: h, To: parent}] = same
			}
		}
	}
	return nil
}

// comment gathers into pin the facts of one comment: who wrote it and
// when, whether it was edited, its /pact commands as GitHub renders them,
// and the head of the branch when it was made with the tasks awaiting
// review there.
func (g *gatherer) comment(id int64, pin *checks.ProvenanceInput) error {
	// The event does not say which kind of comment it was: try one, then
	// the other.
	cf, err := g.in.Run.facts.Comment(g.ctx, g.gh, id, ghapi.IssueComment, ghapi.ReviewComment)
	if err != nil {
		return err
	}
	pin.Comments[id] = cf
	if !cf.Found {
		return nil
	}
	pin.CommentCommands[id] = commentCommands(cf.Body)
	head, err := headAtComment(g.ctx, g.gh, g.in.PR, cf.CreatedAt)
	if err != nil {
		return err
	}
	pin.CommentHeads[id] = head
	if head.SHA == "" {
		return nil
	}
	return g.awaitingAt(head.SHA)
}

// commentCommands are the event-recording /pact commands of a comment body,
// read with the bot's own parser.
func commentCommands(body string) []checks.CommentCommand {
	var out []checks.CommentCommand
	for _, cmd := range bot.ParseCommands(body) {
		switch cmd.Verb {
		case bot.VerbAccept:
			out = append(out, checks.CommentCommand{Type: projection.TypeAccept, Task: cmd.Task})
		case bot.VerbChanges:
			out = append(out, checks.CommentCommand{Type: projection.TypeChangesRequested, Task: cmd.Task})
		}
	}
	return out
}

// headAtComment is the commit the pull request's head branch pointed at
// when a comment was made, from GitHub's push history ("" and why when it
// cannot be told: docs/semantics.md §5). Only the server's own record of
// the pushes says it; a commit's dates, or the head at hand when the bot
// or the check runs, do not, so where there is no record — no activity
// API (an older GitHub Enterprise Server), a fork, history that does not
// reach back, a push in the comment's second — the comment backs nothing.
func headAtComment(ctx context.Context, gh reader, pr ghfacts.PullRequest, at time.Time) (ghfacts.HeadAt, error) {
	if pr.Fork {
		return ghfacts.HeadAt{Why: "the branch lives in a fork, whose push history this repository does not have"}, nil
	}
	sha, err := gh.BranchHeadAt(ctx, pr.HeadRef, at)
	switch {
	case errors.Is(err, ghapi.ErrNoPushHistory):
		return ghfacts.HeadAt{Why: "this GitHub server keeps no push history (it has no repository activity API)"}, nil
	case errors.Is(err, ghapi.ErrSameSecond):
		return ghfacts.HeadAt{Why: "a push to the branch is stamped in the same second as the comment, so which came first cannot be told"}, nil
	case errors.Is(err, ghapi.ErrNotFound):
		return ghfacts.HeadAt{Why: "GitHub's push history of the branch does not reach back to the comment"}, nil
	case err != nil:
		return ghfacts.HeadAt{}, fmt.Errorf("read the push history of %s: %w", pr.HeadRef, err)
	}
	return ghfacts.HeadAt{SHA: sha}, nil
}

// awaitingAt reads the tasks awaiting review in the log at sha into
// g.awaiting, which is checks.ProvenanceInput.Awaiting (one read per
// commit, the two logs already read excepted); it leaves none when the
// read budget is spent or sha is not a commit id, and then nothing given
// on sha is verified.
func (g *gatherer) awaitingAt(sha string) error {
	if _, ok := g.awaiting[sha]; ok {
		return nil
	}
	switch {
	case sha == g.head:
		g.awaiting[sha] = awaitingIn(g.in.Replay.State) // HeadLog's replay, made once
	case sha == g.in.MergeBase:
		g.awaiting[sha] = awaitingIn(replayed(g.in.BaseLog))
	case !commitSHA.MatchString(sha):
	default:
		if err := g.readLogAt(sha); !errors.Is(err, errBudget) {
			return err
		}
	}
	return nil
}

// replayed is the state a log leaves.
func replayed(log []byte) *projection.State {
	_, res := projection.ReadBytes(log, projection.ReadOptions{})
	return res.State
}

// awaitingIn lists the tasks awaiting review in a state (none in nil: no
// log).
func awaitingIn(st *projection.State) []string {
	tasks := []string{}
	if st == nil {
		return tasks
	}
	for _, id := range st.TaskOrder {
		if st.Tasks[id].Status == projection.StatusAwaitingReview {
			tasks = append(tasks, id)
		}
	}
	return tasks
}
