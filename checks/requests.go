package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/projection"
)

// Review requests (docs/check.md, "Review requests"): the check asks GitHub
// for the review each task it waits for needs, from the accounts (or the
// teams) .github/pact.yml at the base maps to the task's reviewer seat.
// PlanReviewRequests is the one decision of whom to ask and why; the
// action carries it out with one request and renders what stands.

// maxRequestedReviewers is the most reviewers, accounts and teams
// together, GitHub keeps requested on a pull request: its web interface
// offers "Request up to 15 reviewers"; its REST reference names no number.
const maxRequestedReviewers = 15

// Reviewer is an account or a team a review is requested from: exactly
// one of Login and Team (a team's slug) is set.
type Reviewer struct {
	Login string
	Team  string
}

// String names the reviewer for the job log: @login or team slug.
func (r Reviewer) String() string {
	if r.Team != "" {
		return "team " + r.Team
	}
	return "@" + r.Login
}

// name is the login, or "team slug".
func (r Reviewer) name() string {
	if r.Team != "" {
		return "team " + r.Team
	}
	return r.Login
}

func (r Reviewer) same(o Reviewer) bool {
	return strings.EqualFold(r.Login, o.Login) && strings.EqualFold(r.Team, o.Team)
}

// Requestable reports whether GitHub can ask login for a review: an app's
// account (name[bot]) can be neither a collaborator nor a requested
// reviewer.
func Requestable(login string) bool {
	return login != "" && !strings.HasSuffix(strings.ToLower(login), "[bot]")
}

// ReviewRequestInput is what the decision weighs: the verdict on a pull
// request's head, the configuration at its base, and what GitHub already
// holds.
type ReviewRequestInput struct {
	// Config is .github/pact.yml at the default branch's tip (nil: the
	// default); State is the replay of the head's log.
	Config *config.Config
	State  *projection.State
	// Findings are the pull request's verdict: a pending
	// pr.unaccepted_feature finding names each task it waits for.
	Findings []Finding
	// Author is the pull request's author; Head its head commit.
	Author string
	Head   string
	// RequestedUsers and RequestedTeams are the reviews GitHub holds as
	// requested (a review removes its author's request).
	RequestedUsers, RequestedTeams []string
	// Reviews are the reviews the judgement read (none when it read none:
	// then a review of the head is not known, and asking again is at worst
	// GitHub's re-request).
	Reviews map[int64]ghfacts.Review
}

// ReviewAsk is one task the pact waits for a review of, and who stands
// asked once the plan is carried out.
type ReviewAsk struct {
	TaskID string
	// Seat is the task's reviewer seat; Why says in a few words why it
	// waits (for the job log).
	Seat, Why string
	// Pending were requested already; Asked are asked now.
	Pending, Asked []Reviewer
	// Skipped says, per account of the seat that is not asked, why.
	Skipped []string
}

// Standing lists who stands requested for the task: those pending, then
// those asked now.
func (a ReviewAsk) Standing() []Reviewer {
	return append(slices.Clone(a.Pending), a.Asked...)
}

// ReviewPlan is whom to ask, and why.
type ReviewPlan struct {
	// Tasks are the waiting tasks a review can settle, in the verdict's
	// order.
	Tasks []ReviewAsk
	// Ask is everyone asked now, each once (empty: no request to make).
	Ask []Reviewer
	// Notes say, one sentence each, what the pact waits for that nobody
	// was asked for, and what was left out.
	Notes []string
}

// PlanReviewRequests decides whom to ask for the reviews the verdict waits
// for: for each task awaiting review, or accepted with an accept that no
// longer covers the head, the teams review-teams names for its reviewer
// seat, else the seat's accounts; never the pull request's author, an
// account that also holds the owner's seat (Rule 1 on identities:
// config.ReviewRight), or an app's account; nobody with a pending request
// or a review of the head (a review of an older commit, as after new code
// made an accept stale, is asked again: GitHub's re-request). At most
// maxRequestedReviewers stand requested; the rest is left out and noted.
// Under review-requests: off, or with no seat mapped at all, it plans
// nothing.
func PlanReviewRequests(in ReviewRequestInput) ReviewPlan {
	cfg := in.Config
	if cfg == nil {
		cfg = config.Default()
	}
	var plan ReviewPlan
	if cfg.ReviewRequests == config.RequestsOff || in.State == nil || !anySeatMapped(cfg) && len(cfg.ReviewTeams) == 0 {
		// With no seat mapped at all, the pact is not tied to GitHub
		// accounts (provenance says so once): nobody to ask, nothing to
		// note per task.
		return plan
	}
	pending := func(r Reviewer) bool {
		if r.Team != "" {
			return slices.ContainsFunc(in.RequestedTeams, func(s string) bool { return strings.EqualFold(s, r.Team) })
		}
		return slices.ContainsFunc(in.RequestedUsers, func(s string) bool { return strings.EqualFold(s, r.Login) })
	}
	standing := len(in.RequestedUsers) + len(in.RequestedTeams)
	var leftOut []string
	for _, f := range in.Findings {
		if f.Severity != SeverityPending || f.Code != CodePRUnaccepted || f.TaskID == "" {
			continue
		}
		t := in.State.Tasks[f.TaskID]
		if t == nil {
			continue
		}
		ask := ReviewAsk{TaskID: t.ID, Seat: t.Reviewer}
		switch t.Status {
		case projection.StatusAwaitingReview:
			ask.Why = t.ID + " is awaiting review"
		case projection.StatusAccepted:
			ask.Why = "the accept of " + t.ID + " no longer covers the head"
		default:
			continue // the owner's move, not a reviewer's
		}
		var candidates []Reviewer
		if teams := cfg.TeamsOf(t.Reviewer); len(teams) > 0 {
			for _, team := range teams {
				candidates = append(candidates, Reviewer{Team: team})
			}
		} else {
			for _, login := range cfg.LoginsOf(t.Reviewer) {
				if why := in.mayNotAsk(cfg, t, login); why != "" {
					ask.Skipped = append(ask.Skipped, login+": "+why)
					continue
				}
				candidates = append(candidates, Reviewer{Login: login})
			}
		}
		for _, r := range candidates {
			switch {
			case pending(r):
				ask.Pending = append(ask.Pending, r)
			case r.Login != "" && in.reviewedHead(r.Login):
				ask.Skipped = append(ask.Skipped, r.Login+": reviewed this commit already")
			case slices.ContainsFunc(plan.Ask, r.same):
				ask.Asked = append(ask.Asked, r)
			case standing >= maxRequestedReviewers:
				leftOut = append(leftOut, r.String())
				ask.Skipped = append(ask.Skipped, r.name()+fmt.Sprintf(": GitHub keeps at most %d reviewers requested", maxRequestedReviewers))
			default:
				standing++
				plan.Ask = append(plan.Ask, r)
				ask.Asked = append(ask.Asked, r)
			}
		}
		if len(ask.Pending)+len(ask.Asked) == 0 {
			plan.Notes = append(plan.Notes, nobodyAsked(cfg, t, ask))
		}
		plan.Tasks = append(plan.Tasks, ask)
	}
	if len(leftOut) > 0 {
		plan.Notes = append(plan.Notes, fmt.Sprintf("%s left out of the review request: GitHub keeps at most %d reviewers requested on a pull request",
			prose.List(leftOut, 5), maxRequestedReviewers))
	}
	return plan
}

// mayNotAsk says why login is not asked to review t ("" when it is).
func (in ReviewRequestInput) mayNotAsk(cfg *config.Config, t *projection.Task, login string) string {
	switch {
	case strings.EqualFold(login, in.Author):
		return "the pull request's author"
	case cfg.ReviewRight(login, t.Owner, t.Reviewer) == config.OwnsTheTask:
		return fmt.Sprintf("also holds seat %s, the owner of %s (Rule 1)", t.Owner, t.ID)
	case !Requestable(login):
		return "an app's account, which GitHub cannot ask for a review"
	}
	return ""
}

// reviewedHead reports a review by login of the head among the reviews
// read: asking again would only repeat what they answered (a dismissed
// review, or one still pending, answered nothing).
func (in ReviewRequestInput) reviewedHead(login string) bool {
	for _, r := range in.Reviews {
		if r.Found && in.Head != "" && r.CommitID == in.Head && strings.EqualFold(r.AuthorLogin, login) &&
			r.State != ghfacts.ReviewPending && r.State != ghfacts.ReviewDismissed {
			return true
		}
	}
	return false
}

// nobodyAsked says why no review stands requested for a task the pact
// waits for.
func nobodyAsked(cfg *config.Config, t *projection.Task, ask ReviewAsk) string {
	if len(cfg.LoginsOf(t.Reviewer)) == 0 && len(cfg.TeamsOf(t.Reviewer)) == 0 {
		return fmt.Sprintf("no review was requested for %s: seat %s is mapped to no GitHub account", t.ID, t.Reviewer)
	}
	return fmt.Sprintf("no review was requested for %s from seat %s: %s", t.ID, t.Reviewer, strings.Join(ask.Skipped, "; "))
}
