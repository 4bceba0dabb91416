package checks

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/projection"
)

// Decision tables of coverage (docs/semantics.md §5 "Coverage"): each row
// is one safety decision, and each boundary has a row on both sides, so a
// negated predicate or a moved boundary fails a row.

const (
	covAnchor = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	covHead   = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	covOther  = "cccccccccccccccccccccccccccccccccccccccc"
)

func TestCoversDecisionTable(t *testing.T) {
	t.Parallel()
	same := map[string]bool{covAnchor: true, covHead: true}
	other := map[string]bool{covHead: true}
	for _, tc := range []struct {
		name   string
		policy config.Stale
		sf     StaleFacts
		code   map[string]bool
		covers bool
	}{
		{"sticky: every accept covers", config.StaleSticky, StaleFacts{Anchor: covAnchor, Changed: []string{"a.go"}, Behind: 3}, other, true},
		{"sticky: even one with no anchor", config.StaleSticky, StaleFacts{}, nil, true},
		{"sticky: even a missing anchor", config.StaleSticky, StaleFacts{Anchor: covAnchor, Missing: true}, nil, true},

		{"tree: the anchor holds the head's code", config.StaleTree, StaleFacts{Anchor: covAnchor}, same, true},
		{"tree: the head's code, whatever a comparison lists", config.StaleTree, StaleFacts{Anchor: covAnchor, Changed: []string{"a.go"}, Truncated: true}, same, true},
		{"tree: other code, and the comparison lists no file (ancestor, 404)", config.StaleTree, StaleFacts{Anchor: covAnchor}, other, false},
		{"tree: other code, the comparison names a file", config.StaleTree, StaleFacts{Anchor: covAnchor, Changed: []string{"a.go"}}, other, false},
		{"tree: other code, the comparison cut short", config.StaleTree, StaleFacts{Anchor: covAnchor, Truncated: true}, other, false},
		{"tree: other code, commits after it touching nothing", config.StaleTree, StaleFacts{Anchor: covAnchor, After: []string{covOther}}, other, false},
		{"tree: no anchor", config.StaleTree, StaleFacts{}, same, false},
		{"tree: the anchor cannot be told", config.StaleTree, StaleFacts{AnchorWhy: "gone"}, same, false},
		{"tree: an anchor GitHub does not know", config.StaleTree, StaleFacts{Anchor: covAnchor, Missing: true}, same, false},

		{"change: the same change as the anchor's", config.StaleChange, StaleFacts{Anchor: covAnchor}, same, true},
		{"change: the same change, whatever commits came after", config.StaleChange, StaleFacts{Anchor: covAnchor, After: []string{covOther}, Behind: 2}, same, true},
		{"change: another change, naming where", config.StaleChange, StaleFacts{Anchor: covAnchor, Changed: []string{"a.go"}}, other, false},
		{"change: another change that cannot be compared", config.StaleChange, StaleFacts{Anchor: covAnchor}, other, false},
		{"change: no anchor", config.StaleChange, StaleFacts{}, same, false},
		{"change: an anchor GitHub does not know", config.StaleChange, StaleFacts{Anchor: covAnchor, Missing: true}, same, false},

		{"push: nothing after the anchor", config.StalePush, StaleFacts{Anchor: covAnchor}, nil, true},
		{"push: the head lacks exactly one of the anchor's commits", config.StalePush, StaleFacts{Anchor: covAnchor, Behind: 1}, same, false},
		{"push: the head lacks two", config.StalePush, StaleFacts{Anchor: covAnchor, Behind: 2}, same, false},
		{"push: one commit after it", config.StalePush, StaleFacts{Anchor: covAnchor, After: []string{covOther}}, other, false},
		{"push: the head's code does not help", config.StalePush, StaleFacts{Anchor: covAnchor, After: []string{covOther}}, same, false},
		{"push: no anchor", config.StalePush, StaleFacts{}, nil, false},
		{"push: an anchor GitHub does not know", config.StalePush, StaleFacts{Anchor: covAnchor, Missing: true}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Covers(tc.policy, tc.sf, tc.code); got != tc.covers {
				t.Errorf("Covers(%s, %+v) = %v, want %v", tc.policy, tc.sf, got, tc.covers)
			}
			msg, reason := uncovered(tc.policy, tc.sf, tc.code, ".pact/")
			if (msg == "") != tc.covers || (reason == "") != tc.covers {
				t.Errorf("uncovered says %q / %q for covers = %v", msg, reason, tc.covers)
			}
		})
	}
}

// freshReview: the standing approval of an account that may review the
// task, given on a commit with the head's code.
func TestFreshReviewDecisionTable(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse([]byte("seats:\n  lead: [lead-acct]\n  opencode: [dev-acct]\n  claude-opus: [rev-acct, both-acct]\n  gpt: [both-acct]\n"))
	if err != nil {
		t.Fatal(err)
	}
	task := &projection.Task{ID: "T1", Owner: "opencode", Reviewer: "claude-opus"}
	at := func(m int) time.Time { return time.Date(2026, 6, 10, 12, m, 0, 0, time.UTC) }
	review := func(state, login, commit string, m int) ghfacts.Review {
		return ghfacts.Review{Found: true, State: state, AuthorLogin: login, CommitID: commit, SubmittedAt: at(m)}
	}
	headCode := map[string]bool{covHead: true, covOther: true}
	for _, tc := range []struct {
		name    string
		reviews map[int64]ghfacts.Review
		want    int64
	}{
		{"the reviewer approves the head", map[int64]ghfacts.Review{1: review("APPROVED", "rev-acct", covHead, 1)}, 1},
		{"the reviewer approves another commit with the head's code", map[int64]ghfacts.Review{1: review("APPROVED", "rev-acct", covOther, 1)}, 1},
		{"the reviewer approves other code", map[int64]ghfacts.Review{1: review("APPROVED", "rev-acct", covAnchor, 1)}, 0},
		{"the owner approves the head", map[int64]ghfacts.Review{1: review("APPROVED", "dev-acct", covHead, 1)}, 0},
		{"an account holding no reviewer seat", map[int64]ghfacts.Review{1: review("APPROVED", "lead-acct", covHead, 1)}, 0},
		{"approves, then requests changes on the same head", map[int64]ghfacts.Review{
			1: review("APPROVED", "rev-acct", covHead, 1), 2: review("CHANGES_REQUESTED", "rev-acct", covHead, 2)}, 0},
		{"requests changes, then approves", map[int64]ghfacts.Review{
			1: review("CHANGES_REQUESTED", "rev-acct", covHead, 1), 2: review("APPROVED", "rev-acct", covHead, 2)}, 2},
		{"approves, then comments", map[int64]ghfacts.Review{
			1: review("APPROVED", "rev-acct", covHead, 1), 2: review("COMMENTED", "rev-acct", covHead, 2)}, 1},
		{"approves, then the approval is dismissed", map[int64]ghfacts.Review{1: review("DISMISSED", "rev-acct", covHead, 1)}, 0},
		{"another account's later changes do not override", map[int64]ghfacts.Review{
			1: review("APPROVED", "rev-acct", covHead, 1), 2: review("CHANGES_REQUESTED", "lead-acct", covHead, 2)}, 1},
		{"a review GitHub does not have", map[int64]ghfacts.Review{1: {State: "APPROVED", AuthorLogin: "rev-acct", CommitID: covHead}}, 0},
		{"two standing approvals: the earliest", map[int64]ghfacts.Review{
			7: review("APPROVED", "rev-acct", covHead, 2), 3: review("APPROVED", "rev-acct", covOther, 1)}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := judge{in: ProvenanceInput{Reviews: tc.reviews, HeadCode: headCode}, cfg: cfg, require: true}
			if got := j.freshReview(task); got != tc.want {
				t.Errorf("freshReview = %d, want %d", got, tc.want)
			}
		})
	}
}

// A feature the pull request ships by adding its own merge event stays
// subject to Rule 2 and coverage; one the merge base had shipped is not
// the pull request's (issue 22 item 2).
func TestShippingWhenThePullRequestAddsTheMerge(t *testing.T) {
	t.Parallel()
	base := new(logb).init().
		assign("H1", "H", "opencode", "claude-opus", "feat/h"). // 2
		join("opencode").                                       // 3
		checkpoint("opencode", "H1").                           // 4
		accept("claude-opus", "H1")                             // 5
	head := &logb{lines: append([]string(nil), base.lines...)}
	head.merge("H") // 6
	merged := &logb{lines: append([]string(nil), head.lines...)}
	_, res := projection.ReadBytes(head.bytes(), projection.ReadOptions{})
	st := res.State
	if !st.Features["H"].Shipped {
		t.Fatal("setup: the head does not ship H")
	}
	stale := map[string]string{"H1": "src/h.go changed since the accept"}
	for _, tc := range []struct {
		name    string
		baseLog []byte
		ships   bool
	}{
		{"the pull request adds the merge", base.bytes(), true},
		{"no merge base log", nil, true},
		{"the merge base had shipped it", merged.bytes(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			atBase := shippedAtBase(st, tc.baseLog, []string{"feat/h"})
			if got := len(shipping(st, "feat/h", atBase)) == 1; got != tc.ships {
				t.Errorf("ships H: %v, want %v", got, tc.ships)
			}
			if got := len(ShippedAccepts(st, []string{"feat/h"}, atBase)) == 1; got != tc.ships {
				t.Errorf("H1's accept must cover the head: %v, want %v", got, tc.ships)
			}
			if got := len(Waiting(".pact/log.jsonl", st, "feat/h", stale, atBase, nil)) == 1; got != tc.ships {
				t.Errorf("a stale accept of H1 keeps it waiting: %v, want %v", got, tc.ships)
			}

			// The whole judgement: under require and tree, H1's accept
			// anchored on other code leaves it waiting.
			yml := "seats:\n  lead: [lead-acct]\n  opencode: [dev-acct]\n  claude-opus: [rev-acct]\nprovenance:\n  mode: require\n  stale: tree\n"
			prov := &ProvenanceInput{Stale: map[int]StaleFacts{5: {Anchor: covAnchor}}, HeadCode: map[string]bool{covHead: true},
				Reviews: map[int64]ghfacts.Review{}, Comments: map[int64]ghfacts.Comment{}}
			fs := PullRequest(input(head.bytes()), PullRequestFacts{BaseLog: tc.baseLog, HeadLog: head.bytes(), Branches: []string{"feat/h"},
				Config: config.ParseFile([]byte(yml), "", ""), Provenance: prov})
			waiting := 0
			for _, f := range fs {
				if f.Code == CodePRUnaccepted && f.TaskID == "H1" {
					waiting++
				}
			}
			if got := waiting == 1; got != tc.ships {
				t.Errorf("H1 waiting: %v, want %v: %s", got, tc.ships, fmt.Sprint(shorts(fs)))
			}
		})
	}
}

// Attacks on coverage with the pull request's own merge (issue 22 item 2,
// attack review): under require and tree, with no accept covering the
// head, none of these lets the pull request pass. A merge stamped before
// the accept, or before the merge base's first line, replays where Rule 2
// rejects it; a merge of another feature exempts nothing of the branch's
// own; a feature with a task on another branch needs that task's accept
// to cover this head too.
func TestShippingOwnMergeAttacks(t *testing.T) {
	t.Parallel()
	yml := "seats:\n  lead: [lead-acct]\n  opencode: [dev-acct]\n  claude-opus: [rev-acct]\n  gpt: [gpt-acct]\nprovenance:\n  mode: require\n  stale: tree\nunmapped-branches: block\n"
	stamped := func(l *logb, when, feature string) *logb {
		n := len(l.lines) + 1
		l.lines = append(l.lines, evLine(fmt.Sprintf("e%d", n), when, "lead", projection.TypeMerge, "", feature, "{}"))
		return l
	}
	accepted := func(l *logb, task, feature, branch string) *logb {
		return l.assign(task, feature, "opencode", "claude-opus", branch).checkpoint("opencode", task).accept("claude-opus", task)
	}
	for _, tc := range []struct {
		name   string
		base   *logb
		head   func(*logb) *logb
		branch string
		// want is a finding that must be there: code, and task when set.
		want projection.Code
		task string
	}{
		{"a merge stamped before the accept", new(logb).init().join("opencode").assign("H1", "H", "opencode", "claude-opus", "feat/h").checkpoint("opencode", "H1").accept("claude-opus", "H1"),
			func(l *logb) *logb { return stamped(l, at(4), "H") }, "feat/h", projection.CodeRule2Unaccepted, ""},
		{"a merge stamped before the merge base's lines", accepted(new(logb).init().join("opencode"), "H1", "H", "feat/h"),
			func(l *logb) *logb { return stamped(l, "2026-06-09T09:00:00Z", "H") }, "feat/h", "", ""},
		{"a merge of another feature", accepted(accepted(new(logb).init().join("opencode"), "H1", "H", "feat/h"), "G1", "G", "feat/g"),
			func(l *logb) *logb { return l.merge("G") }, "feat/h", CodePRUnaccepted, "H1"},
		{"a feature with a task on another branch", accepted(accepted(new(logb).init().join("opencode"), "H1", "H", "feat/h"), "H2", "H", "feat/b"),
			func(l *logb) *logb { return l.merge("H") }, "feat/b", CodePRUnaccepted, "H1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			head := tc.head(&logb{lines: append([]string(nil), tc.base.lines...)})
			_, res := projection.ReadBytes(head.bytes(), projection.ReadOptions{})
			stale := map[int]StaleFacts{}
			for _, task := range res.State.Tasks {
				if task.AcceptLine > 0 {
					stale[task.AcceptLine] = StaleFacts{Anchor: covAnchor}
				}
			}
			prov := &ProvenanceInput{Stale: stale, HeadCode: map[string]bool{covHead: true}, Reviews: map[int64]ghfacts.Review{}, Comments: map[int64]ghfacts.Comment{}}
			fs := PullRequest(input(head.bytes()), PullRequestFacts{BaseLog: tc.base.bytes(), HeadLog: head.bytes(), Branches: []string{tc.branch},
				Config: config.ParseFile([]byte(yml), "", ""), Provenance: prov, ChangesOutsidePact: true})
			if c := Count(fs); c.Errors+c.Pending == 0 {
				t.Fatalf("the pull request passes: %v", shorts(fs))
			}
			if tc.want != "" && !slices.ContainsFunc(fs, func(f Finding) bool { return f.Code == tc.want && (tc.task == "" || f.TaskID == tc.task) }) {
				t.Errorf("no %s finding%s: %v", tc.want, map[bool]string{true: " for " + tc.task}[tc.task != ""], shorts(fs))
			}
		})
	}
}
