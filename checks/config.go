package checks

import (
	"errors"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/projection"
)

// configFindings judges the repository configuration (.github/pact.yml, shown as
// path): one config.invalid finding for every problem of a file that does
// not parse or validate, at its line when one is known, and one for every
// seat it maps that the roster of the init event lacks. No file is the
// default configuration and no finding. The roster is compared only once an
// init has been applied: without one the log already has its own finding.
func configFindings(path string, cf config.File, st *projection.State) []Finding {
	if !cf.Present {
		return nil
	}
	finding := func(line int, msg string) Finding {
		if cf.Branch != "" {
			msg = "on the default branch " + cf.Branch + ": " + msg
		}
		return newFinding(CodeConfigInvalid, path, line, msg)
	}
	if cf.Err != nil {
		var ce *config.Error
		if !errors.As(cf.Err, &ce) || len(ce.Problems) == 0 {
			return []Finding{finding(0, cf.Err.Error())}
		}
		out := make([]Finding, 0, len(ce.Problems))
		for _, p := range ce.Problems {
			out = append(out, finding(p.Line, p.Message))
		}
		return out
	}
	if st == nil || !st.Initialized {
		return nil
	}
	var out []Finding
	for _, msg := range cf.Config.RosterProblems(st.Seats) {
		out = append(out, finding(0, msg))
	}
	return out
}
