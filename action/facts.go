package action

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/ghfacts"
)

// The run's one source of GitHub's facts (ghfacts: ghapi returns them as
// they are, and bot and checks read them so): a pull request, the reviews
// and a comment, read the same way for bot mode's facts (bot.go) and
// provenance's (backing.go, coverage.go).

// readReviews are pull request number's reviews, by id.
func readReviews(ctx context.Context, gh reader, number int) (map[int64]ghfacts.Review, error) {
	list, err := gh.Reviews(ctx, number)
	if err != nil {
		return nil, fmt.Errorf("list the reviews of pull request #%d: %w", number, err)
	}
	out := make(map[int64]ghfacts.Review, len(list))
	for _, r := range list {
		out[r.ID] = r
	}
	return out, nil
}

// readComment is comment id, looked for among the kinds in turn (the two
// kinds have separate ids); Found is false when none has it.
func readComment(ctx context.Context, gh reader, id int64, kinds ...ghapi.CommentKind) (ghfacts.Comment, error) {
	for _, kind := range kinds {
		c, err := gh.GetComment(ctx, kind, id)
		if errors.Is(err, ghapi.ErrNotFound) {
			continue
		}
		if err != nil {
			return ghfacts.Comment{}, fmt.Errorf("read comment %d: %w", id, err)
		}
		f := *c
		f.ID = id
		return f, nil
	}
	return ghfacts.Comment{}, nil
}

// facts is the run's one source of the pull request, its reviews and
// comments: bot mode's decision (bot.go, answering bot.Decide's Need) and
// provenance's gatherer (backing.go, coverage.go) both ask it, so each is
// read from GitHub at most once while it holds. The bot forgets them when
// it writes (forget): a review may be dismissed or a comment edited while
// the bot commits and retries, and the check after the write judges
// GitHub as it is then. A run judges one head after another, so it needs
// no lock. The reader is the caller's (a judgement's counts its reads);
// a nil *facts reads every time.
type facts struct {
	prs      map[int]ghfacts.PullRequest
	reviews  map[int]map[int64]ghfacts.Review
	comments map[commentKey]ghfacts.Comment
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
	f.prs = map[int]ghfacts.PullRequest{}
	f.reviews = map[int]map[int64]ghfacts.Review{}
	f.comments = map[commentKey]ghfacts.Comment{}
}

// PR is pull request number as GitHub has it now; the caller says in its
// error what it read it for.
func (f *facts) PR(ctx context.Context, gh reader, number int) (*ghfacts.PullRequest, error) {
	if f == nil {
		return gh.PullRequest(ctx, number)
	}
	if pr, ok := f.prs[number]; ok {
		return &pr, nil
	}
	pr, err := gh.PullRequest(ctx, number)
	if err != nil {
		return nil, err
	}
	f.prs[number] = *pr
	return pr, nil
}

// Reviews are pull request number's reviews (readReviews); the map is the
// caller's own.
func (f *facts) Reviews(ctx context.Context, gh reader, number int) (map[int64]ghfacts.Review, error) {
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
func (f *facts) Comment(ctx context.Context, gh reader, id int64, kinds ...ghapi.CommentKind) (ghfacts.Comment, error) {
	if f == nil {
		return readComment(ctx, gh, id, kinds...)
	}
	for _, kind := range kinds {
		k := commentKey{kind: kind, id: id}
		c, ok := f.comments[k]
		if !ok {
			var err error
			if c, err = readComment(ctx, gh, id, kind); err != nil {
				return ghfacts.Comment{}, err
			}
			f.comments[k] = c
		}
		if c.Found {
			return c, nil
		}
	}
	return ghfacts.Comment{}, nil
}
