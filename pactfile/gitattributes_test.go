package pactfile

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestGitAttributesLine(t *testing.T) {
	t.Parallel()
	for dir, want := range map[Layout]string{
		"":          ".pact/** text eol=lf",
		".pact":     ".pact/** text eol=lf",
		`docs\pact`: "docs/pact/** text eol=lf",
		"my pact":   `"my pact/**" text eol=lf`,
		"a*b[c]?":   `a\*b\[c]\?/** text eol=lf`,
		"#x":        `\#x/** text eol=lf`,
		"!x":        `\!x/** text eol=lf`,
		`q"uote`:    `"q\"uote/**" text eol=lf`,
		"sp ace*":   `"sp ace\\*/**" text eol=lf`,
	} {
		if got := GitAttributesLine(dir); got != want {
			t.Errorf("GitAttributesLine(%q) = %s, want %s", dir, got, want)
		}
	}
}

// gitAttributesCases are .gitattributes texts and whether they keep the
// line endings of the pact in dir. gitDiffers marks where KeepsLF is
// knowingly stricter than git: it says "no" to a rule it does not read,
// never "yes" to one git would not apply.
var gitAttributesCases = []struct {
	dir        Layout
	text       string
	want       bool
	gitDiffers bool
}{
	{".pact", "", false, false},
	{".pact", ".pact/** text eol=lf\n", true, false},
	{".pact", ".pact/** text eol=lf", true, false}, // no final newline
	{".pact", ".pact/** text eol=lf\r\n", true, false},
	{".pact", BOM + ".pact/** text eol=lf\n", true, false},
	{".pact", "  .pact/**\ttext   eol=lf  \n", true, false},
	{".pact", "* -text\n", true, false},
	{".pact", "* binary\n", true, false},
	{".pact", "* text=auto\n", false, false},
	{".pact", "* text=auto eol=lf\n", true, false},
	{".pact", "* text\n", false, false},
	{".pact", "* eol=crlf\n", false, false},
	{".pact", "*.jsonl -text\n", false, false}, // STATE.yml and the rest are converted
	{".pact", "*.jsonl -text\n*.yml -text\n*.md -text\n", true, false},
	{".pact", ".pact/** -text\n", true, false},
	{".pact", "/.pact/** -text\n", true, false},
	{".pact", ".pact/** -text\n.pact/** text\n", false, false},
	{".pact", ".pact/** text\n.pact/** -text\n", true, false},
	{".pact", ".pact/** eol=lf\n*.md eol=crlf\n", false, false},
	{".pact", ".pact/** eol=lf\n*.md !eol\n", false, false},
	{".pact", ".pact/ -text\n", false, false}, // a directory's own attributes
	{".pact", ".pact -text\n", false, false},
	{".pact", ".pact/* -text\n", false, false}, // not the task files, one level down
	{".pact", ".pact/**/* -text\n", true, false},
	{".pact", "**/.pact/** eol=lf\n", true, false},
	{".pact", "!.pact/** -text\n", false, false},
	{".pact", "# .pact/** -text\n", false, false},
	{".pact", ".pact/** text eol=lf\n.pact/tasks/** eol=crlf\n", false, false},
	{".pact", "* -text\n.pact/tasks/** text\n", false, false},
	{".pact", ".pac[!x]/** -text\n", true, false},
	{".pact", ".pac?/** -text\n", true, false},
	{".pact", "pact/** -text\n", false, false},
	{".pact", `".pact/**" -text` + "\n", true, false},
	{".pact", "[attr]lf text eol=lf\n.pact/** lf\n", false, true}, // macros are not read
	{"docs/pact", "docs/pact/** text eol=lf\n", true, false},
	{"docs/pact", "pact/** text eol=lf\n", false, false},
	{"docs/pact", "docs/** -text\n", true, false},
	{"docs/pact", "/docs/*/** -text\n", true, false},
	{"docs/pact", "**/pact/** -text\n", true, false},
	{"my pact", `"my pact/**" text eol=lf` + "\n", true, false},
	{"a*b", `a\*b/** -text` + "\n", true, false},
	{"a*b", "a*b/** -text\n", true, false}, // the glob matches its own name
	{"axb", `a\*b/** -text` + "\n", false, false},
}

func TestKeepsLF(t *testing.T) {
	t.Parallel()
	for _, c := range gitAttributesCases {
		if got := KeepsLF([]byte(c.text), c.dir); got != c.want {
			t.Errorf("KeepsLF(%q, %q) = %v, want %v", c.text, c.dir, got, c.want)
		}
	}
}

// TestKeepsLFAgreesWithGit asks git itself (git check-attr) about every
// case: KeepsLF must say what git does, but where a case is marked.
func TestKeepsLFAgreesWithGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: it is the oracle of this test")
	}
	cases := slices.Clone(gitAttributesCases)
	// GitAttributesLine's own escaping, for names that need it.
	for _, odd := range []Layout{"#x", "!x", `q"uote`, "sp ace*", "a?b[c]", " lead", "tab\tbed"} {
		c := cases[0]
		c.dir, c.text, c.want = odd, GitAttributesLine(odd)+"\n", true
		cases = append(cases, c)
	}
	for i, c := range cases {
		repo := t.TempDir()
		git(t, repo, "init", "-q")
		if err := os.WriteFile(filepath.Join(repo, GitAttributesFile), []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		keeps := true
		for _, p := range []string{c.dir.Log(), c.dir.State(), c.dir.Project(), c.dir.Task("x")} {
			out := git(t, repo, "check-attr", "text", "eol", "--", p)
			text := strings.Contains(out, ": text: unset")
			lf := strings.Contains(out, ": eol: lf")
			keeps = keeps && (text || lf)
		}
		if got := KeepsLF([]byte(c.text), c.dir); (got == keeps) == c.gitDiffers {
			t.Errorf("case %d: KeepsLF(%q, %q) = %v, git says %v", i, c.text, c.dir, got, keeps)
		}
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %q: %v\n%s", args, err, out)
	}
	return string(out)
}

func TestWithGitAttributesLine(t *testing.T) {
	t.Parallel()
	line := gitAttributesComment + "\n.pact/** text eol=lf\n"
	for _, c := range []struct{ before, after string }{
		{"", line},
		{"*.png binary\n", "*.png binary\n" + line},
		{"*.png binary", "*.png binary\n" + line},
		{"*.png binary\r\n", "*.png binary\r\n" + strings.ReplaceAll(line, "\n", "\r\n")},
		{"* -text\n", "* -text\n"},                    // already kept: untouched
		{line, line},                                  // idempotent
		{".pact/** text\n", ".pact/** text\n" + line}, // appended after: it wins
	} {
		got := string(WithGitAttributesLine([]byte(c.before), ".pact"))
		if got != c.after {
			t.Errorf("WithGitAttributesLine(%q) = %q, want %q", c.before, got, c.after)
		}
	}
}

// FuzzGitAttributes: no .gitattributes makes KeepsLF panic, and for any
// pact directory inside the repository the text with the line appended
// keeps it, without a byte of the text before it changed.
//
//	go test ./pactfile -run '^$' -fuzz '^FuzzGitAttributes$' -fuzztime 20s
func FuzzGitAttributes(f *testing.F) {
	for _, c := range gitAttributesCases {
		f.Add([]byte(c.text), string(c.dir))
	}
	f.Fuzz(func(t *testing.T, b []byte, dir string) {
		l := Layout(dir)
		KeepsLF(b, l)
		if d := l.Dir(); d == "." || d == ".." || strings.HasPrefix(d, "../") || path.IsAbs(d) {
			return
		}
		out := WithGitAttributesLine(b, l)
		if !KeepsLF(out, l) {
			t.Fatalf("the line for %q does not keep the pact's line endings:\n%q", dir, out)
		}
		if !strings.HasPrefix(string(out), string(b)) {
			t.Fatalf("the text before the line changed:\n%q\n%q", b, out)
		}
	})
}

func TestWithGitIgnoreLine(t *testing.T) {
	t.Parallel()
	add := gitIgnoreComment + "\n" + gitIgnoreLine + "\n"
	for _, c := range []struct{ in, want string }{
		{"", add},
		{"*.log\n", "*.log\n" + add},
		{"*.log", "*.log\n" + add},
		{"*.log\r\n", "*.log\r\n" + strings.ReplaceAll(add, "\n", "\r\n")},
		{"a\n.*.tmp-*\nb\n", "a\n.*.tmp-*\nb\n"},
		{".*.tmp-*  \r\n", ".*.tmp-*  \r\n"},
	} {
		if got := string(WithGitIgnoreLine([]byte(c.in))); got != c.want {
			t.Errorf("WithGitIgnoreLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMergesByDriver(t *testing.T) {
	l := Layout(".pact")
	for _, c := range []struct {
		text string
		want bool
	}{
		{"", false},
		{".pact/log.jsonl merge=pact\n.pact/STATE.yml merge=pact\n", true},
		{".pact/* merge=pact\n", true},
		{".pact/log.jsonl merge=pact\n", false},
		{".pact/* merge=pact\n.pact/STATE.yml merge=union\n", false},
		{".pact/* merge=pact\n*.jsonl -merge\n", false},
		{"* merge=pact\n", true},
	} {
		if got := mergesByDriver([]byte(c.text), l); got != c.want {
			t.Errorf("MergesByDriver(%q) = %v, want %v", c.text, got, c.want)
		}
		out := WithMergeLines([]byte(c.text), l)
		if !mergesByDriver(out, l) || (c.want && string(out) != c.text) {
			t.Errorf("WithMergeLines(%q) = %q", c.text, out)
		}
	}
	if got := mergeLines(Layout("docs/my pact")); got[0] != `"docs/my pact/log.jsonl" merge=pact` {
		t.Errorf("MergeLines of a spaced directory: %q", got)
	}
}
