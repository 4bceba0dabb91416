package docs

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/internal/testkit/testbin"
)

// semanticsSections are the §N of docs/semantics.md ("## §N …") and the
// pact v1 sections its appendix summarises ("### pact v1 §N.M: …").
func semanticsSections(t *testing.T) (own, spec map[string]bool) {
	t.Helper()
	own, spec = map[string]bool{}, map[string]bool{}
	ownHead := regexp.MustCompile(`^## §(\d+) `)
	specHead := regexp.MustCompile(`^### pact v1 §([\d.]+):`)
	for _, l := range prose(read(t, "docs/semantics.md")) {
		if m := ownHead.FindStringSubmatch(l.text); m != nil {
			own[m[1]] = true
		}
		if m := specHead.FindStringSubmatch(l.text); m != nil {
			spec[m[1]] = true
		}
	}
	if len(own) != 8 || len(spec) < 10 {
		t.Fatalf("docs/semantics.md has sections %v and appendix sections %v: want §1–§8 and the pact v1 sections the code cites", own, spec)
	}
	return own, spec
}

var (
	mdFile  = regexp.MustCompile(`[\w./-]*\.md\b`)
	section = regexp.MustCompile(`§\s*(\d+(?:\.\d+)*)`)
	// A § belongs to the nearest of these before it.
	citer = regexp.MustCompile(`docs/semantics\.md|pact v1|SARIF`)
)

// protocolFiles are Markdown files of a pact, not of this repository.
var protocolFiles = []string{"PROJECT.md", "CLAUDE.md", "AGENTS.md"}

// citationProblems lists what is wrong with the citations in text, a Go
// comment or a schema's description found in dir (slash-separated,
// relative to the module root).
func citationProblems(text, dir string, own, spec map[string]bool) []string {
	text = strings.Join(strings.Fields(text), " ")
	var out []string
	if strings.Contains(text, "SEMANTICS") {
		out = append(out, "cites SEMANTICS, which is not in this repository: cite docs/semantics.md §N")
	}
	for _, m := range mdFile.FindAllStringIndex(text, -1) {
		name := text[m[0]:m[1]]
		if m[0] > 0 && text[m[0]-1] == '>' || slices.Contains(protocolFiles, path.Base(name)) || name == ".md" {
			continue // tasks/<id>.md and the pact's own files
		}
		if !exists(name) && !exists(path.Join(dir, name)) {
			out = append(out, fmt.Sprintf("cites %s, which the repository does not have", name))
		}
	}
	for _, m := range section.FindAllStringSubmatchIndex(text, -1) {
		num := text[m[2]:m[3]]
		before := text[max(0, m[0]-120):m[0]]
		ms := citer.FindAllString(before, -1)
		if len(ms) == 0 {
			out = append(out, fmt.Sprintf("cites §%s of nothing in this repository: cite docs/semantics.md §N or docs/semantics.md, pact v1 §N.M", num))
			continue
		}
		switch ms[len(ms)-1] {
		case "docs/semantics.md":
			if !own[num] {
				out = append(out, fmt.Sprintf("cites docs/semantics.md §%s, which docs/semantics.md does not have", num))
			}
		case "pact v1":
			found := false
			for p := num; p != ""; {
				if spec[p] {
					found = true
					break
				}
				i := strings.LastIndex(p, ".")
				if i < 0 {
					break
				}
				p = p[:i]
			}
			if !found {
				out = append(out, fmt.Sprintf("cites pact v1 §%s, which docs/semantics.md's appendix does not cover", num))
			}
		}
	}
	return out
}

func TestCitationProblems(t *testing.T) {
	t.Parallel()
	own := map[string]bool{"1": true, "5": true, "7": true}
	spec := map[string]bool{"1.2": true, "2.1": true}
	for text, want := range map[string]int{
		"see docs/semantics.md §5 and §7":       0,
		"(docs/semantics.md, pact v1 §2.1)":     0,
		"pact v1 §1.2.5 backward compatibility": 0,
		"SARIF 2.1.0 §3.4.3":                    0,
		"the frontmatter of tasks/<id>.md":      0,
		"PROJECT.md's managed block":            0,
		"README.md and CONTRIBUTING.md":         0,
		"(SEMANTICS.md §5)":                     3, // the name, the file, the section
		"(SEMANTICS\n// §7)":                    2,
		"(spec §2.4)":                           1,
		"the spec's envelope (§2.1)":            1,
		"docs/semantics.md §9":                  1,
		"pact v1 §4.9":                          1,
		"the rules of NOWHERE.md":               1,
	} {
		if got := citationProblems(text, "projection", own, spec); len(got) != want {
			t.Errorf("citationProblems(%q) = %q, want %d problems", text, got, want)
		}
	}
}

// TestCommentsCiteTheRepository: a Go comment (or a JSON Schema's text)
// that cites a document cites one this repository has — docs/semantics.md
// for the protocol, by a section it has — never the shared specification
// the code was written from.
func TestCommentsCiteTheRepository(t *testing.T) {
	t.Parallel()
	own, spec := semanticsSections(t)
	root := testbin.ModuleRoot()
	comments := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		dir := path.Dir(rel)
		switch {
		case strings.HasSuffix(p, ".go"):
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
			if err != nil {
				return err
			}
			for _, g := range f.Comments {
				comments++
				for _, problem := range citationProblems(g.Text(), dir, own, spec) {
					t.Errorf("%s:%d: a comment %s", rel, fset.Position(g.Pos()).Line, problem)
				}
			}
		case strings.HasPrefix(rel, "schemas/") && strings.HasSuffix(p, ".json"):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, problem := range citationProblems(string(b), dir, own, spec) {
				t.Errorf("%s %s", rel, problem)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if comments < 1000 {
		t.Errorf("read only %d comments: is the walk still right?", comments)
	}
}
