package doctor

import (
	"fmt"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/pactfile"
)

func judgeProvenance(f Facts, cfg *config.Config) Probe {
	c := Probe{ID: "config.provenance"}
	mode, stale := cfg.Provenance.Mode, cfg.Provenance.Stale
	fix := fmt.Sprintf("in %s on %s:\nprovenance:\n  mode: require", pactfile.ConfigPath, f.DefaultBranch)
	switch mode {
	case config.ModeRequire:
		c.Status, c.Title = StatusPass, fmt.Sprintf("provenance is required (stale: %s)", stale)
		c.Detail = "an event the pull request adds must be backed by its seat's account, and a stale accept does not count"
	case config.ModeWarn:
		c.Status, c.Title = StatusWarn, fmt.Sprintf("provenance only warns (mode warn, stale: %s)", stale)
		c.Detail = "a forged or stale accept is a warning and the check still passes; warn is for rolling provenance out"
		c.Fix = fix
	default:
		c.Status, c.Title = StatusFail, fmt.Sprintf("provenance is off (stale: %s)", stale)
		c.Detail = "anyone who can push to a pull request's branch can append an accept under the reviewer's seat"
		c.Fix = fix
	}
	if stale == config.StaleSticky {
		// Coverage (docs/semantics.md §5) is what sticky gives up: an
		// accept keeps counting for any code, even code pushed later under
		// a reused branch name.
		c.Detail += "; stale: sticky keeps an accept valid whatever is pushed after it, and a branch name reused after a merge re-ships the accepted feature with new code"
		if c.Status == StatusPass {
			c.Status = StatusWarn
		}
		c.Fix = fmt.Sprintf("in %s on %s:\nprovenance:\n  mode: require\n  stale: change", pactfile.ConfigPath, f.DefaultBranch)
	}
	return c
}

// judgeUnmapped: without unmapped-branches: block, the same code opened
// from a branch no task names dodges Rule 2 (a warning at most).
func judgeUnmapped(f Facts, cfg *config.Config) Probe {
	c := Probe{ID: "config.unmapped_branches"}
	if cfg.UnmappedBranches == config.UnmappedBlock {
		c.Status, c.Title = StatusPass, "a pull request from a branch no task names is blocked when it changes code (unmapped-branches: block)"
		return c
	}
	c.Status, c.Title = StatusWarn, fmt.Sprintf("a pull request from a branch no task names is not blocked (unmapped-branches: %s)", cfg.UnmappedBranches)
	c.Detail = "opening the same code from another branch name ships no feature, so Rule 2 holds nothing back"
	c.Fix = fmt.Sprintf("in %s on %s:\nunmapped-branches: block", pactfile.ConfigPath, f.DefaultBranch)
	return c
}
