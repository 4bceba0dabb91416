package main

import (
	"fmt"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/internal/prose"
)

// bot reports bot mode's run (action.Run): a review or /pact comment became
// pact events on the PR's branch, then the check was posted on the new
// head; err is Run's.
func (e *runEnv) bot(out *action.BotOutcome, err error) error {
	if out != nil {
		for _, n := range out.Notices {
			fmt.Fprintf(e.stdout, "pact: %s\n", n)
			e.gha.AddStepSummary(n)
		}
	}
	if err != nil {
		e.gha.Errorf("pact-action bot mode failed: %v", err)
		return err
	}
	switch {
	case out.Ignored != "":
		fmt.Fprintf(e.stdout, "pact: nothing to do: %s\n", out.Ignored)
		return nil
	case len(out.Appended) > 0:
		fmt.Fprintf(e.stdout, "pact: recorded %d event(s) in commit %s\n", len(out.Appended), out.NewHead)
		for _, a := range out.Appended {
			fmt.Fprintf(e.stdout, "  %s\n", a)
		}
	default:
		fmt.Fprintln(e.stdout, "pact: nothing recorded")
	}
	for _, r := range out.Replies {
		fmt.Fprintf(e.stdout, "pact: replied: %s\n", prose.FirstLine(r))
	}
	if out.Check != nil {
		// The bot's own check carries any block; its job fails only on
		// violations it was asked to fail on.
		return e.finish([]*action.Outcome{out.Check}, false)
	}
	return nil
}
