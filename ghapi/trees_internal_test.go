package ghapi

import "testing"

// TestDescribeReads: the reads a failed ReadTrees names in its error, each
// said in words: a read of a commit alone (a base branch's tip) too.
func TestDescribeReads(t *testing.T) {
	t.Parallel()
	got := describeReads([]TreeRead{
		{Commit: "0123456789abcdef0123456789abcdef01234567", Files: []string{".pact/log.jsonl"}, Dirs: []string{".pact/tasks"}},
		{Branch: "main"},
		{DefaultBranch: true, Files: []string{".github/pact.yml"}},
	})
	if want := ".pact/log.jsonl, .pact/tasks/ at 0123456789ab and the commit at main and .github/pact.yml at the default branch"; got != want {
		t.Errorf("describeReads = %q, want %q", got, want)
	}
}
