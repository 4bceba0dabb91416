package docs

import (
	"regexp"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/projection"
)

// codeLines are the lines of a Markdown document inside fenced code
// blocks: what readers copy.
func codeLines(doc string) []mdLine {
	outside := map[int]bool{}
	for _, l := range prose(doc) {
		outside[l.n] = true
	}
	var out []mdLine
	for i, l := range strings.Split(doc, "\n") {
		if t := strings.TrimSpace(l); !outside[i+1] && !strings.HasPrefix(t, "```") && !strings.HasPrefix(t, "~~~") {
			out = append(out, mdLine{i + 1, l})
		}
	}
	return out
}

// released reports whether CHANGELOG.md names a release (a heading such as
// "## [1.0.0] - 2027-01-15"): the first release adds one.
func released(t *testing.T) bool {
	return regexp.MustCompile(`(?m)^## \[\d+\.\d+\.\d+\]`).MatchString(read(t, "CHANGELOG.md"))
}

// ourReleaseRef is a reference to a release of this repository: the action
// or one of its commands at a version tag.
var ourReleaseRef = regexp.MustCompile(`pact-action/pact-action(/cmd/[a-z-]+)?@v\d`)

// TestNoReleaseRefBeforeARelease: until a release exists, no code block of
// the documentation names a version of pact-action, since such a reference
// does not resolve and people copy code blocks, not the comments beside
// them (they say @main, or @latest for go run and go install). The first
// release switches them (CONTRIBUTING.md, "The first release").
func TestNoReleaseRefBeforeARelease(t *testing.T) {
	t.Parallel()
	if released(t) {
		t.Skip("CHANGELOG.md names a release: code blocks may say @v1")
	}
	found := 0
	for _, file := range docFiles(t) {
		for _, l := range codeLines(read(t, file)) {
			if ourReleaseRef.MatchString(l.text) {
				t.Errorf("%s:%d names a release of pact-action, but none exists yet; write @main (@latest for go run): %s", file, l.n, strings.TrimSpace(l.text))
			}
			if strings.Contains(l.text, "pact-action/pact-action@main") {
				found++
			}
		}
	}
	if found < 3 {
		t.Errorf("found %d code lines using pact-action/pact-action@main, want the README's two workflows at least and check.md's: is codeLines broken?", found)
	}
}

// TestReleaseRefPattern holds the pattern to what it must and must not
// catch, so the test above cannot pass by matching nothing.
func TestReleaseRefPattern(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]bool{
		"      - uses: pact-action/pact-action@v1":                              true,
		"      - uses: pact-action/pact-action@v1.2.3":                          true,
		"go run github.com/pact-action/pact-action/cmd/pactify@v1 validate":     true,
		"go install github.com/pact-action/pact-action/cmd/pactify@v1.0.0":      true,
		"      - uses: pact-action/pact-action@main":                            false,
		"go run github.com/pact-action/pact-action/cmd/pactify@latest":          false,
		"      - uses: actions/checkout@v7":                                     false,
		"go run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0": false,
	} {
		if got := ourReleaseRef.MatchString(line); got != want {
			t.Errorf("%q: matched %v, want %v", line, got, want)
		}
	}
	if got := codeLines("a\n```yaml\nb\n```\nc\n"); len(got) != 1 || got[0].text != "b" || got[0].n != 3 {
		t.Errorf("codeLines = %v, want line 3, b", got)
	}
}

// TestREADMEShowsTheWaitingCheckRun: the README's picture of what a pull
// request shows is the check run summary the action writes for a waiting
// pull request, byte for byte (quoted), from its golden file.
func TestREADMEShowsTheWaitingCheckRun(t *testing.T) {
	t.Parallel()
	const goldenFile = "action/testdata/golden/checkrun/waiting.md"
	golden := read(t, goldenFile)
	_, summary, ok := strings.Cut(golden, "<!-- check run summary -->\n")
	summary, _, ok2 := strings.Cut(summary, "<!-- check run text -->")
	if !ok || !ok2 {
		t.Fatalf("%s has no check run summary between its markers", goldenFile)
	}
	readme := read(t, "README.md")
	_, quoted, ok := strings.Cut(readme, "<!-- The check run of a waiting pull request: a test (internal/testkit/docs) holds it equal to the golden file named above. -->\n")
	quoted, _, ok2 = strings.Cut(quoted, "<!-- end of the check run -->")
	if !ok || !ok2 || !strings.Contains(readme, "]("+goldenFile+")") {
		t.Fatalf("README.md has no quoted check run between its markers, or does not link %s", goldenFile)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(quoted, "\n"), "\n") {
		if l != ">" && !strings.HasPrefix(l, "> ") {
			t.Fatalf("README.md's check run has a line outside the quote: %q", l)
		}
		lines = append(lines, strings.TrimPrefix(strings.TrimPrefix(l, ">"), " "))
	}
	if got, want := strings.Join(lines, "\n"), strings.TrimRight(summary, "\n"); got != want {
		t.Errorf("README.md's check run differs from %s's summary; copy it again, each line quoted with \"> \":\n--- README\n%s\n--- golden\n%s", goldenFile, got, want)
	}
}

// The newcomer's two commands: the first runs the main job on the shipped
// example, the second runs the tests, and CI's entry point runs exactly
// that second command.
const (
	newcomerCheck = "go run ./cmd/pact-action check --local examples/demo --branch feat/login"
	newcomerTest  = "go test ./..."
)

// TestNewcomerCommands holds the README's two commands, .ci/run and the
// README's account of .ci/run together.
func TestNewcomerCommands(t *testing.T) {
	t.Parallel()
	readme := read(t, "README.md")
	var check, test bool
	for _, l := range codeLines(readme) {
		cmd, _, _ := strings.Cut(l.text, "#")
		switch strings.TrimSpace(cmd) {
		case newcomerCheck:
			check = true
		case newcomerTest:
			test = true
		}
	}
	if !check || !test {
		t.Errorf("README.md's code blocks lack a newcomer command: %q %v, %q %v", newcomerCheck, check, newcomerTest, test)
	}
	run := read(t, ".ci/run")
	var last string
	for _, l := range strings.Split(run, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			last = t
		}
	}
	if last != newcomerTest {
		t.Errorf(".ci/run ends with %q, want the README's test command %q", last, newcomerTest)
	}
	// What the README says .ci/run runs: every step .ci/run has.
	var said string
	for _, l := range prose(readme) {
		if strings.Contains(l.text, "`.ci/run`") {
			said += l.text
		}
	}
	for _, step := range []string{"gofmt", "go vet", "golangci-lint"} {
		if !strings.Contains(run, step) {
			t.Errorf(".ci/run no longer runs %s: update this test and the README", step)
		}
		if !strings.Contains(said, step) {
			t.Errorf("README.md's account of .ci/run leaves out %s", step)
		}
	}
}

// TestUpgradeHintIsTheREADMEsInstall: version.unsupported's hint names
// the install the README gives for pactify (an upgrade to a release that
// supports a newer protocol cannot be tried before one exists).
func TestUpgradeHintIsTheREADMEsInstall(t *testing.T) {
	t.Parallel()
	hint := checks.Describe(projection.CodeVersionUnsupported).Hint
	m := regexp.MustCompile("`(go install [^`]+)`").FindStringSubmatch(hint)
	if m == nil {
		t.Fatalf("version.unsupported's hint names no go install: %q", hint)
	}
	for _, l := range codeLines(read(t, "README.md")) {
		if strings.TrimSpace(l.text) == m[1] {
			return
		}
	}
	t.Errorf("version.unsupported's hint says %q, which no code block of README.md gives", m[1])
}
