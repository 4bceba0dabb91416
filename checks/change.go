package checks

import (
	"fmt"
	"slices"
	"strings"
)

// The same change (docs/semantics.md §8): under stale: change, an accept
// given on commit X covers the head H when X and H change the same paths
// outside the pact directory the same way, each against its merge base
// with the default branch's tip, both measured when the pull request is
// judged. A merge of the default branch that touches none of the pull
// request's paths keeps every accept; one that touches a path the pull
// request changes, a resolution, an "evil merge", a new path or any edit
// of a path the pull request changes does not. SameChange is the one test
// of it: coverage, a fresh review, a comment's backing and the bot's
// "branch moved" refusal all ask it (through action's codeIdentity, which
// gathers the changes from GitHub).
//
// A path's change is its entry at the commit and, too, its entry at the
// merge base. docs/semantics.md §8 names the commit's entry; the merge
// base's is kept as well so that the default branch changing a path the
// pull request changes makes the accept stale even when a resolution
// keeps the pull request's side byte for byte: the reviewer approved
// turning the old entry into the new, and the pull request now turns
// another into it (it would revert what the default branch did there).
// The README's decisions say so.

// Change is what one commit changes against its merge base with the
// default branch's tip: every path outside the pact directory whose entry
// differs, with its entry at each.
type Change map[string]PathChange

// PathChange is one path's entries at the merge base and at the commit,
// each written by Entry ("" where the path has none).
type PathChange struct{ Before, After string }

// Entry writes a tree entry for a Change: octal mode, type and object id
// (files, links and submodules alike).
func Entry(mode int, typ, oid string) string { return fmt.Sprintf("%o %s %s", mode, typ, oid) }

// EntryIsFile reports whether an Entry is a regular file's (mode 100644 or
// 100755): not a link, a submodule or nothing.
func EntryIsFile(e string) bool {
	return strings.HasPrefix(e, "100644 blob ") || strings.HasPrefix(e, "100755 blob ")
}

// MaxChangeDifference bounds the paths SameChange names.
const MaxChangeDifference = 300

// SameChange reports whether a and b are the same change, and where they
// part when they are not: the paths one changes and the other does not, or
// changes another way, sorted, at most MaxChangeDifference.
func SameChange(a, b Change) (same bool, differ []string) {
	for p, c := range a {
		if bc, ok := b[p]; !ok || bc != c {
			differ = append(differ, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			differ = append(differ, p)
		}
	}
	slices.Sort(differ)
	if len(differ) > MaxChangeDifference {
		differ = differ[:MaxChangeDifference]
	}
	return len(differ) == 0, differ
}
