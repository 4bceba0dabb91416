package ghapi_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

// referenceDiff is the diff the definition gives (docs/semantics.md §8),
// from the fake's flattened trees: every path outside dir whose entry
// differs, with to's entry or deleted. Only a directory at dir is the
// pact's: the flattened tree has no directories, so a path under dir/ is
// the pact's exactly when dir is a directory on that side.
func referenceDiff(srv *fakegithub.Server, dir, from, to string) []ghapi.PathChange {
	f, t := srv.Tree(from), srv.Tree(to)
	inPact := func(p string) bool { return strings.HasPrefix(p, dir+"/") }
	entry := func(e fakegithub.TreeEntry, ok bool) ghapi.GitEntry {
		if !ok {
			return ghapi.GitEntry{}
		}
		mode, _ := strconv.ParseInt(e.Mode, 8, 64)
		return ghapi.GitEntry{Type: e.Type, Mode: int(mode), OID: e.SHA}
	}
	var out []ghapi.PathChange
	for p, te := range t {
		fe, ok := f[p]
		if inPact(p) || ok && fe == te {
			continue
		}
		out = append(out, ghapi.PathChange{Path: p, Before: entry(fe, ok), After: entry(te, true)})
	}
	for p, fe := range f {
		if _, ok := t[p]; !ok && !inPact(p) {
			out = append(out, ghapi.PathChange{Path: p, Before: entry(fe, true)})
		}
	}
	slices.SortFunc(out, func(a, b ghapi.PathChange) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// Diff lists exactly the paths the definition does, whatever changed
// where: files, modes, links, submodules, a file becoming a directory and
// back, the pact directory left out at the root or nested, and a file
// where the pact directory would be counted as code; through GraphQL and
// REST alike.
func TestDiff(t *testing.T) {
	t.Parallel()
	for _, api := range []struct {
		name string
		opts []fakegithub.Option
	}{{name: "graphql"}, {name: "rest", opts: []fakegithub.Option{fakegithub.WithoutGraphQL()}}} {
		for _, dir := range []string{".pact", "meta/pact"} {
			t.Run(api.name+"/"+dir, func(t *testing.T) {
				t.Parallel()
				srv := fakegithub.New(t, api.opts...)
				base := srv.CommitFiles(owner, repo, "main", map[string]string{
					"src/a.go": "a\n", "src/deep/x/y/z.go": "z\n", "docs/r.md": "r\n", "bin": "b\n",
					dir + "/log.jsonl": "1\n", "meta/other.txt": "o\n",
				}, "alice")
				steps := map[string]string{
					"pact only": srv.CommitFiles(owner, repo, "b1", map[string]string{dir + "/log.jsonl": "1\n2\n", dir + "/tasks/T1.md": "t\n"}, "alice", fakegithub.From(base)),
					"one file":  srv.CommitFiles(owner, repo, "b2", map[string]string{"src/deep/x/y/z.go": "z2\n"}, "alice", fakegithub.From(base)),
					"added and deleted": srv.CommitFiles(owner, repo, "b3", map[string]string{"new/dir/n.go": "n\n"}, "alice", fakegithub.From(base),
						fakegithub.Deleting("docs/r.md")),
					"chmod":        srv.CommitFiles(owner, repo, "b4", nil, "alice", fakegithub.From(base), fakegithub.Executable("src/a.go", "a\n")),
					"link":         srv.CommitFiles(owner, repo, "b5", nil, "alice", fakegithub.From(base), fakegithub.Symlink("src/a.go", "a\n")),
					"submodule":    srv.CommitFiles(owner, repo, "b6", nil, "alice", fakegithub.From(base), fakegithub.Submodule("vendor/lib", base)),
					"file to dir":  srv.CommitFiles(owner, repo, "b7", map[string]string{"bin/tool": "t\n"}, "alice", fakegithub.From(base), fakegithub.Deleting("bin")),
					"dir to file":  srv.CommitFiles(owner, repo, "b8", map[string]string{"src": "now a file\n"}, "alice", fakegithub.From(base), fakegithub.Deleting("src/a.go", "src/deep/x/y/z.go")),
					"sibling":      srv.CommitFiles(owner, repo, "b9", map[string]string{"meta/other.txt": "p\n"}, "alice", fakegithub.From(base)),
					"pact as file": srv.CommitFiles(owner, repo, "b10", map[string]string{dir: "not a directory\n"}, "alice", fakegithub.From(base), fakegithub.Deleting(dir+"/log.jsonl")),
				}
				c, _ := newClient(t, srv, func(o *ghapi.Options) { o.GraphQLURL = srv.URL + "/graphql" })
				var pairs []ghapi.DiffPair
				for _, sha := range steps {
					pairs = append(pairs, ghapi.DiffPair{From: base, To: sha}, ghapi.DiffPair{From: sha, To: base})
				}
				got, err := c.Diff(context.Background(), dir, pairs...)
				if err != nil {
					t.Fatal(err)
				}
				for name, sha := range steps {
					for _, p := range []ghapi.DiffPair{{From: base, To: sha}, {From: sha, To: base}} {
						want := referenceDiff(srv, dir, p.From, p.To)
						if fmt.Sprint(got[p]) != fmt.Sprint(want) {
							t.Errorf("%s (%s..%s):\n got  %v\n want %v", name, p.From[:7], p.To[:7], got[p], want)
						}
					}
				}
				if d := got[ghapi.DiffPair{From: base, To: steps["pact only"]}]; len(d) != 0 {
					t.Errorf("a commit that only changes %s changes %v", dir, d)
				}
				if d := got[ghapi.DiffPair{From: base, To: steps["pact as file"]}]; len(d) != 1 || d[0].Path != dir {
					t.Errorf("a file where the pact directory belongs: %v, want one change at %s", d, dir)
				}
				if v := srv.Violations(); len(v) != 0 {
					t.Errorf("OpenAPI violations: %q", v)
				}
			})
		}
	}
}

// A pair naming a commit GitHub does not know, or no commit id, is absent;
// the others are answered.
func TestDiffUnknownCommits(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	a := srv.CommitFiles(owner, repo, "main", map[string]string{"x": "1\n"}, "alice")
	b := srv.CommitFiles(owner, repo, "main", map[string]string{"x": "2\n"}, "alice")
	unknown := strings.Repeat("0", 40)
	c, _ := newClient(t, srv, func(o *ghapi.Options) { o.GraphQLURL = srv.URL + "/graphql" })
	got, err := c.Diff(context.Background(), ".pact", ghapi.DiffPair{From: a, To: b}, ghapi.DiffPair{From: a, To: unknown}, ghapi.DiffPair{From: "HEAD", To: b})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[ghapi.DiffPair{From: a, To: b}]) != 1 {
		t.Errorf("Diff = %v, want only %s..%s with one path", got, a[:7], b[:7])
	}
}

// A tree built to be expensive fails closed: directories deeper than a
// judgement reads.
func TestDiffTooDeep(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	a := srv.CommitFiles(owner, repo, "main", map[string]string{"x": "1\n"}, "alice")
	deep := strings.Repeat("d/", 80) + "f"
	b := srv.CommitFiles(owner, repo, "main", map[string]string{deep: "2\n"}, "alice")
	c, _ := newClient(t, srv, func(o *ghapi.Options) { o.GraphQLURL = srv.URL + "/graphql" })
	requests := len(srv.Requests())
	_, err := c.Diff(context.Background(), ".pact", ghapi.DiffPair{From: a, To: b})
	if !errors.Is(err, ghapi.ErrDiffTooLarge) {
		t.Fatalf("err = %v, want ErrDiffTooLarge", err)
	}
	if n := len(srv.Requests()) - requests; n > 70 {
		t.Errorf("%d requests before giving up", n)
	}
}
