// Package architecture holds the project's layering to the table of
// CONTRIBUTING.md's "Architecture" section: which of our packages each package may
// import, and which kind of package lives where. A new import across a line
// is a decision, made here on purpose.
package architecture

import (
	"fmt"
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
// the product shares, and yaml.v3's emitter port (yamlemit), fenced there
// because two product packages write through it; none imports anything of
// ours. Product code with a subject of its own is a top-level package
// named for it.
var helpers = []string{"internal/cmdline", "internal/prose", "internal/version", "internal/yamlemit"}

// under says whether pkg is dir or below it.
func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// allowed lists, for every product package, the packages of ours it may
// import (internal/prose, the few shared words, is allowed everywhere).
var allowed = map[string][]string{
	"pactfile": {"internal/yamlemit"},
	"schemas":  {},
	"ghevent":  {},
	// The one vocabulary of GitHub facts (a pull request, a review, a
	// comment, a commit): ghapi returns it, checks and bot read it, and it
	// imports nothing, so that no package converts one shape of a fact
	// into another (CONTRIBUTING.md: Architecture).
	"ghfacts":          {},
	"internal/prose":   {},
	"internal/cmdline": {},
	"internal/version": {},
	// yaml.v3's emitter ported to appending bytes, fenced with its own
	// tests (CONTRIBUTING.md: Architecture): the .pact/ formats write
	// through it, and STATE.yml's renderer.
	"internal/yamlemit": {},
	"projection":        {"pactfile", "projection/internal/event", "projection/internal/jsonscan", "projection/internal/compact", "projection/internal/ownstate", "projection/internal/ranges", "projection/internal/snapshot", "projection/internal/lean", "internal/yamlemit"},
	// The fast path of projection, fenced in its own internal/, each part
	// apart from the event types and their semantics (CONTRIBUTING.md:
	// Architecture): the words both readings are told in (events,
	// findings, their codes), the JSON scanner under the log decoder, the compact
	// tables both readings keep events in, the reader of our own STATE.yml,
	// the render of STATE.yml's tasks in ranges, the byte format of the
	// writers' snapshot, and the replay of a log read without its events
	// (lean), which projection's judge and decoder are handed to.
	"projection/internal/event":    {"pactfile"},
	"projection/internal/jsonscan": {},
	"projection/internal/compact":  {},
	"projection/internal/ownstate": {"internal/yamlemit"},
	"projection/internal/ranges":   {},
	"projection/internal/snapshot": {"projection/internal/compact"},
	"projection/internal/lean":     {"pactfile", "projection/internal/event", "projection/internal/compact", "projection/internal/snapshot"},
	"config":                       {"schemas", "projection", "pactfile"},
	"checks":                       {"projection", "config", "pactfile", "ghfacts"},
	"report":                       {"checks", "projection"},
	"bot":                          {"pactfile", "projection", "checks", "config", "report", "ghevent", "ghfacts"},
	"ghapi":                        {"ghfacts"},
	// The writers' snapshot names the build of pactify that wrote it.
	"pactdir":     {"pactfile", "projection", "internal/version"},
	"action":      {"pactfile", "projection", "checks", "config", "report", "bot", "ghapi", "ghfacts", "ghevent", "pactdir", "doctor", "internal/cmdline", "internal/version"},
	"doctor":      {"pactfile", "projection", "checks", "config", "ghapi", "ghevent"},
	"cmd/pactify": {"pactfile", "projection", "checks", "report", "pactdir", "internal/cmdline", "internal/version"},
	// The action's entry reads flags and the environment and makes one
	// call into action per verb: it builds no GitHub client and renders
	// nothing (thin).
	"cmd/pact-action": {"action", "internal/cmdline", "internal/version"},
}

// thin are the entries that import, besides the standard library and
// what their line of allowed says, only the modules listed: cobra, for the
// command line internal/cmdline shapes. Neither go-github nor the runner's
// toolkit (go-githubactions), nor net/http: action does all of that.
var thin = map[string][]string{"cmd/pact-action": {"github.com/spf13/cobra"}}

// pure packages judge data only: no network, no GitHub client, no clock of
// their own choosing beyond what the caller hands in.
var pure = []string{"pactfile", "schemas", "ghevent", "ghfacts", "internal/prose", "internal/yamlemit", "projection", "projection/internal/event", "projection/internal/jsonscan", "projection/internal/compact", "projection/internal/ownstate", "projection/internal/ranges", "projection/internal/snapshot", "projection/internal/lean", "config", "checks", "report", "bot"}

func TestLayering(t *testing.T) {
	t.Parallel()
	problems, err := layering(testbin.ModuleRoot())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestLayeringNamesThePlace plants violations in a tree of its own: the
// entry importing the GitHub adapter, the runner's toolkit and a package
// the table does not let it import. Each fails naming the file and the
// package, and the same tree without them has none of those complaints.
func TestLayeringNamesThePlace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, imports string
		want          []string
	}{
		{"the thin entry as it should be", `"context"; "github.com/spf13/cobra"; "` + module + `action"; "` + module + `internal/cmdline"`, nil},
		{"the entry builds a client", `"` + module + `action"; "` + module + `ghapi"`,
			[]string{"entry.go of cmd/pact-action imports ghapi, which the layering does not allow"}},
		{"the entry renders", `"` + module + `report"; "` + module + `checks"`,
			[]string{"entry.go of cmd/pact-action imports report, which", "entry.go of cmd/pact-action imports checks, which"}},
		{"the entry writes the job's outputs", `"github.com/sethvargo/go-githubactions"`,
			[]string{"entry.go of cmd/pact-action imports github.com/sethvargo/go-githubactions; besides the standard library and the packages of ours its line allows, it may import only [github.com/spf13/cobra]"}},
		{"the entry talks HTTP", `"net/http"`,
			[]string{"entry.go of cmd/pact-action imports net/http"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			dir := filepath.Join(root, "cmd", "pact-action")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			src := "package main\n\nimport (" + strings.ReplaceAll(tc.imports, "; ", "\n") + ")\n"
			if err := os.WriteFile(filepath.Join(dir, "entry.go"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			problems, err := layering(root)
			if err != nil {
				t.Fatal(err)
			}
			var about []string
			for _, p := range problems {
				if strings.Contains(p, "cmd/pact-action") {
					about = append(about, p)
				}
			}
			for _, w := range tc.want {
				if !slices.ContainsFunc(about, func(p string) bool { return strings.Contains(p, w) }) {
					t.Errorf("no complaint says %q; the complaints about the entry: %q", w, about)
				}
			}
			if len(about) != len(tc.want) {
				t.Errorf("%d complaints about the entry, want %d: %q", len(about), len(tc.want), about)
			}
		})
	}
}

// layering walks the module at root and says everything that breaks the
// table: each complaint names the file and its package.
func layering(root string) ([]string, error) {
	var problems []string
	complain := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
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
		place := filepath.Base(p) + " of " + pkg
		for _, imp := range f.Imports {
			if ours, ok := strings.CutPrefix(strings.Trim(imp.Path.Value, `"`), module); ok && under(ours, devTools) {
				complain("%s imports the development tool %s; nothing imports a tool", place, ours)
			}
		}
		if under(pkg, testSupport) || under(pkg, devTools) {
			return nil // test support and tools may import anything else
		}
		if under(pkg, "internal") && !slices.Contains(helpers, pkg) {
			complain("%s is under internal/, which holds only the shared helpers %v and test support (%s/); product code is a top-level package, a development tool goes under %s/ (CONTRIBUTING.md: Architecture)",
				pkg, helpers, testSupport, devTools)
		}
		if under(pkg, binaries) && !slices.Contains(testbin.ReleasePackages, "./"+pkg) {
			complain("%s is under %s/, which holds only the shipped binaries %v; a development tool goes under %s/ (CONTRIBUTING.md: Architecture)",
				pkg, binaries, testbin.ReleasePackages, devTools)
		}
		seen[pkg] = true
		may, listed := allowed[pkg]
		if !listed {
			complain("package %s is not in the layering table; add it (CONTRIBUTING.md: Architecture)", pkg)
			return nil
		}
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if slices.Contains(pure, pkg) && (path == "net/http" || strings.HasPrefix(path, "github.com/google/go-github")) {
				complain("%s: the pure package %s imports %s", rel, pkg, path)
			}
			ours, ok := strings.CutPrefix(path, module)
			if only, isThin := thin[pkg]; isThin && !ok && !standard(path) && !slices.Contains(only, path) {
				complain("%s imports %s; besides the standard library and the packages of ours its line allows, it may import only %v (CONTRIBUTING.md: Architecture)", place, path, only)
			}
			if _, isThin := thin[pkg]; isThin && path == "net/http" {
				complain("%s imports net/http: it builds no client, action does (CONTRIBUTING.md: Architecture)", place)
			}
			if !ok || ours == "internal/prose" {
				continue
			}
			if under(ours, testSupport) {
				complain("%s imports the test support %s; product code never does", place, ours)
				continue
			}
			if !slices.Contains(may, ours) {
				complain("%s imports %s, which the layering does not allow (CONTRIBUTING.md: Architecture)", place, ours)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, h := range helpers {
		if may, ok := allowed[h]; !ok || len(may) != 0 {
			complain("the helper %s must be in the layering table, importing nothing of ours (it lists %v)", h, may)
		}
	}
	for pkg, may := range allowed {
		for _, dep := range may {
			if under(dep, testSupport) || under(dep, devTools) {
				complain("the layering table lets %s import %s: product code imports no test support or tool", pkg, dep)
			}
		}
		if !seen[pkg] {
			complain("the layering table names %s, which has no code", pkg)
		}
	}
	slices.Sort(problems)
	return problems, nil
}

// standard says whether path is the standard library's: its first element
// has no dot, as every module path outside it does.
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
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
