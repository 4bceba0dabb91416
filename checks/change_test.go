package checks

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/config"
)

// TestSameChangeDecisionTable: stale: change (docs/semantics.md §8) beside
// tree, push and sticky (TestCoversDecisionTable). Each row is a history
// a team or a worker makes: the accepted commit X and the head H, each
// with its merge base with the default branch's tip as the judgement
// measures it, as flattened trees. The attacks on who controls the merge
// base (a retargeted pull request, a decoy base, a merge of another branch
// than the base, a default branch that went backwards) are rows too.
func TestSameChangeDecisionTable(t *testing.T) {
	t.Parallel()
	file := func(content string) string { return Entry(0o100644, "blob", content) }
	tree := func(base map[string]string, kv ...string) map[string]string {
		out := maps.Clone(base)
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(out, kv[i])
				continue
			}
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	fork := map[string]string{"a.go": file("a1"), "b.go": file("b1"), "lib/util.go": file("u1"), ".pact/log.jsonl": file("l1")}
	pr := []string{"a.go", file("a2"), "new.go", file("n1")}
	accepted := tree(fork, append(pr, ".pact/log.jsonl", file("l2"))...)
	// main moved on, touching none of the pull request's paths.
	mainTip := tree(fork, "b.go", file("b2"), "c.go", file("c1"), ".pact/log.jsonl", file("l3"))
	updated := tree(mainTip, append(pr, ".pact/log.jsonl", file("l4"))...)
	// main moved on in a.go too.
	mainInPR := tree(fork, "a.go", file("a3"))
	decoy := tree(fork, "evil.go", file("e1"))
	for _, tc := range []struct {
		name    string
		x, mx   map[string]string
		h, mh   map[string]string
		covers  bool
		differs []string
	}{
		{name: "the accepted commit itself", x: accepted, mx: fork, h: accepted, mh: fork, covers: true},
		{name: "a pact-only commit after the accept", x: accepted, mx: fork, h: tree(accepted, ".pact/log.jsonl", file("l9")), mh: fork, covers: true},
		{name: "the default branch merged in, touching none of its paths", x: accepted, mx: fork, h: updated, mh: mainTip, covers: true},
		{name: "rebased onto the default branch, touching none of its paths", x: accepted, mx: fork, h: tree(mainTip, pr...), mh: mainTip, covers: true},
		{name: "the default branch changed a path it changes; the resolution keeps its side", x: accepted, mx: fork,
			h: tree(mainInPR, pr...), mh: mainInPR, differs: []string{"a.go"}},
		{name: "a resolution that differs from both sides", x: accepted, mx: fork,
			h: tree(mainInPR, "a.go", file("a4"), "new.go", file("n1")), mh: mainInPR, differs: []string{"a.go"}},
		{name: "an evil merge: the merge commit edits another file", x: accepted, mx: fork,
			h: tree(updated, "lib/util.go", file("u2")), mh: mainTip, differs: []string{"lib/util.go"}},
		{name: "the merge reverts what the default branch did", x: accepted, mx: fork,
			h: tree(updated, "b.go", file("b1")), mh: mainTip, differs: []string{"b.go"}},
		{name: "a new path after the accept", x: accepted, mx: fork, h: tree(accepted, "x.go", file("x1")), mh: fork, differs: []string{"x.go"}},
		{name: "an edit of its path after the accept", x: accepted, mx: fork, h: tree(accepted, "a.go", file("a5")), mh: fork, differs: []string{"a.go"}},
		{name: "a file it added deleted after the accept", x: accepted, mx: fork, h: tree(accepted, "new.go", ""), mh: fork, differs: []string{"new.go"}},
		{name: "a file it did not touch deleted after the accept", x: accepted, mx: fork, h: tree(accepted, "b.go", ""), mh: fork, differs: []string{"b.go"}},
		{name: "chmod +x of its file", x: accepted, mx: fork, h: tree(accepted, "a.go", Entry(0o100755, "blob", "a2")), mh: fork, differs: []string{"a.go"}},
		{name: "its file swapped for a link to the same bytes", x: accepted, mx: fork, h: tree(accepted, "a.go", Entry(0o120000, "blob", "a2")), mh: fork, differs: []string{"a.go"}},
		{name: "a submodule moved", x: tree(accepted, "vendor/lib", Entry(0o160000, "commit", "s1")), mx: fork,
			h: tree(accepted, "vendor/lib", Entry(0o160000, "commit", "s2")), mh: fork, differs: []string{"vendor/lib"}},
		{name: "a file where the pact directory was is code", x: accepted, mx: fork, h: tree(accepted, ".pact", file("p")), mh: fork, differs: []string{".pact"}},
		{name: "a merge of another branch than the base brings its code", x: accepted, mx: fork,
			h: tree(accepted, "other.go", file("o1")), mh: fork, differs: []string{"other.go"}},
		// A decoy base: H builds on a branch the worker made (fork +
		// evil.go) and is retargeted there. Measured against the default
		// branch, as the judgement does, the decoy's code is the pull
		// request's change ...
		{name: "a decoy base, measured against the default branch", x: accepted, mx: fork,
			h: tree(decoy, pr...), mh: fork, differs: []string{"evil.go"}},
		// ... where measuring against the pull request's own base would
		// hide it: the reason the merge base is never the pull request's.
		{name: "a decoy base, as its own merge base would wrongly show it", x: accepted, mx: fork,
			h: tree(decoy, pr...), mh: decoy, covers: true},
		// The default branch went backwards (forced back to the fork
		// point after the pull request was updated onto mainTip): both
		// merge bases are measured at the judgement, so they move alike.
		{name: "the default branch went backwards", x: updated, mx: fork, h: tree(updated, ".pact/log.jsonl", file("l9")), mh: fork, covers: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			same, differ := SameChange(changeOf(tc.mx, tc.x, ".pact"), changeOf(tc.mh, tc.h, ".pact"))
			if same != tc.covers || !slices.Equal(differ, tc.differs) {
				t.Errorf("SameChange = %v, parting at %q; want %v, %q", same, differ, tc.covers, tc.differs)
			}
			// What coverage makes of it.
			sf := StaleFacts{Anchor: covAnchor}
			if !same {
				sf.Changed = differ
			}
			if got := Covers(config.StaleChange, sf, map[string]bool{covAnchor: same}); got != tc.covers {
				t.Errorf("Covers(change) = %v, want %v", got, tc.covers)
			}
			msg, reason := uncovered(config.StaleChange, sf, map[string]bool{covAnchor: same}, ".pact/")
			if tc.covers != (msg == "" && reason == "") {
				t.Errorf("uncovered says %q / %q for covers = %v", msg, reason, tc.covers)
			}
			for _, p := range tc.differs {
				if !tc.covers && !strings.Contains(msg, p) {
					t.Errorf("the message %q does not name %s", msg, p)
				}
			}
		})
	}
}

// changeOf is the change of commit against base, from both trees flattened
// (every path that is not a directory, to its Entry): the definition
// itself, which the decision table states its cases in. Only a directory
// at pactDir is the pact's: a file standing there is code.
func changeOf(base, commit map[string]string, pactDir string) Change {
	inPact := func(p string) bool { return strings.HasPrefix(p, pactDir+"/") }
	out := Change{}
	for p, e := range commit {
		if be := base[p]; !inPact(p) && be != e {
			out[p] = PathChange{Before: be, After: e}
		}
	}
	for p, be := range base {
		if _, ok := commit[p]; !ok && !inPact(p) {
			out[p] = PathChange{Before: be}
		}
	}
	return out
}
