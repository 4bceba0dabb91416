package projection

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON grammar of the decoder (see decode.go): a scanner that validates
// a line exactly as encoding/json does and records where values are, and the
// readers of those values (strings unescaped as encoding/json does, numbers,
// arrays and objects walked without allocating).

// maxNesting is encoding/json's bound on nested arrays and objects.
const maxNesting = 10000

// span is where a value sits in the line: line[lo:hi]; lo < 0 when absent.
// plain marks a string without escapes or bytes above 0x7F, whose content
// is its bytes.
type span struct {
	lo, hi int32
	plain  bool
}

var absent = span{-1, -1, false}

// noTop and noPay are field tables with every field absent: a decoder
// resets to them before each line (filled by a loop, so a field added to
// the tables cannot be left present by accident).
var noTop, noPay = func() (top [nTop]span, pay [nPay]span) {
	for i := range top {
		top[i] = absent
	}
	for i := range pay {
		pay[i] = absent
	}
	return top, pay
}()

func (s span) present() bool { return s.lo >= 0 }

const nanMessage = "line is not valid JSON (NaN and Infinity are not JSON numbers)"

func hasNaN(line []byte) bool {
	return bytes.Contains(line, []byte("NaN")) || bytes.Contains(line, []byte("Infinity"))
}

// syntaxError is encoding/json's message for a line it rejects. Only lines
// that are not JSON get here, so asking encoding/json costs nothing on the
// hot path and the text is its own by construction.
func syntaxError(line []byte) string {
	var v json.RawMessage
	if err := json.Unmarshal(line, &v); err != nil {
		return err.Error()
	}
	return "it is not valid JSON" // unreachable while the scanner agrees with encoding/json
}

// ---- scanning ----

func (d *decoder) ws(i int) int {
	b := d.line
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanLine validates the line and records the fields of interest.
func (d *decoder) scanLine() bool {
	b := d.line
	i := d.ws(0)
	if i == len(b) {
		return false
	}
	if b[i] != '{' {
		j := d.value(i, 0)
		if j < 0 || d.ws(j) != len(b) {
			return false
		}
		d.notObject = b[i]
		return true
	}
	i = d.object(i, 0, (*decoder).topKey)
	return i >= 0 && d.ws(i) == len(b)
}

// object scans the object at line[i] (depth objects enclose it) and calls
// field for each key, which scans the value and returns where it ends.
func (d *decoder) object(i, depth int, field func(d *decoder, key []byte, i, depth int) int) int {
	depth++
	if depth > maxNesting {
		return -1
	}
	b := d.line
	i = d.ws(i + 1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		end, plain := d.str(i)
		if end < 0 {
			return -1
		}
		key := b[i+1 : end-1]
		if !plain {
			d.keyBuf = unquote(d.keyBuf[:0], key)
			key = d.keyBuf
		}
		i = d.ws(end)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		i = d.ws(i + 1)
		if i = field(d, key, i, depth); i < 0 {
			return -1
		}
		i = d.ws(i)
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = d.ws(i + 1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// value scans any JSON value at line[i] and returns where it ends, or -1.
func (d *decoder) value(i, depth int) int {
	b := d.line
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; c {
	case '"':
		end, _ := d.str(i)
		return end
	case '{':
		return d.object(i, depth, skipKey)
	case '[':
		return d.array(i, depth)
	case 't':
		return d.literal(i, "true")
	case 'f':
		return d.literal(i, "false")
	case 'n':
		return d.literal(i, "null")
	default:
		if c == '-' || ('0' <= c && c <= '9') {
			return d.number(i)
		}
	}
	return -1
}

func (d *decoder) array(i, depth int) int {
	depth++
	if depth > maxNesting {
		return -1
	}
	b := d.line
	i = d.ws(i + 1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for {
		if i = d.value(i, depth); i < 0 {
			return -1
		}
		i = d.ws(i)
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = d.ws(i + 1)
		case ']':
			return i + 1
		default:
			return -1
		}
	}
}

func (d *decoder) literal(i int, lit string) int {
	if len(d.line)-i < len(lit) || string(d.line[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (d *decoder) number(i int) int {
	b := d.line
	if b[i] == '-' {
		i++
		if i >= len(b) {
			return -1
		}
	}
	switch {
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	return i
}

// str scans the string at line[i] (an opening quote) and returns the index
// after its closing quote, or -1, and whether it is plain: no escape and no
// byte above 0x7F. Such bytes are taken as they are, as encoding/json's
// scanner does.
func (d *decoder) str(i int) (end int, plain bool) {
	b := d.line
	i++
	high, esc := false, false
	for {
		// Eight bytes at a time while none is a quote, a backslash or a
		// control character.
		for i+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[i:])
			q := w ^ (ones * '"')
			s := w ^ (ones * '\\')
			special := (((q - ones) &^ q) | ((s - ones) &^ s) | ((w - ones*0x20) &^ w)) & highs
			if special != 0 {
				// The lowest flag marks the first special byte exactly (a
				// borrow can only raise flags above it); skip to it.
				skip := bits.TrailingZeros64(special) / 8
				if w&highs&(1<<(8*skip)-1) != 0 {
					high = true
				}
				i += skip
				break
			}
			if w&highs != 0 {
				high = true
			}
			i += 8
		}
		if i >= len(b) {
			return -1, false
		}
		c := b[i]
		switch {
		case c == '"':
			if high {
				d.high = true
			}
			return i + 1, !high && !esc
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return -1, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1, false
				}
				i += 6
			default:
				return -1, false
			}
		case c < 0x20:
			return -1, false
		default:
			if c >= utf8.RuneSelf {
				high = true
			}
			i++
		}
	}
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// unquote appends the decoded content of a validated JSON string (without
// its quotes) to dst exactly as encoding/json decodes it.
func unquote(dst, s []byte) []byte {
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			switch e := s[r+1]; e {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				rr := getu4(s[r:])
				r += 6
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != unicode.ReplacementChar {
						r += 6
						dst = utf8.AppendRune(dst, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				dst = utf8.AppendRune(dst, rr)
				continue
			default: // " \ /
				dst = append(dst, e)
			}
			r += 2
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			dst = utf8.AppendRune(dst, rr)
		}
	}
	return dst
}

func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// ---- decoding the recorded values ----

func (d *decoder) raw(s span) []byte {
	if !s.present() {
		return nil
	}
	return d.line[s.lo:s.hi]
}

// content returns the decoded bytes of the string at s, or ok false when
// the value is absent or not a string. The bytes are valid until the next
// call.
func (d *decoder) content(s span) (b []byte, ok bool) {
	if !s.present() || d.line[s.lo] != '"' {
		return nil, false
	}
	b = d.line[s.lo+1 : s.hi-1]
	if s.plain || (bytes.IndexByte(b, '\\') < 0 && (!d.high || utf8.Valid(b))) {
		return b, true
	}
	d.strBuf = unquote(d.strBuf[:0], b)
	return d.strBuf, true
}

// plain decodes the string at s into a new string.
func (d *decoder) plain(s span) (string, bool) {
	b, ok := d.content(s)
	if !ok {
		return "", false
	}
	return string(b), true
}

// isString reports whether the value at s is a string, without decoding it.
func (d *decoder) isString(s span) bool { return s.present() && d.line[s.lo] == '"' }

func jsonKind(raw []byte) string {
	if len(raw) == 0 {
		return "missing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// isJSONInteger reports whether raw is a JSON number written without a
// fraction or exponent: docs/semantics.md §7 makes 1.0 a payload error.
func isJSONInteger(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	i := 0
	if raw[0] == '-' {
		i = 1
	}
	if i == len(raw) {
		return false
	}
	for ; i < len(raw); i++ {
		if raw[i] < '0' || raw[i] > '9' {
			return false
		}
	}
	return true
}

// parseInt64 is strconv.ParseInt(s, 10, 64) on a JSON number.
func parseInt64(raw []byte) (int64, bool) {
	if !isJSONInteger(raw) {
		return 0, false
	}
	neg := raw[0] == '-'
	if neg {
		raw = raw[1:]
	}
	var n uint64
	for _, c := range raw {
		if n > (1<<63)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
		if n > 1<<63 {
			return 0, false
		}
	}
	if neg {
		return -int64(n), true // -(1<<63) wraps to itself, which is right
	}
	if n > 1<<63-1 {
		return 0, false
	}
	return int64(n), true
}

func describeRaw(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	if len(v) > 40 {
		return string(v[:40]) + "…"
	}
	return string(v)
}

func parseSmallInt(v []byte) (int, error) {
	// Any positive JSON integer is a valid protocol_version (one above the
	// supported major fails the log closed); a huge one saturates instead of
	// overflowing.
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("not a non-negative integer")
		}
		if n < 1<<30 {
			n = n*10 + int(c-'0')
		}
	}
	return min(n, 1<<30), nil
}

// elements calls fn for each element of the (validated) array at s until fn
// returns false.
func (d *decoder) elements(s span, fn func(el span) bool) {
	b := d.line
	i := d.ws(int(s.lo) + 1)
	if b[i] == ']' {
		return
	}
	for {
		end := d.value(i, 0)
		if !fn(span{int32(i), int32(end), false}) {
			return
		}
		i = d.ws(end)
		if b[i] == ']' {
			return
		}
		i = d.ws(i + 1)
	}
}

// members calls fn for each member of the (validated) object at s, with the
// decoded key, until fn returns false. The key is valid during the call.
func (d *decoder) members(s span, fn func(key []byte, v span) bool) {
	b := d.line
	i := d.ws(int(s.lo) + 1)
	if b[i] == '}' {
		return
	}
	var key []byte
	for {
		end, plain := d.str(i)
		key = append(key[:0], b[i+1:end-1]...)
		if !plain {
			key = unquote(key[:0], b[i+1:end-1])
		}
		i = d.ws(d.ws(end) + 1)
		vend := d.value(i, 0)
		if !fn(key, span{int32(i), int32(vend), false}) {
			return
		}
		i = d.ws(vend)
		if b[i] == '}' {
			return
		}
		i = d.ws(i + 1)
	}
}

func (d *decoder) isStringArray(s span) bool {
	if !s.present() || d.line[s.lo] != '[' {
		return false
	}
	ok := true
	d.elements(s, func(el span) bool {
		ok = d.line[el.lo] == '"'
		return ok
	})
	return ok
}

// stringArray decodes an array of strings; like encoding/json into
// []string it gives an empty, non-nil slice for [].
func (d *decoder) stringArray(s span) ([]string, bool) {
	if !d.isStringArray(s) {
		return nil, false
	}
	out := make([]string, 0, 4)
	d.elements(s, func(el span) bool {
		b, _ := d.content(el)
		out = append(out, d.intern(b, symOther))
		return true
	})
	return out, true
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)
