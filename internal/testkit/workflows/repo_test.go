package workflows

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/pact-action/pact-action/internal/testkit/testbin"
)

// concurrentPackages lists every package of the module whose non-test code
// starts goroutines or imports sync: the ones `go test -race` must cover.
func concurrentPackages(t *testing.T) []string {
	t.Helper()
	root := testbin.ModuleRoot()
	found := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		concurrent := false
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "sync" || strings.HasPrefix(p, "sync/") || strings.HasPrefix(p, "golang.org/x/sync") {
				concurrent = true
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if _, ok := n.(*ast.GoStmt); ok {
				concurrent = true
			}
			return !concurrent
		})
		if concurrent {
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			found["./"+filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for p := range found {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// TestRaceJobCoversConcurrency: ci.yml's `go test -race` names every
// package with concurrency, so a new goroutine cannot slip past the race
// detector.
func TestRaceJobCoversConcurrency(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(testbin.ModuleRoot(), ".github", "workflows", "ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^\s*- run: go test -race (.+)$`).FindStringSubmatch(string(b))
	if line == nil {
		t.Fatal("ci.yml has no `- run: go test -race …` step")
	}
	covered := map[string]bool{}
	for _, pattern := range strings.Fields(line[1]) {
		covered[strings.TrimSuffix(pattern, "/...")] = true
	}
	pkgs := concurrentPackages(t)
	if len(pkgs) == 0 {
		t.Fatal("found no package with concurrency: the scan is broken (projection replays in parallel)")
	}
	for _, p := range pkgs {
		covered := covered[p]
		for dir := p; !covered && strings.Contains(dir, "/"); {
			dir = dir[:strings.LastIndex(dir, "/")]
			covered = strings.Contains(line[1], dir+"/...")
		}
		if !covered {
			t.Errorf("package %s starts goroutines or imports sync, but ci.yml's race step does not test it", p)
		}
	}
}

// TestDependabotWatchesEveryPin: Go modules, the Dockerfile's base image and
// the workflows' actions are all pinned, so Dependabot must update all three.
func TestDependabotWatchesEveryPin(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(testbin.ModuleRoot(), ".github", "dependabot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Version int `yaml:"version"`
		Updates []struct {
			Ecosystem string `yaml:"package-ecosystem"`
			Directory string `yaml:"directory"`
			Schedule  struct {
				Interval string `yaml:"interval"`
			} `yaml:"schedule"`
		} `yaml:"updates"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Version != 2 {
		t.Errorf("dependabot.yml version %d, want 2", cfg.Version)
	}
	seen := map[string]bool{}
	for _, u := range cfg.Updates {
		if u.Directory != "/" || u.Schedule.Interval == "" {
			t.Errorf("update %s: directory %q, interval %q", u.Ecosystem, u.Directory, u.Schedule.Interval)
		}
		seen[u.Ecosystem] = true
	}
	for _, eco := range []string{"gomod", "docker", "github-actions"} {
		if !seen[eco] {
			t.Errorf("dependabot.yml does not update %s", eco)
		}
	}
}

// TestGolangciLintPinsAgree: .ci/run and ci.yml's lint job run the same
// golangci-lint, and every command the documentation and .golangci.yml
// show names that version, so a bump in one place cannot leave a
// contributor linting with another.
func TestGolangciLintPinsAgree(t *testing.T) {
	t.Parallel()
	root := testbin.ModuleRoot()
	b, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var ci struct {
		Env map[string]string `yaml:"env"`
	}
	if err := yaml.Unmarshal(b, &ci); err != nil {
		t.Fatal(err)
	}
	want := ci.Env["GOLANGCI_LINT_VERSION"]
	if !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(want) {
		t.Fatalf("ci.yml pins golangci-lint as %q, want an exact vX.Y.Z", want)
	}
	if !strings.Contains(string(b), `golangci-lint@${GOLANGCI_LINT_VERSION}" run`) {
		t.Error("ci.yml does not run golangci-lint at GOLANGCI_LINT_VERSION")
	}
	pin := regexp.MustCompile(`golangci-lint/v2/cmd/golangci-lint@(v[0-9][^\s"'` + "`" + `]*)`)
	for _, name := range []string{".ci/run", ".golangci.yml", "CONTRIBUTING.md"} {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		found := pin.FindAllStringSubmatch(string(b), -1)
		if len(found) == 0 {
			t.Errorf("%s names no golangci-lint@version", name)
		}
		for _, m := range found {
			if m[1] != want {
				t.Errorf("%s runs golangci-lint %s, ci.yml %s", name, m[1], want)
			}
		}
	}
}

// TestIssueFormsAskWhatATriageNeeds: the issue forms parse as GitHub's
// issue forms (a name, a description and a body of typed fields, each with
// an id), and a bug report asks for `pactify version` and `pact-action
// doctor`, the two outputs a triage starts from; blank issues are off, and
// vulnerabilities go to a private advisory (SECURITY.md).
func TestIssueFormsAskWhatATriageNeeds(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(testbin.ModuleRoot(), ".github", "ISSUE_TEMPLATE")
	type field struct {
		Type        string         `yaml:"type"`
		ID          string         `yaml:"id"`
		Attributes  map[string]any `yaml:"attributes"`
		Validations struct {
			Required bool `yaml:"required"`
		} `yaml:"validations"`
	}
	type form struct {
		Name        string  `yaml:"name"`
		Description string  `yaml:"description"`
		Body        []field `yaml:"body"`
	}
	read := func(name string, v any) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		dec.KnownFields(true)
		if err := dec.Decode(v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	asked := map[string]string{}
	for _, name := range []string{"bug_report.yml", "feature_request.yml"} {
		var f struct {
			form   `yaml:",inline"`
			Labels []string `yaml:"labels"`
		}
		read(name, &f)
		if f.Name == "" || f.Description == "" || len(f.Body) == 0 {
			t.Errorf("%s: an issue form needs a name, a description and a body", name)
		}
		for _, fl := range f.Body {
			if fl.Type != "markdown" && fl.ID == "" {
				t.Errorf("%s: a %s field without an id", name, fl.Type)
			}
			if name == "bug_report.yml" {
				label, _ := fl.Attributes["label"].(string)
				desc, _ := fl.Attributes["description"].(string)
				asked[fl.ID] = label + " " + desc
			}
		}
	}
	for id, want := range map[string]string{"pactify-version": "`pactify version`", "doctor": "`pact-action doctor"} {
		if !strings.Contains(asked[id], want) {
			t.Errorf("the bug report's %s field does not ask for %s: %q", id, want, asked[id])
		}
	}
	var cfg struct {
		Blank    bool `yaml:"blank_issues_enabled"`
		Contacts []struct {
			Name  string `yaml:"name"`
			URL   string `yaml:"url"`
			About string `yaml:"about"`
		} `yaml:"contact_links"`
	}
	read("config.yml", &cfg)
	if cfg.Blank || len(cfg.Contacts) == 0 || !strings.Contains(cfg.Contacts[0].URL, "/security/advisories/new") {
		t.Errorf("config.yml: blank issues %v, contact links %+v; want blank issues off and a private advisory link", cfg.Blank, cfg.Contacts)
	}
}
