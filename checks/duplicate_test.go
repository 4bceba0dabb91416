package checks

import (
	"strings"
	"testing"

	"github.com/pact-action/pact-action/projection"
)

// TestDuplicateKeyIsNotApplied: an accept whose agent_id is named twice
// (the worker's, then the reviewer's) is log.duplicate_key on its line, and
// the task stays where it was, whichever value a reader would have kept
// (docs/semantics.md §7). The same accept written once is applied.
func TestDuplicateKeyIsNotApplied(t *testing.T) {
	t.Parallel()
	base := (&logb{}).init().assign("T1", "F", "claude-opus", "gpt", "feat/x").join("claude-opus").checkpoint("claude-opus", "T1")
	honest := evLine("e9", at(9), "gpt", projection.TypeAccept, "T1", "F", "{}")
	forged := strings.Replace(evLine("e9", at(9), "claude-opus", projection.TypeAccept, "T1", "F", "{}"),
		`"agent_id":"claude-opus"`, `"agent_id":"claude-opus","x":1,"agent_id":"gpt"`, 1)
	for _, c := range []struct {
		line, status string
		dup          bool
	}{{honest, "accepted", false}, {forged, "awaiting_review", true}} {
		data := append(base.bytes(), c.line+"\n"...)
		in := input(data)
		if got := in.Replay.State.Tasks["T1"].Status; string(got) != c.status {
			t.Errorf("T1 is %s after %s, want %s", got, c.line, c.status)
		}
		var found *Finding
		for _, f := range Run(in) {
			if f.Code == projection.CodeDuplicateKey {
				found = &f
			}
		}
		switch {
		case c.dup && (found == nil || found.Line != 5 || found.Severity != SeverityError || !strings.Contains(found.Message, `"agent_id"`)):
			t.Errorf("forged line: finding %+v, want log.duplicate_key (error) on line 5 naming agent_id", found)
		case !c.dup && found != nil:
			t.Errorf("honest line: %+v", found)
		}
	}
}
