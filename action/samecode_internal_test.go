package action

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
)

// faultyCodeReader is what "same change?" asks GitHub, answering a world
// where the accept's commit a and the head b make the same change from
// one merge base m with the default branch's tip, with one fault
// injected: an answer refused, a commit GitHub does not list, a pair a
// diff leaves out, a merge base that is not the only one.
type faultyCodeReader struct {
	fault string
	calls []string
}

const (
	sameA   = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	sameB   = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	sameM   = "cccccccccccccccccccccccccccccccccccccccc"
	sameTip = "dddddddddddddddddddddddddddddddddddddddd"
	sameX   = "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
)

var errGitHub = errors.New("GET /repos/o/r/compare/x: gave up after 5 attempts: last status 502 Bad Gateway")

func (r *faultyCodeReader) CodeIDs(_ context.Context, _ string, commits ...string) (map[string]string, error) {
	r.calls = append(r.calls, "CodeIDs")
	if r.fault == "CodeIDs refused" {
		return nil, errGitHub
	}
	out := map[string]string{}
	for _, c := range commits {
		if r.fault == "CodeIDs leaves the head out" && c == sameB {
			continue
		}
		out[c] = "code of " + c[:1] // a and b hold different code
	}
	return out, nil
}

func (r *faultyCodeReader) MergeBase(_ context.Context, base, head string) (string, error) {
	r.calls = append(r.calls, "MergeBase "+head[:1])
	switch {
	case base != sameTip:
		return "", fmt.Errorf("merge base asked of %s, not the default branch's tip", base)
	case r.fault == "MergeBase of the accept's commit refused" && head == sameA, r.fault == "MergeBase of the head refused" && head == sameB:
		return "", errGitHub
	case r.fault == "MergeBase of the head not found" && head == sameB:
		return "", fmt.Errorf("compare: %w", ghapi.ErrNotFound)
	case r.fault == "the head meets the default branch twice (criss-cross)" && head == sameX:
		return sameX, nil // the first commit after m is on the default branch too
	}
	return sameM, nil
}

// CompareCommits answers oneMergeBase: from the merge base m, the commit
// itself, one ahead, whose parent m has.
func (r *faultyCodeReader) CompareCommits(_ context.Context, base, head string) (ghapi.Divergence, error) {
	r.calls = append(r.calls, "CompareCommits "+head[:1])
	switch {
	case base != sameM:
		return ghapi.Divergence{}, fmt.Errorf("compared from %s, not the merge base", base)
	case r.fault == "the comparison from the merge base refused":
		return ghapi.Divergence{}, errGitHub
	case r.fault == "the comparison from the merge base not found":
		return ghapi.Divergence{}, fmt.Errorf("compare: %w", ghapi.ErrNotFound)
	case r.fault == "the head meets the default branch twice (criss-cross)" && head == sameB:
		return ghapi.Divergence{AheadBy: 2, Commits: []string{sameX, head}, Parents: map[string][]string{sameX: {sameM}, head: {sameX}}}, nil
	case r.fault == "the head's history past GitHub's listing" && head == sameB:
		return ghapi.Divergence{AheadBy: 300, Commits: []string{head}, Parents: map[string][]string{head: {sameM}}}, nil
	}
	return ghapi.Divergence{AheadBy: 1, Commits: []string{head}, Parents: map[string][]string{head: {sameM}}}, nil
}

func (r *faultyCodeReader) Diff(_ context.Context, _ string, pairs ...ghapi.DiffPair) (map[ghapi.DiffPair][]ghapi.PathChange, error) {
	r.calls = append(r.calls, "Diff")
	switch r.fault {
	case "Diff refused mid-way (a GraphQL error at a level)":
		return nil, fmt.Errorf("read 3 tree(s): %w", errGitHub)
	case "Diff too large":
		return nil, fmt.Errorf("diff: %w", ghapi.ErrDiffTooLarge)
	}
	same := []ghapi.PathChange{{Path: "src/login.go", After: ghapi.GitEntry{Type: "blob", Mode: 0o100644, OID: strings.Repeat("e", 40)}}}
	out := map[ghapi.DiffPair][]ghapi.PathChange{}
	for _, p := range pairs {
		if r.fault == "Diff leaves the head's pair out (a commit GitHub does not know)" && p.To == sameB {
			continue
		}
		out[p] = same
	}
	return out, nil
}

// TestSameChangeFailsClosed: "same change?" under stale: change, with each
// of the questions it asks GitHub failing in each way. Without a fault the
// two commits make the same change; with any, the answer is never "the
// same": a refusal is an error (the judgement fails saying it), and a
// commit or pair GitHub does not answer for makes no change in common (the
// accept does not cover, and its finding says the change cannot be
// compared).
func TestSameChangeFailsClosed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fault string
		// err: the question fails; else same is the answer.
		err, same bool
	}{
		{fault: "", same: true},
		{fault: "MergeBase of the accept's commit refused", err: true},
		{fault: "MergeBase of the head refused", err: true},
		{fault: "MergeBase of the head not found"},
		{fault: "the comparison from the merge base refused", err: true},
		{fault: "the comparison from the merge base not found"},
		{fault: "the head's history past GitHub's listing"},
		{fault: "the head meets the default branch twice (criss-cross)"},
		{fault: "CodeIDs refused", err: true},
		{fault: "CodeIDs leaves the head out"},
		{fault: "Diff refused mid-way (a GraphQL error at a level)", err: true},
		{fault: "Diff too large"},
		{fault: "Diff leaves the head's pair out (a commit GitHub does not know)"},
	} {
		t.Run(fmt.Sprintf("%q", tc.fault), func(t *testing.T) {
			t.Parallel()
			r := &faultyCodeReader{fault: tc.fault}
			c := newSameness(r, settings{PactDir: ".pact"}, config.StaleChange, sameTip)

			same, err := c.same(context.Background(), sameA, sameB)

			switch {
			case tc.err && err == nil:
				t.Errorf("same = %v, want an error; asked %v", same, r.calls)
			case tc.err && !errors.Is(err, errGitHub):
				t.Errorf("error %v does not say what GitHub answered", err)
			case !tc.err && err != nil:
				t.Errorf("error %v, want the answer %v", err, tc.same)
			case same != tc.same:
				t.Errorf("same = %v, want %v; asked %v", same, tc.same, r.calls)
			}
			// The same question again: an error is not cached as an
			// answer, and an answer stays what it was.
			again, err2 := c.same(context.Background(), sameA, sameB)
			if again && !tc.same || (err2 != nil) != tc.err {
				t.Errorf("asked again: %v, %v", again, err2)
			}
		})
	}
}
