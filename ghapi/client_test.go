package ghapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

func TestNewAPIURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		apiURL  string
		want    string
		wantErr bool
	}{
		{name: "github.com", apiURL: "https://api.github.com", want: "https://api.github.com/"},
		{name: "github.com trailing slash", apiURL: "https://api.github.com/", want: "https://api.github.com/"},
		{name: "enterprise server", apiURL: "https://ghe.example.com/api/v3", want: "https://ghe.example.com/api/v3/"},
		{name: "enterprise server bare host", apiURL: "https://ghe.example.com", want: "https://ghe.example.com/api/v3/"},
		{name: "ghe.com data residency", apiURL: "https://api.octocorp.ghe.com", want: "https://api.octocorp.ghe.com/"},
		{name: "not a url", apiURL: "::nope", wantErr: true},
		{name: "relative", apiURL: "api.github.com", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := ghapi.New(context.Background(), ghapi.Options{APIURL: tt.apiURL, Owner: owner, Repo: repo})
			if tt.wantErr {
				if err == nil {
					t.Fatalf("New(%q) = nil error, want an error", tt.apiURL)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(%q): %v", tt.apiURL, err)
			}
			if got := c.BaseURL(); got != tt.want {
				t.Errorf("BaseURL() = %q, want %q", got, tt.want)
			}
		})
	}
}

// Not parallel: it sets an environment variable.
// The library never reads the environment (cmd passes GITHUB_API_URL in):
// an empty APIURL means github.com whatever the environment says.
func TestNewIgnoresTheEnvironment(t *testing.T) {
	t.Setenv("GITHUB_API_URL", "https://ghe.example.com/api/v3")
	c, err := ghapi.New(context.Background(), ghapi.Options{Owner: owner, Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.BaseURL(), "https://api.github.com/"; got != want {
		t.Errorf("BaseURL() = %q, want %q", got, want)
	}
}

func TestNewRequiresRepository(t *testing.T) {
	t.Parallel()
	if _, err := ghapi.New(context.Background(), ghapi.Options{Owner: owner}); err == nil {
		t.Fatal("New without repo succeeded")
	}
}

func TestUnauthenticatedClientSendsNoToken(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	// A read-only token would refuse the write; without any token the
	// fake acts as the default identity, so the write succeeds.
	srv.SetToken("", fakegithub.Token{ReadOnly: true})
	c, _ := newClient(t, srv, func(o *ghapi.Options) { o.Token = "" })
	head := srv.BranchHead(owner, repo, "main")
	if _, err := c.CreateCheckRun(context.Background(), ghapi.CheckRun{Name: "pact", HeadSHA: head}); err != nil {
		t.Fatalf("CreateCheckRun without token: %v", err)
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	main := seedRepo(t, srv)
	big := strings.Repeat("0123456789abcdef", 2<<20/16) // 2 MiB
	feature := srv.CommitFiles(owner, repo, "feature/log", map[string]string{
		".pact/log.jsonl":      "{\"event\":\"init\"}\n{\"event\":\"claim\"}\n",
		"big/data.bin":         big,
		"dir with space/ü.txt": "unicode\n",
	}, "bob")
	c, _ := newClient(t, srv)

	tests := []struct {
		name    string
		path    string
		ref     string
		want    string
		wantErr error
		anyErr  bool
	}{
		{name: "default branch", path: "README.md", want: "# widgets\n"},
		{name: "branch with slash", path: ".pact/log.jsonl", ref: "feature/log", want: "{\"event\":\"init\"}\n{\"event\":\"claim\"}\n"},
		{name: "commit sha", path: ".pact/log.jsonl", ref: main, want: "{\"event\":\"init\"}\n"},
		{name: "nested", path: "src/deep/dir.txt", ref: "main", want: "deep\n"},
		{name: "escaped path", path: "dir with space/ü.txt", ref: feature, want: "unicode\n"},
		{name: "2 MB file through raw media type", path: "big/data.bin", ref: "feature/log", want: big},
		{name: "missing file", path: "nope.txt", ref: "main", wantErr: ghapi.ErrNotFound},
		{name: "missing ref", path: "README.md", ref: "no-such-branch", wantErr: ghapi.ErrNotFound},
		{name: "directory", path: "src", ref: "main", anyErr: true},
		{name: "parent traversal", path: "../x", anyErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := c.ReadFile(context.Background(), tt.path, tt.ref)
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ReadFile(%q, %q) error = %v, want %v", tt.path, tt.ref, err, tt.wantErr)
				}
			case tt.anyErr:
				if err == nil {
					t.Fatalf("ReadFile(%q, %q) succeeded, want an error", tt.path, tt.ref)
				}
			case err != nil:
				t.Fatalf("ReadFile(%q, %q): %v", tt.path, tt.ref, err)
			case string(got) != tt.want:
				t.Fatalf("ReadFile(%q, %q) = %d bytes %.40q, want %d bytes %.40q", tt.path, tt.ref, len(got), got, len(tt.want), tt.want)
			}
		})
	}
}

func TestReadFileFallsBackToBlobs(t *testing.T) {
	t.Parallel()
	// The fake refuses files above 1 KiB even as raw, like GitHub above
	// 100 MB, so ReadFile has to walk the trees and read the blob.
	srv := fakegithub.New(t, fakegithub.WithRawContentLimit(1024))
	content := strings.Repeat("x", 4096)
	srv.CommitFiles(owner, repo, "main", map[string]string{"a/b/large.txt": content, "a/small.txt": "s"}, "alice")
	c, _ := newClient(t, srv)

	tests := []struct {
		name, path, ref, want string
		wantErr               error
	}{
		{name: "default branch", path: "a/b/large.txt", want: content},
		{name: "named branch", path: "a/b/large.txt", ref: "main", want: content},
		{name: "small file needs no fallback", path: "a/small.txt", ref: "main", want: "s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.ReadFile(context.Background(), tt.path, tt.ref)
			if err != nil {
				t.Fatalf("ReadFile: %v", err)
			}
			if string(got) != tt.want {
				t.Fatalf("ReadFile = %d bytes, want %d", len(got), len(tt.want))
			}
		})
	}
	// The second large read is the same blob, kept by its id.
	if n := srv.CountRequests("GET", "/repos/acme/widgets/git/blobs/*"); n != 1 {
		t.Errorf("blob requests = %d, want 1", n)
	}
}

func TestMergeBase(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	a := srv.CommitFiles(owner, repo, "main", map[string]string{"f": "a"}, "alice")
	b := srv.CommitFiles(owner, repo, "main", map[string]string{"f": "b"}, "alice")
	srv.CommitFiles(owner, repo, "feature", map[string]string{"g": "1"}, "bob") // from b
	e := srv.CommitFiles(owner, repo, "feature", map[string]string{"g": "2"}, "bob")
	c1 := srv.CommitFiles(owner, repo, "main", map[string]string{"f": "c"}, "alice")
	// "merged" merges main (c1) into a copy of feature.
	srv.CommitFiles(owner, repo, "merged", map[string]string{"f": "c"}, "bob", fakegithub.WithParents(e, c1))
	srv.CommitFiles(owner, repo, "old", map[string]string{"h": "1"}, "bob", fakegithub.From(a))
	orphan := srv.CommitFiles(owner, repo, "orphan", map[string]string{"o": "1"}, "bob", fakegithub.WithParents())
	c, _ := newClient(t, srv)

	tests := []struct {
		name, base, head, want string
		wantErr                error
	}{
		{name: "diverged branches", base: "main", head: "feature", want: b},
		{name: "by sha", base: c1, head: e, want: b},
		{name: "after merging base into head", base: "main", head: "merged", want: c1},
		{name: "head behind base", base: "main", head: "old", want: a},
		{name: "identical", base: "main", head: c1, want: c1},
		{name: "unrelated histories", base: "main", head: orphan, wantErr: ghapi.ErrNotFound},
		{name: "unknown ref", base: "main", head: "nope", wantErr: ghapi.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := c.MergeBase(context.Background(), tt.base, tt.head)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("MergeBase error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("MergeBase: %v", err)
			}
			if got != tt.want {
				t.Errorf("MergeBase(%s, %s) = %s, want %s", tt.base, tt.head, got, tt.want)
			}
			if fake := srv.MergeBase(resolve(srv, tt.base), resolve(srv, tt.head)); fake != got {
				t.Errorf("fake merge base %s differs from the API's %s", fake, got)
			}
		})
	}
}

func resolve(srv *fakegithub.Server, ref string) string {
	if sha := srv.BranchHead(owner, repo, ref); sha != "" {
		return sha
	}
	return ref
}

func TestCompareFiles(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	srv.CommitFiles(owner, repo, "main", map[string]string{"keep": "k", "edit": "1", "gone": "g", "move-me": "same"}, "alice")
	srv.CommitFiles(owner, repo, "feature", map[string]string{"edit": "2", "new/file": "n", "moved": "same"}, "bob",
		fakegithub.Deleting("gone", "move-me"))
	// A change on main after the fork point must not show up.
	srv.CommitFiles(owner, repo, "main", map[string]string{"main-only": "m"}, "alice")
	// Many files, more than one page of commits.
	many := map[string]string{}
	for i := range 150 {
		many[fmt.Sprintf("many/%03d", i)] = "x"
	}
	srv.CommitFiles(owner, repo, "many", many, "bob", fakegithub.From("main"))
	for i := range 120 {
		srv.CommitFiles(owner, repo, "many", map[string]string{"counter": fmt.Sprint(i)}, "bob")
	}
	c, _ := newClient(t, srv)

	tests := []struct {
		name, base, head string
		want             []string
		wantLen          int
	}{
		{name: "added modified removed renamed", base: "main", head: "feature", want: []string{"edit", "gone", "move-me", "moved", "new/file"}},
		{name: "no changes", base: "main", head: "main", want: nil},
		{name: "151 files over 121 commits", base: "main", head: "many", wantLen: 151},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := c.CompareFiles(context.Background(), tt.base, tt.head)
			if err != nil {
				t.Fatalf("CompareFiles: %v", err)
			}
			if tt.want != nil || tt.wantLen == 0 {
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("CompareFiles = %q, want %q", got, tt.want)
				}
				return
			}
			if len(got) != tt.wantLen {
				t.Errorf("CompareFiles returned %d files, want %d", len(got), tt.wantLen)
			}
		})
	}
}

func TestPullRequest(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	base := seedRepo(t, srv)
	same := srv.CommitFiles(owner, repo, "topic", map[string]string{"t": "1"}, "bob")
	srv.ForkRepo(owner, repo, "mallory")
	forkHead := srv.CommitFiles("mallory", repo, "evil", map[string]string{"e": "1"}, "mallory")
	nSame := srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "topic", Base: "main", Author: "bob", Title: "Topic"})
	nFork := srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "evil", Base: "main", HeadOwner: "mallory"})
	srv.CommitFiles("mallory", repo, "draft", map[string]string{"g": "1"}, "mallory")
	nDraft := srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "draft", Base: "main", HeadOwner: "mallory", Draft: true, Author: "mallory-bot"})
	c, _ := newClient(t, srv)

	tests := []struct {
		name    string
		number  int
		want    ghapi.PR
		wantErr error
	}{
		{name: "same repository", number: nSame, want: ghapi.PR{
			Number: nSame, Title: "Topic", State: "open", HeadSHA: same, HeadRef: "topic", HeadRepoFullName: "acme/widgets",
			BaseRef: "main", BaseSHA: base, Fork: false, AuthorLogin: "bob"}},
		{name: "fork", number: nFork, want: ghapi.PR{
			Number: nFork, Title: "Merge evil into main", State: "open", HeadSHA: forkHead, HeadRef: "evil", HeadRepoFullName: "mallory/widgets",
			BaseRef: "main", BaseSHA: base, Fork: true, AuthorLogin: "mallory"}},
		{name: "draft from fork", number: nDraft, want: ghapi.PR{
			Number: nDraft, Title: "Merge draft into main", State: "open", Draft: true, HeadSHA: srv.BranchHead("mallory", repo, "draft"), HeadRef: "draft",
			HeadRepoFullName: "mallory/widgets", BaseRef: "main", BaseSHA: base, Fork: true, AuthorLogin: "mallory-bot"}},
		{name: "missing", number: 999, wantErr: ghapi.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := c.PullRequest(context.Background(), tt.number)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("PullRequest error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("PullRequest: %v", err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("PullRequest(%d) =\n%+v\nwant\n%+v", tt.number, *got, tt.want)
			}
		})
	}
}

// TestRequestReviewers: the request, what the pull request then holds
// (read back by PullRequest and OpenPullRequests too), and GitHub's
// refusals as typed errors.
func TestRequestReviewers(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	srv.CommitFiles(owner, repo, "topic", map[string]string{"t": "1"}, "bob")
	n := srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "topic", Base: "main", Author: "bob"})
	srv.SetPermission("carol", fakegithub.Write)
	srv.SetPermission("bob", fakegithub.Write)
	srv.AddTeam("reviewers", "carol")
	srv.SetToken("app-token", fakegithub.Token{Login: "pact-app[bot]", ReadsTeams: true})
	srv.SetToken("ro-token", fakegithub.Token{ReadOnly: true})
	c, _ := newClient(t, srv)
	ctx := context.Background()

	pr, err := c.RequestReviewers(ctx, n, []string{"carol"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pr.RequestedReviewers, []string{"carol"}) || pr.RequestedTeams != nil || pr.Number != n {
		t.Errorf("after the request: %+v", pr)
	}
	app, _ := newClient(t, srv, func(o *ghapi.Options) { o.Token = "app-token" })
	if pr, err = app.RequestReviewers(ctx, n, nil, []string{"reviewers"}); err != nil || !reflect.DeepEqual(pr.RequestedTeams, []string{"reviewers"}) {
		t.Fatalf("team request: %+v, %v", pr, err)
	}
	if got, err := c.PullRequest(ctx, n); err != nil || !reflect.DeepEqual(got.RequestedReviewers, []string{"carol"}) || !reflect.DeepEqual(got.RequestedTeams, []string{"reviewers"}) {
		t.Errorf("PullRequest: %+v, %v", got, err)
	}
	if open, err := c.OpenPullRequests(ctx); err != nil || len(open) != 1 || !reflect.DeepEqual(open[0].RequestedReviewers, []string{"carol"}) || !reflect.DeepEqual(open[0].RequestedTeams, []string{"reviewers"}) {
		t.Errorf("OpenPullRequests: %+v, %v", open, err)
	}

	var ae *ghapi.APIError
	if _, err := c.RequestReviewers(ctx, n, []string{"bob"}, nil); !errors.As(err, &ae) || ae.StatusCode != 422 || !strings.Contains(err.Error(), "pull request author") {
		t.Errorf("the author: %v", err)
	}
	ro, _ := newClient(t, srv, func(o *ghapi.Options) { o.Token = "ro-token" })
	if _, err := ro.RequestReviewers(ctx, n, []string{"carol"}, nil); !errors.Is(err, ghapi.ErrForbidden) {
		t.Errorf("a read-only token: %v, want ErrForbidden", err)
	}
	if _, err := c.RequestReviewers(ctx, 999, []string{"carol"}, nil); !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("no such pull request: %v, want ErrNotFound", err)
	}
}

func TestOpenPullRequestsPaginates(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	for i := range 120 {
		srv.CommitFiles(owner, repo, fmt.Sprintf("b%d", i), map[string]string{"f": fmt.Sprint(i)}, "bob")
		srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: fmt.Sprintf("b%d", i), Base: "main"})
	}
	srv.ClosePR(7)
	c, _ := newClient(t, srv)
	prs, err := c.OpenPullRequests(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(prs) != 119 {
		t.Fatalf("OpenPullRequests returned %d, want 119", len(prs))
	}
	for _, pr := range prs {
		if pr.Number == 7 || pr.State != "open" {
			t.Errorf("unexpected pull request %+v", pr)
		}
	}
	if n := srv.CountRequests("GET", "/repos/acme/widgets/pulls"); n != 2 {
		t.Errorf("list requests = %d, want 2 pages", n)
	}
}

func TestPullCommits(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	base := seedRepo(t, srv)
	c1 := srv.CommitFiles(owner, repo, "topic", map[string]string{"a": "1"}, "bob", fakegithub.Verified(), fakegithub.WithMessage("first"))
	c2 := srv.CommitFiles(owner, repo, "topic", map[string]string{"a": "2"}, "", fakegithub.WithAuthorEmail("ghost@example.com"), fakegithub.WithCommitter("web-flow"))
	n := srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "topic", Base: "main"})
	for i := range 130 {
		srv.CommitFiles(owner, repo, "long", map[string]string{"n": fmt.Sprint(i)}, "carol", fakegithub.From("main"))
	}
	long := srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "long", Base: "main"})
	c, _ := newClient(t, srv)

	got, err := c.PullCommits(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	date := func(sha string) time.Time { c, _ := srv.Commit(sha); return c.Date }
	want := []ghapi.Commit{
		{SHA: c1, Parents: []string{base}, AuthorLogin: "bob", CommitterLogin: "bob", Verified: true, Message: "first", CommitterDate: date(c1)},
		{SHA: c2, Parents: []string{c1}, AuthorLogin: "", CommitterLogin: "web-flow", Verified: false, Message: "update a", CommitterDate: date(c2)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PullCommits =\n%+v\nwant\n%+v", got, want)
	}

	all, err := c.PullCommits(context.Background(), long)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 130 {
		t.Fatalf("PullCommits returned %d commits, want 130", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i].Parents[0] != all[i-1].SHA {
			t.Fatalf("commit %d is not a child of commit %d: order is not oldest first", i, i-1)
		}
	}

	if _, err := c.PullCommits(context.Background(), 404); !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("PullCommits(404) error = %v, want ErrNotFound", err)
	}
}

func TestReviews(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	head := srv.CommitFiles(owner, repo, "topic", map[string]string{"a": "1"}, "bob")
	n := srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "topic", Base: "main"})
	r1 := srv.AddReview(n, fakegithub.ReviewSeed{Login: "carol", State: "approved", Body: "LGTM"})
	r2 := srv.AddReview(n, fakegithub.ReviewSeed{Login: "dave", State: "CHANGES_REQUESTED", CommitID: "0000000000000000000000000000000000000000"})
	c, _ := newClient(t, srv)

	list, err := c.Reviews(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != r1 || list[1].ID != r2 || list[0].Body != "LGTM" {
		t.Fatalf("Reviews = %+v", list)
	}
	if got := list[0]; got.State != "APPROVED" || got.AuthorLogin != "carol" || got.CommitID != head || got.HTMLURL == "" || got.SubmittedAt.IsZero() {
		t.Errorf("the approval = %+v", got)
	}
	if got := list[1]; got.State != "CHANGES_REQUESTED" || got.AuthorLogin != "dave" || got.CommitID != "0000000000000000000000000000000000000000" {
		t.Errorf("the changes requested = %+v", got)
	}
}

func TestPermission(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	for _, lvl := range []string{"admin", "maintain", "write", "triage", "read", "none"} {
		srv.SetPermission("user-"+lvl, lvl)
	}
	c, _ := newClient(t, srv)
	tests := []struct{ login, want string }{
		{"user-admin", "admin"},
		{"user-maintain", "maintain"},
		{"user-write", "write"},
		{"user-triage", "triage"},
		{"user-read", "read"},
		{"user-none", "none"},
		{"stranger", "none"},
	}
	for _, tt := range tests {
		t.Run(tt.login, func(t *testing.T) {
			t.Parallel()
			got, err := c.Permission(context.Background(), tt.login)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Permission(%s) = %q, want %q", tt.login, got, tt.want)
			}
		})
	}
}

func annotations(n int) []ghapi.Annotation {
	levels := []string{"failure", "warning", "notice"}
	out := make([]ghapi.Annotation, n)
	for i := range out {
		out[i] = ghapi.Annotation{
			Path: ".pact/log.jsonl", StartLine: i + 1, EndLine: i + 1, Level: levels[i%3],
			Title: fmt.Sprintf("rule %d", i), Message: fmt.Sprintf("problem %d", i),
		}
	}
	return out
}

func TestCompleteCheckRunDeliversEveryAnnotation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		annotations int
		wantPatches int
	}{
		{name: "none", annotations: 0, wantPatches: 1},
		{name: "a few", annotations: 3, wantPatches: 1},
		{name: "exactly 50", annotations: 50, wantPatches: 1},
		{name: "51", annotations: 51, wantPatches: 2},
		{name: "120", annotations: 120, wantPatches: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakegithub.New(t)
			head := seedRepo(t, srv)
			c, _ := newClient(t, srv)
			ctx := context.Background()
			id, err := c.CreateCheckRun(ctx, ghapi.CheckRun{Name: "pact", HeadSHA: head, ExternalID: "run-1", DetailsURL: "https://example.com/run/1"})
			if err != nil {
				t.Fatal(err)
			}
			runs := srv.CheckRuns(head)
			if len(runs) != 1 || runs[0].Status != "in_progress" {
				t.Fatalf("after create: %+v", runs)
			}
			want := annotations(tt.annotations)
			err = c.CompleteCheckRun(ctx, id, "failure", ghapi.Output{Title: "Pact", Summary: "summary", Text: "text", Annotations: want})
			if err != nil {
				t.Fatal(err)
			}
			runs = srv.CheckRuns(head)
			if len(runs) != 1 {
				t.Fatalf("check runs = %d, want 1", len(runs))
			}
			got := runs[0]
			if got.Status != "completed" || got.Conclusion != "failure" || got.Title != "Pact" || got.Summary != "summary" || got.Text != "text" {
				t.Errorf("run = %+v", got)
			}
			if got.ExternalID != "run-1" || got.DetailsURL != "https://example.com/run/1" || got.Name != "pact" {
				t.Errorf("run lost its identity: %+v", got)
			}
			if len(got.Annotations) != tt.annotations {
				t.Fatalf("stored %d annotations, want %d", len(got.Annotations), tt.annotations)
			}
			for i, a := range got.Annotations {
				w := want[i]
				if a.Path != w.Path || a.StartLine != w.StartLine || a.Level != w.Level || a.Message != w.Message || a.Title != w.Title {
					t.Fatalf("annotation %d = %+v, want %+v", i, a, w)
				}
			}
			if patches := got.Requests - 1; patches != tt.wantPatches {
				t.Errorf("update requests = %d, want %d", patches, tt.wantPatches)
			}
		})
	}
}

func TestCompleteCheckRunRejectsBadInput(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	head := seedRepo(t, srv)
	c, _ := newClient(t, srv)
	ctx := context.Background()
	id, err := c.CreateCheckRun(ctx, ghapi.CheckRun{Name: "pact", HeadSHA: head})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		conclusion string
		out        ghapi.Output
	}{
		{name: "unknown conclusion", conclusion: "great", out: ghapi.Output{Summary: "s"}},
		{name: "bad level", conclusion: "success", out: ghapi.Output{Annotations: []ghapi.Annotation{{Path: "a", Level: "error", Message: "m"}}}},
		{name: "no message", conclusion: "success", out: ghapi.Output{Annotations: []ghapi.Annotation{{Path: "a", Level: "notice"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := c.CompleteCheckRun(ctx, id, tt.conclusion, tt.out); err == nil {
				t.Fatal("CompleteCheckRun succeeded")
			}
		})
	}
	if got := srv.CheckRuns(head)[0].Requests; got != 1 {
		t.Errorf("invalid input reached GitHub: %d requests", got)
	}
	if err := c.CompleteCheckRun(ctx, 424242, "success", ghapi.Output{Summary: "s"}); !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("unknown check run error = %v, want ErrNotFound", err)
	}
}

func TestFailCheckRun(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	head := seedRepo(t, srv)
	c, _ := newClient(t, srv)
	ctx := context.Background()
	id, err := c.CreateCheckRun(ctx, ghapi.CheckRun{Name: "pact", HeadSHA: head, Status: "queued"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.FailCheckRun(ctx, id, "panic: boom"); err != nil {
		t.Fatal(err)
	}
	run := srv.CheckRuns(head)[0]
	if run.Status != "completed" || run.Conclusion != "failure" || run.Summary != "panic: boom" {
		t.Errorf("run = %+v", run)
	}
}

func TestCommentAndReact(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	srv.CommitFiles(owner, repo, "topic", map[string]string{"a": "1"}, "bob")
	n := srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "topic", Base: "main"})
	human := srv.AddComment(n, "bob", "/pact claim")
	reviewComment := srv.AddReviewComment(n, "carol", "nit")
	c, _ := newClient(t, srv)
	ctx := context.Background()

	id, err := c.Comment(ctx, n, "Pact: claim recorded")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		kind    ghapi.CommentKind
		id      int64
		content string
		wantErr error
		anyErr  bool
	}{
		{name: "issue comment", kind: ghapi.IssueComment, id: human, content: "+1"},
		{name: "same reaction again", kind: ghapi.IssueComment, id: human, content: "+1"},
		{name: "own comment", kind: ghapi.IssueComment, id: id, content: "rocket"},
		{name: "review comment", kind: ghapi.ReviewComment, id: reviewComment, content: "eyes"},
		{name: "review comment id on issue endpoint", kind: ghapi.IssueComment, id: reviewComment, content: "eyes", wantErr: ghapi.ErrNotFound},
		{name: "unknown reaction", kind: ghapi.IssueComment, id: human, content: "tada", anyErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.React(ctx, tt.kind, tt.id, tt.content)
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("React error = %v, want %v", err, tt.wantErr)
				}
			case tt.anyErr:
				if err == nil {
					t.Fatal("React succeeded")
				}
			case err != nil:
				t.Fatal(err)
			}
		})
	}
	comments := srv.Comments(n)
	if len(comments) != 2 || comments[1].ID != id || comments[1].Body != "Pact: claim recorded" || comments[1].Author != fakegithub.DefaultLogin {
		t.Fatalf("comments = %+v", comments)
	}
	if want := []string{fakegithub.DefaultLogin + ":+1"}; !reflect.DeepEqual(comments[0].Reactions, want) {
		t.Errorf("reactions on the human comment = %q, want %q", comments[0].Reactions, want)
	}
	rc, _ := srv.ReviewComment(reviewComment)
	if want := []string{fakegithub.DefaultLogin + ":eyes"}; !reflect.DeepEqual(rc.Reactions, want) {
		t.Errorf("reactions on the review comment = %q, want %q", rc.Reactions, want)
	}
	if _, err := c.Comment(ctx, 999, "x"); !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("comment on a missing pull request: %v, want ErrNotFound", err)
	}
}

func TestCommitFiles(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	parent := srv.CommitFiles(owner, repo, "topic", map[string]string{".pact/log.jsonl": "{\"event\":\"init\"}\n"}, "bob")
	c, _ := newClient(t, srv)
	ctx := context.Background()

	head := srv.BranchHead(owner, repo, "topic")
	if head != parent {
		t.Fatalf("the branch is at %s, want %s", head, parent)
	}
	files := map[string][]byte{
		".pact/log.jsonl":    []byte("{\"event\":\"init\"}\n{\"event\":\"ack\"}\n"),
		".pact/bin/blob.dat": {0, 1, 2, 0xff, 0xfe},
	}
	sha, err := c.CommitFiles(ctx, "topic", parent, files, "pact: record ack")
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.BranchHead(owner, repo, "topic"); got != sha {
		t.Fatalf("branch head = %s, want the new commit %s", got, sha)
	}
	info, _ := srv.Commit(sha)
	if !reflect.DeepEqual(info.Parents, []string{parent}) || info.Message != "pact: record ack" || !info.Verified || info.AuthorLogin != fakegithub.DefaultLogin {
		t.Errorf("commit = %+v", info)
	}
	for p, want := range files {
		if got, ok := srv.FileAt(sha, p); !ok || got != string(want) {
			t.Errorf("FileAt(%s) = %q, %v; want %q", p, got, ok, want)
		}
	}
	for _, p := range []string{"README.md", "src/deep/dir.txt"} {
		if _, ok := srv.FileAt(sha, p); !ok {
			t.Errorf("%s lost: the tree was not based on the parent's", p)
		}
	}

}

func TestCommitFilesNotFastForward(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	parent := srv.CommitFiles(owner, repo, "topic", map[string]string{"log": "1\n"}, "bob")
	var racer string
	srv.BeforeUpdateRef(func(o, r, ref string) {
		if ref == "heads/topic" && racer == "" {
			// Someone pushes to the branch between our commit and our
			// ref update.
			racer = srv.CommitFiles(o, r, "topic", map[string]string{"log": "1\n2\n"}, "bob")
		}
	})
	c, _ := newClient(t, srv)
	ctx := context.Background()

	_, err := c.CommitFiles(ctx, "topic", parent, map[string][]byte{"log": []byte("1\nbot\n")}, "pact: append")
	if !errors.Is(err, ghapi.ErrNotFastForward) {
		t.Fatalf("CommitFiles error = %v, want ErrNotFastForward", err)
	}
	if got := srv.BranchHead(owner, repo, "topic"); got != racer {
		t.Fatalf("branch head = %s, want the concurrent push %s", got, racer)
	}
	if n := srv.CountRequests("PATCH", "/repos/acme/widgets/git/refs/heads/topic"); n != 1 {
		t.Errorf("update-ref requests = %d: a 422 must not be retried", n)
	}

	// The caller re-reads the branch and tries again.
	head := srv.BranchHead(owner, repo, "topic")
	sha, err := c.CommitFiles(ctx, "topic", head, map[string][]byte{"log": []byte("1\n2\nbot\n")}, "pact: append")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := srv.FileAt(sha, "log"); got != "1\n2\nbot\n" {
		t.Errorf("log = %q", got)
	}
	if _, err := c.CommitFiles(ctx, "missing", head, map[string][]byte{"x": nil}, "m"); !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("commit to a missing branch: %v, want ErrNotFound", err)
	}
}

func TestReadOnlyTokenIsForbidden(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	head := seedRepo(t, srv)
	srv.CommitFiles(owner, repo, "topic", map[string]string{"a": "1"}, "bob")
	n := srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "topic", Base: "main"})
	srv.SetToken("read-only", fakegithub.Token{ReadOnly: true})
	c, sl := newClient(t, srv, func(o *ghapi.Options) { o.Token = "read-only" })
	ctx := context.Background()

	tests := []struct {
		name string
		call func() error
	}{
		{name: "create check run", call: func() error {
			_, err := c.CreateCheckRun(ctx, ghapi.CheckRun{Name: "pact", HeadSHA: head})
			return err
		}},
		{name: "comment", call: func() error {
			_, err := c.Comment(ctx, n, "hi")
			return err
		}},
		{name: "commit files", call: func() error {
			_, err := c.CommitFiles(ctx, "main", head, map[string][]byte{"a": []byte("b")}, "m")
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, ghapi.ErrForbidden) {
				t.Fatalf("error = %v, want ErrForbidden", err)
			}
			var ae *ghapi.APIError
			if !errors.As(err, &ae) || !strings.Contains(ae.Message, "Resource not accessible by integration") {
				t.Errorf("error %v does not carry GitHub's message", err)
			}
		})
	}
	if len(sl.all()) != 0 {
		t.Errorf("a permission 403 was retried: waits %v", sl.all())
	}
	// Reads still work.
	if _, err := c.ReadFile(ctx, "README.md", "main"); err != nil {
		t.Errorf("read with a read-only token: %v", err)
	}
	if got := srv.CountRequests(http.MethodPost, "/repos/acme/widgets/check-runs"); got != 1 {
		t.Errorf("check run creations = %d, want 1", got)
	}
}

// A create that GitHub applied before failing with a 5xx must not leave a
// second, orphaned run: with an external id the client finds the first.
func TestCreateCheckRunDoesNotDuplicateAnAppliedCreate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		afterApply bool
		wantRuns   int
	}{
		{"applied then failed: the run is found, not created again", true, 1},
		{"failed before applying: created on the next attempt", false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakegithub.New(t)
			sha := seedRepo(t, srv)
			c, _ := newClient(t, srv)
			srv.Inject(fakegithub.Fault{Method: "POST", Path: "/repos/" + owner + "/" + repo + "/check-runs", Status: 502, Times: 1, AfterApply: tt.afterApply})
			id, err := c.CreateCheckRun(context.Background(), ghapi.CheckRun{Name: "pact", HeadSHA: sha, ExternalID: "run-42"})
			if err != nil {
				t.Fatal(err)
			}
			runs := srv.CheckRuns(sha)
			if len(runs) != tt.wantRuns {
				t.Fatalf("check runs = %d, want %d", len(runs), tt.wantRuns)
			}
			if runs[0].ID != id {
				t.Errorf("returned id %d, stored run %d", id, runs[0].ID)
			}
		})
	}
}
