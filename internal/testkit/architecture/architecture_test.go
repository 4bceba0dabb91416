// Package architecture holds the project's layering to the table of
// CONTRIBUTING.md's "Architecture" section: which of our packages each package may
// import, and which kind of package lives where. A new import across a line
// is a decision, made here on purpose.
package architecture

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/internal/testkit/testbin"
)

const module = "github.com/pact-action/pact-action/"

// The kinds of package, each in its own place: product code (the top-level
// packages, internal/'s shared helpers and, under cmd/, the shipped
// binaries and nothing else), layered by allowed; test support, under
// internal/testkit/; and development tools, never shipped, under tools/.
// Test support and tools may import anything; product code imports
// neither, and nothing imports a tool. A product package may fence a part
// of itself in its own internal/ (projection/internal/jsonscan), layered
// like any product package.
const (
	testSupport = "internal/testkit"
	devTools    = "tools"
	binaries    = "cmd"
)

// helpers are what internal/ holds besides test support: small helpers
// the product shares, which import nothing of ours. Product code with a
// subject of its own is a top-level package named for it.
var helpers = []string{"internal/cmdline", "internal/prose", "internal/version"}

// under says whether pkg is dir or below it.
func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// allowed lists, for every product package, the packages of ours it may
// import (internal/prose, the few shared words, is allowed everywhere).
var allowed = map[string][]string{
	"pactfile":         {},
	"schemas":          {},
	"ghevent":          {},
	"internal/prose":   {},
	"internal/cmdline": {},
	"internal/version": {},
	"projection":       {"pactfile", "projection/internal/jsonscan"},
	// The JSON scanner under projection's log decoder, fenced apart from the
	// event types and their semantics (CONTRIBUTING.md: Architecture).
	"projection/internal/jsonscan": {},
	"config":                       {"schemas", "projection", "pactfile"},
	"checks":                       {"projection", "config", "pactfile"},
	"report":                       {"checks", "projection"},
	"bot":                          {"pactfile", "projection", "checks", "config", "report"},
	"ghapi":                        {},
	"pactdir":                      {"pactfile", "projection", "checks"},
	"action":                       {"pactfile", "projection", "checks", "config", "report", "bot", "ghapi", "ghevent", "pactdir"},
	"doctor":                       {"pactfile", "projection", "checks", "config", "ghapi", "ghevent"},
	"cmd/pactify":                  {"pactfile", "projection", "checks", "report", "pactdir", "internal/cmdline", "internal/version"},
	"cmd/pact-action":              {"pactfile", "checks", "report", "action", "doctor", "ghapi", "ghevent", "pactdir", "internal/cmdline", "internal/version"},
}

// pure packages judge data only: no network, no GitHub client, no clock of
// their own choosing beyond what the caller hands in.
var pure = []string{"pactfile", "schemas", "ghevent", "internal/prose", "projection", "projection/internal/jsonscan", "config", "checks", "report", "bot"}

func TestLayering(t *testing.T) {
	t.Parallel()
	root := testbin.ModuleRoot()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if ours, ok := strings.CutPrefix(strings.Trim(imp.Path.Value, `"`), module); ok && under(ours, devTools) {
				t.Errorf("%s imports the development tool %s; nothing imports a tool", filepath.Base(p)+" of "+pkg, ours)
			}
		}
		if under(pkg, testSupport) || under(pkg, devTools) {
			return nil // test support and tools may import anything else
		}
		if under(pkg, "internal") && !slices.Contains(helpers, pkg) {
			t.Errorf("%s is under internal/, which holds only the shared helpers %v and test support (%s/); product code is a top-level package, a development tool goes under %s/ (CONTRIBUTING.md: Architecture)",
				pkg, helpers, testSupport, devTools)
		}
		if under(pkg, binaries) && !slices.Contains(testbin.ReleasePackages, "./"+pkg) {
			t.Errorf("%s is under %s/, which holds only the shipped binaries %v; a development tool goes under %s/ (CONTRIBUTING.md: Architecture)",
				pkg, binaries, testbin.ReleasePackages, devTools)
		}
		seen[pkg] = true
		may, listed := allowed[pkg]
		if !listed {
			t.Errorf("package %s is not in the layering table; add it (CONTRIBUTING.md: Architecture)", pkg)
			return nil
		}
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if slices.Contains(pure, pkg) && (path == "net/http" || strings.HasPrefix(path, "github.com/google/go-github")) {
				t.Errorf("%s: the pure package %s imports %s", rel, pkg, path)
			}
			ours, ok := strings.CutPrefix(path, module)
			if !ok || ours == "internal/prose" {
				continue
			}
			if under(ours, testSupport) {
				t.Errorf("%s imports the test support %s; product code never does", filepath.Base(p)+" of "+pkg, ours)
				continue
			}
			if !slices.Contains(may, ours) {
				t.Errorf("%s imports %s, which the layering does not allow (CONTRIBUTING.md: Architecture)", filepath.Base(p)+" of "+pkg, ours)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range helpers {
		if may, ok := allowed[h]; !ok || len(may) != 0 {
			t.Errorf("the helper %s must be in the layering table, importing nothing of ours (it lists %v)", h, may)
		}
	}
	for pkg, may := range allowed {
		for _, dep := range may {
			if under(dep, testSupport) || under(dep, devTools) {
				t.Errorf("the layering table lets %s import %s: product code imports no test support or tool", pkg, dep)
			}
		}
		if !seen[pkg] {
			t.Errorf("the layering table names %s, which has no code", pkg)
		}
	}
}

// Only ghapi talks to GitHub: no other product package imports go-github.
func TestOnlyGhapiImportsGoGitHub(t *testing.T) {
	t.Parallel()
	root := testbin.ModuleRoot()
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.Contains(p, "/testdata/") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "ghapi/") || strings.HasPrefix(rel, "internal/testkit/") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if strings.HasPrefix(strings.Trim(imp.Path.Value, `"`), "github.com/google/go-github") {
				t.Errorf("%s imports go-github; only ghapi may", rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
