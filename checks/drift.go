package checks

import (
	"fmt"

	"github.com/pact-action/pact-action/projection"
)

// drift compares STATE.yml with a fresh projection on meaning (check a).
// A STATE.yml that is byte for byte what pactify writes for the state means
// the same by construction, and is not parsed: on a large pact parsing is
// most of validate's time and memory.
func drift(statePath string, stateYAML []byte, st *projection.State) []Finding {
	if stateYAML == nil {
		return []Finding{newFinding(CodeDriftMissing, statePath, 0, "there is no STATE.yml to compare with the log")}
	}
	if projection.RenderMatches(st, stateYAML) {
		return nil
	}
	got, err := projection.ParseStateSummary(stateYAML)
	if err != nil {
		return []Finding{newFinding(CodeDrift, statePath, 0, err.Error())}
	}
	diff := projection.Diff(projection.Summarize(st), got)
	if len(diff) == 0 {
		return nil
	}
	const shown = 10
	msg := fmt.Sprintf("STATE.yml differs from a fresh projection of the log in %d place(s): ", len(diff))
	for i, d := range diff {
		if i == shown {
			msg += fmt.Sprintf("; and %d more", len(diff)-shown)
			break
		}
		if i > 0 {
			msg += "; "
		}
		msg += d
	}
	return []Finding{newFinding(CodeDrift, statePath, 0, msg)}
}
