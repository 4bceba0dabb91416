package pactdir

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFind is the walk up from a subdirectory, as git finds its
// repository: the nearest pact wins, the repository's root bounds it, and
// outside a repository only the working directory counts.
func TestFind(t *testing.T) {
	t.Parallel()
	mk := func(t *testing.T, root string, paths ...string) {
		t.Helper()
		for _, p := range paths {
			full := filepath.Join(root, filepath.FromSlash(p))
			if filepath.Ext(p) == ".file" {
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full[:len(full)-len(".file")], []byte("gitdir: elsewhere\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name  string
		tree  []string // directories; a path ending .file is a file (without it)
		wd    string
		root  string // the Dir's Root, relative to the tree ("." its top)
		found bool
	}{
		{name: "at the root", tree: []string{"repo/.git", "repo/.pact"}, wd: "repo", root: "repo", found: true},
		{name: "from a subdirectory", tree: []string{"repo/.git", "repo/.pact", "repo/src/pkg"}, wd: "repo/src/pkg", root: "repo", found: true},
		{name: "the nearest wins", tree: []string{"repo/.git", "repo/.pact", "repo/sub/.pact", "repo/sub/pkg"}, wd: "repo/sub/pkg", root: "repo/sub", found: true},
		{name: "a worktree's .git file", tree: []string{"repo/.git.file", "repo/.pact", "repo/src"}, wd: "repo/src", root: "repo", found: true},
		{name: "no higher than the repository", tree: []string{".pact", "repo/.git", "repo/src"}, wd: "repo/src", root: "repo/src", found: false},
		{name: "a nested repository bounds it", tree: []string{"repo/.git", "repo/.pact", "repo/vendor/lib/.git", "repo/vendor/lib/src"}, wd: "repo/vendor/lib/src", root: "repo/vendor/lib/src", found: false},
		{name: "outside a repository, the working directory only", tree: []string{"top/.pact", "top/sub"}, wd: "top/sub", root: "top/sub", found: false},
		{name: "outside a repository, at the pact", tree: []string{"top/.pact"}, wd: "top", root: "top", found: true},
		{name: "no pact in the repository", tree: []string{"repo/.git", "repo/src"}, wd: "repo/src", root: "repo/src", found: false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			top := t.TempDir()
			mk(t, top, c.tree...)
			d, found, err := Find(filepath.Join(top, filepath.FromSlash(c.wd)), ".pact")
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(top, filepath.FromSlash(c.root)); d.Root != want || found != c.found {
				t.Errorf("Find = %s (found %v), want %s (found %v)", d.Root, found, want, c.found)
			}
			if d.Name != ".pact" || d.Display("log.jsonl") != ".pact/log.jsonl" {
				t.Errorf("Find names %q, shown as %q", d.Name, d.Display("log.jsonl"))
			}
		})
	}
}
