package fakegithub

import (
	"fmt"
	"strings"
)

// The merge queue, as the merge_group event shows it: each queued pull
// request gets a group, a merge commit of its head onto the group queued
// ahead of it (or the base branch's tip), on a branch
// gh-readonly-queue/<base>/pr-<number>-<parent>.

// MergeGroup is one group of a merge queue.
type MergeGroup struct {
	// HeadSHA is the group's merge commit, HeadRef its branch (without
	// refs/heads/).
	HeadSHA, HeadRef string
	// BaseSHA is the group's parent (what the event calls base_sha): the
	// head of the group queued ahead, or the base branch's tip; BaseRef is
	// the base branch.
	BaseSHA, BaseRef string
}

// QueuePR queues pull request number behind parent (the HeadSHA of the
// group queued ahead of it; "" for the base branch's tip) and returns its
// group. The fake does not merge text: the group holds parent's files with
// every file the pull request's head changed since its merge base with
// parent laid over them (as regular files), which is git's merge when the
// two touch different files, or when the pull request builds on the one
// ahead.
func (s *Server) QueuePR(number int, parent string) MergeGroup {
	s.t.Helper()
	s.mu.Lock()
	p := s.pulls[number]
	if p == nil {
		s.mu.Unlock()
		s.t.Fatalf("fakegithub: QueuePR: unknown pull request %d", number)
		return MergeGroup{}
	}
	r, base, head := p.repo, p.baseRef, s.headSHA(p)
	if parent == "" {
		parent = r.refs["refs/heads/"+base]
	}
	if s.store.commits[parent] == nil {
		s.mu.Unlock()
		s.t.Fatalf("fakegithub: QueuePR: unknown parent %s", parent)
		return MergeGroup{}
	}
	files := map[string]string{}
	from := s.store.flatten(s.treeOf(s.store.mergeBase(parent, head)))
	to := s.store.flatten(s.treeOf(head))
	var deleted []string
	for path, e := range to {
		if from[path] != e {
			files[path] = string(s.store.blobs[e.sha].data)
		}
	}
	for path := range from {
		if _, ok := to[path]; !ok {
			deleted = append(deleted, path)
		}
	}
	owner, name := r.owner, r.name
	s.mu.Unlock()

	ref := fmt.Sprintf("gh-readonly-queue/%s/pr-%d-%s", base, number, parent)
	sha := s.CommitFiles(owner, name, ref, files, "", WithParents(parent, head), WithMessage(fmt.Sprintf("Merge pull request #%d", number)), Deleting(deleted...))
	return MergeGroup{HeadSHA: sha, HeadRef: ref, BaseSHA: parent, BaseRef: base}
}

// TryQueuePR is QueuePR as GitHub's queue does it for a pull request
// that may not merge onto the group ahead: GitHub merges server-side, so a
// pull request whose head conflicts with parent (the group ahead, or the
// base's tip for "") is not queued; the error names the paths, as the
// queue's "removed: merge conflict" does.
func (s *Server) TryQueuePR(number int, parent string) (MergeGroup, error) {
	s.t.Helper()
	s.mu.Lock()
	p := s.pulls[number]
	if p == nil {
		s.mu.Unlock()
		return MergeGroup{}, fmt.Errorf("unknown pull request %d", number)
	}
	on := parent
	if on == "" {
		on = p.repo.refs["refs/heads/"+p.baseRef]
	}
	_, conflicts := s.mergeTrees(on, s.headSHA(p))
	s.mu.Unlock()
	if len(conflicts) > 0 {
		return MergeGroup{}, fmt.Errorf("pull request #%d was removed from the merge queue: it conflicts with %s in %s", number, on, strings.Join(conflicts, ", "))
	}
	return s.QueuePR(number, parent), nil
}

// LandMergeGroup merges group g, which holds pull request number, as the
// queue does once its checks pass: the base branch moves to the group's
// commit, the group's branch goes, and the pull request is closed as
// merged.
func (s *Server) LandMergeGroup(g MergeGroup, number int) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pulls[number]
	if p == nil || p.state != "open" || s.store.commits[g.HeadSHA] == nil {
		s.t.Fatalf("fakegithub: LandMergeGroup: pull request %d is not open, or %s is no commit", number, g.HeadSHA)
		return
	}
	s.setRefLocked(p.repo, "refs/heads/"+g.BaseRef, g.HeadSHA, "github-merge-queue[bot]")
	delete(p.repo.refs, "refs/heads/"+g.HeadRef)
	p.headSHA, p.baseSHA = s.headSHA(p), g.BaseSHA
	p.state, p.merged, p.mergeCommit = "closed", true, g.HeadSHA
	p.closedAt = s.tick()
	p.updated = p.closedAt
}
