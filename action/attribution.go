package action

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// Attribution: which commit of the pull request added each line of the log,
// found by following the commits' parent links (never the order or dates
// GitHub lists commits in, which an author can forge).

// lineSeed keys the lines attribution compares (lineKey).
var lineSeed = maphash.MakeSeed()

// lineKey stands for a log line's bytes: attribution compares lines by
// key, which keeps 8 bytes of each line of a log rather than its text:
// memory bounded by a small multiple of the bytes read (docs/semantics.md
// §7), not by the lines they hold. The seed is chosen per run, so no author
// can write a line whose key another line has but by chance, 2^-64 for a
// pair, as projection tells identical duplicate lines apart.
func lineKey(line []byte) uint64 { return maphash.Bytes(lineSeed, line) }

// count is the sorted keys of the interesting lines of a log held whole,
// as lineKeys takes them of one that streams past.
func (g *gatherer) count(log []byte) []uint64 {
	keys := &lineKeys{interesting: g.isInteresting}
	_, _ = keys.Write(log) // never fails
	return keys.done()
}

func (g *gatherer) isInteresting(key uint64) bool {
	_, ok := slices.BinarySearch(g.interesting, key)
	return ok
}

// has reports whether the log at sha holds the line of key at least occ
// times.
func (g *gatherer) has(sha string, key uint64, occ int) (bool, error) {
	if _, ok := g.counts[sha]; !ok {
		if err := g.readLogAt(sha); err != nil {
			return false, err
		}
	}
	keys := g.counts[sha]
	i, _ := slices.BinarySearch(keys, key)
	return occ <= 0 || i+occ-1 < len(keys) && keys[i+occ-1] == key, nil
}

// readLogAt reads the log at sha, one of at most maxLogReads reads (past
// them errBudget), for all that provenance asks of it: the keys
// attribution counts (count) and the tasks awaiting review there
// (awaitingAt), so that no log is read twice nor held after: each read is
// a share of the byte budget.
func (g *gatherer) readLogAt(sha string) error {
	if g.reads >= maxLogReads {
		return errBudget
	}
	g.reads++
	keys := &lineKeys{interesting: g.isInteresting}
	var st *projection.State
	_, err := apiSource{gh: g.gh, ref: sha}.stream(g.ctx, g.in.logPath(), func(r io.Reader) error {
		_, res, err := projection.Read(io.TeeReader(r, keys), projection.ReadOptions{})
		if err == nil {
			st = res.State
		}
		return err
	})
	if err != nil {
		return err
	}
	g.counts[sha] = keys.done()
	g.awaiting[sha] = awaitingIn(st)
	return nil
}

// lineKeys takes the keys (lineKey) of a log's interesting lines as the log
// streams past it, as the Writer of an io.TeeReader: the lines of
// pactfile.Lines, each cut by pactfile.CutLine once its line break has
// come, the last one when the log ends (done). It holds one line at most:
// a line longer than projection.MaxLineBytes is no event (it is
// log.malformed_json), so it is skipped rather than held.
type lineKeys struct {
	interesting func(key uint64) bool
	keys        []uint64
	// part is the line begun; long says it is over the bound and skipped;
	// lines counts the lines ended.
	part  []byte
	long  bool
	lines int
}

func (l *lineKeys) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.add(p)
			break
		}
		l.add(p[:i+1])
		l.end()
		p = p[i+1:]
	}
	return n, nil
}

func (l *lineKeys) add(b []byte) {
	switch {
	case l.long:
	case len(l.part)+len(b) > projection.MaxLineBytes+2: // the line, a CR and its LF
		l.long, l.part = true, l.part[:0]
	default:
		l.part = append(l.part, b...)
	}
}

// end takes the key of the line in part, ended by its line break or by the
// end of the log.
func (l *lineKeys) end() {
	if line, _, ok := pactfile.CutLine(l.part); ok && !l.long && len(line) <= projection.MaxLineBytes {
		if l.lines == 0 {
			line = pactfile.TrimBOM(line)
		}
		if k := lineKey(line); l.interesting(k) {
			l.keys = append(l.keys, k)
		}
	}
	l.lines++
	l.part, l.long = l.part[:0], false
}

// done ends the last line and returns the keys, sorted.
func (l *lineKeys) done() []uint64 {
	if len(l.part) > 0 || l.long {
		l.end()
	}
	slices.Sort(l.keys)
	return l.keys
}

// lookup returns the metadata of sha, looking it up when the listing lacks
// it (bounded); nil when it cannot be had.
func (g *gatherer) lookup(sha string) (*ghfacts.Commit, error) {
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

// introducer finds the commit that added the occ-th copy of the line of
// key: a commit
// whose log holds it while none of its parents' logs do. It walks from
// start (the head, or the merge base for a line of its log), which holds it, along first-parent chains, binary-searching each
// chain (every adjacent pair where the line appears is a commit that
// added it, so the search needs no assumption about the order GitHub lists
// commits in, whose dates an author can forge), and descends into a merged
// parent when the line came from there. It returns "" and why when the
// commit cannot be found.
func (g *gatherer) introducer(start string, key uint64, occ int) (string, string, error) {
	has := func(sha string) (bool, error) { return g.has(sha, key, occ) }
	cur := start
	for hop := 0; hop < maxHops; hop++ {
		m, err := g.lookup(cur)
		if err != nil {
			return "", "", err
		}
		if m == nil {
			return "", g.unreachable(cur), nil
		}
		c := g.chainFrom(cur)
		chain, sentinel := c.commits, c.sentinel
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

// chain is cur and its known first-parent ancestors, newest first, and
// sentinel the first parent beyond them ("" for a root commit).
type chain struct {
	commits  []string
	sentinel string
}

// chainFrom is the chain from cur, the same for every line attributed
// while no commit is learnt, so built once for all of them.
func (g *gatherer) chainFrom(cur string) chain {
	if g.chainsOf != len(g.meta) {
		clear(g.chains)
		g.chainsOf = len(g.meta)
	}
	if c, ok := g.chains[cur]; ok {
		return c
	}
	c := chain{commits: []string{cur}}
	inChain := map[string]bool{cur: true}
	for {
		last := g.meta[c.commits[len(c.commits)-1]]
		if len(last.Parents) == 0 {
			break
		}
		p := last.Parents[0]
		if _, known := g.meta[p]; !known || inChain[p] {
			c.sentinel = p
			break
		}
		c.commits = append(c.commits, p)
		inChain[p] = true
	}
	g.chains[cur] = c
	return c
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
