package checks

import (
	"strings"
	"testing"

	"github.com/pact-action/pact-action/projection"
)

// semanticsCodes is the code table of docs/semantics.md §6, in its order, with
// each code's severity.
var semanticsCodes = []struct {
	code     projection.Code
	severity Severity
}{
	{"log.malformed_json", SeverityError},
	{"log.duplicate_key", SeverityError},
	{"schema.envelope", SeverityError},
	{"schema.payload", SeverityError},
	{"event_id.missing", SeverityError},
	{"event_id.duplicate", SeverityError},
	{"role.mismatch", SeverityError},
	{"init.missing", SeverityError},
	{"init.duplicate", SeverityError},
	{"version.unsupported", SeverityError},
	{"roster.unknown_seat", SeverityError},
	{"roster.invalid_seat_id", SeverityError},
	{"roster.role_not_held", SeverityError},
	{"task.unknown", SeverityError},
	{"task.duplicate_id", SeverityError},
	{"task.unsafe_id", SeverityError},
	{"task.not_owner", SeverityError},
	{"rule1.owner_is_reviewer", SeverityError},
	{"rule1.self_accept", SeverityError},
	{"rule1.not_reviewer", SeverityError},
	{"state.invalid_transition", SeverityError},
	{"feature.unknown", SeverityError},
	{"rule2.unaccepted_tasks", SeverityError},
	{"drift.state", SeverityError},
	{"drift.missing_state", SeverityWarning},
	{"taskfile.mismatch", SeverityWarning},
	{"taskfile.missing", SeverityWarning},
	{"project.header", SeverityWarning},
	{"log.rewritten", SeverityError},
	{"pr.unaccepted_feature", SeverityPending},
	{"provenance.unverified", SeverityError},
	{"provenance.stale", SeverityError},
	{"pr.unmapped_branch", SeverityWarning},
}

// ownCodes are the codes this project adds after docs/semantics.md §6's, in order.
var ownCodes = []projection.Code{CodeProvenanceFutureTS, CodeConfigInvalid, CodeMergeConflict}

func TestCodeTableMatchesSemantics(t *testing.T) {
	t.Parallel()
	seen := map[projection.Code]int{}
	for i, c := range Table {
		seen[c.Code]++
		if c.Title == "" || c.Hint == "" {
			t.Errorf("%s: empty title or hint", c.Code)
		}
		if i < len(semanticsCodes) && c.Code != semanticsCodes[i].code {
			t.Errorf("Table[%d] = %s, SEMANTICS §6 has %s there", i, c.Code, semanticsCodes[i].code)
		}
	}
	for code, n := range seen {
		if n != 1 {
			t.Errorf("%s appears %d times in Table", code, n)
		}
	}
	for _, want := range semanticsCodes {
		info, ok := byCode[want.code]
		if !ok {
			t.Errorf("%s is missing from Table", want.code)
			continue
		}
		if info.Severity != want.severity {
			t.Errorf("%s: severity %s, SEMANTICS §6 says %s", want.code, info.Severity, want.severity)
		}
	}
	if len(Table) != len(semanticsCodes)+len(ownCodes) {
		t.Fatalf("Table has %d codes; want the %d of SEMANTICS §6 and then %v", len(Table), len(semanticsCodes), ownCodes)
	}
	for i, c := range ownCodes {
		if got := Table[len(semanticsCodes)+i].Code; got != c {
			t.Errorf("Table[%d] = %s, want %s", len(semanticsCodes)+i, got, c)
		}
	}
	if d := Describe("no.such_code"); d.Severity != SeverityError || d.Title != "no.such_code" {
		t.Errorf("Describe of an unknown code: %+v", d)
	}
}

func TestRunCleanPact(t *testing.T) {
	t.Parallel()
	in := input(new(logb).init().assign("T1", "F", "opencode", "claude-opus", "feat/f").join("opencode").bytes())
	if got := Run(in); len(got) != 0 {
		t.Errorf("a clean pact has findings: %v", shorts(got))
	}
	clean := loadPact(t, "testdata/pacts/clean")
	if got := Run(clean); len(got) != 0 {
		t.Errorf("testdata/pacts/clean has findings: %v", shorts(got))
	}
}

func TestRunReportsEveryReplayCode(t *testing.T) {
	t.Parallel()
	in := loadPact(t, "testdata/pacts/many")
	const log = ".pact/log.jsonl"
	e := SeverityError
	assertFindings(t, Run(in), []short{
		{CodeProjectHeader, SeverityWarning, ".pact/PROJECT.md", 5, "", ""},
		{CodeDrift, e, ".pact/STATE.yml", 0, "", ""},
		{projection.CodeMalformedJSON, e, log, 1, "", ""},
		{projection.CodeInitMissing, e, log, 2, "T0", "EARLY"},
		{projection.CodeInvalidSeatID, e, log, 3, "", ""},
		{projection.CodeInitDuplicate, e, log, 5, "", ""},
		{projection.CodeTaskDuplicateID, e, log, 8, "T1", "DOCS"},
		{projection.CodeTaskUnsafeID, e, log, 9, "../evil", "CLI"},
		{projection.CodeOwnerIsReviewer, e, log, 10, "T3", "CLI"},
		{projection.CodeUnknownSeat, e, log, 11, "T4", "CLI"},
		{projection.CodeRoleNotHeld, e, log, 12, "T5", "CLI"},
		{projection.CodeRoleMismatch, e, log, 13, "T6", "CLI"},
		{projection.CodeInvalidTransition, e, log, 14, "T1", "CLI"},
		{projection.CodeEventIDMissing, e, log, 16, "", ""},
		{projection.CodeTaskNotOwner, e, log, 17, "T1", "CLI"},
		{projection.CodeNotReviewer, e, log, 19, "T1", "CLI"},
		{projection.CodeSelfAccept, e, log, 21, "T2", "CLI"},
		{projection.CodeRule2Unaccepted, e, log, 22, "", "CLI"},
		{projection.CodeTaskUnknown, e, log, 23, "T9", ""},
		{projection.CodeFeatureUnknown, e, log, 24, "", "NOPE"},
		{projection.CodeSchemaEnvelope, e, log, 25, "", ""},
		{projection.CodeSchemaPayload, e, log, 26, "T1", "CLI"},
		{projection.CodeEventIDDuplicate, SeverityWarning, log, 28, "T1", "CLI"},
		{projection.CodeEventIDDuplicate, e, log, 29, "T2", "CLI"},
		{projection.CodeMalformedJSON, e, log, 32, "", ""},
		{projection.CodeMalformedJSON, e, log, 33, "", ""},
		{CodeTaskfileMismatch, SeverityWarning, ".pact/tasks/T1.md", 1, "T1", "CLI"},
		{CodeTaskfileMissing, SeverityWarning, ".pact/tasks/T2.md", 0, "T2", "CLI"},
	})
	// The final state shows what was applied: T1 accepted on line 27, T2
	// waiting for a review after the self-accept and the duplicate.
	st := in.Replay.State
	if st.Tasks["T1"].Status != projection.StatusAccepted || st.Tasks["T2"].Status != projection.StatusAwaitingReview {
		t.Errorf("T1 %s, T2 %s", st.Tasks["T1"].Status, st.Tasks["T2"].Status)
	}
}

func TestRunFindingFields(t *testing.T) {
	t.Parallel()
	l := new(logb).init().assign("T1", "F", "opencode", "claude-opus", "b").join("opencode").checkpoint("opencode", "T1").accept("opencode", "T1")
	got := Run(input(l.bytes()))
	if len(got) != 1 {
		t.Fatalf("findings %v", shorts(got))
	}
	f := got[0]
	want := Finding{Code: projection.CodeRoleNotHeld, Severity: SeverityError, Path: ".pact/log.jsonl", Line: 5, EventID: "e5", TaskID: "T1",
		Message: "seat opencode does not hold the reviewer role that accept events need (it holds worker)",
		Hint:    Describe(projection.CodeRoleNotHeld).Hint}
	if f != want {
		t.Errorf("finding:\n got  %+v\n want %+v", f, want)
	}
	t.Run("Dir names the paths", func(t *testing.T) {
		t.Parallel()
		in := input([]byte("x\n"))
		in.Dir = "sub/.pact"
		in.State = nil
		for _, f := range Run(in) {
			if !strings.HasPrefix(f.Path, "sub/.pact/") {
				t.Errorf("path %q", f.Path)
			}
		}
	})
}

func TestRunFailsClosedWithNothingElse(t *testing.T) {
	t.Parallel()
	in := loadPact(t, "testdata/pacts/unsupported")
	got := Run(in)
	assertFindings(t, got, []short{{projection.CodeVersionUnsupported, SeverityError, ".pact/log.jsonl", 3, "", ""}})
	if len(got) == 1 && !strings.Contains(got[0].Message, "upgrade") {
		t.Errorf("message %q does not say to upgrade", got[0].Message)
	}
	// Missing STATE.yml, PROJECT.md and task files change nothing.
	in.State, in.Project, in.TaskFiles = nil, nil, nil
	if n := len(Run(in)); n != 1 {
		t.Errorf("%d findings with missing files", n)
	}
}

func TestRunMissingFiles(t *testing.T) {
	t.Parallel()
	in := input(new(logb).init().assign("T1", "F", "opencode", "claude-opus", "b").bytes())
	in.State, in.Project = nil, nil
	delete(in.TaskFiles, "T1")
	assertFindings(t, Run(in), []short{
		{CodeProjectHeader, SeverityWarning, ".pact/PROJECT.md", 0, "", ""},
		{CodeDriftMissing, SeverityWarning, ".pact/STATE.yml", 0, "", ""},
		{CodeTaskfileMissing, SeverityWarning, ".pact/tasks/T1.md", 0, "T1", "F"},
	})
	if c := Count(Run(in)); c.Errors != 0 || c.Warnings != 3 {
		t.Errorf("counts %+v", c)
	}
}

func TestSortOrder(t *testing.T) {
	t.Parallel()
	fs := []Finding{
		{Path: "b", Line: 0, Code: "a"},
		{Path: "b", Line: 2, Code: "z"},
		{Path: "a", Line: 9, Code: "m"},
		{Path: "b", Line: 2, Code: "c", Message: "first"},
		{Path: "b", Line: 1, Code: "z"},
		{Path: "b", Line: 2, Code: "c", Message: "second"},
		{Path: "b", Line: 0, Code: "0"},
	}
	Sort(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Path+":"+itoa(f.Line)+":"+string(f.Code)+f.Message)
	}
	want := "a:9:m b:1:z b:2:cfirst b:2:csecond b:2:z b:0:0 b:0:a"
	if strings.Join(got, " ") != want {
		t.Errorf("Sort:\n got  %s\n want %s", strings.Join(got, " "), want)
	}
}

func itoa(n int) string {
	s := ""
	if n == 0 {
		return "0"
	}
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// TestRunMergeConflict: git's conflict markers in the log or STATE.yml are
// one finding, on the first marker, and nothing else is judged
// (docs/semantics.md §8).
func TestRunMergeConflict(t *testing.T) {
	t.Parallel()
	l := new(logb).init().assign("T1", "F", "opencode", "claude-opus", "b")
	conflicted := append(append([]byte(nil), l.bytes()...), "<<<<<<< HEAD\n{}\n=======\n{\"x\":1}\n>>>>>>> main\n"...)
	clean := input(l.bytes())
	for _, c := range []struct {
		name  string
		in    func() Input
		want  []short
		about string
	}{
		{"markers in the log", func() Input { return input(conflicted) },
			[]short{{CodeMergeConflict, SeverityError, ".pact/log.jsonl", 3, "", ""}}, "line 3"},
		{"markers in STATE.yml", func() Input {
			in := input(l.bytes())
			in.State = append([]byte("tasks:\n"), "<<<<<<< HEAD\n=======\n>>>>>>> main\n"...)
			return in
		}, []short{{CodeMergeConflict, SeverityError, ".pact/STATE.yml", 2, "", ""}}, "line 2"},
		{"the log's marker first", func() Input {
			in := input(conflicted)
			in.State = []byte("=======\n")
			return in
		}, []short{{CodeMergeConflict, SeverityError, ".pact/log.jsonl", 3, "", ""}}, "line 3"},
		{"a STATE.yml a loader found to be the render holds none", func() Input {
			in := input(l.bytes())
			in.State, in.StateMatched = []byte("=======\n"), true
			return in
		}, nil, ""},
		{"none", func() Input { return clean }, nil, ""},
	} {
		got := Run(c.in())
		assertFindings(t, got, c.want)
		if c.about != "" && (len(got) != 1 || !strings.Contains(got[0].Message, c.about) || !strings.Contains(got[0].Message, "merge")) {
			t.Errorf("%s: %v does not say which line a merge left", c.name, got)
		}
	}
}
