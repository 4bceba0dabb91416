package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/projection"
)

// surfaces renders text someone else wrote (as a branch, a task id, a
// seat, a login, a finding's message and hint) through every rendering
// GitHub or a terminal shows, by name.
func surfaces(t *testing.T, s string) map[string]string {
	t.Helper()
	st := projection.NewState()
	st.Initialized = true
	st.Tasks[s] = &projection.Task{ID: s, Feature: s, Owner: s, Reviewer: s, Branch: s, Status: projection.StatusAwaitingReview}
	st.TaskOrder = []string{s}
	st.Features[s] = &projection.Feature{ID: s, Tasks: []string{s}}
	st.FeatureOrder = []string{s}
	findings := []checks.Finding{
		{Code: checks.CodePRUnaccepted, Severity: checks.SeverityPending, Path: ".pact/log.jsonl", Line: 2, TaskID: s, Message: "waiting for " + s, Hint: s},
		{Code: projection.CodeMalformedJSON, Severity: checks.SeverityError, Path: ".pact/tasks/" + s + ".md", Message: s, Hint: "hint " + s},
	}
	v := Verdict{CheckName: s, HeadBranch: s, HeadSHA: strings.Repeat("a", 40), Findings: findings, State: st, Note: s,
		Requested: map[string][]checks.Reviewer{s: {{Login: s}, {Team: s}}}, RequestNotes: []string{s}}
	out := map[string]string{
		"Escape": Escape(s), "Code": Code(s), "Fence": Fence(s, s), "Reviewers": reviewers([]checks.Reviewer{{Login: s}, {Team: s}}),
		"Summary": Summary(v), "Text": Text(findings), "NotJudged": NotJudged(s, s, Stopped(s, true)), "Plain": Plain(s),
	}
	for i, a := range annotations(findings) {
		out["annotation title "+string(rune('0'+i))] = a.Title
		out["annotation message "+string(rune('0'+i))] = a.Message
		out["annotation path "+string(rune('0'+i))] = a.Path
	}
	var text, check, sarif bytes.Buffer
	if WriteText(&text, findings) != nil || WriteCheckText(&check, v) != nil || WriteSARIF(&sarif, testTool, findings) != nil {
		t.Fatal("a rendering failed")
	}
	out["WriteText"], out["WriteCheckText"] = text.String(), check.String()
	var doc struct {
		Runs []struct {
			Results []struct {
				Message struct{ Text string } `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(sarif.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Runs[0].Results {
		out["SARIF message"] += r.Message.Text + "\n"
	}
	return out
}

// unescapedHidden returns the first hidden character in out that is not
// a line feed or tab, nor the zero-width space Escape puts after @ and #
// (its own, for inertness), or -1.
func unescapedHidden(out string) rune {
	prev := rune(0)
	for _, r := range out {
		ours := r == '\u200b' && (prev == '@' || prev == '#')
		if hiddenAfter(prev, r) && r != '\n' && r != '\t' && !ours {
			return r
		}
		prev = r
	}
	return -1
}

// TestHiddenCharactersShown: every bidirectional control and zero-width
// character of docs/semantics.md's list, in a branch name, a task id, a
// seat, a login or a message, is written out as an escape in every
// rendering: the check run's summary and text, annotations, the job
// summary (Summary, NotJudged), SARIF, the terminal; the bot's replies
// quote through Escape, Code and Fence.
func TestHiddenCharactersShown(t *testing.T) {
	t.Parallel()
	for _, r := range []rune{0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c,
		0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x180e, 0x00ad, 0x2028, 0x2029, 0x1b, 0x7f, 0x85, 0xe0041,
		// Shown as nothing though neither control nor format character:
		// the combining grapheme joiner, Hangul fillers, variation selectors.
		0x034f, 0x115f, 0x1160, 0x3164, 0xffa0, 0xfe00, 0xfe0f, 0xe0100, 0x180b, 0x180f} {
		s := "feat/" + string(r) + "x@y#1"
		for name, out := range surfaces(t, s) {
			if got := unescapedHidden(out); got != -1 {
				t.Errorf("%U: %s keeps %U:\n%q", r, name, got, out)
			}
		}
	}
}

// FuzzHiddenCharacters: whatever someone else wrote, no rendering carries
// a hidden character of theirs (visible's list) as it is.
//
//	go test ./report/ -run '^$' -fuzz '^FuzzHiddenCharacters$' -fuzztime 20s
func FuzzHiddenCharacters(f *testing.F) {
	for _, s := range []string{"", "feat/\u202elogin", "T\u200b1", "@x\u2066", "\xff\u200d", "a`b|c\u2029"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, out := range surfaces(t, s) {
			if got := unescapedHidden(out); got != -1 {
				t.Fatalf("%s of %q keeps %U:\n%q", name, s, got, out)
			}
		}
	})
}

// TestVariationSelectorOfASymbol: an emoji's presentation selector
// ("⚠️", "❤︎") is part of how the symbol is drawn and stays; the same
// selector after a letter or a digit ("T1" + U+FE0F reads as "T1") is
// written out.
func TestVariationSelectorOfASymbol(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"⚠\ufe0f done", "⚠\ufe0f done"},
		{"❤\ufe0e", "❤\ufe0e"},
		{"T1\ufe0f", `T1\ufe0f`},
		{"T1\ufe0e", `T1\ufe0e`},
		{"⚠\ufe00", `⚠\ufe00`},
		{"\ufe0fT1", `\ufe0fT1`},
	} {
		if got := Plain(tc.in); got != tc.want {
			t.Errorf("Plain(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := PlainText(tc.in); got != tc.want {
			t.Errorf("PlainText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
