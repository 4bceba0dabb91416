package workflows

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/internal/testkit/testbin"
)

// knownStale are actionlint findings that are wrong about the world, each
// with the reason. actionlint v1.7.12's data set of popular actions
// predates create-github-app-token v3's client-id input (its app-id input
// is deprecated in favour of it), so it calls client-id unknown and app-id
// missing.
var knownStale = []string{
	`input "client-id" is not defined in action "actions/create-github-app-token@v3"`,
	`missing input "app-id" which is required by action "actions/create-github-app-token@v3"`,
}

// lint runs actionlint on one workflow file of a project whose root holds
// an action.yml, so `uses: ./` is checked against our inputs.
func lint(t *testing.T, root, path string, content []byte) []*actionlint.Error {
	t.Helper()
	opts := &actionlint.LinterOptions{LogWriter: io.Discard, WorkingDir: root}
	opts.IgnorePatterns = append(opts.IgnorePatterns, knownStale...)
	// shellcheck checks run: scripts where it is installed (GitHub's
	// Ubuntu runners have it); actionlint skips the check without it.
	if sc, err := exec.LookPath("shellcheck"); err == nil {
		opts.Shellcheck = sc
	}
	l, err := actionlint.NewLinter(io.Discard, opts)
	if err != nil {
		t.Fatal(err)
	}
	proj, err := actionlint.NewProject(root)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint(path, content, proj)
	if err != nil {
		t.Fatal(err)
	}
	return errs
}

// pinnedUse is `uses: owner/repo[/path]@<40 hex> # vX[.Y.Z]`.
var pinnedUse = regexp.MustCompile(`(?m)^(\s*-?\s*uses:\s*)([\w.-]+/[\w./-]+)@([0-9a-f]{40})\s+#\s*(v\d+)(\.\d+)*\s*$`)

// byMajor rewrites every SHA-pinned action to the major tag its comment
// names, line for line: actionlint checks inputs only of actions it knows
// by tag.
func byMajor(content []byte) []byte {
	return pinnedUse.ReplaceAll(content, []byte("${1}${2}@${4}"))
}

func workflowFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(testbin.ModuleRoot(), ".github", "workflows", "*.y*ml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("found %d workflows, want at least ci, pact and release", len(files))
	}
	return files
}

// TestActionlintWorkflows: every workflow in .github/workflows passes
// actionlint, as written and with its pins read as major tags.
func TestActionlintWorkflows(t *testing.T) {
	t.Parallel()
	root := testbin.ModuleRoot()
	for _, path := range workflowFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			content, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, variant := range []struct {
				name    string
				content []byte
			}{{"as written", content}, {"pins read as majors", byMajor(content)}} {
				for _, e := range lint(t, root, path, variant.content) {
					t.Errorf("%s (%s): %s", filepath.Base(path), variant.name, e.Error())
				}
			}
		})
	}
}

// TestActionlintCatchesMistakes keeps the lint honest: a workflow with an
// unknown input to our own action and a bad expression must fail.
func TestActionlintCatchesMistakes(t *testing.T) {
	t.Parallel()
	dir := snippetProject(t)
	bad := []byte(`on: pull_request
jobs:
  pact:
    runs-on: ubuntu-latest
    steps:
      - uses: ./
        with:
          mdoe: check
      - run: echo ${{ github.event.pull_request.nope( }}
`)
	errs := lint(t, dir, filepath.Join(dir, ".github", "workflows", "bad.yml"), bad)
	var text []string
	for _, e := range errs {
		text = append(text, e.Error())
	}
	all := strings.Join(text, "\n")
	if !strings.Contains(all, `"mdoe"`) || !strings.Contains(all, "expression") {
		t.Errorf("actionlint let mistakes through:\n%s", all)
	}
}

// TestActionsArePinned: every third-party action in our workflows is pinned
// by full commit SHA with a version comment, as GitHub's hardening guide and
// Dependabot's pin updates expect; `./` and docker:// are exempt.
func TestActionsArePinned(t *testing.T) {
	t.Parallel()
	uses := regexp.MustCompile(`(?m)^\s*-?\s*uses:\s*(\S+)(.*)$`)
	for _, path := range workflowFiles(t) {
		content, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range uses.FindAllStringSubmatch(string(content), -1) {
			ref := m[1]
			if strings.HasPrefix(ref, "./") || strings.HasPrefix(ref, "docker://") {
				continue
			}
			n++
			if !pinnedUse.MatchString(m[0]) {
				t.Errorf("%s: %q is not pinned as owner/repo@<40-hex sha> # vX.Y.Z", filepath.Base(path), strings.TrimSpace(m[0]))
			}
		}
		if n == 0 && filepath.Base(path) != "pact.yml" {
			t.Errorf("%s uses no pinned action: is the pattern still right?", filepath.Base(path))
		}
	}
}

// snippet is one ```yaml block of the documentation.
type snippet struct {
	file string // relative to the module root, slash-separated
	line int    // line of the block's first content line
	text string
}

// docFiles are the Markdown files whose YAML snippets users copy: the
// README, CONTRIBUTING.md and every page under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(testbin.ModuleRoot(), "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no docs/*.md: is the module root right?")
	}
	files := []string{"README.md", "CONTRIBUTING.md"}
	for _, p := range pages {
		files = append(files, "docs/"+filepath.Base(p))
	}
	return files
}

func docSnippets(t *testing.T) []snippet {
	t.Helper()
	var out []snippet
	for _, file := range docFiles(t) {
		b, err := os.ReadFile(filepath.Join(testbin.ModuleRoot(), filepath.FromSlash(file)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
		for i := 0; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) != "```yaml" {
				continue
			}
			start := i + 1
			var body []string
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
				body = append(body, lines[i])
			}
			out = append(out, snippet{file: file, line: start + 1, text: strings.Join(body, "\n") + "\n"})
		}
	}
	return out
}

// dedent removes the indentation every non-blank line shares.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if common < 0 || n < common {
			common = n
		}
	}
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			lines[i] = l[common:]
		}
	}
	return strings.Join(lines, "\n")
}

var (
	topKey = regexp.MustCompile(`(?m)^([A-Za-z_][\w-]*):`)
	ourUse = regexp.MustCompile(`pact-action/pact-action@[\w.-]+`)
)

// snippetKind decides, deliberately, what a documentation YAML block is:
//   - "workflow": a whole workflow (top-level on: and jobs:), linted as is;
//   - "steps": a fragment that is a job's steps: list (the GitHub App
//     recipe), linted wrapped in a minimal workflow;
//   - "pact config": a .github/pact.yml (seats:, provenance:,
//     unmapped-branches:, review-requests:, review-teams:), which is no
//     workflow; it must parse with the config package, as the action would
//     read it;
//
// anything else fails the test, so a new kind of snippet is classified on
// purpose rather than skipped.
func snippetKind(s string) (kind, body string, header int) {
	d := dedent(s)
	keys := map[string]bool{}
	for _, m := range topKey.FindAllStringSubmatch(d, -1) {
		keys[m[1]] = true
	}
	switch {
	case keys["on"] && keys["jobs"]:
		return "workflow", d, 0
	case len(keys) == 1 && keys["steps"]:
		const wrap = "on: workflow_dispatch\njobs:\n  snippet:\n    runs-on: ubuntu-latest\n"
		indented := "    " + strings.ReplaceAll(strings.TrimRight(d, "\n"), "\n", "\n    ") + "\n"
		return "steps", wrap + indented, strings.Count(wrap, "\n")
	case len(keys) > 0 && !hasOtherThan(keys, "seats", "provenance", "unmapped-branches", "review-requests", "review-teams"):
		return "pact config", d, 0
	}
	return "", "", 0
}

func hasOtherThan(keys map[string]bool, allowed ...string) bool {
	for k := range keys {
		if !containsString(allowed, k) {
			return true
		}
	}
	return false
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// snippetProject is a temporary repository holding our action.yml (and
// the Dockerfile it names), where documentation snippets run `uses: ./` in
// place of pact-action/pact-action@v1 (or @main) so actionlint checks their
// inputs against the real action.
func snippetProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".github", "workflows"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"action.yml", "Dockerfile"} {
		b, err := os.ReadFile(filepath.Join(testbin.ModuleRoot(), name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestActionlintDocSnippets: every workflow snippet of the documentation
// passes actionlint, and every YAML snippet is classified (see
// snippetKind).
func TestActionlintDocSnippets(t *testing.T) {
	t.Parallel()
	snippets := docSnippets(t)
	counts := map[string]int{}
	for _, s := range snippets {
		kind, body, header := snippetKind(s.text)
		counts[kind]++
		if kind == "" {
			t.Errorf("%s:%d: a YAML snippet that is neither a workflow, a steps: fragment nor .github/pact.yml; classify it in snippetKind:\n%s", s.file, s.line, s.text)
			continue
		}
		if kind == "pact config" {
			if _, err := config.Parse([]byte(body)); err != nil {
				t.Errorf("%s:%d: a .github/pact.yml snippet the action would refuse: %v", s.file, s.line, err)
			}
			continue
		}
		if body == "" {
			continue
		}
		t.Run(fmt.Sprintf("%s:%d", s.file, s.line), func(t *testing.T) {
			t.Parallel()
			dir := snippetProject(t)
			path := filepath.Join(dir, ".github", "workflows", "snippet.yml")
			for _, e := range lint(t, dir, path, []byte(ourUse.ReplaceAllString(body, "./"))) {
				t.Errorf("%s:%d: %s [%s]", s.file, s.line+e.Line-1-header, e.Message, e.Kind)
			}
		})
	}
	if counts["workflow"] < 4 || counts["steps"] < 3 || counts["pact config"] < 2 {
		t.Errorf("documentation snippets by kind %v: want the check, fork, bot and SARIF workflows, the App and pinning steps, and the .github/pact.yml examples", counts)
	}
}
