package checks

import (
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/projection"
)

func TestHistory(t *testing.T) {
	t.Parallel()
	const path = ".pact/log.jsonl"
	lf := func(lines ...string) []byte {
		if len(lines) == 0 {
			return nil
		}
		return []byte(strings.Join(lines, "\n") + "\n")
	}
	base := lf("a", "b", "c")
	cases := []struct {
		name string
		base []byte
		head []byte
		line int    // 0 with ok: no finding
		msg  string // part of the message
		ok   bool
	}{
		{name: "identical", base: base, head: base, ok: true},
		{name: "appended", base: base, head: lf("a", "b", "c", "d", "e"), ok: true},
		{name: "base behind head (head merged newer base lines, then its own)", base: lf("a"), head: lf("a", "b", "c", "x"), ok: true},
		{name: "empty base", base: nil, head: lf("x", "y"), ok: true},
		{name: "both empty", base: nil, head: nil, ok: true},
		{name: "CRLF head, LF base", base: base, head: []byte("a\r\nb\r\nc\r\nd\r\n"), ok: true},
		{name: "LF head, CRLF base", base: []byte("a\r\nb\r\nc\r\n"), head: lf("a", "b", "c", "d"), ok: true},
		{name: "base without final newline", base: []byte("a\nb\nc"), head: lf("a", "b", "c", "d"), ok: true},
		{name: "BOM on one side only", base: append([]byte("\xEF\xBB\xBF"), base...), head: lf("a", "b", "c"), ok: true},
		// A lone CR after the base's final newline is no line (the replay
		// does not count it either), so the PR's next line may follow it.
		{name: "lone CR at the end of the base", base: []byte("a\nb\nc\n\r"), head: []byte("a\nb\nc\n\rd\n"), ok: true},
		// Only the one CR before the LF is the line ending (pactfile's
		// line rule): a second CR is the line's own last byte, and adding
		// or removing it edits the line.
		{name: "a CR added before a CRLF", base: base, head: []byte("a\nb\r\r\nc\n"), line: 2, msg: `it was "b" and is now "b\r"`},
		{name: "a CR of the line's own removed", base: []byte("a\r\r\nb\r\n"), head: []byte("a\r\nb\r\n"), line: 1, msg: `it was "a\r" and is now "a"`},
		{name: "a CR of the line's own kept, CRLF head, LF base", base: []byte("a\r\r\nb\n"), head: []byte("a\r\r\nb\r\nc\r\n"), ok: true},
		{name: "last line deleted", base: base, head: lf("a", "b"), line: 2,
			msg: "the PR's log has 2 line(s) but the merge-base log has 3: line 3 and every line after it were deleted"},
		{name: "everything deleted", base: base, head: nil, line: 0,
			msg: "the PR's log has 0 line(s) but the merge-base log has 3: line 1 and every line after it were deleted"},
		{name: "middle line deleted", base: base, head: lf("a", "c", "d"), line: 2,
			msg: "line 2 of the merge-base log was deleted or moved (line 2 now holds what the merge base has on line 3)"},
		{name: "line changed", base: base, head: lf("a", "B", "c"), line: 2,
			msg: `line 2 of the merge-base log was changed: it was "b" and is now "B"`},
		{name: "line changed by whitespace", base: base, head: lf("a", "b ", "c"), line: 2, msg: `it was "b" and is now "b "`},
		{name: "reordered", base: base, head: lf("b", "a", "c"), line: 1,
			msg: "line 1 of the merge-base log was deleted or moved (line 1 now holds what the merge base has on line 2)"},
		{name: "inserted before the end", base: base, head: lf("a", "x", "b", "c"), line: 2,
			msg: "a line was inserted before line 2 of the merge-base log, which now sits on line 3; new events must go after the last line"},
		{name: "inserted at the start", base: base, head: lf("x", "a", "b", "c"), line: 1,
			msg: "a line was inserted before line 1 of the merge-base log, which now sits on line 2"},
		{name: "blank line inserted", base: base, head: lf("a", "", "b", "c"), line: 2, msg: "a line was inserted before line 2"},
		{name: "trailing blank line removed", base: []byte("a\nb\n\n"), head: lf("a", "b"), line: 2, msg: "line 3 and every line after it were deleted"},
		{name: "a change far into a long line is shown", base: lf(strings.Repeat("a", 150) + `"reviewer":"gpt"` + strings.Repeat("z", 150)),
			head: lf(strings.Repeat("a", 150) + `"reviewer":"opencode"` + strings.Repeat("z", 150)), line: 1,
			// 20 bytes of context before the first difference (g/o), 80 shown
			msg: `it was "…` + strings.Repeat("a", 8) + `\"reviewer\":\"gpt\"` + strings.Repeat("z", 80-8-16) + `…" and is now "…` + strings.Repeat("a", 8) + `\"reviewer\":\"opencode\"`},
		{name: "excerpts never cut a UTF-8 character", base: lf(strings.Repeat("é", 60)), head: lf(strings.Repeat("é", 59) + "e"), line: 1,
			msg: `it was "…` + strings.Repeat("é", 11) + `" and is now "…` + strings.Repeat("é", 10) + `e"`},
		{name: "long lines are cut in the message", base: lf(strings.Repeat("x", 200)), head: lf(strings.Repeat("y", 200)), line: 1,
			msg: `it was "` + strings.Repeat("x", 80) + `…" and is now "` + strings.Repeat("y", 80) + `…"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := History(path, tc.base, tc.head)
			if tc.ok {
				assertFindings(t, got, nil)
				return
			}
			assertFindings(t, got, []short{{CodeLogRewritten, SeverityError, path, tc.line, "", ""}})
			if len(got) == 1 && !strings.Contains(got[0].Message, tc.msg) {
				t.Errorf("message:\n %q\ndoes not contain\n %q", got[0].Message, tc.msg)
			}
		})
	}
}

// GroupHistory is History against the commit a merge group is queued
// behind: the same rule, findings that name that commit, and a hint for a
// queue, not for a pull request's base.
func TestGroupHistory(t *testing.T) {
	t.Parallel()
	const path = ".pact/log.jsonl"
	parent := strings.Repeat("ab", 20)
	ahead := []byte("a\nb\nc\n")
	for _, tc := range []struct {
		name      string
		head      []byte
		line      int
		msg       string
		rewritten bool
	}{
		{name: "extends the group ahead", head: []byte("a\nb\nc\nd\n")},
		{name: "the same log", head: ahead},
		{name: "a line the group ahead adds is edited", head: []byte("a\nb\nC\nd\n"), line: 3, rewritten: true,
			msg: `line 3 of the log of abababababab (the commit this merge group is queued behind) was changed: it was "c" and is now "C"`},
		{name: "the lines of the group ahead are dropped", head: []byte("a\nb\n"), line: 2, rewritten: true,
			msg: "the merge group's log has 2 line(s) but the log of abababababab (the commit this merge group is queued behind) has 3"},
		{name: "reordered", head: []byte("a\nc\nb\n"), line: 2, rewritten: true, msg: "now holds what abababababab has on line 3"},
	} {
		got := GroupHistory(path, parent, ahead, tc.head)
		if !tc.rewritten {
			assertFindings(t, got, nil)
			continue
		}
		assertFindings(t, got, []short{{CodeLogRewritten, SeverityError, path, tc.line, "", ""}})
		if len(got) == 1 && (!strings.Contains(got[0].Message, tc.msg) || !strings.Contains(got[0].Hint, "queued ahead")) {
			t.Errorf("%s: %q (hint %q) does not contain %q", tc.name, got[0].Message, got[0].Hint, tc.msg)
		}
	}
}

func TestWaiting(t *testing.T) {
	t.Parallel()
	// F ships on feat/f (T1, T2, T3, T4); T5 of F sits on another branch
	// but belongs to F; G is on feat/g; H on feat/f is shipped already.
	l := new(logb).init().
		assign("H1", "H", "opencode", "claude-opus", "feat/f"). // 2
		join("opencode").                                       // 3
		checkpoint("opencode", "H1").                           // 4
		accept("claude-opus", "H1").                            // 5
		merge("H").                                             // 6
		assign("T1", "F", "opencode", "claude-opus", "feat/f"). // 7: in progress after changes
		assign("T2", "F", "claude-opus", "gpt", "feat/f").      // 8: awaiting review by gpt
		assign("T3", "F", "opencode", "gpt", "feat/f").         // 9: assigned after opencode's join
		assign("T4", "F", "opencode", "claude-opus", "feat/f"). // 10: accepted
		assign("T5", "F", "claude-opus", "gpt", "feat/other").  // 11: in progress, not checkpointed
		assign("G1", "G", "opencode", "gpt", "feat/g").         // 12: elsewhere
		join("claude-opus").                                    // 13: T2, T5 in progress
		checkpoint("claude-opus", "T2").                        // 14
		join("opencode").                                       // 15: T1, T3, T4, G1 in progress
		checkpoint("opencode", "T1").                           // 16
		changes("claude-opus", "T1").                           // 17: T1 back in progress, round 1
		checkpoint("opencode", "T4").                           // 18
		accept("claude-opus", "T4")                             // 19
	_, replayed := projection.ReadEvents(l.bytes())
	st := replayed.State
	if st.Tasks["T3"].Status != projection.StatusInProgress || st.Tasks["T1"].Rounds != 1 || !st.Features["H"].Shipped {
		t.Fatalf("setup: T3 %s, T1 rounds %d", st.Tasks["T3"].Status, st.Tasks["T1"].Rounds)
	}
	const path = ".pact/log.jsonl"
	got := Waiting(path, st, "feat/f", nil, nil, nil)
	p := SeverityPending
	assertFindings(t, got, []short{
		{CodePRUnaccepted, p, path, 7, "T1", "F"},
		{CodePRUnaccepted, p, path, 8, "T2", "F"},
		{CodePRUnaccepted, p, path, 9, "T3", "F"},
		{CodePRUnaccepted, p, path, 11, "T5", "F"},
	})
	wantMsgs := []string{
		"waiting for T1 (feature F): in progress by opencode after claude-opus requested changes",
		"waiting for T2 (feature F): awaiting review by gpt",
		"waiting for T3 (feature F): in progress by opencode, not yet checkpointed",
		"waiting for T5 (feature F): in progress by claude-opus, not yet checkpointed",
	}
	for i, f := range got {
		if i < len(wantMsgs) && f.Message != wantMsgs[i] {
			t.Errorf("message %d:\n got  %q\n want %q", i, f.Message, wantMsgs[i])
		}
	}

	t.Run("each hint names what ends the wait", func(t *testing.T) {
		t.Parallel()
		// A1 is assigned to opencode, who has not joined in that log.
		l2 := new(logb).init().assign("A1", "A", "opencode", "gpt", "feat/a")
		_, r2 := projection.ReadEvents(l2.bytes())
		cfg := &config.Config{Seats: map[string][]string{"claude-opus": {"opus-gh", "opus-bot"}}}
		for _, tc := range []struct {
			name string
			got  []Finding
			task string
			want string
		}{
			{"assigned: the owner joins", Waiting(path, r2.State, "feat/a", nil, nil, nil), "A1",
				"Seat opencode joins, which starts the task: `PACT_AGENT_ID=opencode pactify join opencode --roles worker`."},
			{"after changes: the owner checkpoints again", Waiting(path, st, "feat/f", nil, nil, cfg), "T1",
				"Seat opencode makes the changes claude-opus asked for, then checkpoints it again: `PACT_AGENT_ID=opencode pactify checkpoint T1 --evidence \"<evidence>\"`."},
			{"in progress: the owner checkpoints", Waiting(path, st, "feat/f", nil, nil, cfg), "T5",
				"Seat claude-opus checkpoints it when it is ready for review: `PACT_AGENT_ID=claude-opus pactify checkpoint T5 --evidence \"<evidence>\"`."},
			{"awaiting review: a seat no account holds", Waiting(path, st, "feat/f", nil, nil, cfg), "T2",
				"Seat gpt reviews it: an account that holds seat gpt approves this pull request or comments `/pact accept T2`, or seat gpt runs `PACT_AGENT_ID=gpt pactify accept T2`."},
			{"a stale accept: the reviewer's accounts review again", Waiting(path, st, "feat/f", map[string]string{"T4": "files changed"}, nil, cfg), "T4",
				"Ask opus-gh or opus-bot to approve the pull request's current head on GitHub"},
		} {
			var hint string
			for _, f := range tc.got {
				if f.TaskID == tc.task {
					hint = f.Hint
				}
			}
			if !strings.HasPrefix(hint, tc.want) {
				t.Errorf("%s: hint of %s\n got  %q\n want %q", tc.name, tc.task, hint, tc.want)
			}
		}
	})
	t.Run("a stale accept under require waits for a fresh review", func(t *testing.T) {
		t.Parallel()
		got := Waiting(path, st, "feat/f", map[string]string{"T4": "files changed after the accept on abc123", "T2": "ignored: not accepted"}, nil, nil)
		var msg string
		for _, f := range got {
			if f.TaskID == "T4" {
				msg = f.Message
			}
		}
		if msg != "waiting for T4 (feature F): a fresh review by claude-opus, because files changed after the accept on abc123" {
			t.Errorf("T4: %q", msg)
		}
		if len(got) != 5 {
			t.Errorf("%d findings, want 5", len(got))
		}
	})
	t.Run("a branch with no tasks waits for nothing", func(t *testing.T) {
		t.Parallel()
		if got := Waiting(path, st, "main", nil, nil, nil); len(got) != 0 {
			t.Errorf("findings %v", shorts(got))
		}
	})
	t.Run("another branch only sees its features", func(t *testing.T) {
		t.Parallel()
		got := Waiting(path, st, "feat/g", nil, nil, nil)
		assertFindings(t, got, []short{{CodePRUnaccepted, p, path, 12, "G1", "G"}})
	})
	t.Run("a task on another branch pulls in its whole feature", func(t *testing.T) {
		t.Parallel()
		got := Waiting(path, st, "feat/other", nil, nil, nil)
		if len(got) != 4 {
			t.Errorf("feat/other ships F: %v", shorts(got))
		}
	})
}

func TestWaitingFor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		task projection.Task
		want string
	}{
		{projection.Task{Status: projection.StatusAssigned, Owner: "opencode", Reviewer: "gpt"}, "assigned to opencode, who has not joined yet"},
		{projection.Task{Status: projection.StatusInProgress, Owner: "opencode", Reviewer: "gpt"}, "in progress by opencode, not yet checkpointed"},
		{projection.Task{Status: projection.StatusInProgress, Owner: "opencode", Reviewer: "gpt", Rounds: 2}, "in progress by opencode after gpt requested changes"},
		{projection.Task{Status: projection.StatusAwaitingReview, Owner: "opencode", Reviewer: "gpt"}, "awaiting review by gpt"},
		{projection.Task{Status: projection.StatusAccepted, Owner: "opencode", Reviewer: "gpt"}, "accepted by gpt"},
	}
	for _, tc := range cases {
		if got := WaitingFor(&tc.task); got != tc.want {
			t.Errorf("WaitingFor(%s) = %q, want %q", tc.task.Status, got, tc.want)
		}
	}
	// And through Waiting: an assigned task whose owner never joined.
	_, replayed := projection.ReadEvents(new(logb).init().assign("T1", "F", "opencode", "gpt", "feat/f").bytes())
	st := replayed.State
	got := Waiting(".pact/log.jsonl", st, "feat/f", nil, nil, nil)
	if len(got) != 1 || got[0].Message != "waiting for T1 (feature F): assigned to opencode, who has not joined yet" || got[0].Severity != SeverityPending {
		t.Errorf("findings %+v", got)
	}
	if c := Count(got); c.Errors != 0 || c.Pending != 1 {
		t.Errorf("waiting is not a violation: %+v", c)
	}
}

// TestPullRequestWaitsOnEveryBranch: a merge group carries several pull
// requests, and Rule 2 holds back the feature of each one's branch,
// wherever it is among them: a group judged for one branch only would
// ship the others' features unaccepted.
func TestPullRequestWaitsOnEveryBranch(t *testing.T) {
	t.Parallel()
	const path = ".pact/log.jsonl"
	// A1 on feat/a, B1 on feat/b and C1 on feat/c, each of its own
	// feature; open names the tasks left awaiting review.
	head := func(open ...string) []byte {
		l := new(logb).init().
			assign("A1", "A", "opencode", "claude-opus", "feat/a").
			assign("B1", "B", "opencode", "claude-opus", "feat/b").
			assign("C1", "C", "opencode", "claude-opus", "feat/c").
			join("opencode")
		for _, id := range []string{"A1", "B1", "C1"} {
			l.checkpoint("opencode", id)
			if !slices.Contains(open, id) {
				l.accept("claude-opus", id)
			}
		}
		return l.bytes()
	}
	cases := []struct {
		name     string
		open     []string // the tasks awaiting review
		branches []string // the queued pull requests' branches, in order
		want     []string // the tasks Rule 2 waits for
	}{
		{name: "every feature accepted", branches: []string{"feat/a", "feat/b"}},
		{name: "the first branch's feature waits", open: []string{"A1"}, branches: []string{"feat/a", "feat/b"}, want: []string{"A1"}},
		{name: "the second branch's feature waits", open: []string{"B1"}, branches: []string{"feat/a", "feat/b"}, want: []string{"B1"}},
		{name: "the last of three waits", open: []string{"C1"}, branches: []string{"feat/a", "feat/b", "feat/c"}, want: []string{"C1"}},
		{name: "the middle of three waits", open: []string{"B1"}, branches: []string{"feat/a", "feat/b", "feat/c"}, want: []string{"B1"}},
		{name: "both wait", open: []string{"A1", "B1"}, branches: []string{"feat/b", "feat/a"}, want: []string{"A1", "B1"}},
		{name: "a feature of a branch not queued does not", open: []string{"C1"}, branches: []string{"feat/a", "feat/b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log := head(tc.open...)
			fs := PullRequest(input(log), PullRequestFacts{BaseLog: nil, HeadLog: log, Branches: tc.branches,
				Config: config.ParseFile([]byte("provenance:\n  mode: off\n"), "", ""), MergeGroup: true})
			var want []short
			for _, id := range tc.want {
				want = append(want, short{CodePRUnaccepted, SeverityPending, path, 2 + int(id[0]-'A'), id, id[:1]})
			}
			assertFindings(t, fs, want)
		})
	}
}

func TestUnmappedBranch(t *testing.T) {
	t.Parallel()
	const logPath = ".pact/log.jsonl"
	mapped := func() *logb {
		return new(logb).init().assign("T1", "LOGIN", "opencode", "claude-opus", "feat/login").join("opencode").
			checkpoint("opencode", "T1").accept("claude-opus", "T1")
	}
	shippedBase := mapped().merge("LOGIN").bytes()
	shippedInPR := mapped().merge("LOGIN").bytes()
	cases := []struct {
		name           string
		base, head     []byte
		branch         string
		policy         config.Unmapped
		changesOutside bool
		want           Severity // "" for no finding
		says           string
	}{
		{name: "a branch a task names", base: nil, head: mapped().bytes(), branch: "feat/login", policy: config.UnmappedBlock, changesOutside: true},
		{name: "another branch warns by default", head: mapped().bytes(), branch: "feat/login-v2", policy: "", changesOutside: true,
			want: SeverityWarning, says: "no task names branch feat/login-v2"},
		{name: "warn", head: mapped().bytes(), branch: "feat/login-v2", policy: config.UnmappedWarn, want: SeverityWarning},
		{name: "allow says nothing", head: mapped().bytes(), branch: "feat/login-v2", policy: config.UnmappedAllow, changesOutside: true},
		{name: "block with code changes is an error", head: mapped().bytes(), branch: "feat/login-v2", policy: config.UnmappedBlock, changesOutside: true,
			want: SeverityError, says: "yet it changes files outside .pact/ (unmapped-branches: block)"},
		{name: "block with only .pact/ changes (assigning work) warns", head: mapped().bytes(), branch: "chore/assign", policy: config.UnmappedBlock,
			want: SeverityWarning, says: "it only changes .pact/, which unmapped-branches: block allows"},
		{name: "an old feature's branch ships nothing new", base: shippedBase, head: shippedBase, branch: "feat/login", policy: config.UnmappedBlock, changesOutside: true,
			want: SeverityError, says: "only names tasks of LOGIN, which the base branch already shipped"},
		{name: "the pull request that ships the feature is mapped", base: mapped().bytes(), head: shippedInPR, branch: "feat/login", policy: config.UnmappedBlock, changesOutside: true},
		{name: "a log without an init has its own findings", head: []byte("{}\n"), branch: "x", policy: config.UnmappedBlock, changesOutside: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, replayed := projection.ReadEvents(tc.head)
			st := replayed.State
			got := Unmapped(logPath, st, tc.base, tc.branch, tc.policy, tc.changesOutside)
			if tc.want == "" {
				if len(got) != 0 {
					t.Fatalf("findings = %v, want none", shorts(got))
				}
				return
			}
			if len(got) != 1 || got[0].Code != CodePRUnmappedBranch || got[0].Severity != tc.want || got[0].Path != logPath || got[0].Hint == "" {
				t.Fatalf("findings = %+v, want one %s %s", got, CodePRUnmappedBranch, tc.want)
			}
			if !strings.Contains(got[0].Message, tc.says) {
				t.Errorf("message %q does not say %q", got[0].Message, tc.says)
			}
		})
	}
	// Through the whole pull-request judgement: the finding is there once
	// per unmapped branch.
	in := input(mapped().bytes())
	fs := PullRequest(in, PullRequestFacts{HeadLog: mapped().bytes(), Branches: []string{"feat/x"}, Config: config.ParseFile([]byte("unmapped-branches: block\n"), "", ""), ChangesOutsidePact: true})
	if c := Count(fs); c.Errors != 1 || fs[0].Code != CodePRUnmappedBranch {
		t.Errorf("PullRequest = %v", shorts(fs))
	}
}

// TestJudgePullRequestIntoAnotherBase: a pull request into a base other
// than the default branch gets the worse of two verdicts, against its own
// merge base and as the pull request into the default branch its head
// would make (docs/semantics.md §5). Each row is a decoy base a worker
// could create, or a stack that must lose nothing.
func TestJudgePullRequestIntoAnotherBase(t *testing.T) {
	t.Parallel()
	const path = ".pact/log.jsonl"
	block := config.ParseFile([]byte("unmapped-branches: block\n"), "", "")
	twoTasks := func() *logb {
		return new(logb).init().assign("T1", "LOGIN", "opencode", "claude-opus", "feat/login").assign("T2", "LOGIN", "opencode", "claude-opus", "feat/login")
	}
	// The decoy drops T2's assign; the head builds on it and ships T1 only.
	decoy := new(logb).init().assign("T1", "LOGIN", "opencode", "claude-opus", "feat/login")
	decoyHead := new(logb).init().assign("T1", "LOGIN", "opencode", "claude-opus", "feat/login").join("opencode").checkpoint("opencode", "T1").accept("claude-opus", "T1")
	stackBase := twoTasks().join("opencode").checkpoint("opencode", "T1")
	stackHead := twoTasks().join("opencode").checkpoint("opencode", "T1").checkpoint("opencode", "T2")
	cases := []struct {
		name   string
		head   []byte
		branch string
		facts  PullRequestFacts
		want   []short
		says   string // part of the one error's message
	}{
		{name: "into the default branch: one verdict", head: decoyHead.bytes(), branch: "feat/login",
			facts: PullRequestFacts{BaseLog: decoy.bytes()}},
		{name: "a decoy base that dropped a task's assign", head: decoyHead.bytes(), branch: "feat/login",
			facts: PullRequestFacts{BaseLog: decoy.bytes(), Default: &DefaultBase{Branch: "main", Log: twoTasks().bytes()}},
			want:  []short{{CodeLogRewritten, SeverityError, path, 3, "", ""}},
			says:  "line 3 of the log where this head meets main"},
		{name: "a stack loses nothing: the head extends main's log too", head: stackHead.bytes(), branch: "feat/login",
			facts: PullRequestFacts{BaseLog: stackBase.bytes(), Default: &DefaultBase{Branch: "main", Log: twoTasks().bytes()}},
			want:  []short{{CodePRUnaccepted, SeverityPending, path, 2, "T1", "LOGIN"}, {CodePRUnaccepted, SeverityPending, path, 3, "T2", "LOGIN"}}},
		{name: "unmapped, only the pact changed against the decoy, code against main", head: twoTasks().bytes(), branch: "chore/tidy",
			facts: PullRequestFacts{BaseLog: twoTasks().bytes(), Config: block,
				Default: &DefaultBase{Branch: "main", Log: twoTasks().bytes(), ChangesOutsidePact: true}},
			want: []short{{CodePRUnmappedBranch, SeverityError, path, 0, "", ""}},
			says: "as a pull request into the default branch main: no task names branch chore/tidy"},
		{name: "unmapped, code against the decoy too: one error", head: twoTasks().bytes(), branch: "chore/tidy",
			facts: PullRequestFacts{BaseLog: twoTasks().bytes(), Config: block, ChangesOutsidePact: true,
				Default: &DefaultBase{Branch: "main", Log: twoTasks().bytes(), ChangesOutsidePact: true}},
			want: []short{{CodePRUnmappedBranch, SeverityError, path, 0, "", ""}},
			says: "no task names branch chore/tidy"},
		{name: "unmapped, only the pact changed against both: one warning", head: twoTasks().bytes(), branch: "chore/tidy",
			facts: PullRequestFacts{BaseLog: twoTasks().bytes(), Config: block, Default: &DefaultBase{Branch: "main", Log: twoTasks().bytes()}},
			want:  []short{{CodePRUnmappedBranch, SeverityWarning, path, 0, "", ""}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.facts.HeadLog, tc.facts.Branches = tc.head, []string{tc.branch}
			if tc.facts.Config.Config == nil {
				tc.facts.Config = config.ParseFile(nil, "", "")
			}
			got := PullRequest(input(tc.head), tc.facts)
			assertFindings(t, got, tc.want)
			for _, f := range got {
				if f.Severity == SeverityError && !strings.Contains(f.Message, tc.says) {
					t.Errorf("message %q does not say %q", f.Message, tc.says)
				}
			}
		})
	}
}

// TestShippedAtBaseOfEveryBase: a feature counts as shipped before the
// pull request only where every base it is judged against shipped it, so
// a decoy's forged merge spares no task the judgement into the default
// branch.
func TestShippedAtBaseOfEveryBase(t *testing.T) {
	t.Parallel()
	accepted := func() *logb {
		return new(logb).init().assign("T1", "LOGIN", "opencode", "claude-opus", "feat/login").join("opencode").checkpoint("opencode", "T1").accept("claude-opus", "T1")
	}
	shipped, open := accepted().merge("LOGIN").bytes(), accepted().bytes()
	head := accepted().merge("LOGIN").bytes()
	_, res := projection.ReadBytes(head, projection.ReadOptions{})
	for _, tc := range []struct {
		name      string
		own, into []byte
		intoSet   bool
		want      bool
	}{
		{name: "shipped at the default base", own: shipped, want: true},
		{name: "not shipped at the default base", own: open, want: false},
		{name: "shipped at a decoy, not at the default branch", own: shipped, into: open, intoSet: true, want: false},
		{name: "shipped at both", own: shipped, into: shipped, intoSet: true, want: true},
		{name: "shipped at the default branch, not at the base", own: open, into: shipped, intoSet: true, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pr := PullRequestFacts{BaseLog: tc.own, Branches: []string{"feat/login"}}
			if tc.intoSet {
				pr.Default = &DefaultBase{Branch: "main", Log: tc.into}
			}
			if got := pr.ShippedAtBase(res.State)["LOGIN"]; got != tc.want {
				t.Errorf("LOGIN shipped before the pull request = %v, want %v", got, tc.want)
			}
		})
	}
}
