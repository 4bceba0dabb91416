package ghapi_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

func TestCommitLookup(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	base := seedRepo(t, srv)
	c1 := srv.CommitFiles(owner, repo, "topic", map[string]string{"a": "1"}, "bob", fakegithub.Verified(), fakegithub.WithCommitter("web-flow"), fakegithub.WithMessage("first"))
	c, _ := newClient(t, srv)

	got, err := c.Commit(context.Background(), c1)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := srv.Commit(c1)
	want := &ghapi.Commit{SHA: c1, Parents: []string{base}, AuthorLogin: "bob", CommitterLogin: "web-flow", Verified: true, Message: "first", CommitterDate: info.Date}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Commit =\n%+v\nwant\n%+v", got, want)
	}
	_, err = c.Commit(context.Background(), "0000000000000000000000000000000000000000")
	var ae *ghapi.APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusUnprocessableEntity || !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("Commit(unknown) error = %v, want a 422 APIError that is ErrNotFound", err)
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
	if got.ID != ic || got.Kind != ghapi.IssueComment || got.Body != "/pact accept T1" || got.AuthorLogin != "carol" || got.Number != n || got.CreatedAt.IsZero() {
		t.Errorf("issue comment = %+v", got)
	}
	got, err = c.GetComment(ctx, ghapi.ReviewComment, rc)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != rc || got.Kind != ghapi.ReviewComment || got.AuthorLogin != "dave" || got.Number != n {
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
