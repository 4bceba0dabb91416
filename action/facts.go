package action

import (
	"strings"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/ghapi"
)

// The one place ghapi's answers become the vocabulary bot and checks read
// (checks/facts.go): ghapi imports nothing of ours, so its wire types stay
// there, and nothing else converts them.

// prFact is pull request pr as bot and checks read it.
func prFact(pr ghapi.PR) checks.PRFact {
	return checks.PRFact{Number: pr.Number, Title: pr.Title, State: pr.State, Draft: pr.Draft,
		HeadSHA: pr.HeadSHA, HeadRef: pr.HeadRef, HeadRepoFullName: pr.HeadRepoFullName,
		BaseRef: pr.BaseRef, BaseSHA: pr.BaseSHA, Fork: pr.Fork, AuthorLogin: pr.AuthorLogin,
		RequestedReviewers: pr.RequestedReviewers, RequestedTeams: pr.RequestedTeams}
}

// prFacts are pull requests prs as bot and checks read them.
func prFacts(prs []ghapi.PR) []checks.PRFact {
	out := make([]checks.PRFact, len(prs))
	for i, pr := range prs {
		out[i] = prFact(pr)
	}
	return out
}

// commitFact is commit c as checks reads it.
func commitFact(c ghapi.Commit) checks.ProvenanceCommit {
	return checks.ProvenanceCommit{SHA: c.SHA, Parents: c.Parents, Date: c.CommitterDate,
		AuthorLogin: c.AuthorLogin, CommitterLogin: c.CommitterLogin, Verified: c.Verified}
}

// reviewFact is review r as bot and checks read it, its state in the one
// case of checks' Review constants.
func reviewFact(r ghapi.Review) checks.ReviewFact {
	return checks.ReviewFact{ID: r.ID, Found: true, State: strings.ToUpper(r.State), AuthorLogin: r.AuthorLogin,
		Body: r.Body, URL: r.HTMLURL, CommitID: r.CommitID, SubmittedAt: r.SubmittedAt.UTC()}
}

// reviewFacts are a pull request's reviews by id.
func reviewFacts(list []ghapi.Review) map[int64]checks.ReviewFact {
	out := make(map[int64]checks.ReviewFact, len(list))
	for _, r := range list {
		out[r.ID] = reviewFact(r)
	}
	return out
}

// commentFact is comment c as bot and checks read it (what GitHub says of
// it; the commands and the head when it was made are gathered after).
func commentFact(c ghapi.PRComment) checks.CommentFact {
	return checks.CommentFact{ID: c.ID, OnDiff: c.Kind == ghapi.ReviewComment, Found: true, AuthorLogin: c.AuthorLogin,
		Body: c.Body, URL: c.HTMLURL, Number: c.Number, CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC()}
}
