package fakegithub

import "fmt"

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
