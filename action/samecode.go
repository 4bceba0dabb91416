package action

import (
	"context"
	"fmt"

	"github.com/pact-action/pact-action/internal/prose"
)

// Same code (docs/semantics.md §5 "Same code"): two commits hold the same
// code when their trees outside the pact directory are identical, by git
// object ids (files, modes, links and submodules). codeIdentity.same is
// the one place that decides it, and every question of sameness asks it:
// a comment's backing, an accept's coverage under stale: tree, the fresh
// review that renews one, the bot's refusal to write on a branch that
// moved, and whether a pull request changes code (unmapped-branches:
// block). A comparison of two commits may name the files that changed for
// a message; it never decides: a three-dot comparison is empty whenever
// the second commit is an ancestor of the first, whatever the code.

// codeIDReader is the GitHub question code identity asks.
type codeIDReader interface {
	CodeIDs(ctx context.Context, dir string, commits ...string) (map[string]string, error)
}

// codeIdentity answers "same code?" for one judgement (or one bot run),
// caching GitHub's answers per commit.
type codeIdentity struct {
	gh  codeIDReader
	dir string
	// ids are the code identities of the commits GitHub knows among those
	// asked.
	ids   map[string]string
	asked map[string]bool
}

func newCodeIdentity(gh codeIDReader, s Settings) *codeIdentity {
	return &codeIdentity{gh: gh, dir: s.pactDir(), ids: map[string]string{}, asked: map[string]bool{}}
}

// ask reads the code identities of the commits not asked before, in one
// request; a string that is not a commit id is never sent (it names no
// commit GitHub knows).
func (c *codeIdentity) ask(ctx context.Context, commits ...string) error {
	var want []string
	for _, sha := range commits {
		if !c.asked[sha] && commitSHA.MatchString(sha) {
			c.asked[sha] = true
			want = append(want, sha)
		}
	}
	if len(want) == 0 {
		return nil
	}
	ids, err := c.gh.CodeIDs(ctx, c.dir, want...)
	if err != nil {
		for _, sha := range want {
			delete(c.asked, sha)
		}
		return fmt.Errorf("compare the code of %s: %w", prose.List(shortAll(want), 3), err)
	}
	for _, sha := range want {
		if id, ok := ids[sha]; ok {
			c.ids[sha] = id
		}
	}
	return nil
}

// known reports whether GitHub knows commit sha (asked before).
func (c *codeIdentity) known(sha string) bool {
	_, ok := c.ids[sha]
	return ok
}

// same reports whether commits a and b hold the same code: the same
// commit id (no request), or two commits GitHub knows whose trees agree on
// every entry outside the pact directory. A commit GitHub does not know
// holds the code of no other commit.
func (c *codeIdentity) same(ctx context.Context, a, b string) (bool, error) {
	if a == b && commitSHA.MatchString(a) {
		return true, nil
	}
	if err := c.ask(ctx, a, b); err != nil {
		return false, err
	}
	return c.known(a) && c.known(b) && c.ids[a] == c.ids[b], nil
}
