package ghapi_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

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
		want    ghfacts.PullRequest
		wantErr error
	}{
		{name: "same repository", number: nSame, want: ghfacts.PullRequest{
			Number: nSame, Title: "Topic", State: "open", HeadSHA: same, HeadRef: "topic", HeadRepoFullName: "acme/widgets",
			BaseRef: "main", BaseSHA: base, Fork: false, AuthorLogin: "bob"}},
		{name: "fork", number: nFork, want: ghfacts.PullRequest{
			Number: nFork, Title: "Merge evil into main", State: "open", HeadSHA: forkHead, HeadRef: "evil", HeadRepoFullName: "mallory/widgets",
			BaseRef: "main", BaseSHA: base, Fork: true, AuthorLogin: "mallory"}},
		{name: "draft from fork", number: nDraft, want: ghfacts.PullRequest{
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
	want := []ghfacts.Commit{
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
	if got := list[0]; got.State != "APPROVED" || got.AuthorLogin != "carol" || got.CommitID != head || got.URL == "" || got.SubmittedAt.IsZero() {
		t.Errorf("the approval = %+v", got)
	}
	if got := list[1]; got.State != "CHANGES_REQUESTED" || got.AuthorLogin != "dave" || got.CommitID != "0000000000000000000000000000000000000000" {
		t.Errorf("the changes requested = %+v", got)
	}
}
