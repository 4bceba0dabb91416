package pactfile

import (
	"path"
	"strconv"
	"strings"
)

// The line of the repository's .gitattributes that keeps git from
// converting the line endings of the pact's files, and the reading of a
// .gitattributes that says whether it (or an equivalent rule) is there.
//
// A Windows checkout with core.autocrlf=true turns every LF of a text file
// into CRLF. The log judges the same either way (a line ends at LF, a CR
// before it is not part of it: lines.go), but an editor, a diff and every
// tool that is not pactify then see the pact's files rewritten. The line
// pactify init writes is "<dir>/** text eol=lf": git checks the files out
// with LF on every OS whatever core.autocrlf says, and normalises a CRLF
// that an editor put in back to LF when it is committed, so the repository
// never holds a mixed file. (-text, which turns conversion off, would
// instead commit an editor's CRLF as it is, and leave every existing
// autocrlf checkout showing the whole pact as modified.)

// GitAttributesFile is the file, at the repository root, that holds the line.
const GitAttributesFile = ".gitattributes"

// gitAttributesComment comes right before the line when init writes it.
const gitAttributesComment = "# The pact's files keep LF line endings on every checkout (pactify init)."

// GitAttributesLine is the line for the pact directory of l.
func GitAttributesLine(l Layout) string {
	return quotePattern(globEscape(l.Dir())+"/**") + " text eol=lf"
}

// KeepsLF reports whether the .gitattributes text b, the repository root's,
// keeps git from converting the line endings of the pact's files: for each
// of them (the log, STATE.yml, PROJECT.md and a task file), the last line
// whose pattern matches either unsets text (-text, binary) or sets eol=lf.
// It reads patterns as git does (gitignore's rules, but a pattern that
// names a directory matches nothing inside it); macros other than binary
// and the .gitattributes files of subdirectories are not read, so a rule
// written only through them is not seen.
func KeepsLF(b []byte, l Layout) bool {
	rules := parseGitAttributes(b)
	for _, p := range []string{l.Log(), l.State(), l.Project(), l.Task("x")} {
		if attrOf(rules, p, "text") != "-" && attrOf(rules, p, "eol") != "=lf" {
			return false
		}
	}
	return true
}

// attrOf is the state of the attribute name on the path p (attrState's
// spelling; "" when no rule names it): the last rule that matches p and
// names it decides, as in git.
func attrOf(rules []attrRule, p, name string) string {
	state := ""
	for _, r := range rules {
		if !r.matches(p) {
			continue
		}
		for _, a := range r.attrs {
			if a.name == name {
				state = a.state
			}
		}
	}
	return state
}

// MergeDriver is the name of pactify's git merge driver (docs/semantics.md
// §8): the merge attribute of the log and STATE.yml, and the
// merge.<name>.driver that `pactify install` and init configure.
const MergeDriver = "pact"

// mergeComment comes right before the merge lines when init writes them.
const mergeComment = "# git merges the pact's log and STATE.yml with pactify (pactify install; docs/pactify.md)."

// mergeLines are the lines that give the log and STATE.yml of l the merge
// driver.
func mergeLines(l Layout) []string {
	return []string{
		quotePattern(globEscape(l.Log())) + " merge=" + MergeDriver,
		quotePattern(globEscape(l.State())) + " merge=" + MergeDriver,
	}
}

// mergesByDriver reports whether the .gitattributes text b gives both the
// log and STATE.yml of l the merge driver.
func mergesByDriver(b []byte, l Layout) bool {
	rules := parseGitAttributes(b)
	return attrOf(rules, l.Log(), "merge") == "="+MergeDriver && attrOf(rules, l.State(), "merge") == "="+MergeDriver
}

// attrRule is a line of .gitattributes: a pattern and its attributes.
type attrRule struct {
	// segments are the pattern's path segments when it holds a slash
	// (matched against the whole path from the root); base is the pattern
	// otherwise (matched against a path's last segment).
	segments []string
	base     string
	attrs    []attrState
}

// attrState is an attribute a line sets: state is "+" (set), "-" (unset),
// "!" (unspecified) or "=" and the value.
type attrState struct{ name, state string }

func parseGitAttributes(b []byte) []attrRule {
	var rules []attrRule
	for _, line := range SplitLines(b) {
		s := strings.TrimLeft(string(line), " \t")
		if s == "" || s[0] == '#' {
			continue
		}
		pattern, rest, ok := cutPattern(s)
		// Macro definitions name no path; negative patterns are
		// forbidden and git ignores their lines.
		if !ok || pattern == "" || strings.HasPrefix(pattern, "[attr]") || pattern[0] == '!' {
			continue
		}
		r := attrRule{attrs: parseAttrs(rest)}
		if strings.HasSuffix(pattern, "/") {
			continue // a directory's own attributes: no file inside it
		}
		if strings.Contains(pattern, "/") {
			r.segments = strings.Split(strings.TrimPrefix(pattern, "/"), "/")
		} else {
			r.base = pattern
		}
		rules = append(rules, r)
	}
	return rules
}

// cutPattern cuts the pattern off a line: up to the first blank, or a
// C-quoted string (git's quoting: any bytes, \\ \" \a \b \f \n \r \t \v
// and three octal digits escaped).
func cutPattern(s string) (pattern, rest string, ok bool) {
	if s[0] != '"' {
		i := strings.IndexAny(s, " \t\r")
		if i < 0 {
			return s, "", true
		}
		return s[:i], s[i:], true
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), s[i+1:], true
		case c != '\\':
			b.WriteByte(c)
		case i+1 >= len(s):
			return "", "", false
		default:
			i++
			if e := strings.IndexByte(`\"abfnrtv`, s[i]); e >= 0 {
				b.WriteByte("\\\"\a\b\f\n\r\t\v"[e])
				continue
			}
			if i+3 > len(s) {
				return "", "", false
			}
			n, err := strconv.ParseUint(s[i:i+3], 8, 8)
			if err != nil {
				return "", "", false
			}
			b.WriteByte(byte(n))
			i += 2
		}
	}
	return "", "", false
}

func parseAttrs(s string) []attrState {
	var out []attrState
	for _, f := range strings.Fields(s) {
		switch {
		case f == "binary": // the one built-in macro: -diff -merge -text
			out = append(out, attrState{"diff", "-"}, attrState{"merge", "-"}, attrState{"text", "-"})
		case f[0] == '-' || f[0] == '!':
			out = append(out, attrState{f[1:], f[:1]})
		case strings.Contains(f, "="):
			name, value, _ := strings.Cut(f, "=")
			out = append(out, attrState{name, "=" + value})
		default:
			out = append(out, attrState{f, "+"})
		}
	}
	return out
}

func (r attrRule) matches(p string) bool {
	if r.segments == nil {
		return globMatch(r.base, path.Base(p))
	}
	return matchSegments(r.segments, strings.Split(p, "/"))
}

// matchSegments matches a pattern's segments against a path's: "**" is any
// number of segments (at least one when it ends the pattern: "dir/**" is
// everything inside dir), any other segment a glob of one.
func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return len(name) > 0
			}
			for i := range len(name) + 1 {
				if matchSegments(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 || !globMatch(pat[0], name[0]) {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// globMatch is fnmatch on one segment. A pattern path.Match cannot read
// ([[:alpha:]]) matches nothing.
func globMatch(pattern, name string) bool {
	ok, err := path.Match(goGlob(pattern), name)
	return err == nil && ok
}

// goGlob spells git's negated class [!...] as path.Match's [^...].
func goGlob(p string) string {
	if !strings.Contains(p, "[!") {
		return p
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		b.WriteByte(c)
		switch {
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteByte(p[i])
		case c == '[' && !inClass:
			inClass = true
			if i+1 < len(p) && p[i+1] == '!' {
				b.WriteByte('^')
				i++
			}
		case c == ']' && inClass:
			inClass = false
		}
	}
	return b.String()
}

// globEscape makes every character of dir literal in a pattern.
func globEscape(dir string) string {
	var b strings.Builder
	for i := range len(dir) {
		if c := dir[i]; strings.IndexByte(`*?[\`, c) >= 0 || (i == 0 && (c == '!' || c == '#')) {
			b.WriteByte('\\')
		}
		b.WriteByte(dir[i])
	}
	return b.String()
}

// quotePattern C-quotes a pattern that holds a blank, a line break or a
// quote, as git reads it.
func quotePattern(p string) string {
	if !strings.ContainsAny(p, " \t\"\r\n") {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := range len(p) {
		switch c := p[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// WithGitAttributesLine is the .gitattributes text b with the line for l
// appended (after gitAttributesComment), in b's own line endings; b itself
// when it already keeps the pact's line endings (KeepsLF). Nothing of b is
// changed or reordered.
func WithGitAttributesLine(b []byte, l Layout) []byte {
	if KeepsLF(b, l) {
		return b
	}
	return withLines(b, gitAttributesComment, GitAttributesLine(l))
}

// WithMergeLines is the .gitattributes text b with mergeLines appended
// (after mergeComment), in b's own line endings; b itself when it already
// gives the log and STATE.yml the merge driver (mergesByDriver).
func WithMergeLines(b []byte, l Layout) []byte {
	if mergesByDriver(b, l) {
		return b
	}
	return withLines(b, append([]string{mergeComment}, mergeLines(l)...)...)
}

// withLines is b with lines appended in b's own line endings.
func withLines(b []byte, lines ...string) []byte {
	eol := LineEnding(b)
	out := append([]byte(nil), b...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, eol...)
	}
	for _, line := range lines {
		out = append(out, line+eol...)
	}
	return out
}

// The .gitignore of the pact directory, which pactify init writes so that
// `git add .pact` never commits a temporary file: every file pactify
// replaces is first written beside it as "." + its name + ".tmp-" + 16 hex
// digits, and a writer killed before its rename leaves that file behind
// until the next writer removes it (docs/pactify.md).
const (
	// GitIgnoreFile is the file, in the pact directory, that holds the line.
	GitIgnoreFile = ".gitignore"
	// gitIgnoreComment comes right before the line when init writes it.
	gitIgnoreComment = "# Temporary files a pactify writer leaves if it is killed; the next writer removes them (pactify init)."
	// gitIgnoreLine matches those temporary files, in the pact directory and
	// below it.
	gitIgnoreLine = ".*.tmp-*"
)

// WithGitIgnoreLine is the .gitignore text b with gitIgnoreLine appended
// (after gitIgnoreComment), in b's own line endings; b itself when a line
// of it is already gitIgnoreLine. Nothing of b is changed or reordered.
func WithGitIgnoreLine(b []byte) []byte {
	for _, line := range Lines(b) {
		if strings.TrimSpace(string(line)) == gitIgnoreLine {
			return b
		}
	}
	return withLines(b, gitIgnoreComment, gitIgnoreLine)
}
