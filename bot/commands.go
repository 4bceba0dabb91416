package bot

import (
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Command verbs of /pact.
const (
	VerbAccept  = "accept"
	VerbChanges = "changes"
	verbStatus  = "status"
	verbRecheck = "recheck"
	verbHelp    = "help"
)

// Command is one /pact line of a comment.
type Command struct {
	Verb   string
	Task   string
	Reason string
	// Problem is set when the line is not a usable command; the reply is
	// then the help text with this sentence (Markdown, already inert) first.
	Problem string
}

// markdown parses comments the way GitHub renders them: CommonMark with the
// GitHub Flavored Markdown extensions (tables, strikethrough, autolinks,
// task lists).
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM))

// ParseCommands finds the /pact commands of a comment body, in order. A
// command is a line of a top-level paragraph, as GitHub renders the comment,
// that holds nothing but plain text starting with /pact: lines GitHub shows
// as code (fenced or indented), inside HTML (blocks, comments or inline
// tags), quotes (including lazy continuation lines), lists, tables,
// headings, links or emphasis are not commands. The provenance check
// re-reads comments with this same function, so what the bot acts on and
// what verifies an event never differ.
func ParseCommands(body string) []Command {
	src := []byte(body)
	doc := markdown.Parser().Parse(text.NewReader(src))
	var out []Command
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if n.Kind() != ast.KindParagraph {
			continue
		}
		for _, line := range plainLines(n, src) {
			rest, ok := strings.CutPrefix(line, "/pact")
			if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
				continue
			}
			out = append(out, parseCommand(strings.Fields(rest)))
		}
	}
	return out
}

// plainLines returns the source lines of a paragraph that hold only plain
// text, trimmed. Inline nodes other than text (code spans, HTML, links,
// autolinks, emphasis, strikethrough, images) sit in the gaps between the
// paragraph's text nodes; every line such a gap touches is not plain.
func plainLines(para ast.Node, src []byte) []string {
	lines := para.Lines()
	if lines.Len() == 0 {
		return nil
	}
	tainted := make([]bool, lines.Len())
	// taint marks the lines holding a visible (non-space) byte of
	// src[from:to]; gaps are disjoint, so this is linear in the comment.
	taint := func(from, to int) {
		for b := from; b < to; b++ {
			if c := src[b]; c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				continue
			}
			i := sort.Search(lines.Len(), func(i int) bool { return lines.At(i).Start > b }) - 1
			if i >= 0 && b < lines.At(i).Stop {
				tainted[i] = true
			}
		}
	}
	pos := lines.At(0).Start
	pending := false // a non-text node since pos
	for c := para.FirstChild(); c != nil; c = c.NextSibling() {
		t, isText := c.(*ast.Text)
		if !isText {
			pending = true
			continue
		}
		if pending {
			taint(pos, t.Segment.Start)
			pending = false
		}
		pos = t.Segment.Stop
	}
	if pending {
		taint(pos, lines.At(lines.Len()-1).Stop)
	}
	var out []string
	for i := 0; i < lines.Len(); i++ {
		if !tainted[i] {
			seg := lines.At(i)
			out = append(out, strings.TrimSpace(string(seg.Value(src))))
		}
	}
	return out
}

func parseCommand(words []string) Command {
	if len(words) == 0 {
		return Command{Verb: verbHelp}
	}
	verb := strings.ToLower(words[0])
	switch verb {
	case VerbAccept:
		if len(words) != 2 {
			return Command{Verb: verbHelp, Problem: problemAcceptArgs}
		}
		return Command{Verb: verb, Task: words[1]}
	case VerbChanges:
		if len(words) < 3 {
			return Command{Verb: verbHelp, Problem: problemChangesArgs}
		}
		return Command{Verb: verb, Task: words[1], Reason: strings.Join(words[2:], " ")}
	case verbStatus, verbRecheck, verbHelp:
		if len(words) != 1 {
			return Command{Verb: verbHelp, Problem: problemNoArgs(verb)}
		}
		return Command{Verb: verb}
	}
	return Command{Verb: verbHelp, Problem: problemUnknownVerb(words[0])}
}
