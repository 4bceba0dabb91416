package checks

import (
	"strings"
	"testing"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

func TestShellWord(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"demo":                     "demo",
		"lead:orchestrator,x:A.md": "lead:orchestrator,x:A.md",
		"docs/.pact":               "docs/.pact",
		"my project":               `"my project"`,
		`a"b`:                      `"a\"b"`,
		"$HOME":                    `"\$HOME"`,
		"a`b":                      "\"a\\`b\"",
		`a\b`:                      `"a\\b"`,
		"":                         `""`,
		"it's":                     `"it's"`,
	} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestSituationHints: the hints chosen for a finding's situation name the
// command for it (cmd/pactify's TestHintsWork runs them).
func TestSituationHints(t *testing.T) {
	t.Parallel()
	seats := []projection.Seat{{ID: "lead", Roles: []string{"orchestrator", "reviewer"}, Entry: "CLAUDE.md"}, {ID: "dev", Roles: []string{"worker"}, Entry: "my notes/AGENTS.md"}}
	for _, tc := range []struct {
		name, got string
		want      []string
		not       []string
	}{
		{name: "init.missing on an empty log", got: initMissingHint(&projection.Scan{Lines: 0}),
			want: []string{"`pactify init --project <name>"}, not: []string{"git rm"}},
		{name: "init.missing on a log with lines", got: initMissingHint(&projection.Scan{Lines: 3}),
			want: []string{"`git rm .pact/log.jsonl`, then `pactify init --project <name>"}},
		{name: "project.header of an initialised pact", got: reinitHint(".pact/PROJECT.md", &projection.State{Initialized: true, Project: "demo", BaseBranch: "main", Seats: seats}),
			want: []string{"`pactify init --project demo --seat lead:orchestrator,reviewer:CLAUDE.md --seat \"dev:worker:my notes/AGENTS.md\"`"},
			not:  []string{"--base-branch", "--pact-dir"}},
		{name: "project.header elsewhere, another base", got: reinitHint("docs/.pact/PROJECT.md", &projection.State{Initialized: true, Project: "my app", BaseBranch: "trunk", Seats: seats[:1]}),
			want: []string{"`pactify init --project \"my app\" --seat lead:orchestrator,reviewer:CLAUDE.md --base-branch trunk --pact-dir docs/.pact`"}},
		{name: "project.header with no init", got: reinitHint(".pact/PROJECT.md", &projection.State{}),
			want: []string{Describe(CodeProjectHeader).Hint}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.got, w) {
				t.Errorf("%s: hint %q lacks %q", tc.name, tc.got, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(tc.got, n) {
				t.Errorf("%s: hint %q says %q", tc.name, tc.got, n)
			}
		}
	}
}

// TestInPactDir: under another pact directory the hints name its files;
// a path already there, and the default directory, are left alone, so a
// second pass changes nothing.
func TestInPactDir(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ dir, in, want string }{
		{"docs/.pact", "`git checkout <base> -- .pact/log.jsonl .pact/STATE.yml` puts back", "`git checkout <base> -- docs/.pact/log.jsonl docs/.pact/STATE.yml` puts back"},
		{"docs/.pact", "A PR that only changes .pact/ is never blocked.", "A PR that only changes docs/.pact/ is never blocked."},
		{"docs/.pact", "`git checkout -m docs/.pact/log.jsonl`", "`git checkout -m docs/.pact/log.jsonl`"},
		{"docs/.pact", "--pact-dir docs/.pact`", "--pact-dir docs/.pact`"},
		{"pact", "(.pact/log.jsonl)", "(pact/log.jsonl)"},
		{".pact", "`git checkout <base> -- .pact/log.jsonl`", "`git checkout <base> -- .pact/log.jsonl`"},
		{"docs\\.pact", ".pact/STATE.yml", "docs/.pact/STATE.yml"},
	} {
		once := inPactDir([]Finding{{Hint: tc.in}}, pactfile.Layout(tc.dir))[0].Hint
		twice := inPactDir([]Finding{{Hint: once}}, pactfile.Layout(tc.dir))[0].Hint
		if once != tc.want || twice != once {
			t.Errorf("%s: %q -> %q, then %q; want %q", tc.dir, tc.in, once, twice, tc.want)
		}
	}
}
