package action

import "testing"

// TestGitBlobID: the blob ids git gives a file, as `git hash-object` prints
// them in a SHA-1 and a SHA-256 repository.
func TestGitBlobID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ content, want string }{
		{"hello\n", "ce013625030ba8dba906f756967f9e9ca394464a"},
		{"hello\n", "2cf8d83d9ee29543b34a87727421fdecb7e3f3a183d337639025de576db9ebb4"},
		{"", "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"},
	} {
		if got := gitBlobID([]byte(c.content), len(c.want)); got != c.want {
			t.Errorf("gitBlobID(%q, %d) = %s, want %s", c.content, len(c.want), got, c.want)
		}
	}
}
