package action

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/ghapi"
)

// The one place ghapi's answers become the vocabulary bot and checks read
// (checks/facts.go): ghapi imports nothing of ours, so its wire types stay
// there, and nothing else converts them. A pull request, the reviews and a
// comment are read here, the same way for bot mode's facts (bot.go) and
// provenance's (backing.go, coverage.go).

// readPR is pull request number as GitHub has it now; the caller says in
// its error what it read it for.
func readPR(ctx context.Context, gh Reader, number int) (*checks.PRFact, error) {
	pr, err := gh.PullRequest(ctx, number)
	if err != nil {
		return nil, err
	}
	f := prFact(*pr)
	return &f, nil
}

// readOpenPRs are the repository's open pull requests.
func readOpenPRs(ctx context.Context, gh Reader) ([]checks.PRFact, error) {
	list, err := gh.OpenPullRequests(ctx)
	if err != nil {
		return nil, err
	}
	return prFacts(list), nil
}

// readReviews are pull request number's reviews, by id.
func readReviews(ctx context.Context, gh Reader, number int) (map[int64]checks.ReviewFact, error) {
	list, err := gh.Reviews(ctx, number)
	if err != nil {
		return nil, fmt.Errorf("list the reviews of pull request #%d: %w", number, err)
	}
	return reviewFacts(list), nil
}

// readComment is comment id, looked for among the kinds in turn (the two
// kinds have separate ids); Found is false when none has it.
func readComment(ctx context.Context, gh Reader, id int64, kinds ...ghapi.CommentKind) (checks.CommentFact, error) {
	for _, kind := range kinds {
		c, err := gh.GetComment(ctx, kind, id)
		if errors.Is(err, ghapi.ErrNotFound) {
			continue
		}
		if err != nil {
			return checks.CommentFact{}, fmt.Errorf("read comment %d: %w", id, err)
		}
		f := commentFact(*c)
		f.ID = id
		return f, nil
	}
	return checks.CommentFact{}, nil
}

// prFact is pull request pr as bot and checks read it.
func prFact(pr ghapi.PR) checks.PRFact {
	return checks.PRFact{Number: pr.Number, Title: pr.Title, State: pr.State, Draft: pr.Draft,
		HeadSHA: pr.HeadSHA, HeadRef: pr.HeadRef, HeadRepoFullName: pr.HeadRepoFullName,
		BaseRef: pr.BaseRef, BaseSHA: pr.BaseSHA, Fork: pr.Fork, AuthorLogin: pr.AuthorLogin,
		RequestedReviewers: pr.RequestedReviewers, RequestedTeams: pr.RequestedTeams}
}

// mergeableFact is an open pull request of the listing with mergeability
// as bot reads it (its mergeability stays with the listing).
func mergeableFact(pr ghapi.MergeablePR) checks.PRFact {
	return checks.PRFact{Number: pr.Number, State: "open", HeadSHA: pr.HeadSHA, HeadRef: pr.HeadRef, HeadRepoFullName: pr.HeadRepoFullName,
		BaseRef: pr.BaseRef, BaseSHA: pr.BaseSHA, Fork: pr.Fork}
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

// facts is the run's one source of the pull request, its reviews and
// comments: bot mode's decision (bot.go, answering bot.Decide's Need) and
// provenance's gatherer (backing.go, coverage.go) both ask it, so each is
// read from GitHub at most once while it holds. The bot forgets them when
// it writes (forget): a review may be dismissed or a comment edited while
// the bot commits and retries, and the check after the write judges
// GitHub as it is then. A run judges one head after another, so it needs
// no lock. The Reader is the caller's (a judgement's counts its reads);
// a nil *facts reads every time.
type facts struct {
	prs      map[int]checks.PRFact
	reviews  map[int]map[int64]checks.ReviewFact
	comments map[commentKey]checks.CommentFact
}

// commentKey names a comment: the two kinds have separate ids.
type commentKey struct {
	kind ghapi.CommentKind
	id   int64
}

func newFacts() *facts {
	f := &facts{}
	f.forget()
	return f
}

// forget drops what was read: what follows asks GitHub again.
func (f *facts) forget() {
	f.prs = map[int]checks.PRFact{}
	f.reviews = map[int]map[int64]checks.ReviewFact{}
	f.comments = map[commentKey]checks.CommentFact{}
}

// PR is pull request number (readPR).
func (f *facts) PR(ctx context.Context, gh Reader, number int) (*checks.PRFact, error) {
	if f == nil {
		return readPR(ctx, gh, number)
	}
	if pr, ok := f.prs[number]; ok {
		return &pr, nil
	}
	pr, err := readPR(ctx, gh, number)
	if err != nil {
		return nil, err
	}
	f.prs[number] = *pr
	return pr, nil
}

// Reviews are pull request number's reviews (readReviews); the map is the
// caller's own.
func (f *facts) Reviews(ctx context.Context, gh Reader, number int) (map[int64]checks.ReviewFact, error) {
	if f == nil {
		return readReviews(ctx, gh, number)
	}
	if r, ok := f.reviews[number]; ok {
		return maps.Clone(r), nil
	}
	r, err := readReviews(ctx, gh, number)
	if err != nil {
		return nil, err
	}
	f.reviews[number] = r
	return maps.Clone(r), nil
}

// Comment is comment id, looked for among the kinds in turn (readComment);
// each kind's answer, found or not, is kept.
func (f *facts) Comment(ctx context.Context, gh Reader, id int64, kinds ...ghapi.CommentKind) (checks.CommentFact, error) {
	if f == nil {
		return readComment(ctx, gh, id, kinds...)
	}
	for _, kind := range kinds {
		k := commentKey{kind: kind, id: id}
		c, ok := f.comments[k]
		if !ok {
			var err error
			if c, err = readComment(ctx, gh, id, kind); err != nil {
				return checks.CommentFact{}, err
			}
			f.comments[k] = c
		}
		if c.Found {
			return c, nil
		}
	}
	return checks.CommentFact{}, nil
}
