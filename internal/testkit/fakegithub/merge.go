package fakegithub

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// Mergeability and the merge button, as GitHub shows them: a pull request
// is CONFLICTING when its head and its base's tip do not merge, MERGEABLE
// when they do, and UNKNOWN while GitHub computes it (SetMergeabilityLag).
// The fake merges by whole files, on its own: a path only one side
// changed since the merge base takes that side; a path both changed to the
// same entry takes it; a path both changed differently conflicts, and so
// does a file where the other side needs a directory. Git would merge two
// edits of one file that touch different lines, and this fake calls them a
// conflict: it is stricter than GitHub, never more lenient, and every path
// both sides appended to (a log) conflicts in both.

// mergeTrees merges the trees of base and head (commits) at their merge
// base: the merged tree's files by path, and the paths that conflict,
// sorted (none: it merges).
func (s *Server) mergeTrees(base, head string) (map[string]fileEntry, []string) {
	mb := s.store.mergeBase(base, head)
	o, b, h := s.store.flatten(s.treeOf(mb)), s.store.flatten(s.treeOf(base)), s.store.flatten(s.treeOf(head))
	out := map[string]fileEntry{}
	var conflicts []string
	paths := map[string]bool{}
	for _, m := range []map[string]fileEntry{o, b, h} {
		for p := range m {
			paths[p] = true
		}
	}
	for p := range paths {
		oe, inO := o[p]
		be, inB := b[p]
		he, inH := h[p]
		switch {
		case inB == inO && be == oe: // base left it: head's side
			if inH {
				out[p] = he
			}
		case inH == inO && he == oe, inB == inH && be == he: // head left it, or both made it the same
			if inB {
				out[p] = be
			}
		default:
			conflicts = append(conflicts, p)
		}
	}
	// A file where a directory of the other side's stands.
	for p := range out {
		for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
			if _, clash := out[dir]; clash && !slices.Contains(conflicts, dir) {
				conflicts = append(conflicts, dir)
			}
		}
	}
	sort.Strings(conflicts)
	return out, conflicts
}

// mergeableState is GraphQL's PullRequest.mergeable for p: UNKNOWN for the
// first reads after its head or its base's tip moved (SetMergeabilityLag),
// then what mergeTrees says.
func (s *Server) mergeableState(p *pullState) string {
	if p.state != "open" {
		return "UNKNOWN"
	}
	head, base := s.headSHA(p), s.baseSHA(p)
	if key := base + ".." + head; key != p.mergeKey {
		p.mergeKey, p.unknownReads = key, s.mergeLag
	}
	if p.unknownReads > 0 {
		p.unknownReads--
		return "UNKNOWN"
	}
	if _, conflicts := s.mergeTrees(base, head); len(conflicts) > 0 {
		return "CONFLICTING"
	}
	return "MERGEABLE"
}

// SetMergeabilityLag makes GitHub still compute the mergeability of a pull
// request for the next n reads of it after its head or its base's tip
// moves: GraphQL answers UNKNOWN until then, as GitHub does right after a
// push (it computes mergeability lazily, when asked).
func (s *Server) SetMergeabilityLag(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mergeLag = n
}

// Mergeable is what GitHub would answer for pull request number's
// mergeability now, lag aside: MERGEABLE, CONFLICTING (with the paths
// that conflict) or, for a closed pull request, UNKNOWN.
func (s *Server) Mergeable(number int) (string, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pulls[number]
	if p == nil || p.state != "open" {
		return "UNKNOWN", nil
	}
	if _, conflicts := s.mergeTrees(s.baseSHA(p), s.headSHA(p)); len(conflicts) > 0 {
		return "CONFLICTING", conflicts
	}
	return "MERGEABLE", nil
}

// MergePR merges pull request number as GitHub's merge button does: a
// merge commit of the base's tip and the head (parents in that order), by
// login and committed by web-flow (signed by GitHub), moves the base
// branch to it and closes the pull request as merged. A pull request that
// does not merge is refused, as the button is greyed out: the error names
// the paths. It returns the merge commit.
func (s *Server) MergePR(number int, login string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pulls[number]
	if p == nil || p.state != "open" {
		return "", fmt.Errorf("pull request #%d is not open", number)
	}
	base, head := s.baseSHA(p), s.headSHA(p)
	if p.headRepo == nil {
		return "", fmt.Errorf("pull request #%d: its head repository was deleted", number)
	}
	files, conflicts := s.mergeTrees(base, head)
	if len(conflicts) > 0 {
		return "", fmt.Errorf("pull request #%d has conflicts that must be resolved: %s", number, strings.Join(conflicts, ", "))
	}
	c := &commitObject{
		tree: s.store.buildTree(files), parents: []string{base, head},
		message:     fmt.Sprintf("Merge pull request #%d from %s/%s", number, p.headRepo.owner, p.headRef),
		authorLogin: login, committerLogin: "web-flow", date: s.tick(), verified: true, reason: "valid",
	}
	c.authorName, c.authorEmail = identity(login, "")
	c.committerName, c.committerEmail = "GitHub", "noreply@github.com"
	sha := s.store.putCommit(c)
	s.setRefLocked(p.repo, "refs/heads/"+p.baseRef, sha, login)
	p.headSHA, p.baseSHA = head, base
	p.state, p.merged, p.mergeCommit = "closed", true, sha
	p.closedAt = s.tick()
	p.updated = p.closedAt
	return sha, nil
}
