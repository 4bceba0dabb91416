package config

import (
	"testing"
)

const example = `seats:
  claude-opus: [octocat]
  opencode: [hubot, "opencode-agent[bot]"]
provenance:
  mode: warn      # off | warn | require (default warn)
  stale: tree     # change | tree | push | sticky (default change)
`

func TestDefault(t *testing.T) {
	d := Default()
	if d.Provenance != (Provenance{Mode: ModeWarn, Stale: StaleChange}) {
		t.Errorf("Default provenance = %+v", d.Provenance)
	}
	if d.UnmappedBranches != UnmappedWarn {
		t.Errorf("Default unmapped-branches = %q, want warn", d.UnmappedBranches)
	}
	if d.Seats == nil || len(d.Seats) != 0 {
		t.Errorf("Default seats = %#v, want an empty map", d.Seats)
	}
	d.Seats["x"] = nil
	if len(Default().Seats) != 0 {
		t.Error("Default shares its map between calls")
	}
}
