package ghapi_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

// Two commits have the same code identity exactly when their files outside
// the pact directory agree (modes included), whatever the pact directory
// holds and wherever it sits; through GraphQL and through REST alike.
func TestCodeIDs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []fakegithub.Option
	}{{name: "graphql"}, {name: "rest", opts: []fakegithub.Option{fakegithub.WithoutGraphQL()}}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, dir := range []string{".pact", "meta/pact"} {
				srv := fakegithub.New(t, tc.opts...)
				base := srv.CommitFiles(owner, repo, "main", map[string]string{
					"src/a.go": "package a\n", dir + "/log.jsonl": "1\n", "meta/other.txt": "x\n",
				}, "alice")
				pactOnly := srv.CommitFiles(owner, repo, "main", map[string]string{dir + "/log.jsonl": "1\n2\n", dir + "/tasks/T1.md": "t\n"}, "alice")
				code := srv.CommitFiles(owner, repo, "main", map[string]string{"src/a.go": "package a // changed\n"}, "alice")
				reverted := srv.CommitFiles(owner, repo, "main", map[string]string{"src/a.go": "package a\n", dir + "/log.jsonl": "1\n2\n3\n"}, "alice")
				sibling := srv.CommitFiles(owner, repo, "main", map[string]string{"meta/other.txt": "y\n"}, "alice")
				moved := srv.CommitFiles(owner, repo, "side", map[string]string{"src/b.go": "package a\n"}, "alice", fakegithub.From(reverted), fakegithub.Deleting("src/a.go"))
				unknown := "0123456789012345678901234567890123456789"

				c, _ := newClient(t, srv, func(o *ghapi.Options) { o.GraphQLURL = srv.URL + "/graphql" })
				ids, err := c.CodeIDs(context.Background(), dir, base, pactOnly, code, reverted, sibling, moved, unknown, "not-a-sha")
				if err != nil {
					t.Fatal(err)
				}
				same := func(a, b string) bool { return ids[a] != "" && ids[a] == ids[b] }
				switch {
				case !same(base, pactOnly):
					t.Errorf("%s: a commit that only changes %s changed the code", dir, dir)
				case same(base, code):
					t.Errorf("%s: a change to src/a.go kept the code", dir)
				case !same(base, reverted):
					t.Errorf("%s: reverting src/a.go did not bring the code back", dir)
				case same(reverted, sibling):
					t.Errorf("%s: a file beside the pact directory is not code", dir)
				case same(reverted, moved):
					t.Errorf("%s: a renamed file kept the code", dir)
				}
				if _, ok := ids[unknown]; ok {
					t.Errorf("a commit GitHub does not know has a code identity")
				}
				if len(ids) != 6 {
					t.Errorf("identities = %d, want 6: %v", len(ids), ids)
				}
				if v := srv.Violations(); len(v) != 0 {
					t.Errorf("OpenAPI violations: %q", v)
				}
			}
		})
	}
}

// A file's mode is part of the code: chmod +x, or a file swapped for a
// link whose target is the file's bytes (the same blob id), changes the
// identity — at the repository root, and beside a nested pact directory,
// where the entries are hashed one by one rather than through the tree id
// of a directory (which carries the modes of what it holds).
func TestCodeIDsModes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []fakegithub.Option
	}{{name: "graphql"}, {name: "rest", opts: []fakegithub.Option{fakegithub.WithoutGraphQL()}}} {
		for _, dir := range []string{".pact", "meta/pact"} {
			t.Run(tc.name+"/"+dir, func(t *testing.T) {
				t.Parallel()
				srv := fakegithub.New(t, tc.opts...)
				base := srv.CommitFiles(owner, repo, "main", map[string]string{"run.sh": "echo hi\n", "meta/other.txt": "x\n", dir + "/log.jsonl": "1\n"}, "alice")
				changed := map[string]string{}
				for name, opt := range map[string]fakegithub.CommitOption{
					"chmod +x at the root":                 fakegithub.Executable("run.sh", "echo hi\n"),
					"a link to the same bytes at the root": fakegithub.Symlink("run.sh", "echo hi\n"),
					"chmod +x beside the pact directory":   fakegithub.Executable("meta/other.txt", "x\n"),
				} {
					changed[name] = srv.CommitFiles(owner, repo, "b-"+strings.ReplaceAll(name, " ", "-"), nil, "alice", fakegithub.From(base), opt)
				}
				c, _ := newClient(t, srv, func(o *ghapi.Options) { o.GraphQLURL = srv.URL + "/graphql" })
				ids, err := c.CodeIDs(context.Background(), dir, append([]string{base}, slices.Collect(maps.Values(changed))...)...)
				if err != nil {
					t.Fatal(err)
				}
				for name, sha := range changed {
					if ids[sha] == "" || ids[sha] == ids[base] {
						t.Errorf("%s kept the code identity", name)
					}
				}
				if v := srv.Violations(); len(v) != 0 {
					t.Errorf("OpenAPI violations: %q", v)
				}
			})
		}
	}
}
