package doctor

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/pactfile"
)

// judgeReviewRequests: with review-requests on, the check job must be
// able to write pull requests, and every seat that reviews must be
// mapped to someone GitHub can ask (an account with access to the
// repository that is no app's, or a team a token that reads teams can
// ask).
func judgeReviewRequests(f Facts, cfg *config.Config) []Probe {
	c := Probe{ID: "config.review_requests"}
	if cfg.ReviewRequests == config.RequestsOff {
		c.Status, c.Title = StatusPass, "the check asks nobody for reviews (review-requests: off)"
		c.Detail = "reviewers learn that a task waits for them from the check's summary only"
		return []Probe{c}
	}
	u, ok := checkStep(f)
	var perms permissions
	var from string
	var unknown *unknown
	if ok {
		perms, from, unknown = u.permissions(f)
	}
	switch {
	case f.WorkflowsUnknown != nil || !ok:
		c.Status, c.Title = StatusUnknown, "cannot tell whether the check may request reviews"
		c.Detail = "no check workflow was found to read its permissions"
		if f.WorkflowsUnknown != nil {
			c.Detail, c.Fix = "the workflows cannot be read: "+f.WorkflowsUnknown.Reason, permissionFix(f.WorkflowsUnknown)
		}
	case unknown != nil:
		c.Status, c.Title = StatusUnknown, "cannot tell whether the check job may request reviews"
		c.Detail = "it sets no permissions block, and the repository's default token permissions cannot be read: " + unknown.Reason
		c.Fix = "add this block to the workflow or the job:\npermissions:\n  " + checkPermsSnippet
	case accessRank(perms.Level("pull-requests")) < accessRank(accessWrite):
		c.Status, c.Title = StatusWarn, fmt.Sprintf("the check job cannot request reviews (pull-requests: %s)", perms.Level("pull-requests"))
		c.Detail = fmt.Sprintf("review-requests is on, but %s, job %s, gets its permissions from %s: nobody is asked for the reviews the pact waits for, and every summary says so (to ask nobody, set review-requests: off in %s)",
			u.wf.Path, u.job.ID, from, pactfile.ConfigPath)
		c.Fix = fmt.Sprintf("in %s, at the top (or under jobs.%s):\npermissions:\n  %s", u.wf.Path, u.job.ID, checkPermsSnippet)
	default:
		c.Status, c.Title = StatusPass, "the check job may request reviews (pull-requests: write)"
		c.Detail = "from " + from + "; a pull request from a fork gets a read-only token, and its summary says no review was requested"
	}
	out := []Probe{c}
	if anyMapped(cfg) {
		out = append(out, judgeReviewSeats(f, cfg, u, ok))
	}
	return out
}

func anyMapped(cfg *config.Config) bool {
	for _, logins := range cfg.Seats {
		if len(logins) > 0 {
			return true
		}
	}
	return len(cfg.ReviewTeams) > 0
}

// judgeReviewSeats: every seat that reviews a task (every seat of the
// roster while no task is assigned) must be mapped to someone GitHub can
// ask for a review.
func judgeReviewSeats(f Facts, cfg *config.Config, u usage, haveStep bool) Probe {
	c := Probe{ID: "config.review_seats"}
	seats, which := f.ReviewerSeats, "every seat that reviews a task"
	if len(seats) == 0 {
		seats, which = f.Roster, "every seat (no task names a reviewer yet)"
	}
	workflowToken := !haveStep || usesWorkflowToken(u.step.With["token"])
	var problems, unknown []string
	var fixSeat string
	for _, seat := range seats {
		if teams := cfg.TeamsOf(seat); len(teams) > 0 {
			if workflowToken {
				problems = append(problems, fmt.Sprintf("seat %s is asked through team %s, which the workflow's GITHUB_TOKEN cannot request", seat, strings.Join(teams, ", ")))
				fixSeat = seat
			}
			continue
		}
		logins := cfg.LoginsOf(seat)
		if len(logins) == 0 {
			continue // seat.<seat> says so
		}
		var why, unread []string
		askable := false
		for _, login := range logins {
			a := f.Accounts[strings.ToLower(login)]
			switch {
			case !checks.Requestable(login):
				why = append(why, login+" is an app's account, which GitHub cannot ask for a review")
			case a.Unreadable != nil:
				unread = append(unread, login)
			case !a.Exists:
				why = append(why, login+" is not a GitHub account")
			case a.Permission == "" || a.Permission == ghapi.PermissionNone:
				why = append(why, login+" has no access to "+f.Repository)
			default:
				askable = true
			}
		}
		switch {
		case askable:
		case len(unread) > 0:
			unknown = append(unknown, unread...)
		default:
			problems = append(problems, fmt.Sprintf("no account of seat %s can be asked for a review: %s", seat, strings.Join(why, "; ")))
			if fixSeat == "" {
				fixSeat = seat
			}
		}
	}
	switch {
	case len(problems) > 0:
		c.Status, c.Title = StatusWarn, "some reviewer seats cannot be asked for a review"
		c.Detail = strings.Join(problems, "; ")
		c.Detail += "; a team can be kept with a GitHub App token with Members: read as the check step's token input"
		c.Fix = fmt.Sprintf("in %s on %s, map seat %s to a person's account with access to the repository:\nseats:\n  %s: [<github-login>]", pactfile.ConfigPath, f.DefaultBranch, fixSeat, fixSeat)
	case len(unknown) > 0:
		c.Status, c.Title = StatusUnknown, "cannot tell whether every reviewer seat can be asked for a review"
		c.Detail = "the access of " + strings.Join(unknown, ", ") + " cannot be read"
	default:
		c.Status, c.Title = StatusPass, which+" can be asked for a review"
	}
	return c
}

// usesWorkflowToken reports whether a token input is the workflow's own
// GITHUB_TOKEN (the input's default when empty), which cannot request a
// team's review.
func usesWorkflowToken(input string) bool {
	return workflowTokenInput.MatchString(strings.TrimSpace(input))
}

var workflowTokenInput = regexp.MustCompile(`(?i)^(|\$\{\{\s*(github\.token|secrets\.github_token)\s*\}\})$`)
