package action_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/action"
	"github.com/pact-action/pact-action/ghevent"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

// TestTargets: the commits each kind of event judges, read from GitHub as it
// is now.
func TestTargets(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	sc := seedPR(t, s, e2e.NewLog().Files(), e2e.NewLog().Join("dev").Files(), "feat/login")
	// A second pull request of the same head (into another base), and one
	// of another head.
	s.CommitFiles(e2e.Owner, e2e.Repo, "release", map[string]string{"x": "1"}, "lead", fakegithub.From("main"))
	s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/login", Base: "release"})
	other := s.CommitFiles(e2e.Owner, e2e.Repo, "feat/other", map[string]string{"y": "1"}, "dev", fakegithub.From("main"))
	s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/other", Base: "main"})
	gh := client(t, s, &recorder{})
	const lone = "1111111111111111111111111111111111111111"

	for _, tc := range []struct {
		name, event, payload, sha string
		heads                     []string
		known                     bool // the pull request read from the API
		err                       string
	}{
		{name: "a pull request, read from the API", event: "pull_request",
			payload: `{"pull_request":{"number":` + itoa(sc.number) + `,"head":{"sha":"stale"}}}`, sha: lone, heads: []string{sc.headSHA}, known: true},
		{name: "a comment on a pull request", event: "issue_comment",
			payload: `{"issue":{"number":` + itoa(sc.number) + `,"pull_request":{"url":"u"}}}`, heads: []string{sc.headSHA}, known: true},
		{name: "a comment on an issue names nothing", event: "issue_comment",
			payload: `{"issue":{"number":` + itoa(sc.number) + `,"pull_request":null}}`, err: "the issue_comment event names no pull request or commit to check"},
		{name: "a push judges the runner's commit", event: "push", payload: `{}`, sha: lone, heads: []string{lone}},
		{name: "a manual run judges every open head once", event: "workflow_dispatch", payload: `{}`, sha: lone, heads: []string{sc.headSHA, other}},
		{name: "a scheduled run too", event: "schedule", payload: `{}`, heads: []string{sc.headSHA, other}},
		{name: "a merge group that names no pull request", event: "merge_group",
			payload: `{"merge_group":{"head_sha":"abc","head_ref":"refs/heads/main","base_ref":"refs/heads/main"}}`, err: "cannot tell which pull requests merge group abc holds"},
		{name: "an event without a commit", event: "release", payload: `{}`, err: "the release event names no pull request or commit to check"},
	} {
		ev, err := ghevent.Parse([]byte(tc.payload))
		if err != nil {
			t.Fatal(err)
		}
		targets, err := action.Targets(t.Context(), gh, ev, tc.event, tc.sha, "/ws")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			var noTarget *action.NoTargetError
			if strings.Contains(tc.err, "names no") != errors.As(err, &noTarget) {
				t.Errorf("%s: %T, want a NoTargetError exactly when the event names nothing", tc.name, err)
			}
			continue
		}
		var heads []string
		for _, tg := range targets {
			heads = append(heads, tg.HeadSHA)
			if tg.Workspace != "/ws" || (len(tg.Known) == 1) != tc.known || tg.MergeGroup != nil {
				t.Errorf("%s: target %+v", tc.name, tg)
			}
		}
		slices.Sort(heads)
		if want := slices.Sorted(slices.Values(tc.heads)); err != nil || !slices.Equal(heads, want) {
			t.Errorf("%s: heads %v, %v; want %v", tc.name, heads, err, tc.heads)
		}
	}

	ev, _ := ghevent.Parse([]byte(`{"merge_group":{"head_sha":"abc","head_ref":"refs/heads/gh-readonly-queue/main/pr-3-aa","base_ref":"refs/heads/main"}}`))
	targets, err := action.Targets(t.Context(), gh, ev, "merge_group", lone, "")
	if err != nil || len(targets) != 1 || targets[0].HeadSHA != "abc" || targets[0].MergeGroup == nil ||
		targets[0].MergeGroup.BaseRef != "main" || !slices.Equal(targets[0].MergeGroup.PRs, []int{3}) {
		t.Errorf("merge group targets = %+v, %v", targets, err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
