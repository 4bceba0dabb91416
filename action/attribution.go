package action

import (
	"errors"
	"fmt"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/pactfile"
)

// Attribution: which commit of the pull request added each line of the log,
// found by following the commits' parent links (never the order or dates
// GitHub lists commits in, which an author can forge).

func (g *gatherer) count(log []byte) map[string]int {
	m := map[string]int{}
	for _, l := range pactfile.SplitLines(log) {
		if g.interesting[string(l)] {
			m[string(l)]++
		}
	}
	return m
}

// has reports whether the log at sha holds line at least occ times.
func (g *gatherer) has(sha, line string, occ int) (bool, error) {
	m, ok := g.counts[sha]
	if !ok {
		if g.reads >= maxLogReads {
			return false, errBudget
		}
		g.reads++
		b, err := readRequired(g.ctx, apiSource{gh: g.gh, ref: sha}, g.in.logPath())
		if err != nil {
			return false, err
		}
		m = g.count(b)
		g.counts[sha] = m
	}
	return m[line] >= occ, nil
}

// lookup returns the metadata of sha, looking it up when the listing lacks
// it (bounded); nil when it cannot be had.
func (g *gatherer) lookup(sha string) (*ghapi.Commit, error) {
	if m, ok := g.meta[sha]; ok {
		return &m, nil
	}
	if g.absent[sha] || g.fetches >= maxCommitFetches {
		return nil, nil
	}
	g.fetches++
	c, err := g.gh.Commit(g.ctx, sha)
	if errors.Is(err, ghapi.ErrNotFound) {
		g.absent[sha] = true
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look up commit %s: %w", prose.ShortSHA(sha), err)
	}
	g.meta[sha] = *c
	g.order = append(g.order, sha)
	return c, nil
}

// introducer finds the commit that added the occ-th copy of line: a commit
// whose log holds it while none of its parents' logs do. It walks from
// start (the head, or the merge base for a line of its log), which holds it, along first-parent chains, binary-searching each
// chain (every adjacent pair where the line appears is a commit that
// added it, so the search needs no assumption about the order GitHub lists
// commits in, whose dates an author can forge), and descends into a merged
// parent when the line came from there. It returns "" and why when the
// commit cannot be found.
func (g *gatherer) introducer(start, line string, occ int) (string, string, error) {
	has := func(sha string) (bool, error) { return g.has(sha, line, occ) }
	cur := start
	for hop := 0; hop < maxHops; hop++ {
		m, err := g.lookup(cur)
		if err != nil {
			return "", "", err
		}
		if m == nil {
			return "", g.unreachable(cur), nil
		}
		// The chain: cur and its listed first-parent ancestors; sentinel is
		// the first parent beyond them ("" for a root commit).
		chain := []string{cur}
		inChain := map[string]bool{cur: true}
		sentinel := ""
		for {
			last := g.meta[chain[len(chain)-1]]
			if len(last.Parents) == 0 {
				break
			}
			p := last.Parents[0]
			if _, known := g.meta[p]; !known || inChain[p] {
				sentinel = p
				break
			}
			chain = append(chain, p)
			inChain[p] = true
		}
		if sentinel != "" {
			ok, err := has(sentinel)
			if errors.Is(err, errBudget) {
				return "", budgetWhy(), nil
			} else if err != nil {
				return "", "", err
			}
			if ok {
				cur = sentinel // older than every commit known: look it up
				continue
			}
		}
		lo, hi := 0, len(chain) // chain[lo] holds the line; chain[hi] (or the sentinel) does not
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			ok, err := has(chain[mid])
			if errors.Is(err, errBudget) {
				return "", budgetWhy(), nil
			} else if err != nil {
				return "", "", err
			}
			if ok {
				lo = mid
			} else {
				hi = mid
			}
		}
		added := chain[lo]
		next := ""
		for _, p := range g.meta[added].Parents[min(1, len(g.meta[added].Parents)):] {
			ok, err := has(p)
			if errors.Is(err, errBudget) {
				return "", budgetWhy(), nil
			} else if err != nil {
				return "", "", err
			}
			if ok {
				next = p
				break
			}
		}
		if next == "" {
			return added, "", nil
		}
		cur = next
	}
	return "", "the history that leads to it merges too many branches to follow", nil
}

func budgetWhy() string {
	return fmt.Sprintf("finding it would need more than %d reads of the log", maxLogReads)
}

func (g *gatherer) unreachable(sha string) string {
	switch {
	case g.fetches >= maxCommitFetches:
		return fmt.Sprintf("the pull request has more commits than GitHub lists (250) and looking up more than %d of the rest one by one was not attempted", maxCommitFetches)
	}
	return fmt.Sprintf("GitHub does not know commit %s", prose.ShortSHA(sha))
}

// prCommit reports whether sha is one of the pull request's commits: listed,
// or looked up while walking back from its head.
func (g *gatherer) prCommit(sha string) bool {
	if g.listed[sha] {
		return true
	}
	_, ok := g.meta[sha]
	return ok && sha != g.in.MergeBase
}

// ancestors returns sha and its ancestors among the known commits.
func (g *gatherer) ancestors(sha string) map[string]bool {
	seen := map[string]bool{}
	stack := []string{sha}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[c] {
			continue
		}
		seen[c] = true
		stack = append(stack, g.meta[c].Parents...)
	}
	return seen
}
