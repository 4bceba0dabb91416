package action

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/pactfile"
)

// Review requests (checks.PlanReviewRequests decides): after the verdict,
// the check asks GitHub once per pull request for the reviews the pact
// waits for and nobody was asked for yet, and says in the summary who
// stands asked. A request that cannot be made never changes the verdict:
// the summary and the job log say why. The pull request's pending
// requests come with the pull request already read, and the reviews only
// when the judgement read them, so a check with nothing to ask makes no
// call, and one with something to ask makes one.

// reviewRequest is what the check asked of GitHub for one pull request.
type reviewRequest struct {
	PR   int
	Plan checks.ReviewPlan
	// Err is why the request could not be made (nil: made, or nothing to
	// ask); the plan's Asked are then dropped and a note says why.
	Err error
}

// planReviewRequests decides the review requests of a judged pull request
// (nothing under an unusable configuration: it maps no one).
func planReviewRequests(pr ghfacts.PullRequest, cf config.File, in checks.Input, facts checks.PullRequestFacts, findings []checks.Finding) reviewRequest {
	r := reviewRequest{PR: pr.Number}
	if cf.Err != nil || in.Replay == nil {
		return r
	}
	var reviews map[int64]ghfacts.Review
	if facts.Provenance != nil {
		reviews = facts.Provenance.Reviews
	}
	r.Plan = checks.PlanReviewRequests(checks.ReviewRequestInput{Config: cf.Config, State: in.Replay.State, Findings: findings,
		Author: pr.AuthorLogin, Head: pr.HeadSHA, RequestedUsers: pr.RequestedReviewers, RequestedTeams: pr.RequestedTeams, Reviews: reviews})
	return r
}

// requestReviews carries out the plans: one request per pull request with
// someone to ask, none otherwise.
func (j *judgement) requestReviews(ctx context.Context, gh checkGitHub) {
	for i := range j.Requests {
		r := &j.Requests[i]
		if len(r.Plan.Ask) > 0 {
			var users, teams []string
			for _, rv := range r.Plan.Ask {
				if rv.Team != "" {
					teams = append(teams, rv.Team)
				} else {
					users = append(users, rv.Login)
				}
			}
			if _, err := gh.RequestReviewers(ctx, r.PR, users, teams); err != nil {
				r.Err = err
				r.Plan.Notes = append(r.Plan.Notes, requestFailed(r.Plan.Ask, err))
				for t := range r.Plan.Tasks {
					r.Plan.Tasks[t].Asked = nil
				}
				slog.Warn("could not request reviews", "pr", r.PR, "from", reviewerList(r.Plan.Ask), "err", err)
			}
		}
		for _, t := range r.Plan.Tasks {
			switch {
			case len(t.Asked) > 0:
				slog.Info("review requested", "pr", r.PR, "task", t.TaskID, "from", reviewerList(t.Asked), "why", t.Why, "seat", t.Seat)
			case len(t.Pending) > 0:
				slog.Info("review already requested", "pr", r.PR, "task", t.TaskID, "from", reviewerList(t.Pending), "why", t.Why, "seat", t.Seat)
			}
			for _, why := range t.Skipped {
				slog.Info("review not requested", "pr", r.PR, "task", t.TaskID, "account", why)
			}
		}
		for _, n := range r.Plan.Notes {
			slog.Info("review request", "pr", r.PR, "note", n)
		}
	}
}

func reviewerList(rs []checks.Reviewer) string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.String()
	}
	return strings.Join(names, ", ")
}

// requestFailed says why no review was requested from ask, and what to do.
func requestFailed(ask []checks.Reviewer, err error) string {
	who := reviewerList(ask)
	answer := err.Error()
	var ae *ghapi.APIError
	if errors.As(err, &ae) {
		answer = fmt.Sprintf("GitHub answered %d %s", ae.StatusCode, ae.Message)
	}
	switch {
	case errors.Is(err, ghapi.ErrForbidden) || errors.Is(err, ghapi.ErrNotFound):
		return fmt.Sprintf("no review was requested from %s: the token may not request reviews (%s); give the check job pull-requests: write, or set review-requests: off in %s (a pull request from a fork gets a read-only token)",
			who, answer, pactfile.ConfigPath)
	case ae != nil && ae.StatusCode == 422:
		fix := "map the seat to accounts with access to the repository"
		if slices.ContainsFunc(ask, func(r checks.Reviewer) bool { return r.Team != "" }) {
			fix += "; a workflow's GITHUB_TOKEN cannot request a team, a GitHub App token with Members: read can"
		}
		return fmt.Sprintf("GitHub refused to request a review from %s (%s): %s", who, answer, fix)
	}
	return fmt.Sprintf("no review was requested from %s: %s", who, answer)
}

// requested is who stands requested per waiting task, and the notes, for
// the summary (pull requests named when the commit heads several).
func (j *judgement) requested() (map[string][]checks.Reviewer, []string) {
	var who map[string][]checks.Reviewer
	var notes []string
	for _, r := range j.Requests {
		for _, t := range r.Plan.Tasks {
			for _, rv := range t.Standing() {
				if who == nil {
					who = map[string][]checks.Reviewer{}
				}
				if !slices.Contains(who[t.TaskID], rv) {
					who[t.TaskID] = append(who[t.TaskID], rv)
				}
			}
		}
		for _, n := range r.Plan.Notes {
			if len(j.Requests) > 1 {
				n = fmt.Sprintf("pull request #%d: %s", r.PR, n)
			}
			notes = append(notes, n)
		}
	}
	return who, notes
}
