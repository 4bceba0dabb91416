// Package yamlemit appends YAML byte for byte as gopkg.in/yaml.v3's
// encoder writes it, for the few shapes the .pact/ files use, and reads one
// plain or quoted scalar back. It is a port of yaml.v3's emitter, fenced in
// a package of its own as the JSON scanner is (projection/internal/jsonscan):
// its own tests and fuzz targets hold it to yaml.v3, and it knows nothing of
// the pact.
package yamlemit

import (
	"encoding/base64"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Writer appends block YAML exactly as gopkg.in/yaml.v3's encoder
// (v3.0.1, unlimited line width) writes it, for the shapes .pact/ files use:
// block mappings with plain keys, block sequences of mappings, flow sequences
// of strings, and string, int and bool values. Writing through the encoder
// costs a reflection walk and a node per value (seconds and gigabytes on a
// large STATE.yml); this appends the same bytes directly.
//
// The scalar rules (which style a string gets, how each style is written)
// are ported from yaml.v3's stringv, resolve and emitter (emitterc.go, after
// libyaml; MIT licence, Copyright (c) 2006-2011 Kirill Simonov, and Apache
// 2.0, Copyright 2011-2016 Canonical Ltd.), including their quirks, such as
// escaping every character of a double-quoted string that starts with a
// byte order mark. Tests hold the output to the encoder's, byte for byte.
//
// Indents are the emitter's: a mapping at indent m has its keys at column m;
// a block sequence that is the value of such a key is at SeqIndent(m), and a
// mapping that is one of its items at that plus 2.
type Writer struct {
	// Buf is the output so far.
	Buf []byte
	// best is the encoder's indent (SetIndent; yaml.Marshal uses 4).
	best int

	column     int
	whitespace bool
	indention  bool
	openEnded  bool
}

// NewWriter starts a document in buf with the given indent (2 for
// STATE.yml, 4 for what yaml.Marshal writes).
func NewWriter(buf []byte, indent int) *Writer {
	if indent < 2 || indent > 9 {
		indent = 4 // as yaml.v3 does with an indent it does not take
	}
	return &Writer{Buf: buf, best: indent, whitespace: true, indention: true}
}

// Mark is where a writer stands in its document, as far as the bytes it
// writes next depend on it: the column and the emitter's whitespace,
// indention and open-ended flags. Two parts of a document written by
// writers of their own join into the bytes one writer would have written
// where the mark at the end of the first is the mark the second started
// from (Resume).
type Mark struct {
	column                           int
	whitespace, indention, openEnded bool
}

// Mark returns where the writer stands.
func (w *Writer) Mark() Mark {
	return Mark{w.column, w.whitespace, w.indention, w.openEnded}
}

// Resume makes the writer go on as if Buf ended where m was taken: the next
// bytes are those a writer standing at m writes.
func (w *Writer) Resume(m Mark) {
	w.column, w.whitespace, w.indention, w.openEnded = m.column, m.whitespace, m.indention, m.openEnded
}

// NewDocument starts another document at the end of Buf, as a second
// yaml.Marshal call appended there would write it.
func (w *Writer) NewDocument() {
	w.column, w.whitespace, w.indention, w.openEnded = 0, true, true, false
}

// aligned is the emitter's increase_indent for anything but the first
// level inside a block sequence item.
func (w *Writer) aligned(indent int) int {
	if indent < 0 {
		return w.best
	}
	return w.best * ((indent + w.best) / w.best)
}

// SeqIndent is the indent of a block sequence that is the value of a key of
// a mapping at indent m.
func (w *Writer) SeqIndent(m int) int {
	if m < 0 {
		return 0
	}
	return w.aligned(m)
}

// Key starts the entry key of a block mapping whose keys are at indent m.
// The key is quoted as a value would be (n and on are YAML 1.1 booleans);
// it must be one non-empty line, which is all a simple key can be.
func (w *Writer) Key(m int, key string) {
	w.writeIndent(m)
	w.scalar(key, w.aligned(m), false)
	w.indicator(":", false, false, false)
}

// Item starts an item of a block sequence at indent s; a mapping inside it
// has its keys at s+2. It leaves the writer at one mark for a given s,
// whatever the writer stood at before: a break unless the line is blank up
// to s, then "-". So the rest of an item may be written by a writer of its
// own that wrote an item's "-" first (TestWriterMatchesEncoder and FuzzWriter join
// every document they write at every item).
func (w *Writer) Item(s int) {
	w.writeIndent(s)
	w.indicator("-", true, false, true)
}

// String writes a string value of a key of the mapping at indent m.
func (w *Writer) String(m int, s string) {
	w.scalar(s, w.aligned(m), false)
}

// Int writes an int value.
func (w *Writer) Int(v int) {
	w.appendPlain(strconv.Itoa(v))
}

// Bool writes a bool value.
func (w *Writer) Bool(v bool) {
	if v {
		w.appendPlain("true")
	} else {
		w.appendPlain("false")
	}
}

// EmptySeq writes the value of a key whose sequence is empty: the encoder
// writes an empty sequence in flow style, [].
func (w *Writer) EmptySeq() {
	w.indicator("[", true, true, false)
	w.indicator("]", false, false, false)
}

// FlowStrings writes a list of strings in flow style ([a, b]) as the value
// of a key of the mapping at indent m.
func (w *Writer) FlowStrings(m int, list []string) {
	seq := w.aligned(m)
	w.indicator("[", true, true, false)
	item := w.aligned(seq)
	for i, s := range list {
		if i > 0 {
			w.indicator(",", false, false, false)
		}
		if w.column == 0 {
			w.writeIndent(seq)
		}
		w.scalar(s, item, true)
	}
	if w.column == 0 {
		w.writeIndent(m)
	}
	w.indicator("]", false, false, false)
}

// End ends the document as the encoder's Encode and Close do.
func (w *Writer) End() {
	w.writeIndent(-1)
	if w.openEnded {
		w.indicator("...", true, false, false)
		w.writeIndent(-1)
	}
}

// ---- the emitter's primitives ----

func (w *Writer) put(c byte) {
	w.Buf = append(w.Buf, c)
	w.column++
}

func (w *Writer) putBreak() {
	w.Buf = append(w.Buf, '\n')
	w.column = 0
	w.indention = true
}

// write copies the character at s[i] and returns the index after it.
func (w *Writer) write(s string, i int) int {
	n := charWidth(s[i])
	w.Buf = append(w.Buf, s[i:i+n]...)
	w.column++
	return i + n
}

func (w *Writer) writeBreak(s string, i int) int {
	if s[i] == '\n' {
		w.putBreak()
		return i + 1
	}
	i = w.write(s, i)
	w.column = 0
	w.indention = true
	return i
}

const spaces = "                                                                "

func (w *Writer) writeIndent(indent int) {
	if indent < 0 {
		indent = 0
	}
	if !w.indention || w.column > indent || (w.column == indent && !w.whitespace) {
		w.putBreak()
	}
	for w.column < indent {
		n := min(indent-w.column, len(spaces))
		w.Buf = append(w.Buf, spaces[:n]...)
		w.column += n
	}
	w.whitespace = true
}

// indicator writes an indicator, which is ASCII.
func (w *Writer) indicator(ind string, needWhitespace, isWhitespace, isIndention bool) {
	if needWhitespace && !w.whitespace {
		w.put(' ')
	}
	w.Buf = append(w.Buf, ind...)
	w.column += len(ind)
	w.whitespace = isWhitespace
	w.indention = w.indention && isIndention
	w.openEnded = false
}

// appendPlain writes an ASCII plain scalar known to need no analysis.
func (w *Writer) appendPlain(s string) {
	if !w.whitespace {
		w.put(' ')
	}
	w.Buf = append(w.Buf, s...)
	w.column += len(s)
	w.whitespace = false
	w.indention = false
}

// ---- scalars ----

type scalarStyle uint8

const (
	stylePlain scalarStyle = iota
	styleSingle
	styleDouble
	styleLiteral
)

// scalar writes a string the way the encoder's stringv and the emitter's
// emit_scalar do, at the given scalar indent, in block or flow context.
func (w *Writer) scalar(s string, indent int, flow bool) {
	if simplePlain(s) {
		w.appendPlain(s)
		return
	}
	tagged := false
	canUsePlain := true
	if !utf8.ValidString(s) {
		tagged = true
		s = encodeBase64(s)
	} else {
		canUsePlain = resolvesToString(s) && !isBase60Float(s) && !isOldBool(s)
	}
	var style scalarStyle
	switch {
	case strings.Contains(s, "\n"):
		if flow {
			style = styleDouble
		} else {
			style = styleLiteral
		}
	case canUsePlain:
		style = stylePlain
	default:
		style = styleDouble
	}
	a := analyzeScalar(s)
	if style == stylePlain {
		if flow && !a.flowPlain || !flow && !a.blockPlain {
			style = styleSingle
		}
		if len(s) == 0 && flow {
			style = styleSingle
		}
	}
	if style == styleSingle && !a.singleQuoted {
		style = styleDouble
	}
	if style == styleLiteral && (!a.block || flow) {
		style = styleDouble
	}
	if tagged {
		if !w.whitespace {
			w.put(' ')
		}
		for i := 0; i < len("!!binary"); {
			i = w.write("!!binary", i)
		}
		w.whitespace = false
		w.indention = false
	}
	switch style {
	case stylePlain:
		w.writePlain(s)
	case styleSingle:
		w.writeSingleQuoted(s, indent)
	case styleDouble:
		w.writeDoubleQuoted(s)
	case styleLiteral:
		w.writeLiteral(s, indent)
	}
}

// PlainText reports whether YAML reads s written as a plain scalar, in a
// block or a flow context, as exactly the string s, and Writer writes s
// so: a test any reader of a file in the layout of Writer may rely on.
// It is true of most ids, seat names, statuses and paths, and false of
// anything unusual.
func PlainText(s string) bool { return simplePlain(s) }

// simplePlain reports whether s is written as a plain scalar in any context
// without further analysis: ASCII letters, digits and -_./ with single
// spaces inside, starting with a letter or with a dot then a letter, and
// not a keyword of YAML 1.1 or 1.2 (true, null, yes, .inf, …). Most ids,
// seat names, statuses, paths and short reasons are.
func simplePlain(s string) bool {
	if len(s) < 2 {
		// One letter, except the YAML 1.1 booleans y and n.
		return len(s) == 1 && ('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z') && !isOldBool(s)
	}
	c := s[0]
	switch {
	case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
	case c == '.':
		// ".5" is a float, "..." a document end.
		if c1 := s[1]; (c1 < 'a' || c1 > 'z') && (c1 < 'A' || c1 > 'Z') {
			return false
		}
	default:
		return false
	}
	if len(s) <= 6 && (isKeyword(s) || isOldBool(s)) {
		return false
	}
	last := len(s) - 1
	for i := 1; i <= last; i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '/' {
			continue
		}
		if c == ' ' && i < last && s[i+1] != ' ' {
			continue
		}
		return false
	}
	return true
}

type scalarAnalysis struct {
	flowPlain, blockPlain, singleQuoted, block bool
}

// analyzeScalar is yaml_emitter_analyze_scalar (unicode output on).
func analyzeScalar(value string) scalarAnalysis {
	if len(value) == 0 {
		return scalarAnalysis{flowPlain: false, blockPlain: true, singleQuoted: true, block: false}
	}
	var (
		blockIndicators, flowIndicators, lineBreaks, specialCharacters, tabCharacters    bool
		leadingSpace, leadingBreak, trailingSpace, trailingBreak, breakSpace, spaceBreak bool
		previousSpace, previousBreak                                                     bool
	)
	if len(value) >= 3 && (value[:3] == "---" || value[:3] == "...") {
		blockIndicators, flowIndicators = true, true
	}
	precededByWhitespace := true
	for i, wd := 0, 0; i < len(value); i += wd {
		wd = charWidth(value[i])
		followedByWhitespace := i+wd >= len(value) || isBlank(value, i+wd)
		if i == 0 {
			switch value[i] {
			case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
				flowIndicators, blockIndicators = true, true
			case '?', ':':
				flowIndicators = true
				if followedByWhitespace {
					blockIndicators = true
				}
			case '-':
				if followedByWhitespace {
					flowIndicators, blockIndicators = true, true
				}
			}
		} else {
			switch value[i] {
			case ',', '?', '[', ']', '{', '}':
				flowIndicators = true
			case ':':
				flowIndicators = true
				if followedByWhitespace {
					blockIndicators = true
				}
			case '#':
				if precededByWhitespace {
					flowIndicators, blockIndicators = true, true
				}
			}
		}
		if value[i] == '\t' {
			tabCharacters = true
		} else if !isPrintable(value, i) {
			specialCharacters = true
		}
		switch {
		case value[i] == ' ':
			if i == 0 {
				leadingSpace = true
			}
			if i+wd == len(value) {
				trailingSpace = true
			}
			if previousBreak {
				breakSpace = true
			}
			previousSpace, previousBreak = true, false
		case isBreak(value, i):
			lineBreaks = true
			if i == 0 {
				leadingBreak = true
			}
			if i+wd == len(value) {
				trailingBreak = true
			}
			if previousSpace {
				spaceBreak = true
			}
			previousSpace, previousBreak = false, true
		default:
			previousSpace, previousBreak = false, false
		}
		precededByWhitespace = isBlankZ(value, i)
	}
	a := scalarAnalysis{flowPlain: true, blockPlain: true, singleQuoted: true, block: true}
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak {
		a.flowPlain, a.blockPlain = false, false
	}
	if trailingSpace {
		a.block = false
	}
	if breakSpace {
		a.flowPlain, a.blockPlain, a.singleQuoted = false, false, false
	}
	if spaceBreak || tabCharacters || specialCharacters {
		a.flowPlain, a.blockPlain, a.singleQuoted = false, false, false
	}
	if spaceBreak || specialCharacters {
		a.block = false
	}
	if lineBreaks {
		a.flowPlain, a.blockPlain = false, false
	}
	if flowIndicators {
		a.flowPlain = false
	}
	if blockIndicators {
		a.blockPlain = false
	}
	return a
}

// writePlain is yaml_emitter_write_plain_scalar without line folding (the
// width is unlimited) and outside the document root. A plain scalar never
// holds a line break (analyzeScalar rules plain out for one), so its bytes
// go out as they are.
func (w *Writer) writePlain(value string) {
	if len(value) > 0 && !w.whitespace {
		w.put(' ')
	}
	for i := 0; i < len(value); {
		i = w.write(value, i)
	}
	if len(value) > 0 {
		w.whitespace = false
	}
	w.indention = false
}

func (w *Writer) writeSingleQuoted(value string, indent int) {
	w.indicator("'", true, false, false)
	breaks := false
	for i := 0; i < len(value); {
		switch {
		case value[i] == ' ':
			i = w.write(value, i)
		case isBreak(value, i):
			if !breaks && value[i] == '\n' {
				w.putBreak()
			}
			i = w.writeBreak(value, i)
			breaks = true
		default:
			if breaks {
				w.writeIndent(indent)
			}
			if value[i] == '\'' {
				w.put('\'')
			}
			i = w.write(value, i)
			w.indention = false
			breaks = false
		}
	}
	w.indicator("'", false, false, false)
	w.whitespace = false
	w.indention = false
}

func (w *Writer) writeDoubleQuoted(value string) {
	const hexDigits = "0123456789ABCDEF"
	w.indicator(`"`, true, false, false)
	bom := len(value) >= 3 && value[:3] == "\xEF\xBB\xBF" // the emitter asks this of the start, at every character
	for i := 0; i < len(value); {
		c := value[i]
		if !bom && isPrintable(value, i) && !isBreak(value, i) && c != '"' && c != '\\' {
			i = w.write(value, i)
			continue
		}
		wd, v := 1, rune(c&0x7F)
		switch {
		case c&0xE0 == 0xC0:
			wd, v = 2, rune(c&0x1F)
		case c&0xF0 == 0xE0:
			wd, v = 3, rune(c&0x0F)
		case c&0xF8 == 0xF0:
			wd, v = 4, rune(c&0x07)
		}
		for k := 1; k < wd; k++ {
			v = v<<6 + rune(value[i+k])&0x3F
		}
		i += wd
		w.put('\\')
		switch v {
		case 0x00:
			w.put('0')
		case 0x07:
			w.put('a')
		case 0x08:
			w.put('b')
		case 0x09:
			w.put('t')
		case 0x0A:
			w.put('n')
		case 0x0B:
			w.put('v')
		case 0x0C:
			w.put('f')
		case 0x0D:
			w.put('r')
		case 0x1B:
			w.put('e')
		case 0x22:
			w.put('"')
		case 0x5C:
			w.put('\\')
		case 0x85:
			w.put('N')
		case 0xA0:
			w.put('_')
		case 0x2028:
			w.put('L')
		case 0x2029:
			w.put('P')
		default:
			digits := 8
			switch {
			case v <= 0xFF:
				w.put('x')
				digits = 2
			case v <= 0xFFFF:
				w.put('u')
				digits = 4
			default:
				w.put('U')
			}
			for k := (digits - 1) * 4; k >= 0; k -= 4 {
				w.put(hexDigits[(v>>uint(k))&0x0F])
			}
		}
	}
	w.indicator(`"`, false, false, false)
	w.whitespace = false
	w.indention = false
}

func (w *Writer) writeLiteral(value string, indent int) {
	w.indicator("|", true, false, false)
	w.blockScalarHints(value)
	w.whitespace = true
	breaks := true
	for i := 0; i < len(value); {
		if isBreak(value, i) {
			i = w.writeBreak(value, i)
			breaks = true
			continue
		}
		if breaks {
			w.writeIndent(indent)
		}
		i = w.write(value, i)
		w.indention = false
		breaks = false
	}
}

func (w *Writer) blockScalarHints(value string) {
	if value[0] == ' ' || isBreak(value, 0) {
		w.indicator(string(rune('0'+w.best)), false, false, false)
	}
	w.openEnded = false
	var chomp string
	i := len(value) - 1
	for value[i]&0xC0 == 0x80 {
		i--
	}
	switch {
	case !isBreak(value, i):
		chomp = "-"
	case i == 0:
		chomp = "+"
		w.openEnded = true
	default:
		i--
		for value[i]&0xC0 == 0x80 {
			i--
		}
		if isBreak(value, i) {
			chomp = "+"
			w.openEnded = true
		}
	}
	if chomp != "" {
		// Writing the hint clears openEnded again, as in the emitter.
		w.indicator(chomp, false, false, false)
	}
}

// ---- character classes (yamlprivateh.go) ----

func charWidth(b byte) int {
	switch {
	case b&0x80 == 0x00:
		return 1
	case b&0xE0 == 0xC0:
		return 2
	case b&0xF0 == 0xE0:
		return 3
	case b&0xF8 == 0xF0:
		return 4
	}
	return 0
}

// at reads s[i], or 0 past its end, as the emitter's NUL-padded buffer would.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isPrintable(s string, i int) bool {
	b, b1, b2 := s[i], at(s, i+1), at(s, i+2)
	return b == 0x0A ||
		b >= 0x20 && b <= 0x7E ||
		b == 0xC2 && b1 >= 0xA0 ||
		b > 0xC2 && b < 0xED ||
		b == 0xED && b1 < 0xA0 ||
		b == 0xEE ||
		b == 0xEF && (b1 != 0xBB || b2 != 0xBF) && (b1 != 0xBF || b2 != 0xBE && b2 != 0xBF)
}

func isBlank(s string, i int) bool { return s[i] == ' ' || s[i] == '\t' }

func isBreak(s string, i int) bool {
	b := s[i]
	return b == '\r' || b == '\n' ||
		b == 0xC2 && at(s, i+1) == 0x85 ||
		b == 0xE2 && at(s, i+1) == 0x80 && (at(s, i+2) == 0xA8 || at(s, i+2) == 0xA9)
}

func isBlankZ(s string, i int) bool {
	return isBlank(s, i) || isBreak(s, i) || s[i] == 0
}

// ---- what a plain scalar would resolve to (resolve.go) ----

// resolvesToString reports whether s, written plain, would read back as the
// string s: yaml.v3's resolve with no tag gives !!str.
func resolvesToString(s string) bool {
	if s == "" {
		return false // null
	}
	switch hint := s[0]; {
	case hint == '+' || hint == '-' || '0' <= hint && hint <= '9':
		return !isKeyword(s) && !numberOrTimestamp(s)
	case strings.IndexByte("yYnNtTfFoO~", hint) >= 0:
		return !isKeyword(s)
	case hint == '.':
		if isKeyword(s) {
			return false
		}
		_, err := strconv.ParseFloat(s, 64)
		return err != nil
	case hint == '<':
		// '<' has no hint in the resolver's table: "<<" stays a string
		// when the encoder asks.
		return true
	}
	return true
}

// isKeyword reports whether s is a key of the resolver's map other than
// "<<" (which it never looks up for an untagged string).
func isKeyword(s string) bool {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE", "~", "null", "Null", "NULL",
		".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return true
	}
	return false
}

var yamlStyleFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// numberOrTimestamp is the resolver's case for a digit or a sign.
func numberOrTimestamp(in string) bool {
	if isTimestamp(in) {
		return true
	}
	plain := strings.ReplaceAll(in, "_", "")
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return true
	}
	if yamlStyleFloat.MatchString(plain) {
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return true
		}
	}
	// YAML 1.1's binary and octal integers, as yaml.v3 resolves them.
	for _, p := range []struct {
		prefix string
		base   int
	}{{"0b", 2}, {"0o", 8}} {
		switch {
		case strings.HasPrefix(plain, p.prefix):
			if _, err := strconv.ParseInt(plain[2:], p.base, 64); err == nil {
				return true
			}
			if _, err := strconv.ParseUint(plain[2:], p.base, 64); err == nil {
				return true
			}
		case strings.HasPrefix(plain, "-"+p.prefix):
			if _, err := strconv.ParseInt("-"+plain[3:], p.base, 64); err == nil {
				return true
			}
		}
	}
	return false
}

var timestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

func isTimestamp(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			break
		}
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, format := range timestampFormats {
		if _, err := time.Parse(format, s); err == nil {
			return true
		}
	}
	return false
}

var base60Float = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`)

func isBase60Float(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	if (c != '+' && c != '-' && (c < '0' || c > '9')) || strings.IndexByte(s, ':') < 0 {
		return false
	}
	return base60Float.MatchString(s)
}

func isOldBool(s string) bool {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON",
		"n", "N", "no", "No", "NO", "off", "Off", "OFF":
		return true
	}
	return false
}

// encodeBase64 is how the encoder writes a string that is not UTF-8 (as
// !!binary): base64 in lines of 70, each ended by a newline when there is
// more than one.
func encodeBase64(s string) string {
	const lineLen = 70
	enc := base64.StdEncoding.EncodeToString([]byte(s))
	lines := len(enc)/lineLen + 1
	if lines == 1 {
		return enc
	}
	var b strings.Builder
	for i := 0; i < len(enc); i += lineLen {
		b.WriteString(enc[i:min(i+lineLen, len(enc))])
		b.WriteByte('\n')
	}
	return b.String()
}

// ParseValue is Writer's inverse for a one-line value: the string s for
// which String writes exactly text after a key, if there is one. A reader
// of a file in Writer's layout can take such a line for the scalar s,
// as YAML would, without a YAML parser: text is exactly what the writer
// writes for s, plain, single- or double-quoted.
func ParseValue(text string) (string, bool) {
	s, ok := text, true
	switch {
	case strings.HasPrefix(text, `"`):
		s, ok = unquoteDouble(text)
	case strings.HasPrefix(text, "'"):
		if ok = len(text) >= 2 && strings.HasSuffix(text, "'"); ok {
			s = strings.ReplaceAll(text[1:len(text)-1], "''", "'")
		}
	}
	if !ok {
		return "", false
	}
	if simplePlain(s) {
		return s, s == text // the common case, without writing it again
	}
	w := Writer{best: 2, whitespace: true, indention: true}
	w.Key(0, "k")
	w.String(0, s)
	return s, string(w.Buf) == "k: "+text
}

// unquoteDouble decodes a double-quoted scalar with the escapes the writer
// uses; anything else is not one of its outputs.
func unquoteDouble(text string) (string, bool) {
	if len(text) < 2 || !strings.HasSuffix(text, `"`) {
		return "", false
	}
	in := text[1 : len(text)-1]
	var b strings.Builder
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c == '"' {
			return "", false
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i++; i >= len(in) {
			return "", false
		}
		digits := 0
		switch in[i] {
		case '0':
			b.WriteByte(0)
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 't':
			b.WriteByte(9)
		case 'n':
			b.WriteByte(10)
		case 'v':
			b.WriteByte(11)
		case 'f':
			b.WriteByte(12)
		case 'r':
			b.WriteByte(13)
		case 'e':
			b.WriteByte(0x1B)
		case '"', '\\':
			b.WriteByte(in[i])
		case 'N':
			b.WriteRune(0x85)
		case '_':
			b.WriteRune(0xA0)
		case 'L':
			b.WriteRune(0x2028)
		case 'P':
			b.WriteRune(0x2029)
		case 'x':
			digits = 2
		case 'u':
			digits = 4
		case 'U':
			digits = 8
		default:
			return "", false
		}
		if digits > 0 {
			if i+1+digits > len(in) {
				return "", false
			}
			v, err := strconv.ParseUint(in[i+1:i+1+digits], 16, 32)
			if err != nil {
				return "", false
			}
			b.WriteRune(rune(v)) // \x too names a code point, as in YAML
			i += digits
		}
	}
	return b.String(), true
}
