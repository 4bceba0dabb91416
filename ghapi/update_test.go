package ghapi_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

// What the bot's branch updater asks of GitHub (docs/bot.md): the open
// pull requests with their mergeability, the diff of every path, one
// merge commit, and whether it already said something.

// The listing with mergeability: one GraphQL request per 100 pull
// requests, the default branch as GitHub names it now, a fork's pull
// request as one, and each pull request's head and base as they are.
func TestOpenPullRequestsMergeable(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	base := seedRepo(t, srv)
	srv.CommitFiles(owner, repo, "clean", map[string]string{"src/new.go": "package widget\n"}, "bob", fakegithub.From(base))
	conflicting := srv.CommitFiles(owner, repo, "pact", map[string]string{".pact/log.jsonl": "{\"event\":\"init\"}\n{\"b\":1}\n"}, "bob", fakegithub.From(base))
	srv.ForkRepo(owner, repo, "mallory")
	srv.CommitFiles("mallory", repo, "evil", map[string]string{"src/evil.go": "package evil\n"}, "mallory", fakegithub.From(base))
	var clean []int
	for range 101 {
		clean = append(clean, srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "clean", Base: "main"}))
	}
	pact := srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "pact", Base: "main"})
	fork := srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "evil", Base: "main", HeadOwner: "mallory"})
	tip := srv.CommitFiles(owner, repo, "main", map[string]string{".pact/log.jsonl": "{\"event\":\"init\"}\n{\"m\":1}\n"}, "alice")
	srv.SetDefaultBranch(owner, repo, "main")
	c, _ := newClient(t, srv, func(o *ghapi.Options) { o.GraphQLURL = srv.URL + "/graphql" })

	got, err := c.OpenPullRequestsMergeable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.DefaultBranch != "main" || len(got.PRs) != 103 {
		t.Fatalf("default branch %q, %d pull requests", got.DefaultBranch, len(got.PRs))
	}
	byNumber := map[int]ghfacts.PullRequest{}
	for _, pr := range got.PRs {
		byNumber[pr.Number] = pr
	}
	want := map[int]ghfacts.PullRequest{
		clean[100]: {Number: clean[100], State: "open", Mergeable: ghfacts.Mergeable, BaseRef: "main", BaseSHA: tip, HeadRef: "clean",
			HeadSHA: srv.BranchHead(owner, repo, "clean"), HeadRepoFullName: owner + "/" + repo},
		pact: {Number: pact, State: "open", Mergeable: ghfacts.Conflicting, BaseRef: "main", BaseSHA: tip, HeadRef: "pact", HeadSHA: conflicting, HeadRepoFullName: owner + "/" + repo},
		fork: {Number: fork, State: "open", Mergeable: ghfacts.Mergeable, BaseRef: "main", BaseSHA: tip, HeadRef: "evil",
			HeadSHA: srv.BranchHead("mallory", repo, "evil"), HeadRepoFullName: "mallory/" + repo, Fork: true},
	}
	for n, w := range want {
		if !reflect.DeepEqual(byNumber[n], w) {
			t.Errorf("#%d = %+v, want %+v", n, byNumber[n], w)
		}
	}
	if n := srv.CountRequests("POST", "/graphql"); n != 2 {
		t.Errorf("%d GraphQL requests for 103 pull requests, want 2 (pages of 100)", n)
	}
	if v := srv.Violations(); len(v) != 0 {
		t.Errorf("violations: %q", v)
	}
}

// Without GraphQL there is no listing with mergeability: the error says
// that is what is missing.
func TestOpenPullRequestsMergeableWithoutGraphQL(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t, fakegithub.WithoutGraphQL())
	seedRepo(t, srv)
	c, _ := newClient(t, srv, func(o *ghapi.Options) { o.GraphQLURL = srv.URL + "/graphql" })
	if _, err := c.OpenPullRequestsMergeable(context.Background()); err == nil || !strings.Contains(err.Error(), "needs GitHub's GraphQL API") {
		t.Errorf("err = %v", err)
	}
}

// Diff with no directory left out lists every path, the pact's too, as
// the definition does with nothing excluded.
func TestDiffWithoutADirectory(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	base := seedRepo(t, srv)
	head := srv.CommitFiles(owner, repo, "b", map[string]string{".pact/log.jsonl": "{\"event\":\"init\"}\n{}\n", ".pact/tasks/T1.md": "t\n", "src/widget.go": "package w\n"}, "bob",
		fakegithub.From(base), fakegithub.Deleting("README.md"))
	c, _ := newClient(t, srv, func(o *ghapi.Options) { o.GraphQLURL = srv.URL + "/graphql" })
	p := ghapi.DiffPair{From: base, To: head}
	got, err := c.Diff(context.Background(), "", p)
	if err != nil {
		t.Fatal(err)
	}
	want := referenceDiff(srv, "\x00", base, head) // a directory no path is under
	if fmt.Sprint(got[p]) != fmt.Sprint(want) || len(want) != 4 {
		t.Errorf("got  %v\nwant %v", got[p], want)
	}
}

// CommitTree: the base's tree with the changes laid over it (an entry by
// id, a deletion, text, bytes that are not UTF-8), two parents, the branch
// moved from the first without force; a branch that moved meanwhile is
// not moved; a commit that changes a workflow file is refused to a token
// without that permission, and the branch stays.
func TestCommitTree(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	base := seedRepo(t, srv)
	head := srv.CommitFiles(owner, repo, "topic", map[string]string{"src/topic.go": "package topic\n"}, "bob", fakegithub.From(base),
		fakegithub.Executable("bin/run", "#!/bin/sh\n"))
	tip := srv.CommitFiles(owner, repo, "main", map[string]string{"docs/main.md": "main\n"}, "alice")
	c, _ := newClient(t, srv, func(o *ghapi.Options) { o.GraphQLURL = srv.URL + "/graphql" })
	ctx := context.Background()
	trees, err := c.ReadTrees(ctx, ghapi.TreeRead{Commit: tip}, ghapi.TreeRead{Commit: head, Files: []string{"bin/run"}})
	if err != nil {
		t.Fatal(err)
	}
	run := trees[1].Entries["bin/run"]
	changes := []ghapi.TreeChange{
		{Path: "bin/run", Entry: ghapi.GitEntry{Type: "blob", Mode: 0o100755, OID: run.OID}},
		{Path: "README.md", Delete: true},
		{Path: ".pact/log.jsonl", Content: ghapi.File{[]byte("{\"merged\":true}\n")}},
		{Path: ".pact/bin.dat", Content: ghapi.File{{0xff, 0}}},
	}
	sha, err := c.CommitTree(ctx, "topic", []string{head, tip}, trees[0].RootTree, changes, "Merge main into topic")
	if err != nil {
		t.Fatal(err)
	}
	info, _ := srv.Commit(sha)
	if !reflect.DeepEqual(info.Parents, []string{head, tip}) || srv.BranchHead(owner, repo, "topic") != sha || !info.Verified {
		t.Fatalf("commit %+v, topic at %s", info, srv.BranchHead(owner, repo, "topic"))
	}
	tree := srv.Tree(sha)
	if e := tree["bin/run"]; e.Mode != "100755" || e.SHA != run.OID {
		t.Errorf("bin/run = %+v", e)
	}
	if _, ok := tree["README.md"]; ok {
		t.Error("README.md was not deleted")
	}
	for p, want := range map[string]string{"docs/main.md": "main\n", ".pact/log.jsonl": "{\"merged\":true}\n", ".pact/bin.dat": "\xff\x00", "src/widget.go": "package widget\n"} {
		if got, ok := srv.FileAt(sha, p); !ok || got != want {
			t.Errorf("%s = %q, %v; want %q", p, got, ok, want)
		}
	}
	if _, ok := tree["src/topic.go"]; ok {
		t.Error("src/topic.go is in the tree though no change put it there: the base tree is the tip's")
	}

	// The branch moved meanwhile: not a fast-forward, and it stays.
	moved := srv.CommitFiles(owner, repo, "topic", map[string]string{"x": "x\n"}, "bob")
	if _, err := c.CommitTree(ctx, "topic", []string{sha, tip}, trees[0].RootTree, changes, "again"); !errors.Is(err, ghapi.ErrNotFastForward) {
		t.Errorf("err = %v, want ErrNotFastForward", err)
	}
	if srv.BranchHead(owner, repo, "topic") != moved {
		t.Error("the branch that moved was moved")
	}

	// A workflow file the commit changes (the base's, here).
	wf := srv.CommitFiles(owner, repo, "main", map[string]string{".github/workflows/ci.yml": "on: push\n"}, "alice")
	wfTrees, err := c.ReadTrees(ctx, ghapi.TreeRead{Commit: wf})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CommitTree(ctx, "topic", []string{moved, wf}, wfTrees[0].RootTree, nil, "Merge main into topic")
	if !errors.Is(err, ghapi.ErrWorkflowFile) || errors.Is(err, ghapi.ErrNotFastForward) {
		t.Errorf("err = %v, want ErrWorkflowFile", err)
	}
	if srv.BranchHead(owner, repo, "topic") != moved {
		t.Error("the branch moved to a commit that changes a workflow")
	}
	for _, bad := range []string{"", "/abs", "a/../b", "a//b", "./a"} {
		if _, err := c.CommitTree(ctx, "topic", []string{moved}, wfTrees[0].RootTree, []ghapi.TreeChange{{Path: bad, Content: ghapi.File{[]byte("x")}}}, "m"); err == nil {
			t.Errorf("path %q was taken", bad)
		}
	}
	if v := srv.Violations(); len(v) != 0 {
		t.Errorf("violations: %q", v)
	}
}

// HasComment finds a marker among the newest comments only in a comment
// by one of the given authors: anyone else quoting it silences nothing.
func TestHasComment(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	srv.CommitFiles(owner, repo, "topic", map[string]string{"x": "x\n"}, "bob")
	n := srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "topic", Base: "main"})
	for i := range 150 {
		srv.AddComment(n, "bob", fmt.Sprintf("comment %d", i))
	}
	srv.AddComment(n, "mallory", "quoting <!-- marker a -->")
	srv.AddComment(n, "github-actions[bot]", "said <!-- marker b -->")
	c, _ := newClient(t, srv)
	for marker, want := range map[string]bool{"<!-- marker a -->": false, "<!-- marker b -->": true, "<!-- marker c -->": false} {
		got, err := c.HasComment(context.Background(), n, marker, []string{"GitHub-Actions[bot]"})
		if err != nil || got != want {
			t.Errorf("%s: %v, %v; want %v", marker, got, err, want)
		}
	}
}

// GitHub does not document the status of its workflow refusal: a 403
// with its words is ErrWorkflowFile (not ErrForbidden, which would read as
// "the token cannot write at all"), as the fake's 422 is; a 403 without
// them stays ErrForbidden.
func TestWorkflowRefusalWhateverTheStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status  int
		message string
		want    error
	}{
		{403, "refusing to allow a GitHub App to create or update workflow `.github/workflows/ci.yml` without `workflows` permission", ghapi.ErrWorkflowFile},
		{422, "refusing to allow an OAuth App to create or update workflow `.github/workflows/ci.yml` without `workflow` scope", ghapi.ErrWorkflowFile},
		{403, "Resource not accessible by integration", ghapi.ErrForbidden},
	} {
		t.Run(fmt.Sprint(tc.status, tc.message), func(t *testing.T) {
			t.Parallel()
			srv := fakegithub.New(t)
			base := seedRepo(t, srv)
			head := srv.CommitFiles(owner, repo, "topic", map[string]string{"a": "a\n"}, "bob", fakegithub.From(base))
			srv.Inject(fakegithub.Fault{Method: "PATCH", Path: "/repos/acme/widgets/git/refs/heads/topic", Status: tc.status,
				Body: fmt.Appendf(nil, `{"message":%q,"documentation_url":"https://docs.github.com/rest"}`, tc.message)})
			c, _ := newClient(t, srv)
			trees, err := c.ReadTrees(context.Background(), ghapi.TreeRead{Commit: base})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.CommitTree(context.Background(), "topic", []string{head, base}, trees[0].RootTree, nil, "m")
			if !errors.Is(err, tc.want) || (errors.Is(tc.want, ghapi.ErrWorkflowFile) && errors.Is(err, ghapi.ErrForbidden)) {
				t.Errorf("err = %v, want %v alone", err, tc.want)
			}
		})
	}
}
