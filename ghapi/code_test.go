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

// What stands where the pact directory should be, and names that look like
// it: only a directory at the pact directory's path is bookkeeping. A file,
// a link or a submodule in its place is code (no pact directory is there),
// and so are the directory's case variants, a directory whose name starts
// with its name, and, for a nested pact directory, an entry of that name
// at another level.
func TestCodeIDsLookalikes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []fakegithub.Option
	}{{name: "graphql"}, {name: "rest", opts: []fakegithub.Option{fakegithub.WithoutGraphQL()}}} {
		for _, dir := range []string{".pact", "meta/pact"} {
			t.Run(tc.name+"/"+dir, func(t *testing.T) {
				t.Parallel()
				srv := fakegithub.New(t, tc.opts...)
				base := srv.CommitFiles(owner, repo, "main", map[string]string{"src/a.go": "package a\n", dir + "/log.jsonl": "1\n"}, "alice")
				pairs := map[string][2]string{}
				pair := func(name string, first, second func(branch string) string) {
					pairs[name] = [2]string{first("a-" + strings.ReplaceAll(name, " ", "-")), second("b-" + strings.ReplaceAll(name, " ", "-"))}
				}
				commit := func(files map[string]string, opts ...fakegithub.CommitOption) func(string) string {
					return func(branch string) string {
						return srv.CommitFiles(owner, repo, branch, files, "alice", append(opts, fakegithub.From(base))...)
					}
				}
				gone := fakegithub.Deleting(dir + "/log.jsonl")
				pair("a file in its place", commit(map[string]string{dir: "one\n"}, gone), commit(map[string]string{dir: "two\n"}, gone))
				pair("a link in its place", commit(nil, fakegithub.Symlink(dir, "src")), commit(nil, fakegithub.Symlink(dir, "/etc")))
				pair("a submodule in its place", commit(nil, fakegithub.Submodule(dir, strings.Repeat("1", 40))), commit(nil, fakegithub.Submodule(dir, strings.Repeat("2", 40))))
				pair("a directory that becomes a file", commit(nil), commit(map[string]string{dir: "1\n"}, gone))
				upper := strings.ToUpper(dir)
				pair("its name in capitals", commit(map[string]string{upper + "/x.go": "one\n"}), commit(map[string]string{upper + "/x.go": "two\n"}))
				pair("a name it starts", commit(map[string]string{dir + "-evil/x.go": "one\n"}), commit(map[string]string{dir + "-evil/x.go": "two\n"}))
				last := dir[strings.LastIndex(dir, "/")+1:]
				if last != dir {
					pair("its last name at the root", commit(map[string]string{last + "/x.go": "one\n"}), commit(map[string]string{last + "/x.go": "two\n"}))
				}
				pair("its name inside it", commit(map[string]string{dir + "/" + last + "/x": "one\n"}), commit(map[string]string{dir + "/" + last + "/x": "two\n"}))
				var all []string
				for _, p := range pairs {
					all = append(all, p[0], p[1])
				}
				c, _ := newClient(t, srv, func(o *ghapi.Options) { o.GraphQLURL = srv.URL + "/graphql" })
				ids, err := c.CodeIDs(context.Background(), dir, all...)
				if err != nil {
					t.Fatal(err)
				}
				for name, p := range pairs {
					same := ids[p[0]] != "" && ids[p[0]] == ids[p[1]]
					if want := name == "its name inside it"; same != want {
						t.Errorf("%s: same code = %v, want %v", name, same, want)
					}
				}
				if v := srv.Violations(); len(v) != 0 {
					t.Errorf("OpenAPI violations: %q", v)
				}
			})
		}
	}
}

// GitHub's git/trees answer may be cut short (truncated): the entries it
// leaves out would be missing from the code, so two commits that differ
// only there would hold the same code. A cut list is an error, never an
// identity.
func TestCodeIDsRESTTruncatedTree(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t, fakegithub.WithoutGraphQL())
	a := srv.CommitFiles(owner, repo, "main", map[string]string{"src/a.go": "package a\n", ".pact/log.jsonl": "1\n"}, "alice")
	b := srv.CommitFiles(owner, repo, "main", map[string]string{"zz.go": "package evil\n"}, "alice")
	cut := []byte(`{"sha":"` + strings.Repeat("a", 40) + `","url":"https://example.invalid/t","truncated":true,"tree":[]}`)
	srv.Inject(fakegithub.Fault{Method: "GET", Path: "/repos/" + owner + "/" + repo + "/git/trees/*", Status: 200, Body: cut, Times: 100})
	c, _ := newClient(t, srv, func(o *ghapi.Options) { o.GraphQLURL = srv.URL + "/graphql" })
	ids, err := c.CodeIDs(context.Background(), ".pact", a, b)
	if err == nil {
		t.Fatalf("a truncated tree gave identities %v", ids)
	}
	if !strings.Contains(err.Error(), "truncated") {
		t.Errorf("the error does not say the tree was cut short: %v", err)
	}
}

// An object id that names a tree or a blob, not a commit (an accept's
// payload.commit is anyone's string), has no code identity, and asking
// for it is no error: through GraphQL and through REST alike.
func TestCodeIDsNotACommit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []fakegithub.Option
	}{{name: "graphql"}, {name: "rest", opts: []fakegithub.Option{fakegithub.WithoutGraphQL()}}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakegithub.New(t, tc.opts...)
			head := srv.CommitFiles(owner, repo, "main", map[string]string{"src/a.go": "package a\n", ".pact/log.jsonl": "1\n"}, "alice")
			c, _ := newClient(t, srv, func(o *ghapi.Options) { o.GraphQLURL = srv.URL + "/graphql" })
			trees, err := c.ReadTrees(context.Background(), ghapi.TreeRead{Commit: head, Files: []string{"src/a.go"}})
			if err != nil {
				t.Fatal(err)
			}
			tree, blob := trees[0].RootTree, trees[0].Entries["src/a.go"].OID
			ids, err := c.CodeIDs(context.Background(), ".pact", head, tree, blob)
			if err != nil {
				t.Fatal(err)
			}
			if ids[head] == "" || len(ids) != 1 {
				t.Errorf("identities = %v, want only the commit %s's", ids, head)
			}
			if v := srv.Violations(); len(v) != 0 {
				t.Errorf("OpenAPI violations: %q", v)
			}
		})
	}
}
