package fakegithub

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The fake's own merge by whole files, row by row: what each side does to
// a path since the merge base, and whether the merge takes a side or
// conflicts.
func TestMergeTreesTable(t *testing.T) {
	t.Parallel()
	const (
		absent = "\x00absent"
		old    = "old\n"
	)
	for _, tc := range []struct {
		name             string
		base, main, head string // the path's content at each ("absent": none)
		want             string // the merged content, or "conflict"
	}{
		{"nobody touches it", old, old, old, old},
		{"only main changes it", old, "main\n", old, "main\n"},
		{"only the branch changes it", old, old, "head\n", "head\n"},
		{"both make it the same", old, "same\n", "same\n", "same\n"},
		{"both change it differently", old, "main\n", "head\n", "conflict"},
		{"both append to it", old, old + "m\n", old + "h\n", "conflict"},
		{"main deletes it", old, absent, old, absent},
		{"the branch deletes it", old, old, absent, absent},
		{"both delete it", old, absent, absent, absent},
		{"main deletes it, the branch edits it", old, absent, "head\n", "conflict"},
		{"only the branch adds it", absent, absent, "new\n", "new\n"},
		{"both add it alike", absent, "new\n", "new\n", "new\n"},
		{"both add it differently", absent, "a\n", "b\n", "conflict"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := New(t)
			files := func(content string) map[string]string {
				m := map[string]string{"README.md": "r\n"}
				if content != absent {
					m["f"] = content
				}
				return m
			}
			opts := func(content string) []CommitOption {
				if content == absent {
					return []CommitOption{Deleting("f")}
				}
				return nil
			}
			base := s.CommitFiles("o", "r", "main", files(tc.base), "alice")
			s.CommitFiles("o", "r", "feat", files(tc.head), "bob", append(opts(tc.head), From(base))...)
			s.CommitFiles("o", "r", "main", files(tc.main), "alice", opts(tc.main)...)
			n := s.OpenPR("o", "r", PRSeed{Head: "feat", Base: "main"})

			state, conflicts := s.Mergeable(n)
			if tc.want == "conflict" {
				if state != "CONFLICTING" || !slices.Equal(conflicts, []string{"f"}) {
					t.Fatalf("mergeable = %s %v, want CONFLICTING on f", state, conflicts)
				}
				if _, err := s.MergePR(n, "alice"); err == nil || !strings.Contains(err.Error(), "f") {
					t.Fatalf("the merge button merged a conflict: %v", err)
				}
				return
			}
			if state != "MERGEABLE" {
				t.Fatalf("mergeable = %s %v, want MERGEABLE", state, conflicts)
			}
			tip := s.BranchHead("o", "r", "main")
			sha, err := s.MergePR(n, "alice")
			if err != nil {
				t.Fatal(err)
			}
			got, ok := s.FileAt(sha, "f")
			if !ok {
				got = absent
			}
			if got != tc.want {
				t.Errorf("merged f = %q, want %q", got, tc.want)
			}
			c, _ := s.Commit(sha)
			if !slices.Equal(c.Parents, []string{tip, s.BranchHead("o", "r", "feat")}) || s.BranchHead("o", "r", "main") != sha || !c.Verified {
				t.Errorf("merge commit %+v, main at %s", c, s.BranchHead("o", "r", "main"))
			}
			if st, _ := s.Mergeable(n); st != "UNKNOWN" {
				t.Errorf("a merged pull request is still %s", st)
			}
		})
	}
}

// A file on one side where the other side's directory stands conflicts,
// though no path is changed by both.
func TestMergeTreesFileWhereADirectoryStands(t *testing.T) {
	t.Parallel()
	s := New(t)
	base := s.CommitFiles("o", "r", "main", map[string]string{"d/x": "x\n"}, "alice")
	s.CommitFiles("o", "r", "feat", map[string]string{"d/y": "y\n"}, "bob", From(base))
	s.CommitFiles("o", "r", "main", map[string]string{"d": "a file now\n"}, "alice", Deleting("d/x"))
	n := s.OpenPR("o", "r", PRSeed{Head: "feat", Base: "main"})
	if state, conflicts := s.Mergeable(n); state != "CONFLICTING" || !slices.Equal(conflicts, []string{"d"}) {
		t.Errorf("mergeable = %s %v, want CONFLICTING on d", state, conflicts)
	}
}

const gqlPullsQuery = `query($owner: String!, $name: String!, $after: String) {
  repository(owner: $owner, name: $name) {
    defaultBranchRef { name }
    pullRequests(states: [OPEN], first: 2, after: $after, orderBy: {field: CREATED_AT, direction: ASC}) {
      pageInfo { hasNextPage endCursor }
      nodes { number state mergeable isCrossRepository isDraft baseRefName baseRefOid headRefName headRefOid headRepository { nameWithOwner } }
    }
  }
}`

// GraphQL lists the open pull requests a page at a time, each with the
// mergeability the fake computes, UNKNOWN for the reads the lag asks
// after a push, and a fork's as cross-repository.
func TestGraphQLPullRequestsMergeable(t *testing.T) {
	t.Parallel()
	s := New(t)
	base := s.CommitFiles("o", "r", "main", map[string]string{"log": "1\n"}, "alice")
	s.CommitFiles("o", "r", "clean", map[string]string{"a": "a\n"}, "bob", From(base))
	s.CommitFiles("o", "r", "appends", map[string]string{"log": "1\nb\n"}, "bob", From(base))
	s.ForkRepo("o", "r", "mallory")
	s.CommitFiles("mallory", "r", "evil", map[string]string{"log": "1\nm\n"}, "mallory", From(base))
	s.CommitFiles("o", "r", "closed", map[string]string{"c": "c\n"}, "bob", From(base))
	clean := s.OpenPR("o", "r", PRSeed{Head: "clean", Base: "main"})
	appends := s.OpenPR("o", "r", PRSeed{Head: "appends", Base: "main"})
	evil := s.OpenPR("o", "r", PRSeed{Head: "evil", Base: "main", HeadOwner: "mallory"})
	s.ClosePR(s.OpenPR("o", "r", PRSeed{Head: "closed", Base: "main"}))
	tip := s.CommitFiles("o", "r", "main", map[string]string{"log": "1\nmain\n"}, "alice")
	s.SetMergeabilityLag(1)

	list := func() (map[int]string, string) {
		t.Helper()
		got := map[int]string{}
		var branch string
		var after any
		for page := 0; ; page++ {
			status, out := gql(t, s, "/graphql", gqlPullsQuery, map[string]any{"owner": "o", "name": "r", "after": after})
			if status != 200 || out["errors"] != nil {
				t.Fatalf("status %d, answer %v", status, out)
			}
			branch, _ = dig(t, out, "data", "repository", "defaultBranchRef", "name").(string)
			conn := dig(t, out, "data", "repository", "pullRequests")
			for _, node := range dig(t, conn, "nodes").([]any) {
				n := int(dig(t, node, "number").(float64))
				if dig(t, node, "state") != "OPEN" || dig(t, node, "baseRefOid") != tip || dig(t, node, "baseRefName") != "main" {
					t.Errorf("#%d: %v", n, node)
				}
				got[n] = fmt.Sprintf("%s cross=%v repo=%v", dig(t, node, "mergeable"), dig(t, node, "isCrossRepository"), dig(t, node, "headRepository", "nameWithOwner"))
			}
			if dig(t, conn, "pageInfo", "hasNextPage") != true {
				return got, branch
			}
			if page > 3 {
				t.Fatal("the pages never end")
			}
			after = dig(t, conn, "pageInfo", "endCursor")
		}
	}
	got, branch := list()
	if branch != "main" || len(got) != 3 || !strings.HasPrefix(got[clean], "UNKNOWN") || !strings.HasPrefix(got[appends], "UNKNOWN") {
		t.Fatalf("first listing right after the push: %s %v", branch, got)
	}
	got, _ = list()
	want := map[int]string{
		clean:   "MERGEABLE cross=false repo=o/r",
		appends: "CONFLICTING cross=false repo=o/r",
		evil:    "CONFLICTING cross=true repo=mallory/r",
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("#%d = %q, want %q", n, got[n], w)
		}
	}
	if v := s.Violations(); len(v) != 0 {
		t.Errorf("violations: %v", v)
	}
}

// A token without the workflows permission may not move a branch to a
// commit that changes a workflow file, whoever made the change; one with
// it may.
func TestUpdateRefNeedsWorkflowsForWorkflowFiles(t *testing.T) {
	t.Parallel()
	for _, workflows := range []bool{false, true} {
		t.Run(fmt.Sprintf("workflows=%v", workflows), func(t *testing.T) {
			t.Parallel()
			s := New(t)
			s.SetToken("tok", Token{Workflows: workflows})
			from := s.CommitFiles("o", "r", "main", map[string]string{".github/workflows/ci.yml": "on: push\n"}, "alice")
			s.SetBranch("o", "r", "feat", from)
			to := s.CommitFiles("o", "r", "main", map[string]string{".github/workflows/ci.yml": "on: [push]\n", "a": "a\n"}, "alice")
			status, body, _ := do(t, s, "PATCH", "/repos/o/r/git/refs/heads/feat", map[string]any{"sha": to}, "Authorization", "token tok")
			if workflows {
				if status != 200 || s.BranchHead("o", "r", "feat") != to {
					t.Errorf("status %d: %s", status, body)
				}
				return
			}
			if status != 422 || !strings.Contains(string(body), "without `workflows` permission") || s.BranchHead("o", "r", "feat") != from {
				t.Errorf("status %d: %s", status, body)
			}
			// A commit that leaves the workflows as they were moves.
			other := s.CommitFiles("o", "r", "side", map[string]string{"b": "b\n"}, "alice", From(from))
			if status, body, _ := do(t, s, "PATCH", "/repos/o/r/git/refs/heads/feat", map[string]any{"sha": other}, "Authorization", "token tok"); status != 200 {
				t.Errorf("status %d: %s", status, body)
			}
		})
	}
}

// The queue removes a pull request that conflicts with the group ahead,
// and a group that lands moves the base branch to it and closes its pull
// request as merged.
func TestTryQueueAndLand(t *testing.T) {
	t.Parallel()
	s := New(t)
	base := s.CommitFiles("o", "r", "main", map[string]string{"log": "1\n"}, "alice")
	s.CommitFiles("o", "r", "a", map[string]string{"log": "1\na\n"}, "bob", From(base))
	s.CommitFiles("o", "r", "b", map[string]string{"log": "1\nb\n"}, "bob", From(base))
	a := s.OpenPR("o", "r", PRSeed{Head: "a", Base: "main"})
	b := s.OpenPR("o", "r", PRSeed{Head: "b", Base: "main"})
	g, err := s.TryQueuePR(a, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.TryQueuePR(b, g.HeadSHA); err == nil || !strings.Contains(err.Error(), "log") {
		t.Fatalf("b joined a's group: %v", err)
	}
	s.LandMergeGroup(g, a)
	if s.BranchHead("o", "r", "main") != g.HeadSHA || s.BranchHead("o", "r", g.HeadRef) != "" {
		t.Errorf("main at %s, group branch at %s", s.BranchHead("o", "r", "main"), s.BranchHead("o", "r", g.HeadRef))
	}
	if st, _ := s.Mergeable(a); st != "UNKNOWN" {
		t.Errorf("the landed pull request is %s", st)
	}
	if st, _ := s.Mergeable(b); st != "CONFLICTING" {
		t.Errorf("b after a landed: %s", st)
	}
}
