package projection

import (
	"strings"
	"testing"
)

// ruleCase is one replay: the log, every rejection it must give (exactly, in
// line order), the statuses it must leave (which shows that rejected events
// were not applied) and words the messages must contain.
type ruleCase struct {
	name   string
	log    *logb
	want   []rej
	status string
	msgs   []string
}

func runRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log := parseBytes(tc.log.bytes())
			res := replay(log)
			assertRejs(t, allFindings(&log.Scan, res), tc.want)
			if got := statuses(res.State); got != tc.status {
				t.Errorf("statuses: got %q, want %q", got, tc.status)
			}
			var all strings.Builder
			for _, r := range res.Rejections {
				all.WriteString(r.Message + "\n")
			}
			for _, m := range tc.msgs {
				if !strings.Contains(all.String(), m) {
					t.Errorf("no message contains %q; messages:\n%s", m, all.String())
				}
			}
			if res.Unsupported != nil {
				t.Errorf("unexpected fail-closed: %+v", res.Unsupported)
			}
		})
	}
}

// raw adds a builder-numbered line with a chosen role or scope.
func (l *logb) raw(agent, role, typ, task, feature, payload string) *logb {
	n := l.n()
	return l.add(evLine("e"+itoa(n), at(n), agent, role, typ, task, feature, payload))
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

func TestValidLifecycles(t *testing.T) {
	t.Parallel()
	runRuleCases(t, []ruleCase{
		{name: "assign join checkpoint accept merge", log: shipped(), status: "T1=accepted F=shipped"},
		{name: "changes requested then re-checkpoint and accept",
			log:    review().changes("claude-opus", "T1", "F").checkpoint("opencode", "T1", "F").accept("claude-opus", "T1", "F"),
			status: "T1=accepted F=accepted"},
		{name: "task events may leave feature empty",
			log:    started().checkpoint("opencode", "T1", "").accept("claude-opus", "T1", ""),
			status: "T1=accepted F=accepted"},
		{name: "join payload roles are not compared with the roster",
			log:    new(logb).init().assign("T1", "F", "opencode", "claude-opus").raw("opencode", "", TypeJoin, "", "", `{"roles":["reviewer","orchestrator"]}`),
			status: "T1=in_progress F=in_progress"},
		{name: "owner and reviewer roles are not checked at assign",
			log:    new(logb).init().assign("T1", "F", "gpt", "opencode"),
			status: "T1=assigned F=planned"},
		{name: "two features ship independently",
			log: shipped().assign("T2", "G", "claude-opus", "gpt").join("claude-opus").checkpoint("claude-opus", "T2", "G").
				accept("gpt", "T2", "G").merge("lead", "G"),
			status: "T1=accepted T2=accepted F=shipped G=shipped"},
	})
}

func TestChangesRequestedKeepsReasonAndRounds(t *testing.T) {
	t.Parallel()
	l := review().changes("claude-opus", "T1", "F").checkpoint("opencode", "T1", "F").
		raw("claude-opus", "", TypeChangesRequested, "T1", "F", `{"reason":"second round"}`)
	res := l.replay()
	assertRejs(t, rejs(res), nil)
	task := res.State.Tasks["T1"]
	if task.Status != StatusInProgress || task.Rounds != 2 || task.LastReason != "second round" {
		t.Errorf("T1 = %s rounds %d reason %q; want in_progress, 2, %q", task.Status, task.Rounds, task.LastReason, "second round")
	}
}

func TestEnvelopeScope(t *testing.T) {
	t.Parallel()
	runRuleCases(t, []ruleCase{
		{name: "init with task_id is not applied",
			log:  new(logb).raw("lead", "", TypeInit, "T0", "", initPayload(rosterJSON)).assign("T1", "F", "opencode", "claude-opus"),
			want: []rej{{1, CodeSchemaEnvelope, "T0", ""}, {2, CodeInitMissing, "T1", "F"}, noInit},
			msgs: []string{`task_id must be "" on a init event`}},
		{name: "init with feature is not applied",
			log:  new(logb).raw("lead", "", TypeInit, "", "F0", initPayload(rosterJSON)).assign("T1", "F", "opencode", "claude-opus"),
			want: []rej{{1, CodeSchemaEnvelope, "", "F0"}, {2, CodeInitMissing, "T1", "F"}, noInit}},
		{name: "join with task_id is not applied",
			log: new(logb).init().assign("T1", "F", "opencode", "claude-opus").
				raw("opencode", "", TypeJoin, "T1", "", `{"roles":["worker"]}`).checkpoint("opencode", "T1", "F"),
			want:   []rej{{3, CodeSchemaEnvelope, "T1", ""}, {4, CodeInvalidTransition, "T1", "F"}},
			status: "T1=assigned F=planned"},
		{name: "join with feature is not applied",
			log: new(logb).init().assign("T1", "F", "opencode", "claude-opus").
				raw("opencode", "", TypeJoin, "", "F", `{"roles":["worker"]}`).checkpoint("opencode", "T1", "F"),
			want:   []rej{{3, CodeSchemaEnvelope, "", "F"}, {4, CodeInvalidTransition, "T1", "F"}},
			status: "T1=assigned F=planned"},
		{name: "merge with task_id is not applied",
			log:    review().accept("claude-opus", "T1", "F").raw("lead", "", TypeMerge, "T1", "F", "").assign("T2", "F", "opencode", "claude-opus"),
			want:   []rej{{6, CodeSchemaEnvelope, "T1", "F"}},
			status: "T1=accepted T2=assigned F=in_progress"},
		{name: "merge with empty feature",
			log:    review().accept("claude-opus", "T1", "F").raw("lead", "", TypeMerge, "", "", ""),
			want:   []rej{{6, CodeSchemaEnvelope, "", ""}},
			status: "T1=accepted F=accepted"},
		{name: "assign with empty feature is not applied",
			log: new(logb).init().raw("lead", "", TypeAssign, "T1", "", assignPayload("opencode", "claude-opus")).
				join("opencode").checkpoint("opencode", "T1", ""),
			want: []rej{{2, CodeSchemaEnvelope, "T1", ""}, {4, CodeTaskUnknown, "T1", ""}}},
		{name: "assign with empty task_id",
			log:  new(logb).init().raw("lead", "", TypeAssign, "", "F", assignPayload("opencode", "claude-opus")),
			want: []rej{{2, CodeSchemaEnvelope, "", "F"}}},
		{name: "checkpoint with empty task_id",
			log:    started().raw("opencode", "", TypeCheckpoint, "", "F", `{"evidence":"x"}`),
			want:   []rej{{4, CodeSchemaEnvelope, "", "F"}},
			status: "T1=in_progress F=in_progress"},
		{name: "accept with empty task_id",
			log:    review().raw("claude-opus", "", TypeAccept, "", "F", ""),
			want:   []rej{{5, CodeSchemaEnvelope, "", "F"}},
			status: "T1=awaiting_review F=awaiting_review"},
		{name: "changes_requested with empty task_id",
			log:    review().raw("claude-opus", "", TypeChangesRequested, "", "F", `{"reason":"x"}`),
			want:   []rej{{5, CodeSchemaEnvelope, "", "F"}},
			status: "T1=awaiting_review F=awaiting_review"},
		{name: "checkpoint naming another feature than its task's",
			log:    started().checkpoint("opencode", "T1", "G").accept("claude-opus", "T1", "F"),
			want:   []rej{{4, CodeSchemaEnvelope, "T1", "G"}, {5, CodeInvalidTransition, "T1", "F"}},
			status: "T1=in_progress F=in_progress",
			msgs:   []string{`feature "G" does not match task T1's feature "F"`}},
		{name: "accept naming another feature than its task's",
			log:    review().accept("claude-opus", "T1", "G").merge("lead", "F"),
			want:   []rej{{5, CodeSchemaEnvelope, "T1", "G"}, {6, CodeRule2Unaccepted, "", "F"}},
			status: "T1=awaiting_review F=awaiting_review"},
		{name: "changes_requested naming another feature than its task's",
			log:    review().changes("claude-opus", "T1", "G").accept("claude-opus", "T1", "F"),
			want:   []rej{{5, CodeSchemaEnvelope, "T1", "G"}},
			status: "T1=accepted F=accepted"},
		{name: "feature of an unknown task is task.unknown",
			log:  new(logb).init().join("opencode").checkpoint("opencode", "T9", "G"),
			want: []rej{{3, CodeTaskUnknown, "T9", "G"}}},
	})
}

func TestPayloadRequiredFields(t *testing.T) {
	t.Parallel()
	runRuleCases(t, []ruleCase{
		{name: "assign without spec is not applied",
			log: new(logb).init().raw("lead", "", TypeAssign, "T1", "F", `{"owner":"opencode","reviewer":"claude-opus","branch":"b"}`).
				join("opencode").checkpoint("opencode", "T1", "F"),
			want: []rej{{2, CodeSchemaPayload, "T1", "F"}, {4, CodeTaskUnknown, "T1", "F"}},
			msgs: []string{"payload.spec must be a string on a assign event, got missing"}},
		{name: "assign owner not a string",
			log:  new(logb).init().raw("lead", "", TypeAssign, "T1", "F", `{"owner":1,"reviewer":"claude-opus","branch":"b","spec":"s"}`),
			want: []rej{{2, CodeSchemaPayload, "T1", "F"}}},
		{name: "assign without branch",
			log:  new(logb).init().raw("lead", "", TypeAssign, "T1", "F", `{"owner":"opencode","reviewer":"claude-opus","spec":"s"}`),
			want: []rej{{2, CodeSchemaPayload, "T1", "F"}}},
		{name: "join without roles is not applied",
			log: new(logb).init().assign("T1", "F", "opencode", "claude-opus").raw("opencode", "", TypeJoin, "", "", "").
				checkpoint("opencode", "T1", "F"),
			want:   []rej{{3, CodeSchemaPayload, "", ""}, {4, CodeInvalidTransition, "T1", "F"}},
			status: "T1=assigned F=planned"},
		{name: "join roles is a string",
			log:    new(logb).init().assign("T1", "F", "opencode", "claude-opus").raw("opencode", "", TypeJoin, "", "", `{"roles":"worker"}`),
			want:   []rej{{3, CodeSchemaPayload, "", ""}},
			status: "T1=assigned F=planned"},
		{name: "join roles holds a number",
			log:    new(logb).init().assign("T1", "F", "opencode", "claude-opus").raw("opencode", "", TypeJoin, "", "", `{"roles":["worker",1]}`),
			want:   []rej{{3, CodeSchemaPayload, "", ""}},
			status: "T1=assigned F=planned"},
		{name: "checkpoint without evidence is not applied",
			log:    started().raw("opencode", "", TypeCheckpoint, "T1", "F", "").accept("claude-opus", "T1", "F"),
			want:   []rej{{4, CodeSchemaPayload, "T1", "F"}, {5, CodeInvalidTransition, "T1", "F"}},
			status: "T1=in_progress F=in_progress"},
		{name: "changes_requested without reason is not applied",
			log:    review().raw("claude-opus", "", TypeChangesRequested, "T1", "F", "").accept("claude-opus", "T1", "F"),
			want:   []rej{{5, CodeSchemaPayload, "T1", "F"}},
			status: "T1=accepted F=accepted"},
		{name: "changes_requested reason null",
			log:    review().raw("claude-opus", "", TypeChangesRequested, "T1", "F", `{"reason":null}`),
			want:   []rej{{5, CodeSchemaPayload, "T1", "F"}},
			status: "T1=awaiting_review F=awaiting_review"},
		{name: "changes_requested with an empty reason is valid",
			log:    review().raw("claude-opus", "", TypeChangesRequested, "T1", "F", `{"reason":""}`),
			status: "T1=in_progress F=in_progress"},
		{name: "payload extra fields are ignored",
			log:    started().raw("opencode", "", TypeCheckpoint, "T1", "F", `{"evidence":"x","future":{"a":[1,2]}}`),
			status: "T1=awaiting_review F=awaiting_review"},
		{name: "init without base_branch",
			log:  new(logb).raw("lead", "", TypeInit, "", "", `{"project":"demo","protocol_version":1,"seats":`+rosterJSON+`}`),
			want: []rej{{1, CodeSchemaPayload, "", ""}, noInit}},
		{name: "init without project",
			log:  new(logb).raw("lead", "", TypeInit, "", "", `{"protocol_version":1,"seats":`+rosterJSON+`,"base_branch":"main"}`),
			want: []rej{{1, CodeSchemaPayload, "", ""}, noInit}},
	})
}

func TestRole(t *testing.T) {
	t.Parallel()
	runRuleCases(t, []ruleCase{
		{name: "role contradicting event_type is role.mismatch and not applied",
			log:    started().raw("opencode", RoleReviewer, TypeCheckpoint, "T1", "F", `{"evidence":"x"}`).accept("claude-opus", "T1", "F"),
			want:   []rej{{4, CodeRoleMismatch, "T1", "F"}, {5, CodeInvalidTransition, "T1", "F"}},
			status: "T1=in_progress F=in_progress",
			msgs:   []string{`role "reviewer" contradicts event_type checkpoint, which implies role "worker"`}},
		{name: "init with a contradicting role is not applied",
			log:  new(logb).raw("lead", RoleWorker, TypeInit, "", "", initPayload(rosterJSON)).assign("T1", "F", "opencode", "claude-opus"),
			want: []rej{{1, CodeRoleMismatch, "", ""}, {2, CodeInitMissing, "T1", "F"}, noInit}},
		{name: "merge claimed by a reviewer role",
			log:    review().accept("claude-opus", "T1", "F").raw("lead", RoleReviewer, TypeMerge, "", "F", ""),
			want:   []rej{{6, CodeRoleMismatch, "", "F"}},
			status: "T1=accepted F=accepted"},
		{name: "accept claimed as worker",
			log:    review().raw("claude-opus", RoleWorker, TypeAccept, "T1", "F", ""),
			want:   []rej{{5, CodeRoleMismatch, "T1", "F"}},
			status: "T1=awaiting_review F=awaiting_review"},
	})
}

func TestInitRules(t *testing.T) {
	t.Parallel()
	assignAt := func(id string, n int, task string) string {
		return evLine(id, at(n), "lead", "", TypeAssign, task, "F", assignPayload("opencode", "claude-opus"))
	}
	initAt := func(id string, n int) string {
		return evLine(id, at(n), "lead", "", TypeInit, "", "", initPayload(rosterJSON))
	}
	newbie := `[{"id":"lead","roles":["orchestrator"],"entry":"A.md"},{"id":"newbie","roles":["worker"],"entry":"A.md"}]`
	runRuleCases(t, []ruleCase{
		{name: "an event before init in replay order is init.missing and not applied",
			log: new(logb).add(initAt("i", 10)).add(assignAt("a1", 1, "T1")).
				add(evLine("j", at(11), "opencode", "", TypeJoin, "", "", `{"roles":["worker"]}`)).
				add(evLine("c", at(12), "opencode", "", TypeCheckpoint, "T1", "F", `{"evidence":"x"}`)),
			want: []rej{{2, CodeInitMissing, "T1", "F"}, {4, CodeTaskUnknown, "T1", "F"}},
			msgs: []string{"assign event comes before any valid init event in replay order"}},
		{name: "init later in the file but earlier in time comes first",
			log:    new(logb).add(assignAt("a1", 2, "T1")).add(initAt("i", 1)),
			status: "T1=assigned F=planned"},
		{name: "a log without init reports every event and once more at the end",
			log:  new(logb).assign("T1", "F", "opencode", "claude-opus").join("opencode"),
			want: []rej{{1, CodeInitMissing, "T1", "F"}, {2, CodeInitMissing, "", ""}, noInit},
			msgs: []string{"the log has no valid init event"}},
		{name: "second init is init.duplicate and its roster is ignored",
			log: new(logb).init().raw("lead", "", TypeInit, "", "", initPayload(newbie)).
				assign("T1", "F", "newbie", "claude-opus"),
			want: []rej{{2, CodeInitDuplicate, "", ""}, {3, CodeUnknownSeat, "T1", "F"}},
			msgs: []string{"the log was initialised on line 1", `assign owner "newbie" is not a declared seat`}},
		{name: "second init with bad seat ids is still init.duplicate",
			log:  new(logb).init().raw("lead", "", TypeInit, "", "", initPayload(`[{"id":"BAD","roles":["orchestrator"],"entry":"A.md"}]`)),
			want: []rej{{2, CodeInitDuplicate, "", ""}}},
		{name: "rejected init then valid init: the valid one is the first",
			log: new(logb).raw("ghost", "", TypeInit, "", "", initPayload(rosterJSON)).assign("T1", "F", "opencode", "claude-opus").
				init().assign("T2", "F", "opencode", "claude-opus"),
			want:   []rej{{1, CodeUnknownSeat, "", ""}, {2, CodeInitMissing, "T1", "F"}},
			status: "T2=assigned F=planned"},
		{name: "invalid seat ids: one finding naming all, init not applied",
			log: new(logb).raw("lead", "", TypeInit, "", "", initPayload(`[{"id":"lead","roles":["orchestrator"],"entry":"A.md"},`+
				`{"id":"Opus","roles":["worker"],"entry":"A.md"},{"id":"-x","roles":["reviewer"],"entry":"A.md"},{"id":"","roles":[],"entry":""}]`)).
				assign("T1", "F", "opencode", "claude-opus"),
			want: []rej{{1, CodeInvalidSeatID, "", ""}, {2, CodeInitMissing, "T1", "F"}, noInit},
			msgs: []string{`seat id "Opus", "-x", "" does not match`}},
		{name: "invalid seat id comes before the agent's own seat test",
			log:  new(logb).raw("ghost", "", TypeInit, "", "", initPayload(`[{"id":"Bad","roles":["orchestrator"],"entry":"A.md"}]`)),
			want: []rej{{1, CodeInvalidSeatID, "", ""}, noInit}},
		{name: "init agent not in its roster",
			log:  new(logb).raw("ghost", "", TypeInit, "", "", initPayload(rosterJSON)),
			want: []rej{{1, CodeUnknownSeat, "", ""}, noInit},
			msgs: []string{`agent_id "ghost" is not a declared seat`}},
		{name: "init agent without orchestrator",
			log:  new(logb).raw("opencode", "", TypeInit, "", "", initPayload(rosterJSON)),
			want: []rej{{1, CodeRoleNotHeld, "", ""}, noInit}},
		{name: "init with an empty roster",
			log:  new(logb).raw("lead", "", TypeInit, "", "", initPayload(`[]`)),
			want: []rej{{1, CodeUnknownSeat, "", ""}, noInit}},
		{name: "two inits at the same ts: the first line is the init",
			log:  new(logb).add(initAt("i1", 1)).add(evLine("i2", at(1), "lead", "", TypeInit, "", "", initPayload(newbie))).add(assignAt("a", 2, "T1")),
			want: []rej{{2, CodeInitDuplicate, "", ""}}, status: "T1=assigned F=planned"},
	})
}

func TestRoster(t *testing.T) {
	t.Parallel()
	runRuleCases(t, []ruleCase{
		{name: "agent not a declared seat",
			log:    started().checkpoint("ghost", "T1", "F"),
			want:   []rej{{4, CodeUnknownSeat, "T1", "F"}},
			status: "T1=in_progress F=in_progress"},
		{name: "assign owner not declared; the id stays free",
			log:    new(logb).init().assign("T1", "F", "ghost", "claude-opus").assign("T1", "F", "opencode", "claude-opus"),
			want:   []rej{{2, CodeUnknownSeat, "T1", "F"}},
			status: "T1=assigned F=planned",
			msgs:   []string{`assign owner "ghost" is not a declared seat`}},
		{name: "assign reviewer not declared",
			log:  new(logb).init().assign("T1", "F", "opencode", "ghost"),
			want: []rej{{2, CodeUnknownSeat, "T1", "F"}},
			msgs: []string{`assign reviewer "ghost" is not a declared seat`}},
		{name: "assign by a seat without orchestrator",
			log:  new(logb).init().ev("opencode", TypeAssign, "T1", "F", assignPayload("opencode", "claude-opus")),
			want: []rej{{2, CodeRoleNotHeld, "T1", "F"}},
			msgs: []string{"seat opencode does not hold the orchestrator role that assign events need (it holds worker)"}},
		{name: "join needs worker",
			log:    new(logb).init().assign("T1", "F", "gpt", "claude-opus").join("gpt"),
			want:   []rej{{3, CodeRoleNotHeld, "", ""}},
			status: "T1=assigned F=planned"},
		{name: "accept by a seat without reviewer is role_not_held before rule 1",
			log:    review().accept("opencode", "T1", "F"),
			want:   []rej{{5, CodeRoleNotHeld, "T1", "F"}},
			status: "T1=awaiting_review F=awaiting_review"},
		{name: "checkpoint by a seat without worker",
			log: new(logb).init().assign("T1", "F", "gpt", "claude-opus").
				raw("gpt", "", TypeCheckpoint, "T1", "F", `{"evidence":"x"}`),
			want:   []rej{{3, CodeRoleNotHeld, "T1", "F"}},
			status: "T1=assigned F=planned"},
		{name: "merge by a seat without orchestrator",
			log:    review().accept("claude-opus", "T1", "F").merge("claude-opus", "F"),
			want:   []rej{{6, CodeRoleNotHeld, "", "F"}},
			status: "T1=accepted F=accepted"},
		{name: "unknown agent is reported before an unknown owner",
			log:  new(logb).init().ev("ghost", TypeAssign, "T1", "F", assignPayload("nobody", "claude-opus")),
			want: []rej{{2, CodeUnknownSeat, "T1", "F"}},
			msgs: []string{`agent_id "ghost" is not a declared seat`}},
		{name: "role not held is reported before an unknown owner",
			log:  new(logb).init().ev("opencode", TypeAssign, "T1", "F", assignPayload("nobody", "gpt")),
			want: []rej{{2, CodeRoleNotHeld, "T1", "F"}}},
		{name: "unknown owner is reported before owner == reviewer",
			log:  new(logb).init().assign("T1", "F", "ghost", "ghost"),
			want: []rej{{2, CodeUnknownSeat, "T1", "F"}}},
	})
}

func TestTaskAndFeatureExistence(t *testing.T) {
	t.Parallel()
	cases := []ruleCase{
		{name: "checkpoint of an unknown task",
			log:  new(logb).init().join("opencode").checkpoint("opencode", "T9", "F"),
			want: []rej{{3, CodeTaskUnknown, "T9", "F"}},
			msgs: []string{"checkpoint of task T9, which was never assigned"}},
		{name: "accept of an unknown task",
			log:  new(logb).init().accept("claude-opus", "T9", ""),
			want: []rej{{2, CodeTaskUnknown, "T9", ""}}},
		{name: "changes_requested of an unknown task",
			log:  new(logb).init().changes("claude-opus", "T9", ""),
			want: []rej{{2, CodeTaskUnknown, "T9", ""}}},
		{name: "duplicate task id in another feature keeps the first",
			log:    started().assign("T1", "G", "claude-opus", "gpt").checkpoint("opencode", "T1", "F"),
			want:   []rej{{4, CodeTaskDuplicateID, "T1", "G"}},
			status: "T1=awaiting_review F=awaiting_review",
			msgs:   []string{"task T1 was already assigned on line 2 (feature F)"}},
		{name: "duplicate task id in the same feature",
			log:    started().assign("T1", "F", "claude-opus", "gpt"),
			want:   []rej{{4, CodeTaskDuplicateID, "T1", "F"}},
			status: "T1=in_progress F=in_progress"},
		{name: "a rejected assign makes nothing a duplicate",
			log:    new(logb).init().assign("T1", "F", "opencode", "opencode").assign("T1", "F", "opencode", "claude-opus"),
			want:   []rej{{2, CodeOwnerIsReviewer, "T1", "F"}},
			status: "T1=assigned F=planned"},
		{name: "duplicate id is reported before owner == reviewer",
			log:    started().assign("T1", "F", "gpt", "gpt"),
			want:   []rej{{4, CodeTaskDuplicateID, "T1", "F"}},
			status: "T1=in_progress F=in_progress"},
		{name: "duplicate id is reported before assign into a shipped feature",
			log:    shipped().assign("T1", "F", "opencode", "claude-opus"),
			want:   []rej{{7, CodeTaskDuplicateID, "T1", "F"}},
			status: "T1=accepted F=shipped"},
		{name: "unsafe id is reported before owner == reviewer",
			log:  new(logb).init().assign("../x", "F", "gpt", "gpt"),
			want: []rej{{2, CodeTaskUnsafeID, "../x", "F"}}},
		{name: "merge of an unknown feature",
			log:  new(logb).init().merge("lead", "NOPE"),
			want: []rej{{2, CodeFeatureUnknown, "", "NOPE"}},
			msgs: []string{"merge of feature NOPE, which has no tasks"}},
		{name: "merge of a feature whose only assign was rejected",
			log:  new(logb).init().assign("T1", "F", "opencode", "opencode").merge("lead", "F"),
			want: []rej{{2, CodeOwnerIsReviewer, "T1", "F"}, {3, CodeFeatureUnknown, "", "F"}}},
	}
	for _, id := range []string{"../x", "a/b", `a\b`, ".hidden", "x..y", "a\x00b", ".", ".."} {
		cases = append(cases, ruleCase{name: "unsafe id " + id,
			log:  new(logb).init().assign(id, "F", "opencode", "claude-opus").join("opencode").checkpoint("opencode", id, "F"),
			want: []rej{{2, CodeTaskUnsafeID, id, "F"}, {4, CodeTaskUnknown, id, "F"}},
			msgs: []string{"cannot be a file name under tasks/"}})
	}
	for _, id := range []string{"T-1.2", "a.b", "CON", "ünï", "x y", "1"} {
		cases = append(cases, ruleCase{name: "safe id " + id,
			log:    new(logb).init().assign(id, "F", "opencode", "claude-opus"),
			status: id + "=assigned F=planned"})
	}
	runRuleCases(t, cases)
}

func TestAuthorization(t *testing.T) {
	t.Parallel()
	// T2 is owned by claude-opus (which also reviews) and reviewed by gpt, so
	// its owner holds the reviewer role and Rule 1 is what stops it.
	own := func() *logb {
		return new(logb).init().assign("T2", "F", "claude-opus", "gpt").join("claude-opus").checkpoint("claude-opus", "T2", "F")
	}
	runRuleCases(t, []ruleCase{
		{name: "owner == reviewer at assign",
			log:  new(logb).init().assign("T1", "F", "claude-opus", "claude-opus").join("claude-opus"),
			want: []rej{{2, CodeOwnerIsReviewer, "T1", "F"}},
			msgs: []string{"task T1 names claude-opus as both owner and reviewer"}},
		{name: "checkpoint by a seat that does not own the task",
			log:    started().checkpoint("claude-opus", "T1", "F").accept("claude-opus", "T1", "F"),
			want:   []rej{{4, CodeTaskNotOwner, "T1", "F"}, {5, CodeInvalidTransition, "T1", "F"}},
			status: "T1=in_progress F=in_progress",
			msgs:   []string{"checkpoint of T1 by claude-opus, but opencode owns it"}},
		{name: "not_owner comes before the transition",
			log:    new(logb).init().assign("T1", "F", "opencode", "claude-opus").checkpoint("claude-opus", "T1", "F"),
			want:   []rej{{3, CodeTaskNotOwner, "T1", "F"}},
			status: "T1=assigned F=planned"},
		{name: "owner accepts its own task",
			log:    own().accept("claude-opus", "T2", "F").merge("lead", "F"),
			want:   []rej{{5, CodeSelfAccept, "T2", "F"}, {6, CodeRule2Unaccepted, "", "F"}},
			status: "T2=awaiting_review F=awaiting_review",
			msgs:   []string{"accept of T2 by its own owner claude-opus"}},
		{name: "owner requests changes on its own task",
			log:    own().changes("claude-opus", "T2", "F"),
			want:   []rej{{5, CodeSelfAccept, "T2", "F"}},
			status: "T2=awaiting_review F=awaiting_review"},
		{name: "self_accept comes before the transition",
			log:    new(logb).init().assign("T2", "F", "claude-opus", "gpt").accept("claude-opus", "T2", "F"),
			want:   []rej{{3, CodeSelfAccept, "T2", "F"}},
			status: "T2=assigned F=planned"},
		{name: "accept by a reviewer seat that is not the task's reviewer",
			log:    review().accept("gpt", "T1", "F").accept("claude-opus", "T1", "F"),
			want:   []rej{{5, CodeNotReviewer, "T1", "F"}},
			status: "T1=accepted F=accepted",
			msgs:   []string{"accept of T1 by gpt, but only its reviewer claude-opus may review it"}},
		{name: "changes by a reviewer seat that is not the task's reviewer",
			log:    review().changes("gpt", "T1", "F"),
			want:   []rej{{5, CodeNotReviewer, "T1", "F"}},
			status: "T1=awaiting_review F=awaiting_review"},
		{name: "not_reviewer comes before the transition",
			log:    started().accept("gpt", "T1", "F"),
			want:   []rej{{4, CodeNotReviewer, "T1", "F"}},
			status: "T1=in_progress F=in_progress"},
	})
}

func TestTransitions(t *testing.T) {
	t.Parallel()
	runRuleCases(t, []ruleCase{
		{name: "checkpoint before join",
			log:    new(logb).init().assign("T1", "F", "opencode", "claude-opus").checkpoint("opencode", "T1", "F"),
			want:   []rej{{3, CodeInvalidTransition, "T1", "F"}},
			status: "T1=assigned F=planned",
			msgs:   []string{"checkpoint of T1 needs it in_progress, but it is assigned (the owner must join first)"}},
		{name: "re-join keeps in_progress",
			log:    started().join("opencode"),
			status: "T1=in_progress F=in_progress"},
		{name: "re-join does not move awaiting_review back",
			log:    review().join("opencode"),
			status: "T1=awaiting_review F=awaiting_review"},
		{name: "re-join does not touch accepted or shipped tasks",
			log:    shipped().join("opencode"),
			status: "T1=accepted F=shipped"},
		{name: "join moves only the joining seat's assigned tasks",
			log:    new(logb).init().assign("T1", "F", "opencode", "claude-opus").assign("T2", "F", "claude-opus", "gpt").join("opencode"),
			status: "T1=in_progress T2=assigned F=in_progress"},
		{name: "join before assign leaves the later task assigned until re-join",
			log:    new(logb).init().join("opencode").assign("T1", "F", "opencode", "claude-opus"),
			status: "T1=assigned F=planned"},
		{name: "re-join picks up a task assigned since",
			log:    new(logb).init().join("opencode").assign("T1", "F", "opencode", "claude-opus").join("opencode"),
			status: "T1=in_progress F=in_progress"},
		{name: "checkpoint twice",
			log:    review().checkpoint("opencode", "T1", "F"),
			want:   []rej{{5, CodeInvalidTransition, "T1", "F"}},
			status: "T1=awaiting_review F=awaiting_review"},
		{name: "accept from in_progress",
			log:    started().accept("claude-opus", "T1", "F"),
			want:   []rej{{4, CodeInvalidTransition, "T1", "F"}},
			status: "T1=in_progress F=in_progress"},
		{name: "changes from in_progress",
			log:    started().changes("claude-opus", "T1", "F"),
			want:   []rej{{4, CodeInvalidTransition, "T1", "F"}},
			status: "T1=in_progress F=in_progress"},
		{name: "accept twice",
			log:    review().accept("claude-opus", "T1", "F").accept("claude-opus", "T1", "F"),
			want:   []rej{{6, CodeInvalidTransition, "T1", "F"}},
			status: "T1=accepted F=accepted",
			msgs:   []string{"accept of T1 needs it awaiting_review, but it is accepted"}},
		{name: "changes after accept",
			log:    review().accept("claude-opus", "T1", "F").changes("claude-opus", "T1", "F"),
			want:   []rej{{6, CodeInvalidTransition, "T1", "F"}},
			status: "T1=accepted F=accepted"},
		{name: "checkpoint after accept",
			log:    review().accept("claude-opus", "T1", "F").checkpoint("opencode", "T1", "F"),
			want:   []rej{{6, CodeInvalidTransition, "T1", "F"}},
			status: "T1=accepted F=accepted"},
		{name: "events on a task of a shipped feature",
			log:    shipped().checkpoint("opencode", "T1", "F").accept("claude-opus", "T1", "F").changes("claude-opus", "T1", "F"),
			want:   []rej{{7, CodeInvalidTransition, "T1", "F"}, {8, CodeInvalidTransition, "T1", "F"}, {9, CodeInvalidTransition, "T1", "F"}},
			status: "T1=accepted F=shipped",
			msgs:   []string{"checkpoint of T1, whose feature F has already shipped", "changes_requested of T1, whose feature F has already shipped"}},
		{name: "assign into a shipped feature is not applied",
			log:    shipped().assign("T2", "F", "opencode", "claude-opus").checkpoint("opencode", "T2", "F"),
			want:   []rej{{7, CodeInvalidTransition, "T2", "F"}, {8, CodeTaskUnknown, "T2", "F"}},
			status: "T1=accepted F=shipped",
			msgs:   []string{"assign of T2 into feature F, which has already shipped"}},
		{name: "merge twice",
			log:    shipped().merge("lead", "F"),
			want:   []rej{{7, CodeInvalidTransition, "", "F"}},
			status: "T1=accepted F=shipped",
			msgs:   []string{"merge of feature F, which has already shipped on line 6"}},
		{name: "rule 2: merge before accept is not applied; a later merge ships",
			log:    started().merge("lead", "F").checkpoint("opencode", "T1", "F").accept("claude-opus", "T1", "F").merge("lead", "F"),
			want:   []rej{{4, CodeRule2Unaccepted, "", "F"}},
			status: "T1=accepted F=shipped",
			msgs:   []string{"merge of feature F while T1 is in_progress"}},
		{name: "rule 2 names every open task",
			log: review().assign("T2", "F", "claude-opus", "gpt").assign("T3", "F", "claude-opus", "gpt").accept("claude-opus", "T1", "F").
				merge("lead", "F"),
			want:   []rej{{8, CodeRule2Unaccepted, "", "F"}},
			status: "T1=accepted T2=assigned T3=assigned F=in_progress",
			msgs:   []string{"merge of feature F while T2 is assigned, T3 is assigned"}},
		{name: "a rejected merge lets tasks keep moving",
			log:    review().merge("lead", "F").changes("claude-opus", "T1", "F"),
			want:   []rej{{5, CodeRule2Unaccepted, "", "F"}},
			status: "T1=in_progress F=in_progress"},
	})
}

func TestFeatureStatusDerivation(t *testing.T) {
	t.Parallel()
	two := func() *logb {
		return new(logb).init().assign("T1", "F", "opencode", "claude-opus").assign("T2", "F", "claude-opus", "gpt")
	}
	cases := []struct {
		name string
		log  *logb
		want FeatureStatus
	}{
		{"all assigned is planned", two(), FeaturePlanned},
		{"one in progress", two().join("opencode"), FeatureInProgress},
		{"one awaiting review, one assigned", two().join("opencode").checkpoint("opencode", "T1", "F"), FeatureInProgress},
		{"all awaiting review", two().join("opencode").join("claude-opus").checkpoint("opencode", "T1", "F").checkpoint("claude-opus", "T2", "F"), FeatureAwaitingReview},
		{"awaiting review and accepted", two().join("opencode").join("claude-opus").checkpoint("opencode", "T1", "F").checkpoint("claude-opus", "T2", "F").
			accept("claude-opus", "T1", "F"), FeatureAwaitingReview},
		{"accepted and in progress after changes", two().join("opencode").join("claude-opus").checkpoint("opencode", "T1", "F").checkpoint("claude-opus", "T2", "F").
			accept("claude-opus", "T1", "F").changes("gpt", "T2", "F"), FeatureInProgress},
		{"all accepted", two().join("opencode").join("claude-opus").checkpoint("opencode", "T1", "F").checkpoint("claude-opus", "T2", "F").
			accept("claude-opus", "T1", "F").accept("gpt", "T2", "F"), FeatureAccepted},
		{"shipped", two().join("opencode").join("claude-opus").checkpoint("opencode", "T1", "F").checkpoint("claude-opus", "T2", "F").
			accept("claude-opus", "T1", "F").accept("gpt", "T2", "F").merge("lead", "F"), FeatureShipped},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := tc.log.replay()
			assertRejs(t, rejs(res), nil)
			if got := res.State.FeatureStatus("F"); got != tc.want {
				t.Errorf("FeatureStatus(F) = %s, want %s", got, tc.want)
			}
		})
	}
	t.Run("a feature exists once a task is assigned", func(t *testing.T) {
		t.Parallel()
		res := new(logb).init().replay()
		if len(res.State.Features) != 0 || res.State.FeatureStatus("F") != FeaturePlanned {
			t.Errorf("features after init only: %v", res.State.FeatureOrder)
		}
	})
}

// TestCheckOrder pins the per-event order of docs/semantics.md §1: when an event
// fails several checks, only the first is reported.
func TestCheckOrder(t *testing.T) {
	t.Parallel()
	runRuleCases(t, []ruleCase{
		{name: "1 envelope before 2 payload",
			log:  new(logb).init().raw("lead", "", TypeAssign, "T1", "", `{}`),
			want: []rej{{2, CodeSchemaEnvelope, "T1", ""}}},
		{name: "1 feature of the task before 2 payload",
			log:    started().raw("opencode", "", TypeCheckpoint, "T1", "G", `{}`),
			want:   []rej{{4, CodeSchemaEnvelope, "T1", "G"}},
			status: "T1=in_progress F=in_progress"},
		{name: "1 envelope before 3 role",
			log:  new(logb).init().raw("lead", RoleWorker, TypeMerge, "T1", "F", ""),
			want: []rej{{2, CodeSchemaEnvelope, "T1", "F"}}},
		{name: "2 payload before 3 role",
			log:    started().raw("opencode", RoleReviewer, TypeCheckpoint, "T1", "F", `{}`),
			want:   []rej{{4, CodeSchemaPayload, "T1", "F"}},
			status: "T1=in_progress F=in_progress"},
		{name: "2 payload before 4 init",
			log:  new(logb).raw("lead", "", TypeAssign, "T1", "F", `{}`),
			want: []rej{{1, CodeSchemaPayload, "T1", "F"}, noInit}},
		{name: "3 role before 4 init",
			log:  new(logb).raw("lead", RoleWorker, TypeAssign, "T1", "F", assignPayload("opencode", "claude-opus")),
			want: []rej{{1, CodeRoleMismatch, "T1", "F"}, noInit}},
		{name: "4 init before 5 roster",
			log:  new(logb).ev("ghost", TypeAssign, "T1", "F", assignPayload("opencode", "claude-opus")).init(),
			want: []rej{{1, CodeInitMissing, "T1", "F"}}},
		{name: "4 duplicate init before 5 invalid seat ids",
			log:  new(logb).init().raw("ghost", "", TypeInit, "", "", initPayload(`[{"id":"X","roles":[],"entry":""}]`)),
			want: []rej{{2, CodeInitDuplicate, "", ""}}},
		{name: "5 roster before 6 existence",
			log:  new(logb).init().checkpoint("ghost", "T9", "F"),
			want: []rej{{2, CodeUnknownSeat, "T9", "F"}}},
		{name: "5 role held before 6 existence",
			log:  new(logb).init().accept("opencode", "T9", "F"),
			want: []rej{{2, CodeRoleNotHeld, "T9", "F"}}},
		{name: "6 existence before 7 authorization",
			log:  new(logb).init().accept("gpt", "T9", "F"),
			want: []rej{{2, CodeTaskUnknown, "T9", "F"}}},
		{name: "7 authorization before 8 transition",
			log:    started().checkpoint("claude-opus", "T1", "F").accept("gpt", "T1", "F"),
			want:   []rej{{4, CodeTaskNotOwner, "T1", "F"}, {5, CodeNotReviewer, "T1", "F"}},
			status: "T1=in_progress F=in_progress"},
		{name: "7 self_accept before not_reviewer",
			log:    new(logb).init().assign("T2", "F", "claude-opus", "gpt").join("claude-opus").checkpoint("claude-opus", "T2", "F").accept("claude-opus", "T2", "F"),
			want:   []rej{{5, CodeSelfAccept, "T2", "F"}},
			status: "T2=awaiting_review F=awaiting_review"},
		{name: "5 roster before 9 rule 2",
			log:    started().merge("claude-opus", "F"),
			want:   []rej{{4, CodeRoleNotHeld, "", "F"}},
			status: "T1=in_progress F=in_progress"},
	})
}
