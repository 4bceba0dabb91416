package checks

import (
	"errors"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/projection"
)

// Config judges the repository configuration (.github/pact.yml, shown as
// path): one config.invalid finding for every problem of a file that does
// not parse or validate, at its line when one is known, and one for every
// seat it maps that the roster of the init event lacks. A nil raw means
// there is no file, which is the default configuration and no finding. The
// roster is compared only once an init has been applied: without one the
// log already has its own finding.
func Config(path string, raw []byte, st *projection.State) []Finding {
	if raw == nil {
		return nil
	}
	cfg, err := config.Parse(raw)
	if err != nil {
		var ce *config.Error
		if !errors.As(err, &ce) || len(ce.Problems) == 0 {
			return []Finding{newFinding(CodeConfigInvalid, path, 0, err.Error())}
		}
		out := make([]Finding, 0, len(ce.Problems))
		for _, p := range ce.Problems {
			out = append(out, newFinding(CodeConfigInvalid, path, p.Line, p.Message))
		}
		return out
	}
	if st == nil || !st.Initialized {
		return nil
	}
	var out []Finding
	for _, msg := range cfg.Check(st.Seats) {
		out = append(out, newFinding(CodeConfigInvalid, path, 0, msg))
	}
	return out
}
