package action_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

// "Same code?" (docs/semantics.md §5 "Same code") is answered in one place;
// these tests hold that place to a model computed from the fake GitHub's
// trees, and tell through the binary the story of issue 22 that a
// comparison of commits answered wrong.

// codeModel is the independent answer: the entries of both trees outside
// the pact directory (paths, modes, kinds and object ids), compared as
// they are; a commit the store lacks holds the code of no other commit.
func codeModel(s *fakegithub.Server, dir, a, b string) bool {
	if a == b {
		return true
	}
	ta, tb := s.Tree(a), s.Tree(b)
	if ta == nil || tb == nil {
		return false
	}
	outside := func(tree map[string]fakegithub.TreeEntry) map[string]fakegithub.TreeEntry {
		out := map[string]fakegithub.TreeEntry{}
		for p, e := range tree {
			if !strings.HasPrefix(p, dir+"/") {
				out[p] = e
			}
		}
		return out
	}
	return maps.Equal(outside(ta), outside(tb))
}

// sameCodeHistory builds a history from choose in s, with the pact in dir:
// code changes drawn from a few contents (so identical trees come back by
// other histories), commits that only touch the pact, chmod +x, a file
// swapped for a link to the same bytes, deletions, merges, and the branch
// force-pushed back to an ancestor and forward again. It returns every
// commit made.
func sameCodeHistory(s *fakegithub.Server, dir string, choose func(int) int) []string {
	files := []string{"src/a.go", "README.md", "meta/other.txt"}
	contents := []string{"one\n", "two\n"}
	var all []string
	commit := func(files map[string]string, opts ...fakegithub.CommitOption) {
		all = append(all, s.CommitFiles(e2e.Owner, e2e.Repo, "work", files, "dev", append(opts, fakegithub.Verified())...))
	}
	commit(map[string]string{"src/a.go": "one\n", "README.md": "one\n", dir + "/log.jsonl": "x\n"})
	for range 4 + choose(10) {
		f, c := files[choose(len(files))], contents[choose(len(contents))]
		switch choose(9) {
		case 0, 1:
			commit(map[string]string{f: c})
		case 2:
			commit(map[string]string{dir + "/log.jsonl": fmt.Sprintf("x%d\n", choose(3))})
		case 3:
			commit(nil, fakegithub.Executable(f, c))
		case 4:
			commit(nil, fakegithub.Symlink(f, c))
		case 5:
			commit(nil, fakegithub.Deleting(f))
		case 6: // force-push back to an earlier commit (its code or other)
			s.SetBranch(e2e.Owner, e2e.Repo, "work", all[choose(len(all))])
		case 7: // a merge of the head and another commit
			other := all[choose(len(all))]
			commit(map[string]string{f: c}, fakegithub.WithParents(s.BranchHead(e2e.Owner, e2e.Repo, "work"), other))
		default: // forward again to any commit made
			s.SetBranch(e2e.Owner, e2e.Repo, "work", all[choose(len(all))])
		}
	}
	return all
}

// TestSameCodeProperty holds codeIdentity.same equal to codeModel on every
// pair of commits of generated histories, through GraphQL and through
// REST, with the pact at the root and nested, and for two commits GitHub
// does not know: two, because one unknown id asked against itself is
// answered by a == b before GitHub is asked, and two distinct unknown
// commits have no identity to compare (they hold no code, not the same).
func TestSameCodeProperty(t *testing.T) {
	t.Parallel()
	cases := 40
	if testing.Short() {
		cases = 8
	}
	for seed := range cases {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(uint64(seed), 0x5a3e))
			var opts []fakegithub.Option
			api := "graphql"
			if r.IntN(4) == 0 {
				opts, api = append(opts, fakegithub.WithoutGraphQL()), "rest"
			}
			dir := []string{".pact", "meta/pact"}[r.IntN(2)]
			s := e2e.NewServer(t, opts...)
			commits := append(sameCodeHistory(s, dir, r.IntN), strings.Repeat("0", 40), strings.Repeat("1", 40))
			same := action.NewSameCode(client(t, s, &recorder{}), dir)
			differ := 0
			for _, a := range commits {
				for _, b := range commits {
					got, err := same(t.Context(), a, b)
					if err != nil {
						t.Fatal(err)
					}
					if want := codeModel(s, dir, a, b); got != want {
						t.Fatalf("%s, pact in %s: same(%.7s, %.7s) = %v, the trees say %v\n%v\n%v", api, dir, a, b, got, want, s.Tree(a), s.Tree(b))
					}
					if !got {
						differ++
					}
				}
			}
			if differ == 0 {
				t.Errorf("a history where every commit holds the same code tests nothing")
			}
			noViolations(t, s)
		})
	}
}

// storyPR is issue 22's story up to the comment: the pull request has
// commit B, which sends a token to a collector, then A, which removes that
// call; the reviewer comments "/pact accept T1" while the head is A; then
// the worker force-pushes the branch back to B (an ancestor of A, so
// GitHub's three-dot comparison A...B lists nothing).
func storyPR(t *testing.T) (p *provPR, b, a string, comment int64) {
	t.Helper()
	p = provSeed(t, "require", "tree")
	p.s.SetPermission(provRevGH, fakegithub.Write)
	b = p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"src/login.go": "package login\n\nfunc init() { send(token, collector) }\n"}, provDevGH, fakegithub.Verified())
	a = p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"src/login.go": "package login\n"}, provDevGH, fakegithub.Verified())
	p.s.SetNow(mustTime(reviewTS))
	comment = p.s.AddComment(p.n, provRevGH, "/pact accept T1")
	p.s.SetBranch(e2e.Owner, e2e.Repo, provBranch, b)
	return p, b, a, comment
}

// The bot writes a comment's accept only while the branch holds the code
// the comment saw: commits that only touch .pact/ since are fine; code
// pushed since, a force-push back to an ancestor with other code, or a
// chmod +x, are not.
func TestBotCommentWrittenOnlyOnTheCodeItSaw(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		after func(p *provPR, b, a string)
		write bool
	}{
		{"nothing pushed since", func(p *provPR, b, a string) {}, true},
		{"a commit that only touches .pact/", func(p *provPR, b, a string) {
			p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{".pact/notes.md": "n\n"}, provDevGH, fakegithub.Verified())
		}, true},
		{"code pushed since", func(p *provPR, b, a string) {
			p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"src/login.go": "package login // later\n"}, provDevGH, fakegithub.Verified())
		}, false},
		{"force-pushed back to an ancestor with other code", func(p *provPR, b, a string) {
			p.s.SetBranch(e2e.Owner, e2e.Repo, provBranch, b)
		}, false},
		{"chmod +x", func(p *provPR, b, a string) {
			p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, nil, provDevGH, fakegithub.Executable("src/login.go", "package login\n"), fakegithub.Verified())
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := provSeed(t, "require", "tree")
			p.s.SetPermission(provRevGH, fakegithub.Write)
			b := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"src/login.go": "package login // B\n"}, provDevGH, fakegithub.Verified())
			a := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"src/login.go": "package login\n"}, provDevGH, fakegithub.Verified())
			p.s.SetNow(mustTime(reviewTS))
			id := p.s.AddComment(p.n, provRevGH, "/pact accept T1")
			tc.after(p, b, a)
			before := p.head()
			out := event{name: "issue_comment", payload: commentPayload(t, p.n, id, reviewTS, provRevGH, "/pact accept T1", "COLLABORATOR")}.run(t, p.s).botDone(t)
			wrote := p.head() != before
			if wrote != tc.write {
				t.Fatalf("wrote %v, want %v: %+v", wrote, tc.write, out)
			}
			moved := slices.ContainsFunc(out.Replies, func(r string) bool { return strings.Contains(r, "The branch moved after your comment") })
			if moved == tc.write {
				t.Errorf("replies %q: said the branch moved %v, want %v", out.Replies, moved, !tc.write)
			}
			noViolations(t, p.s)
		})
	}
}

// Under stale: tree, an accept given on A covers a head only when the head
// holds A's code, whatever GitHub's comparison says: here the branch was
// force-pushed back to B, A's parent, and rev's accept of A recorded on
// it, so the comparison A...head lists nothing outside .pact/ (or GitHub
// answers 404); the accept is stale all the same.
func TestCoverageTreeWhenTheComparisonListsNothing(t *testing.T) {
	t.Parallel()
	for _, notFound := range []bool{false, true} {
		t.Run(fmt.Sprintf("404: %v", notFound), func(t *testing.T) {
			t.Parallel()
			p := provSeed(t, "require", "tree")
			b := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"src/login.go": "package login // B\n"}, provDevGH, fakegithub.Verified())
			a := p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"src/login.go": "package login // A\n"}, provDevGH, fakegithub.Verified())
			p.s.SetBranch(e2e.Owner, e2e.Repo, provBranch, b)
			head := p.accept(t, map[string]any{"commit": a}, provRevGH, fakegithub.Verified())
			if notFound {
				p.s.Inject(fakegithub.Fault{Method: "GET", Path: "/repos/" + repoFull + "/compare/" + a + "..." + head, Status: 404, Times: 10})
			}
			out, run := p.check(t, "failure")
			provWantFindings(t, out.Findings, run,
				provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
				provExpect{checks.CodeProvenanceStale, checks.SeverityError, 5, []string{"given on commit " + a[:12], "are not the head's"}})
		})
	}
}

// An accept whose payload.commit names the head's tree or one of its
// blobs — an object id GitHub knows, but no commit — covers nothing under
// tree or push: the check judges it (no error) and the task waits.
func TestCoverageAnchorNotACommit(t *testing.T) {
	t.Parallel()
	for _, stale := range []string{"tree", "push"} {
		for _, kind := range []string{"tree", "blob"} {
			t.Run(stale+"/"+kind, func(t *testing.T) {
				t.Parallel()
				p := provSeed(t, "require", stale)
				trees, err := client(t, p.s, &recorder{}).ReadTrees(t.Context(), ghapi.TreeRead{Commit: p.head(), Files: []string{"src/login.go"}})
				if err != nil {
					t.Fatal(err)
				}
				anchor := trees[0].RootTree
				if kind == "blob" {
					anchor = trees[0].Entries["src/login.go"].OID
				}
				p.accept(t, map[string]any{"commit": anchor}, provRevGH, fakegithub.Verified())
				out, run := p.check(t, "failure")
				provWantFindings(t, out.Findings, run,
					provExpect{checks.CodePRUnaccepted, checks.SeverityPending, 2, []string{"waiting for T1"}},
					provExpect{checks.CodeProvenanceStale, checks.SeverityError, 5, []string{"given on commit " + anchor[:12], "GitHub does not know"}})
			})
		}
	}
}

// The race between the bot's "same code?" test and its write: the branch
// moves after the bot read it and before it moves the branch. Code pushed
// on top makes the update a non-fast-forward, and the retry, which asks
// again, refuses; a force-push back to an ancestor lets the update go
// through, which puts back the code the comment saw, with the accept.
func TestBotCommentRaceBetweenTestAndWrite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		push  func(p *provPR, b string)
		write bool
	}{
		{"code pushed on top", func(p *provPR, b string) {
			p.s.CommitFiles(e2e.Owner, e2e.Repo, provBranch, map[string]string{"src/login.go": "package login // later\n"}, provDevGH, fakegithub.Verified())
		}, false},
		{"force-pushed back to other code", func(p *provPR, b string) { p.s.SetBranch(e2e.Owner, e2e.Repo, provBranch, b) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, b, a, id := storyPR(t)
			p.s.SetBranch(e2e.Owner, e2e.Repo, provBranch, a) // the bot reads A
			var once sync.Once
			p.s.BeforeUpdateRef(func(owner, repo, ref string) { once.Do(func() { tc.push(p, b) }) })
			out := event{name: "issue_comment", payload: commentPayload(t, p.n, id, reviewTS, provRevGH, "/pact accept T1", "COLLABORATOR")}.run(t, p.s).botDone(t)
			if wrote := out.NewHead != ""; wrote != tc.write {
				t.Fatalf("wrote %v, want %v: %+v", wrote, tc.write, out)
			}
			if n := countOp(p.s, "git/update-ref"); n != 1 {
				t.Fatalf("update-ref requests = %d, want 1: the bot judged A the comment's code and tried to write once", n)
			}
			if tc.write {
				if out.NewHead != p.head() || !codeModel(p.s, ".pact", out.NewHead, a) {
					t.Errorf("the accept landed on %s, whose code is not A's", out.NewHead)
				}
				return
			}
			if !slices.ContainsFunc(out.Replies, func(r string) bool { return strings.Contains(r, "The branch moved after your comment") }) {
				t.Errorf("no reply says the branch moved: %q", out.Replies)
			}
			noViolations(t, p.s)
		})
	}
}
