package docs

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/pact-action/pact-action/internal/testkit/testbin"
)

// docFiles are the Markdown files a reader of the repository is sent to,
// slash-separated and relative to the module root.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(testbin.ModuleRoot(), "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 7 {
		t.Fatalf("found %d pages under docs/, want at least check, bot, security, doctor, pactify, codes and semantics", len(pages))
	}
	files := []string{"README.md", "CONTRIBUTING.md", "SECURITY.md", "CHANGELOG.md"}
	for _, p := range pages {
		files = append(files, "docs/"+filepath.Base(p))
	}
	return files
}

// exists reports whether rel (slash-separated, relative to the module
// root) names a file or directory, with every name in the exact case: a
// link that works on a case-insensitive disk must work on GitHub too.
func exists(rel string) bool {
	dir := testbin.ModuleRoot()
	for _, name := range strings.Split(path.Clean(rel), "/") {
		switch name {
		case ".":
			continue
		case "..":
			return false // outside the repository
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return false
		}
		if !slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == name }) {
			return false
		}
		dir = filepath.Join(dir, name)
	}
	return true
}

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testbin.ModuleRoot(), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), "\r\n", "\n")
}

// mdLine is one line of Markdown prose: outside fenced code blocks.
type mdLine struct {
	n    int
	text string
}

// prose returns the lines of a Markdown document outside fenced code
// blocks (``` or ~~~, indented or not).
func prose(doc string) []mdLine {
	var out []mdLine
	fence := ""
	for i, l := range strings.Split(doc, "\n") {
		trimmed := strings.TrimLeft(l, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			for strings.HasPrefix(trimmed[len(fence):], fence[:1]) {
				fence += fence[:1]
			}
			continue
		}
		out = append(out, mdLine{i + 1, l})
	}
	return out
}

// splitCode separates a line's code spans from the rest: text is the line
// with each span replaced by a space, spans the spans' contents.
func splitCode(line string) (text string, spans []string) {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		open := line[i : i+n]
		rest := line[i+n:]
		end := -1
		for j := 0; j+n <= len(rest); {
			k := strings.Index(rest[j:], open)
			if k < 0 {
				break
			}
			k += j
			if k+n < len(rest) && rest[k+n] == '`' { // a longer run closes nothing
				for k < len(rest) && rest[k] == '`' {
					k++
				}
				j = k
				continue
			}
			end = k
			break
		}
		if end < 0 { // an unmatched run is literal text
			b.WriteString(open)
			i += n
			continue
		}
		spans = append(spans, strings.TrimSpace(rest[:end]))
		b.WriteByte(' ')
		i += n + end + n
	}
	return b.String(), spans
}

var (
	heading   = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	inlineRef = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	defRef    = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*(\S+)`)
	mdLink    = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	scheme    = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// slug is the anchor GitHub gives a heading: its text lower-cased, every
// character that is not a letter, mark, digit, '_', '-' or space dropped,
// and each space a hyphen.
func slug(text string) string {
	text = mdLink.ReplaceAllString(text, "$1")
	text = strings.NewReplacer("`", "", "*", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors are the #fragments a Markdown document offers: its headings'
// slugs, a repeated one numbered as GitHub numbers it.
func anchors(doc string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range prose(doc) {
		m := heading.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Make `pact` required":                         "make-pact-required",
		"Who holds which seat: `.github/pact.yml`":     "who-holds-which-seat-githubpactyml",
		"§5 Pull-request mode":                         "5-pull-request-mode",
		"pact v1 §7.1: the verbs":                      "pact-v1-71-the-verbs",
		"`validate`'s output":                          "validates-output",
		"Bot mode: reviews and `/pact` commands":       "bot-mode-reviews-and-pact-commands",
		"A [link](x.md) and **bold**":                  "a-link-and-bold",
		"The engine: `validate` and the writing verbs": "the-engine-validate-and-the-writing-verbs",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLinksResolve: every relative link of the documentation names a file
// or directory of the repository, and every #anchor a heading of its page.
func TestLinksResolve(t *testing.T) {
	t.Parallel()
	docs := map[string]string{}
	for _, f := range docFiles(t) {
		docs[f] = read(t, f)
	}
	checked := 0
	for _, file := range docFiles(t) {
		for _, l := range prose(docs[file]) {
			text, _ := splitCode(l.text)
			var targets []string
			for _, m := range inlineRef.FindAllStringSubmatch(text, -1) {
				targets = append(targets, m[1])
			}
			if m := defRef.FindStringSubmatch(text); m != nil {
				targets = append(targets, m[1])
			}
			for _, target := range targets {
				if scheme.MatchString(target) || strings.HasPrefix(target, "//") {
					continue // a URL, not a path
				}
				checked++
				where := fmt.Sprintf("%s:%d: %s", file, l.n, target)
				p, frag, _ := strings.Cut(target, "#")
				rel := file
				if p != "" {
					rel = path.Join(path.Dir(file), p)
					if !exists(rel) {
						t.Errorf("%s: no such file or directory %s", where, rel)
						continue
					}
				}
				if frag == "" {
					continue
				}
				doc, ok := docs[rel]
				if !ok {
					if !strings.HasSuffix(rel, ".md") {
						t.Errorf("%s: an anchor into %s, which is not Markdown", where, rel)
						continue
					}
					doc = read(t, rel)
				}
				if !anchors(doc)[frag] {
					t.Errorf("%s: %s has no heading #%s", where, rel, frag)
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked only %d relative links: is the link pattern still right?", checked)
	}
}

// rootEntries are the names at the top of the repository.
func rootEntries(t *testing.T) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(testbin.ModuleRoot())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range entries {
		out[e.Name()] = true
	}
	return out
}

// TestNamedPathsExist: a code span that names a path of this repository —
// one whose first name is a file or directory at the top of it, such as
// `checks/codes.go` or `scripts/build.sh` — names one that exists. Paths
// of the user's repository (`.pact/log.jsonl`, `tasks/<id>.md`) start with
// names this repository does not have, and placeholders (<…>, *, $) are
// not paths.
func TestNamedPathsExist(t *testing.T) {
	t.Parallel()
	top := rootEntries(t)
	checked := 0
	for _, file := range docFiles(t) {
		for _, l := range prose(read(t, file)) {
			_, spans := splitCode(l.text)
			for _, s := range spans {
				if s == "" || strings.ContainsAny(s, " \t<>*$@{}=…,;") || scheme.MatchString(s) {
					continue
				}
				p := strings.TrimPrefix(s, "./")
				p = strings.TrimSuffix(p, "/...")
				p = strings.TrimSuffix(p, "/")
				first, _, _ := strings.Cut(p, "/")
				if p == "" || !top[first] {
					continue
				}
				checked++
				if !exists(p) {
					t.Errorf("%s:%d: `%s` names %s, which the repository does not have", file, l.n, s, p)
				}
			}
		}
	}
	if checked < 30 {
		t.Errorf("checked only %d repository paths: is the pattern still right?", checked)
	}
}
