// Package markdown holds rendered text to what GitHub makes live in it:
// it parses Markdown as GitHub does (goldmark with GFM, autolinks
// included) and lists every link, image, autolink, raw HTML, mention,
// issue or commit reference outside code. It is test support: the tests
// that hold check runs, job summaries and replies inert share it.
package markdown

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

var gfm = goldmark.New(goldmark.WithExtensions(extension.GFM))

// ownHTML is the raw HTML our own renderings use (the summary's footer);
// anything else is live HTML.
var ownHTML = map[string]bool{"<sub>": true, "</sub>": true}

// textual are what GitHub links in text beyond what goldmark's linkify
// does: its autolinker also takes www. and scheme URLs after punctuation,
// e-mail addresses, @mentions, #123 and GH-123 references, and commit ids
// (a word of 7 to 64 hexadecimal digits).
var textual = []struct {
	what string
	re   *regexp.Regexp
}{
	{"a www. link", regexp.MustCompile(`(?i)www\.`)},
	{"a URL", regexp.MustCompile(`://`)},
	{"an e-mail address", regexp.MustCompile(`(?i)[a-z0-9._+-]@[a-z0-9]`)},
	{"a mention", regexp.MustCompile(`(?i)@[a-z0-9_-]`)},
	{"an issue reference", regexp.MustCompile(`(?i)(?:#|\bgh-)[0-9]`)},
	{"a commit reference", regexp.MustCompile(`(?i)(?:^|[^a-z0-9_])[0-9a-f]{7,}(?:$|[^a-z0-9_])`)},
}

// Live lists what GitHub would render live in md: each as "a <thing> in
// <the text around it>". Code spans and code blocks are inert; the text
// between them is read run by run, the way an autolinker sees it.
func Live(md string) []string {
	src := []byte(md)
	doc := gfm.Parser().Parse(text.NewReader(src))
	var found []string
	var run strings.Builder
	flush := func() {
		s := run.String()
		run.Reset()
		for _, p := range textual {
			if loc := p.re.FindStringIndex(s); loc != nil {
				found = append(found, fmt.Sprintf("%s in %q", p.what, around(s, loc)))
			}
		}
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if n.Type() == ast.TypeBlock {
			flush() // a block starts or ends: text does not run across it
		}
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindCodeSpan, ast.KindFencedCodeBlock, ast.KindCodeBlock:
			flush()
			return ast.WalkSkipChildren, nil
		case ast.KindLink, ast.KindImage, ast.KindAutoLink:
			found = append(found, fmt.Sprintf("a live %s: %q", n.Kind(), nodeText(n, src)))
			return ast.WalkSkipChildren, nil
		case ast.KindRawHTML:
			html := nodeText(n, src)
			if !ownHTML[html] {
				found = append(found, fmt.Sprintf("raw HTML %q", html))
			}
			flush()
		case ast.KindHTMLBlock:
			found = append(found, fmt.Sprintf("an HTML block %q", nodeText(n, src)))
			return ast.WalkSkipChildren, nil
		case ast.KindText:
			t := n.(*ast.Text)
			run.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				run.WriteByte(' ')
			}
		case ast.KindString:
			run.Write(n.(*ast.String).Value)
		}
		return ast.WalkContinue, nil
	})
	flush()
	return found
}

// nodeText is the source a node covers (its lines, or its segments).
func nodeText(n ast.Node, src []byte) string {
	switch n := n.(type) {
	case *ast.RawHTML:
		var b strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			s := n.Segments.At(i)
			b.Write(s.Value(src))
		}
		return b.String()
	case *ast.AutoLink:
		return string(n.URL(src))
	}
	var b strings.Builder
	if n.Type() == ast.TypeBlock {
		for i := 0; i < n.Lines().Len(); i++ {
			s := n.Lines().At(i)
			b.Write(s.Value(src))
		}
		return b.String()
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(src))
		}
	}
	return b.String()
}

func around(s string, loc []int) string {
	return s[max(0, loc[0]-20):min(len(s), loc[1]+20)]
}
