package architecture

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/internal/testkit/testbin"
)

// factsPkg is the one vocabulary of GitHub facts (CONTRIBUTING.md:
// Architecture): ghapi returns its types, checks and bot read them.
const factsPkg = "ghfacts"

// TestOneShapePerFact holds the facts to one type each: no product package
// but ghfacts declares a struct that repeats most of the fields of one of
// ghfacts' types — a second shape of the same fact, which a mapper would
// have to fill from the first. A type that adds to a fact embeds or holds
// it instead; ghapi keeps its wire decoding in anonymous structs.
func TestOneShapePerFact(t *testing.T) {
	t.Parallel()
	problems, err := factShapes(testbin.ModuleRoot())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestOneShapePerFactNamesThePlace plants a second shape of a pull request
// and a type that merely holds one in a tree of their own: only the first
// is a complaint, naming the file, the type and the fact.
func TestOneShapePerFactNamesThePlace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(dir, name, src string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(factsPkg, "ghfacts.go", "package ghfacts\n\ntype PullRequest struct {\n\tNumber int\n\tHeadSHA, HeadRef, BaseRef, BaseSHA string\n\tFork bool\n}\n")
	write("checks", "facts.go", "package checks\n\ntype PRFact struct {\n\tNumber int\n\tHeadSHA, HeadRef, BaseRef string\n\tDraft bool\n}\n")
	write("bot", "update.go", "package bot\n\nimport \"x/ghfacts\"\n\ntype UpdateFacts struct {\n\tPR ghfacts.PullRequest\n\tNumber int\n\tMergeBase string\n}\n")
	problems, err := factShapes(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"facts.go of checks declares PRFact, a second shape of ghfacts.PullRequest (4 of its 6 fields: BaseRef, HeadRef, HeadSHA, Number); use ghfacts.PullRequest (CONTRIBUTING.md: Architecture)"}
	if !slices.Equal(problems, want) {
		t.Errorf("complaints:\n%q\nwant\n%q", problems, want)
	}
}

// factShapes walks the module at root and says which struct types outside
// ghfacts repeat half or more (and at least four) of the fields of one of
// ghfacts' struct types.
func factShapes(root string) ([]string, error) {
	facts, err := structFields(filepath.Join(root, factsPkg))
	if err != nil {
		return nil, err
	}
	if len(facts) == 0 {
		return []string{"package " + factsPkg + " declares no fact"}, nil
	}
	var problems []string
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		pkg := filepath.ToSlash(rel)
		name := d.Name()
		switch {
		case p != root && (strings.HasPrefix(name, ".") || name == "testdata"):
			return filepath.SkipDir
		case under(pkg, testSupport) || under(pkg, devTools):
			return filepath.SkipDir // test support may mirror GitHub's shapes
		case pkg == factsPkg || p == root:
			return nil
		}
		types, err := structFields(p)
		if err != nil {
			return err
		}
		for _, ty := range types {
			for _, fact := range facts {
				var common []string
				for _, f := range ty.fields {
					if slices.Contains(fact.fields, f) {
						common = append(common, f)
					}
				}
				if len(common) >= 4 && 2*len(common) >= len(fact.fields) {
					slices.Sort(common)
					problems = append(problems, fmt.Sprintf("%s of %s declares %s, a second shape of %s.%s (%d of its %d fields: %s); use %s.%s (CONTRIBUTING.md: Architecture)",
						ty.file, pkg, ty.name, factsPkg, fact.name, len(common), len(fact.fields), strings.Join(common, ", "), factsPkg, fact.name))
				}
			}
		}
		return nil
	})
	slices.Sort(problems)
	return problems, err
}

// structType is a named struct type and its named fields (embedded ones
// left out: a type that embeds a fact adds to it).
type structType struct {
	file, name string
	fields     []string
}

// structFields lists the named struct types of the non-test Go files in
// dir (none when dir does not exist).
func structFields(dir string) ([]structType, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []structType
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				ty := structType{file: e.Name(), name: ts.Name.Name}
				for _, field := range st.Fields.List {
					for _, n := range field.Names {
						ty.fields = append(ty.fields, n.Name)
					}
				}
				out = append(out, ty)
			}
		}
	}
	return out, nil
}
