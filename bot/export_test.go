package bot

import (
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/projection"
)

// Facts of one review or comment with every fact gathered — what action
// would have asked GitHub — so that Decide decides in one call. The pull
// request is #1 from branch into main; its head is the reviewed commit, or
// the head when the comment was made.

// ReviewFacts are the facts of the submitted review r (GitHub's record)
// on a pull request from branch whose log at the reviewed commit replays
// to st.
func ReviewFacts(repo, branch string, r Review, cfg *config.Config, st *projection.State) Facts {
	return Facts{
		Webhook: Webhook{Name: "pull_request_review", Action: "submitted", Repo: repo, Sender: r.Author,
			PullRequest: &WebhookPR{Number: 1}, Review: &WebhookReview{ID: r.ID, Login: r.Author}},
		LogPath:     ".pact/log.jsonl",
		PullRequest: &PullRequest{Number: 1, HeadRef: branch, HeadSHA: r.CommitID, BaseRef: "main"},
		Config:      cfg,
		Reviews: map[int64]checks.ReviewFact{r.ID: {Found: true, State: strings.ToUpper(r.State), AuthorLogin: r.Author,
			CommitID: r.CommitID, SubmittedAt: r.SubmittedAt}},
		Review: &r,
		Log:    &LogAt{Commit: r.CommitID, State: st},
	}
}

// CommentFacts are the facts of comment c (GitHub's record) on a pull
// request from branch whose head was sha when the comment was made and
// still is, with a log there that replays to st, by an account with write
// permission or not.
func CommentFacts(repo, branch, sha string, c Comment, canWrite bool, cfg *config.Config, st *projection.State) Facts {
	w := Webhook{Name: "issue_comment", Action: "created", Repo: repo, Sender: c.Author,
		Comment: &WebhookComment{ID: c.ID, Login: c.Author, Body: c.Body, AuthorAssociation: "CONTRIBUTOR"}}
	if c.OnDiff {
		w.Name, w.PullRequest = "pull_request_review_comment", &WebhookPR{Number: 1}
	} else {
		w.Issue = &WebhookIssue{Number: 1, PullRequest: true}
	}
	return Facts{
		Webhook:       w,
		LogPath:       ".pact/log.jsonl",
		PullRequest:   &PullRequest{Number: 1, HeadRef: branch, HeadSHA: sha, BaseRef: "main"},
		Config:        cfg,
		Comment:       &c,
		CanWrite:      &canWrite,
		HeadAtComment: &HeadAt{SHA: sha},
		Log:           &LogAt{Commit: sha, State: st},
	}
}

// Decided is Decide on facts that hold everything it may need.
func Decided(t testing.TB, f Facts) Decision {
	t.Helper()
	d := Decide(f)
	if d.Need != NeedNothing {
		t.Fatalf("Decide needs %s of facts that hold every one", d.Need)
	}
	return d
}
