package action

import (
	"fmt"
	"strings"
	"testing"
)

// TestCapAnchors: coverage is judged on at most maxAnchors distinct
// commits, in the order the accepts come; an accept given on a commit
// beyond them covers nothing, and says why. Commits asked already, and
// anchors that are no commit id (never sent to GitHub), cost nothing.
func TestCapAnchors(t *testing.T) {
	t.Parallel()
	sha := func(i int) string { return fmt.Sprintf("%040x", i) }
	var accepts []coverAccept
	for i := range maxAnchors {
		accepts = append(accepts, coverAccept{line: i, anchor: sha(i)})
	}
	accepts = append(accepts,
		coverAccept{line: 1000, anchor: sha(0)},         // asked already
		coverAccept{line: 1001, anchor: "not-a-commit"}, // never sent
		coverAccept{line: 1002, anchor: ""},             // none to ask
		coverAccept{line: 1003, anchor: sha(maxAnchors)},
		coverAccept{line: 1004, anchor: sha(maxAnchors + 1)},
	)
	capAnchors(accepts)
	for _, a := range accepts {
		over := a.line >= 1003
		if over != (a.anchor == "") && a.line != 1002 || over != strings.Contains(a.why, fmt.Sprintf("more than %d commits", maxAnchors)) {
			t.Errorf("line %d: anchor %q, why %q", a.line, a.anchor, a.why)
		}
	}
}
