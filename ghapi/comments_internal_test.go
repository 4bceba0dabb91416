package ghapi

import (
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/pact-action/pact-action/ghfacts"
)

// A comment is read as the vocabulary of facts has it: found, its kind as
// OnDiff, its times in UTC.
func TestCommentFact(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 6, 9, 12, 0, 0, 0, time.FixedZone("x", 3600))
	c := reviewCommentFrom(&github.PullRequestComment{ID: github.Int64(9), User: &github.User{Login: github.String("rev")}, Body: github.String("/pact accept T1"),
		HTMLURL: github.String("u"), PullRequestURL: github.String("https://api.github.example/repos/o/r/pulls/3"),
		CreatedAt: &github.Timestamp{Time: at}, UpdatedAt: &github.Timestamp{Time: at}})
	want := ghfacts.Comment{ID: 9, OnDiff: true, Found: true, AuthorLogin: "rev", Body: "/pact accept T1", URL: "u", Number: 3, CreatedAt: at.UTC(), UpdatedAt: at.UTC()}
	if c != want {
		t.Errorf("reviewCommentFrom = %+v, want %+v", c, want)
	}
	if c.Edited() {
		t.Error("a comment never changed is edited")
	}
	c = issueCommentFrom(&github.IssueComment{ID: github.Int64(9), CreatedAt: &github.Timestamp{Time: at}, UpdatedAt: &github.Timestamp{Time: at.Add(time.Second)}})
	if c.OnDiff || !c.Found || !c.Edited() || c.CreatedAt.Location() != time.UTC {
		t.Errorf("an issue comment changed a second later: %+v, OnDiff %v, Edited %v", c, c.OnDiff, c.Edited())
	}
}
