package ghapi_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

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

func TestGetComment(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	srv.CommitFiles(owner, repo, "topic", map[string]string{"a": "1"}, "bob")
	n := srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "topic", Base: "main"})
	ic := srv.AddComment(n, "carol", "/pact accept T1")
	rc := srv.AddReviewComment(n, "dave", "/pact changes T2 rename it")
	c, _ := newClient(t, srv)
	ctx := context.Background()

	got, err := c.GetComment(ctx, ghapi.IssueComment, ic)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != ic || got.OnDiff || got.Body != "/pact accept T1" || got.AuthorLogin != "carol" || got.Number != n || got.CreatedAt.IsZero() {
		t.Errorf("issue comment = %+v", got)
	}
	got, err = c.GetComment(ctx, ghapi.ReviewComment, rc)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != rc || !got.OnDiff || got.AuthorLogin != "dave" || got.Number != n {
		t.Errorf("review comment = %+v", got)
	}
	for _, tc := range []struct {
		kind ghapi.CommentKind
		id   int64
	}{{ghapi.IssueComment, rc}, {ghapi.ReviewComment, ic}, {ghapi.IssueComment, 99999999}} {
		if _, err := c.GetComment(ctx, tc.kind, tc.id); !errors.Is(err, ghapi.ErrNotFound) {
			t.Errorf("GetComment(%s, %d) error = %v, want ErrNotFound", tc.kind, tc.id, err)
		}
	}
	if _, err := c.GetComment(ctx, ghapi.CommentKind(9), ic); err == nil {
		t.Error("GetComment of an unknown kind did not fail")
	}
}

// TestCommentCutToGitHubsLimit: a reply longer than GitHub takes (a pull
// request whose pact lists thousands of tasks) is cut and still posted.
func TestCommentCutToGitHubsLimit(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	srv.CommitFiles(owner, repo, "topic", map[string]string{"a": "1"}, "bob")
	n := srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "topic", Base: "main"})
	c, _ := newClient(t, srv)
	for _, size := range []int{65536, 65537, 1 << 20} {
		body := strings.Repeat("é", size/2) + strings.Repeat("x", size%2)
		if _, err := c.Comment(context.Background(), n, body); err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		got := srv.Comments(n)
		last := got[len(got)-1].Body
		if len(last) > 65536 || size <= 65536 && last != body || size > 65536 && !strings.HasSuffix(last, "…(truncated)") {
			t.Errorf("%d bytes posted as %d bytes ending %q", size, len(last), last[max(0, len(last)-20):])
		}
	}
}
