package action

import (
	"errors"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
)

// Staleness: what changed between the commit an accept was given on and
// the head, and which commits changed it.

// staleFacts gathers what the staleness of an accept given on anchor and
// recorded by commit intro is judged on.
func (g *gatherer) staleFacts(policy config.Stale, anchor, intro string) (checks.StaleFacts, error) {
	sf := checks.StaleFacts{Anchor: anchor}
	if anchor == "" {
		return sf, nil
	}
	if !commitSHA.MatchString(anchor) {
		// Never put a string from the log into an API path unchecked.
		sf.Missing = true
		return sf, nil
	}
	known := anchor == g.in.MergeBase
	if _, ok := g.meta[anchor]; ok {
		known = true
	}
	if !known && policy == config.StalePush {
		m, err := g.lookup(anchor)
		if err != nil {
			return sf, err
		}
		if m == nil && g.absent[anchor] {
			sf.Missing = true
			return sf, nil
		}
	}
	before := g.ancestors(anchor)
	var candidates []string
	for _, sha := range g.order {
		if before[sha] || !g.prCommit(sha) {
			continue
		}
		candidates = append(candidates, sha)
		if sha != intro {
			sf.After = append(sf.After, sha)
		}
	}
	if policy != config.StaleTree {
		return sf, nil
	}
	files, err := g.compare(anchor, g.head)
	if errors.Is(err, ghapi.ErrNotFound) {
		sf.Missing = true
		return sf, nil
	}
	if err != nil {
		return sf, err
	}
	sf.Changed = g.outsidePact(files)
	sf.Truncated = len(files) >= compareFileLimit
	if len(sf.Changed) == 0 && !sf.Truncated {
		return sf, nil
	}
	// Name the commits that changed code: ordinary commits first, merges
	// (whose diff against the first parent repeats the merged commits')
	// only when no ordinary commit did.
	var merges []string
	examine := func(sha string) (bool, error) {
		m := g.meta[sha]
		if len(m.Parents) == 0 {
			return false, nil
		}
		if _, done := g.compared[m.Parents[0]+"..."+sha]; !done && g.compares >= maxStaleCompares {
			sf.Unexamined++
			return false, nil
		}
		files, err := g.compare(m.Parents[0], sha)
		if errors.Is(err, ghapi.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return len(g.outsidePact(files)) > 0, nil
	}
	for _, sha := range candidates {
		if len(g.meta[sha].Parents) > 1 {
			merges = append(merges, sha)
			continue
		}
		touched, err := examine(sha)
		if err != nil {
			return sf, err
		}
		if touched {
			sf.Touching = append(sf.Touching, sha)
		}
	}
	for _, sha := range merges {
		if len(sf.Touching) > 0 {
			break
		}
		touched, err := examine(sha)
		if err != nil {
			return sf, err
		}
		if touched {
			sf.Touching = append(sf.Touching, sha)
		}
	}
	return sf, nil
}

// comparison is a cached CompareFiles answer: the files, or the error of a
// commit GitHub does not know.
type comparison struct {
	files []string
	err   error
}

// compare returns the paths changed from base to head, cached per pair.
func (g *gatherer) compare(base, head string) ([]string, error) {
	key := base + "..." + head
	if c, ok := g.compared[key]; ok {
		return c.files, c.err
	}
	g.compares++
	files, err := g.gh.CompareFiles(g.ctx, base, head)
	if err != nil && !errors.Is(err, ghapi.ErrNotFound) {
		return nil, err
	}
	g.compared[key] = comparison{files: files, err: err}
	return files, err
}

func (g *gatherer) outsidePact(files []string) []string {
	var out []string
	for _, f := range files {
		if !g.in.Settings.insidePact(f) {
			out = append(out, f)
		}
	}
	return out
}
