package fakegithub

import (
	"slices"
	"testing"
)

// Two queued pull requests: the second's group builds on the first's,
// holds both pull requests' changes, and sits on the branch the queue
// names after its parent.
func TestQueuePR(t *testing.T) {
	t.Parallel()
	s := New(t)
	tip := s.CommitFiles("o", "r", "main", map[string]string{"a": "1", "b": "1", "gone": "x"}, "lead")
	s.CommitFiles("o", "r", "one", map[string]string{"a": "2"}, "dev", From("main"))
	two := s.CommitFiles("o", "r", "two", map[string]string{"b": "2"}, "dev", From("main"), Deleting("gone"))
	n1 := s.OpenPR("o", "r", PRSeed{Head: "one", Base: "main"})
	n2 := s.OpenPR("o", "r", PRSeed{Head: "two", Base: "main"})

	g1 := s.QueuePR(n1, "")
	g2 := s.QueuePR(n2, g1.HeadSHA)
	if g1.BaseSHA != tip || g1.BaseRef != "main" || g1.HeadRef != "gh-readonly-queue/main/pr-1-"+tip || g2.BaseSHA != g1.HeadSHA {
		t.Errorf("groups = %+v, %+v", g1, g2)
	}
	if c, _ := s.Commit(g2.HeadSHA); !slices.Equal(c.Parents, []string{g1.HeadSHA, two}) || c.Message != "Merge pull request #2" {
		t.Errorf("group 2's commit = %+v", c)
	}
	if got := s.BranchHead("o", "r", g2.HeadRef); got != g2.HeadSHA {
		t.Errorf("the queue's branch is at %s, want %s", got, g2.HeadSHA)
	}
	for path, want := range map[string]string{"a": "2", "b": "2"} {
		if got, _ := s.FileAt(g2.HeadSHA, path); got != want {
			t.Errorf("group 2's %s = %q, want %q", path, got, want)
		}
	}
	if _, ok := s.FileAt(g2.HeadSHA, "gone"); ok {
		t.Error("a file the pull request deletes is still in its group")
	}
}
