package checks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

func TestTaskFiles(t *testing.T) {
	t.Parallel()
	base := input(new(logb).init().assign("T1", "F", "opencode", "claude-opus", "b").assign("T2", "G", "claude-opus", "gpt", "b").bytes())
	tf := func(id, feature, owner, reviewer string) []byte {
		return []byte("---\nid: " + id + "\nfeature: " + feature + "\nowner: " + owner + "\nreviewer: " + reviewer + "\n---\n")
	}
	cases := []struct {
		name string
		t1   []byte
		want []short
		msg  string
	}{
		{"mirrors the log", tf("T1", "F", "opencode", "claude-opus"), nil, ""},
		{"missing", nil, []short{{CodeTaskfileMissing, SeverityWarning, ".pact/tasks/T1.md", 0, "T1", "F"}}, "task T1 has no task file .pact/tasks/T1.md"},
		{"id differs", tf("T9", "F", "opencode", "claude-opus"), []short{{CodeTaskfileMismatch, SeverityWarning, ".pact/tasks/T1.md", 1, "T1", "F"}},
			`frontmatter of task T1: id is "T9" but the log says "T1"`},
		{"feature differs", tf("T1", "G", "opencode", "claude-opus"), []short{{CodeTaskfileMismatch, SeverityWarning, ".pact/tasks/T1.md", 1, "T1", "F"}},
			`feature is "G" but the log says "F"`},
		{"owner differs", tf("T1", "F", "gpt", "claude-opus"), []short{{CodeTaskfileMismatch, SeverityWarning, ".pact/tasks/T1.md", 1, "T1", "F"}},
			`owner is "gpt" but the log says "opencode"`},
		{"reviewer differs", tf("T1", "F", "opencode", "gpt"), []short{{CodeTaskfileMismatch, SeverityWarning, ".pact/tasks/T1.md", 1, "T1", "F"}},
			`reviewer is "gpt" but the log says "claude-opus"`},
		{"all differ: one finding naming each", tf("X", "Y", "Z", "W"), []short{{CodeTaskfileMismatch, SeverityWarning, ".pact/tasks/T1.md", 1, "T1", "F"}},
			`id is "X" but the log says "T1"; feature is "Y" but the log says "F"; owner is "Z" but the log says "opencode"; reviewer is "W" but the log says "claude-opus"`},
		{"a field missing", []byte("---\nid: T1\nfeature: F\nowner: opencode\n---\n"), []short{{CodeTaskfileMismatch, SeverityWarning, ".pact/tasks/T1.md", 1, "T1", "F"}},
			`reviewer is "" but the log says "claude-opus"`},
		{"no frontmatter: no line", []byte("## Spec\n"), []short{{CodeTaskfileMismatch, SeverityWarning, ".pact/tasks/T1.md", 0, "T1", "F"}},
			"does not start with a --- frontmatter line"},
		{"present but empty", []byte{}, []short{{CodeTaskfileMismatch, SeverityWarning, ".pact/tasks/T1.md", 0, "T1", "F"}}, "does not start"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := base
			in.TaskFiles = map[string][]byte{"T2": tf("T2", "G", "claude-opus", "gpt")}
			if tc.t1 != nil {
				in.TaskFiles["T1"] = tc.t1
			}
			got := taskFiles(in, in.Replay.State)
			assertFindings(t, got, tc.want)
			if len(got) == 1 && !strings.Contains(got[0].Message, tc.msg) {
				t.Errorf("message %q does not contain %q", got[0].Message, tc.msg)
			}
		})
	}
	t.Run("rejected assigns need no task file", func(t *testing.T) {
		t.Parallel()
		in := input(new(logb).init().assign("../x", "F", "opencode", "gpt", "b").assign("T3", "F", "gpt", "gpt", "b").bytes())
		if got := taskFiles(in, in.Replay.State); len(got) != 0 {
			t.Errorf("findings %v", shorts(got))
		}
	})
	t.Run("the first assign of a duplicated id is mirrored", func(t *testing.T) {
		t.Parallel()
		in := input(new(logb).init().assign("T1", "F", "opencode", "claude-opus", "b").assign("T1", "G", "claude-opus", "gpt", "b").bytes())
		in.TaskFiles["T1"] = tf("T1", "G", "claude-opus", "gpt")
		got := taskFiles(in, in.Replay.State)
		if len(got) != 1 || !strings.Contains(got[0].Message, `feature is "G" but the log says "F"`) {
			t.Errorf("findings %v", got)
		}
	})
}

// TestTaskFilesMatched: a task a loader found to match is not looked up
// again, whatever TaskFiles holds for it.
func TestTaskFilesMatched(t *testing.T) {
	t.Parallel()
	in := input(new(logb).init().assign("T1", "F", "opencode", "claude-opus", "b").assign("T2", "G", "claude-opus", "gpt", "b").bytes())
	in.TaskFiles = map[string][]byte{}
	in.TaskFilesMatched = map[string]bool{"T1": true}
	assertFindings(t, taskFiles(in, in.Replay.State), []short{{CodeTaskfileMissing, SeverityWarning, ".pact/tasks/T2.md", 0, "T2", "G"}})
}

// TestTaskListing: with a listing of tasks/, a task it does not name is
// missing whatever was read, and only the files read are judged for their
// front matter (docs/semantics.md §7 "Task files").
func TestTaskListing(t *testing.T) {
	t.Parallel()
	in := input(new(logb).init().assign("T1", "F", "opencode", "claude-opus", "b").assign("T2", "G", "claude-opus", "gpt", "b").bytes())
	wrong := pactfile.TaskFile(pactfile.Task{ID: "T1", Feature: "F", Owner: "gpt", Reviewer: "claude-opus"}, nil)
	mismatch := short{CodeTaskfileMismatch, SeverityWarning, ".pact/tasks/T1.md", 1, "T1", "F"}
	missing := func(id, feature string) short {
		return short{CodeTaskfileMissing, SeverityWarning, ".pact/tasks/" + id + ".md", 0, id, feature}
	}
	cases := []struct {
		name    string
		listing map[string]bool
		read    map[string][]byte
		matched map[string]bool
		want    []short
	}{
		{"both listed, none read", map[string]bool{"T1": true, "T2": true}, nil, nil, nil},
		{"listed, read and wrong", map[string]bool{"T1": true, "T2": true}, map[string][]byte{"T1": wrong}, nil, []short{mismatch}},
		{"listed, read and matched", map[string]bool{"T1": true, "T2": true}, nil, map[string]bool{"T1": true}, nil},
		{"one not listed", map[string]bool{"T1": true}, nil, nil, []short{missing("T2", "G")}},
		{"an empty listing", map[string]bool{}, nil, nil, []short{missing("T1", "F"), missing("T2", "G")}},
		{"read but not listed: the listing decides", map[string]bool{"T2": true}, map[string][]byte{"T1": wrong}, map[string]bool{"T1": true}, []short{missing("T1", "F")}},
		{"no listing: what was read decides", nil, map[string][]byte{"T1": wrong}, nil, []short{mismatch, missing("T2", "G")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := in
			in.TaskListing, in.TaskFiles, in.TaskFilesMatched = tc.listing, tc.read, tc.matched
			got := taskFiles(in, in.Replay.State)
			Sort(got)
			assertFindings(t, got, tc.want)
		})
	}
}

// TestTaskFileFastPath: a file with exactly pactify's front matter, or the
// same meaning in other bytes, mirrors the task; the verdict on a file never
// depends on which path judged it.
func TestTaskFileFastPath(t *testing.T) {
	t.Parallel()
	task := &projection.Task{ID: "T1", Feature: "yes", Owner: "opencode", Reviewer: "claude-opus"}
	fm := pactfile.Task{ID: "T1", Feature: "yes", Owner: "opencode", Reviewer: "claude-opus"}
	for name, b := range map[string][]byte{
		"as pactify writes it":       pactfile.TaskFile(fm, nil),
		"same meaning, other quotes": []byte("---\nid: T1\nfeature: 'yes'\nowner: opencode\nreviewer: claude-opus\n---\n"),
		"YAML 1.2 reads yes as yes":  []byte("---\nid: T1\nfeature: yes\nowner: opencode\nreviewer: claude-opus\n---\n"),
		"CRLF":                       []byte("---\r\nid: T1\r\nfeature: \"yes\"\r\nowner: opencode\r\nreviewer: claude-opus\r\n---\r\n"),
	} {
		if f, bad := TaskFile(".pact/tasks/T1.md", task, b); bad {
			t.Errorf("%s: finding %v", name, f)
		}
	}
	f, bad := TaskFile(".pact/tasks/T1.md", task, pactfile.TaskFile(pactfile.Task{ID: "T1", Feature: "yes", Owner: "gpt", Reviewer: "claude-opus"}, nil))
	if !bad || f.Code != CodeTaskfileMismatch || f.Line != 1 || f.Message != `frontmatter of task T1: owner is "gpt" but the log says "opencode"` {
		t.Errorf("another owner: got %+v, %v", f, bad)
	}
}

// TestMissingTaskFilesSummarised: beyond MaxListed, missing task files
// are one finding that counts them (Run's cap, docs/semantics.md §7).
func TestMissingTaskFilesSummarised(t *testing.T) {
	t.Parallel()
	l := new(logb).init()
	const tasks = MaxListed + 42
	for i := 1; i <= tasks; i++ {
		l.assign(fmt.Sprintf("T%d", i), "F", "opencode", "claude-opus", "b")
	}
	in := input(l.bytes())
	in.TaskFiles = map[string][]byte{"T2": pactfile.TaskFile(pactfile.Task{ID: "T2", Feature: "F", Owner: "opencode", Reviewer: "claude-opus"}, nil)}
	var got []Finding
	for _, f := range Run(in) {
		if f.Code == CodeTaskfileMissing {
			got = append(got, f)
		}
	}
	if len(got) != MaxListed+1 || Count(got).Warnings != tasks-1 {
		t.Fatalf("%d findings counting %d, want %d counting %d", len(got), Count(got).Warnings, MaxListed+1, tasks-1)
	}
	sum := got[len(got)-1]
	for i, f := range got[:MaxListed] {
		if f.Severity != SeverityWarning || f.TaskID == "T2" || f.Omitted != 0 || !strings.Contains(f.Message, "has no task file") {
			t.Fatalf("finding %d: %+v", i, f)
		}
	}
	if sum.Severity != SeverityWarning || sum.Line != 0 || sum.Omitted != 41 || sum.Message != "41 more findings with this code not listed (only the first 100 of each code are)" {
		t.Errorf("summary finding %+v", sum)
	}
}

func TestProjectHeader(t *testing.T) {
	t.Parallel()
	_, replayed := projection.ReadEvents(new(logb).init().bytes())
	st := replayed.State
	empty := projection.NewState()
	block := func(inner string) string { return pactfile.BlockBegin + "\n" + inner + "\n" + pactfile.BlockEnd + "\n" }
	cases := []struct {
		name    string
		doc     *string
		st      *projection.State
		line    int
		msg     string
		nothing bool
	}{
		{name: "no PROJECT.md", doc: nil, st: st, line: 0, msg: "there is no PROJECT.md"},
		{name: "spec header", doc: ptr("# Charter\n\n" + block("# demo — Pact Charter (protocol_version: 1)")), st: st, nothing: true},
		{name: "no space after the colon", doc: ptr(block("protocol_version:1")), st: st, nothing: true},
		{name: "CRLF", doc: ptr("a\r\n" + pactfile.BlockBegin + "\r\n# demo (protocol_version: 1)\r\n" + pactfile.BlockEnd + "\r\n"), st: st, nothing: true},
		{name: "no managed block", doc: ptr("# demo (protocol_version: 1)\n"), st: st, line: 0, msg: "has no managed block"},
		{name: "only the begin marker", doc: ptr(pactfile.BlockBegin + "\nprotocol_version: 1\n"), st: st, line: 0, msg: "has no managed block"},
		{name: "markers reversed", doc: ptr(pactfile.BlockEnd + "\nprotocol_version: 1\n" + pactfile.BlockBegin + "\n"), st: st, line: 0, msg: "has no managed block"},
		{name: "end marker quoted in prose before the block", doc: ptr("Do not edit below " + pactfile.BlockEnd + ".\n\n" + block("# demo (protocol_version: 1)")), st: st, nothing: true},
		{name: "annotation outside the block only", doc: ptr("protocol_version: 1\n\n\n" + block("# demo")), st: st, line: 4,
			msg: "the managed block of PROJECT.md has no protocol_version annotation"},
		{name: "annotation disagrees", doc: ptr("# a\n\n" + block("# demo (protocol_version: 2)")), st: st, line: 3,
			msg: "PROJECT.md says protocol_version 2 but the log's init says 1"},
		{name: "annotation overflows", doc: ptr(block("protocol_version: 99999999999999999999999")), st: st, line: 1,
			msg: "PROJECT.md says protocol_version 99999999999999999999999 but the log's init says 1"},
		{name: "no init to disagree with", doc: ptr(block("protocol_version: 7")), st: empty, nothing: true},
		{name: "first annotation in the block counts", doc: ptr(block("protocol_version: 1\nprotocol_version: 2")), st: st, nothing: true},
		// Prose that mentions the markers is no block: only markers on
		// lines of their own are (pactfile.ParseBlock, as init writes them).
		{name: "markers mentioned in prose before the block", doc: ptr("We use " + pactfile.BlockBegin + " and " + pactfile.BlockEnd + " markers.\n" + block("# demo (protocol_version: 1)")), st: st, nothing: true},
		{name: "markers mentioned in prose only", doc: ptr("We use " + pactfile.BlockBegin + " protocol_version: 1 " + pactfile.BlockEnd + " markers.\n"), st: st, line: 0, msg: "has no managed block"},
		{name: "a marker with text after it on its line", doc: ptr(pactfile.BlockBegin + " protocol_version: 1\n" + pactfile.BlockEnd + "\n"), st: st, line: 0, msg: "has no managed block"},
		{name: "markers with trailing blanks", doc: ptr("a\n" + pactfile.BlockBegin + " \t\r\n# demo (protocol_version: 1)\n" + pactfile.BlockEnd + "  \n"), st: st, nothing: true},
		{name: "a stray begin above the block is not its start", doc: ptr(pactfile.BlockBegin + "\nprotocol_version: 2\n" + block("# demo (protocol_version: 1)")), st: st, nothing: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var doc []byte
			if tc.doc != nil {
				doc = []byte(*tc.doc)
			}
			got := projectHeader(".pact/PROJECT.md", doc, tc.st)
			if tc.nothing {
				assertFindings(t, got, nil)
				return
			}
			assertFindings(t, got, []short{{CodeProjectHeader, SeverityWarning, ".pact/PROJECT.md", tc.line, "", ""}})
			if len(got) == 1 && !strings.Contains(got[0].Message, tc.msg) {
				t.Errorf("message %q does not contain %q", got[0].Message, tc.msg)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// TestProjectHeaderReadsWhatInitWrites: the block init writes into
// PROJECT.md (pactfile.ReplaceBlock of pactfile.FormatCharter) is the one
// validate reads its protocol_version from, whatever the file held before,
// so the hint of project.header (run pactify init) always clears it.
func TestProjectHeaderReadsWhatInitWrites(t *testing.T) {
	t.Parallel()
	_, replayed := projection.ReadEvents(new(logb).init().bytes())
	st := replayed.State
	charter := pactfile.FormatCharter(pactfile.Charter{Project: "demo", ProtocolVersion: 1, BaseBranch: "main", Log: ".pact/log.jsonl",
		Seats: []pactfile.Seat{{ID: "lead", Roles: []string{"orchestrator"}, Entry: "AGENTS.md"}}})
	B, E := pactfile.BlockBegin, pactfile.BlockEnd
	for name, text := range map[string]string{
		"new file":                          "",
		"charter above":                     "# Charter\n\nGoals.\n",
		"old block":                         "# Charter\n" + B + "\n# demo — Pact Charter (protocol_version: 0)\n" + E + "\nafter\n",
		"stray begin above":                 "intro\n" + B + "\nuser stuff\n",
		"markers quoted in prose":           "Never edit between " + B + " and " + E + " by hand.\n",
		"markers quoted, then an old block": "We use " + B + " markers.\n" + B + "\nold\n" + E + "\n",
	} {
		before := projectHeader("PROJECT.md", []byte(text), st)
		got := pactfile.ReplaceBlock(text, charter)
		if f := projectHeader("PROJECT.md", []byte(got), st); len(f) != 0 {
			t.Errorf("%s: validate does not see the block init wrote: %s\n%s", name, f[0].Message, got)
		}
		if len(before) != 1 {
			t.Errorf("%s: validate finds %d findings before init, want 1", name, len(before))
		}
	}
}
