package action

import (
	"context"
	"fmt"
	"strings"

	"github.com/pact-action/pact-action/ghevent"
	"github.com/pact-action/pact-action/ghfacts"
)

// noTargetError is an event that names no pull request or commit to check.
type noTargetError struct{ EventName string }

func (e *noTargetError) Error() string {
	return fmt.Sprintf("the %s event names no pull request or commit to check", e.EventName)
}

// targets lists the commits check mode posts the check on for an event. A
// pull request is read from the API (its head, base and state now, not as
// the payload says), and every target is judged as the head of each open
// pull request whose head it is, so a push (sha, the runner's GITHUB_SHA), a
// re-run or a manual run posts exactly the verdict the pull request's own
// run would. A merge group whose head ref names no pull request fails
// closed: without the queued pull requests, Rule 2 cannot be judged. Its
// parent commit (base_sha) is taken from the payload and checked when it
// is judged (judgeMergeGroup).
func targets(ctx context.Context, gh reader, ev *ghevent.Event, eventName, sha, workspace string) ([]target, error) {
	switch {
	case ev.MergeGroup != nil:
		mg := ev.MergeGroup
		prs := ghevent.MergeGroupPRs(mg.HeadRef)
		if len(prs) == 0 {
			return nil, fmt.Errorf("cannot tell which pull requests merge group %s holds: its head ref %q is not gh-readonly-queue/<base>/pr-<number>-<sha>", mg.HeadSHA, mg.HeadRef)
		}
		return []target{{HeadSHA: mg.HeadSHA, Workspace: workspace,
			MergeGroup: &mergeGroup{BaseRef: strings.TrimPrefix(mg.BaseRef, "refs/heads/"), PRs: prs, Parent: mg.BaseSHA}}}, nil
	case ev.PullRequest != nil:
		return prTarget(ctx, gh, ev.PullRequest.Number, workspace)
	case ev.OnPullRequest():
		return prTarget(ctx, gh, ev.Issue.Number, workspace)
	case ghevent.Rejudges(eventName):
		open, err := gh.OpenPullRequests(ctx)
		if err != nil {
			return nil, fmt.Errorf("list open pull requests: %w", err)
		}
		var out []target
		seen := map[string]bool{}
		for _, pr := range open {
			if !seen[pr.HeadSHA] {
				seen[pr.HeadSHA] = true
				out = append(out, target{HeadSHA: pr.HeadSHA, Workspace: workspace, Open: open})
			}
		}
		return out, nil
	case sha != "":
		return []target{{HeadSHA: sha, Workspace: workspace}}, nil
	}
	return nil, &noTargetError{EventName: eventName}
}

// prTarget is the current head of pull request number.
func prTarget(ctx context.Context, gh reader, number int, workspace string) ([]target, error) {
	pr, err := gh.PullRequest(ctx, number)
	if err != nil {
		return nil, fmt.Errorf("read pull request #%d: %w", number, err)
	}
	return []target{{HeadSHA: pr.HeadSHA, Workspace: workspace, Known: []ghfacts.PullRequest{*pr}}}, nil
}
