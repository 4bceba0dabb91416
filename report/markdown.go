package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hidden characters: text someone else wrote can carry characters that
// are not shown as themselves but change what is shown around them —
// controls (Unicode category Cc: a terminal's escape sequences, a
// carriage return that rewrites a line), format characters (Cf: the
// bidirectional embeddings, overrides, isolates and marks U+202A–U+202E,
// U+2066–U+2069, U+200E, U+200F, U+061C, which reorder a line, and the
// zero-width and invisible characters U+200B–U+200D, U+2060–U+2064,
// U+FEFF, U+180E, U+00AD, the tag characters, which hide a difference
// between two names that look alike), the other characters Unicode says
// to show as nothing (Default_Ignorable_Code_Point: the combining
// grapheme joiner U+034F, the Hangul fillers U+115F, U+1160, U+3164,
// U+FFA0, and the variation selectors U+FE00–U+FE0F, U+E0100–U+E01EF,
// U+180B–U+180F, which after a letter change nothing visible, so "T1"
// and "T1\ufe00" read alike), and the line and paragraph separators
// U+2028 and U+2029. Every rendering writes each one out as an escape
// (\x1b, \u202e) through visible, the one place that decides it: Plain
// for a terminal, Escape, Code and Fence for GitHub's Markdown, and
// PlainText for what GitHub shows as plain text (annotations, SARIF).
// A zero-width space that Escape itself puts after @ and # to keep them
// inert is not the writer's and is left as it is.
func hidden(r rune) bool {
	return r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Variation_Selector, r)
}

// hiddenAfter is hidden for r following prev, except that the text and
// emoji variation selectors (U+FE0E, U+FE0F) after a symbol choose how
// that symbol is drawn ("⚠️"): shown, not hidden.
func hiddenAfter(prev, r rune) bool {
	if (r == '\ufe0e' || r == '\ufe0f') && unicode.Is(unicode.So, prev) {
		return false
	}
	return hidden(r)
}

// hasHidden reports whether s holds a hidden character other than a tab
// or a line feed, or invalid UTF-8.
func hasHidden(s string) bool {
	prev := rune(0)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f {
				return true
			}
			prev = rune(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || hiddenAfter(prev, r) {
			return true
		}
		prev = r
		i += size
	}
	return false
}

// visible writes out every hidden character of s but tabs and line feeds
// (which each caller folds or keeps as its format needs) as an escape,
// \xNN below U+0080 and \uNNNN above; invalid UTF-8 becomes U+FFFD. Text
// with none is returned as it is.
func visible(s string) string {
	if !hasHidden(s) {
		return s
	}
	var b strings.Builder
	prev := rune(0)
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\t' || r == '\n' || !hiddenAfter(prev, r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		prev = r
	}
	return b.String()
}

// PlainText makes text someone else wrote safe where GitHub shows plain
// text (an annotation's title and message, a SARIF message): every hidden
// character is written out; line feeds and tabs stay.
func PlainText(s string) string { return visible(s) }

var mdEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;",
	// GitHub links mentions and issue references in rendered text, so an
	// entity is not enough: a zero-width space after @ and # breaks them
	// (and the e-mail addresses GitHub links, whose domain then starts
	// with it).
	"@", "@\u200b", "#", "#\u200b",
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "(", `\(`, ")", `\)`,
	"|", `\|`, "~", `\~`,
)

// lineBreaks become spaces in escaped text (one table cell, one line).
var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ")

// Escape makes user text inert in GitHub Markdown: no HTML, no formatting,
// no links, no @-mentions or #-references, and no line breaks (so it stays
// inside a table cell). It is the one way to put text someone else wrote
// (a task id, a branch name, a reason, a message quoting them) into
// Markdown outside a code span.
//
// Escaping characters cannot stop GitHub's autolinker, which links a bare
// www.host, a URL with a scheme, and (on GitHub, not in CommonMark) a
// commit id or a GH-123 reference as text. So a word (a run without
// spaces) holding one of those becomes a code span instead, in which
// GitHub links nothing, less the punctuation around it: it stays readable
// and copies exactly, as a task id or a commit id should. The zero-width
// space after @ and # is invisible but not copied away; ids rarely hold
// those.
func Escape(s string) string {
	s = visible(lineBreaks.Replace(strings.ToValidUTF8(s, "\uFFFD")))
	var b strings.Builder
	for i, word := range strings.Split(s, " ") {
		if i > 0 {
			b.WriteByte(' ')
		}
		if !linkable(word) {
			b.WriteString(mdEscaper.Replace(word))
			continue
		}
		lead := len(word) - len(strings.TrimLeft(word, leadPunct))
		core := strings.TrimRight(word[lead:], trailPunct)
		if core == "" { // all punctuation ("://"): quote it whole
			lead, core = 0, word
		}
		b.WriteString(mdEscaper.Replace(word[:lead]))
		b.WriteString(inertSpan(core))
		b.WriteString(mdEscaper.Replace(word[lead+len(core):]))
	}
	return b.String()
}

// Punctuation around a linkable word that stays outside its code span.
const (
	leadPunct  = `([{'"`
	trailPunct = `.,;:!?)]}'"`
)

// inertSpan is a code span of s that also holds inside a table cell: a
// pipe is escaped there (GFM splits cells before it reads code spans).
func inertSpan(s string) string {
	return Code(strings.ReplaceAll(s, "|", `\|`))
}

// linkable reports a word GitHub would turn (partly) into a link however
// its characters are escaped: a URL with a scheme (://), a www. host, a
// word of 7 or more hexadecimal digits (a commit id), or GH-<digits> (an
// issue or pull request). A word ending in www counts too: the text after
// it (a full stop) would make it one.
func linkable(word string) bool {
	lower := strings.ToLower(word)
	if strings.Contains(lower, "://") || strings.Contains(lower, "www.") || strings.HasSuffix(lower, "www") {
		return true
	}
	isWord := func(c byte) bool { return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' }
	isHex := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }
	for i := 0; i < len(lower); {
		if !isWord(lower[i]) {
			i++
			continue
		}
		j := i
		hex := true
		for j < len(lower) && isWord(lower[j]) {
			hex = hex && isHex(lower[j])
			j++
		}
		if hex && j-i >= 7 {
			return true
		}
		if strings.HasPrefix(lower[i:], "gh-") && j-i == 2 && j+1 < len(lower) && lower[j+1] >= '0' && lower[j+1] <= '9' {
			return true
		}
		i = j
	}
	return false
}

// Code renders s as an inline code span that stays inert whatever s holds,
// so it is the one way to quote text someone else wrote (a task id, a
// branch name, a word of a comment) inside backticks. GitHub renders no
// mention, link, image or HTML inside a code span; only a backtick could
// end the span early, so it becomes ', and line breaks become spaces.
func Code(s string) string {
	s = visible(codeSpanText.Replace(strings.ToValidUTF8(s, "\uFFFD")))
	if strings.TrimSpace(s) == "" {
		s = "\u00a0" + s // an empty span is not a span: show it as one
	}
	return "`" + s + "`"
}

// codeSpanText makes text safe inside one code span (Code).
var codeSpanText = strings.NewReplacer("`", "'", "\r\n", " ", "\n", " ", "\r", " ")

// Fence renders body as a fenced code block of the given info string that
// body cannot close: the fence is one backtick longer than the longest run
// of backticks inside it.
func Fence(info, body string) string {
	body = visible(strings.ReplaceAll(body, "\r\n", "\n"))
	info = visible(codeSpanText.Replace(info))
	longest, run := 0, 0
	for _, c := range body {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + info + "\n" + strings.TrimSuffix(body, "\n") + "\n" + fence
}
