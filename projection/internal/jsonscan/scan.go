// Package jsonscan is the byte-level JSON scanner under projection's log
// decoder: it validates one document exactly as encoding/json does (the same
// grammar, the same nesting bound, the same acceptance of bytes above 0x7F)
// and records where values are, so that the decoder reads only the values it
// needs, and reads them without allocating: strings unescaped as
// encoding/json unescapes them, numbers, arrays and objects walked in place.
//
// It knows nothing of pact events: which keys matter and what they mean is
// projection's (decode.go, envelope.go). It is fenced here, apart from the
// event types and their semantics, as encoding/json keeps its scanner apart;
// projection's differential tests hold the decoder built on it to the
// encoding/json reference (docs/semantics.md §7 fixes what a line means), and
// this package's own tests and FuzzScan hold the scanner to encoding/json.
package jsonscan

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxNesting is encoding/json's bound on nested arrays and objects.
const MaxNesting = 10000

// Span is where a value sits in the document: doc[Lo:Hi]; Lo < 0 when
// absent. Plain marks a string without escapes or bytes above 0x7F, whose
// content is its bytes.
type Span struct {
	Lo, Hi int32
	Plain  bool
}

// Absent is the Span of a value that is not there.
var Absent = Span{-1, -1, false}

// Present reports whether the value is there.
func (s Span) Present() bool { return s.Lo >= 0 }

// Field is told of one member of an object Object scans: the decoded key
// (valid during the call) and where its value starts, doc[i], inside depth
// objects and arrays. It scans the value (with Value, Object or StringEnd)
// and returns where the value ends, or -1 when it is not JSON.
type Field func(key []byte, i, depth int) int

// Scanner scans one document at a time. It is not safe for concurrent use.
type Scanner struct {
	doc []byte
	// high says some string scanned holds a byte >= 0x80; without one every
	// string is plain ASCII and needs no UTF-8 check.
	high   bool
	strBuf []byte

	// The keys of the objects being scanned, innermost last, so that a
	// member name an object already has is seen (Duplicate): a key is a
	// slice of doc when it has no escapes, else decoded into arena. An
	// object's keys go when it ends.
	keys  []keyRef
	arena []byte
	// dup is the first member name found twice in one object since Reset
	// (decoded; nil when there is none), dupSet says there is one.
	dup    []byte
	dupSet bool
}

// keyRef is a key of keys: doc[lo:hi], or arena[lo:hi].
type keyRef struct {
	lo, hi int32
	arena  bool
}

// hashKeysAfter is how many keys one object may have before its keys are
// looked up in a map rather than compared one by one: objects of events
// have a handful, and a hostile line of a megabyte would otherwise cost
// the square of its keys.
const hashKeysAfter = 16

// Reset makes doc the document to scan.
func (s *Scanner) Reset(doc []byte) {
	s.doc = doc
	s.high = false
	s.keys = s.keys[:0]
	s.arena = s.arena[:0]
	s.dup, s.dupSet = s.dup[:0], false
}

// Duplicate reports whether an object of the document scanned since Reset
// names the same member twice (at any depth, names compared as
// encoding/json decodes them), and the first such name in document order.
// The document may still be JSON: encoding/json accepts it, keeping the
// last value, and other readers keep the first (docs/semantics.md §7).
func (s *Scanner) Duplicate() (name []byte, ok bool) { return s.dup, s.dupSet }

func (s *Scanner) keyBytes(k keyRef) []byte {
	if k.arena {
		return s.arena[k.lo:k.hi]
	}
	return s.doc[k.lo:k.hi]
}

// keyHash is a 6-bit summary of a key (its length and its first and last
// bytes): an object whose keys' summaries differ names no member twice, so
// keys are compared only when two summaries meet, which the keys of an
// event (event_id, ts, agent_id, ...) never do.
func keyHash(key []byte) uint64 {
	n := len(key)
	if n == 0 {
		return 1
	}
	return 1 << ((uint(n)*7 + uint(key[0])*3 + uint(key[n-1])) & 63)
}

// member notes key, decoded (a slice of doc, or of arena at k), of an
// object whose keys start at keys[base]; seen is the union of the keyHash
// of its keys so far, and set, once the object has more than
// hashKeysAfter keys, holds them all.
func (s *Scanner) member(key []byte, k keyRef, base int, seen *uint64, set *map[string]struct{}) {
	if !s.dupSet {
		h := keyHash(key)
		switch {
		case *set != nil:
			if _, dup := (*set)[string(key)]; dup {
				s.dup, s.dupSet = append(s.dup[:0], key...), true
			} else {
				(*set)[string(key)] = struct{}{}
			}
		case len(s.keys)-base >= hashKeysAfter:
			*set = make(map[string]struct{}, 2*hashKeysAfter)
			for _, o := range s.keys[base:] {
				(*set)[string(s.keyBytes(o))] = struct{}{}
			}
			s.member(key, k, base, seen, set)
			return
		case *seen&h != 0:
			for _, o := range s.keys[base:] {
				if int(o.hi-o.lo) == len(key) && string(s.keyBytes(o)) == string(key) {
					s.dup, s.dupSet = append(s.dup[:0], key...), true
					break
				}
			}
		}
		*seen |= h
	}
	s.keys = append(s.keys, k)
}

// High reports whether a string scanned since Reset holds a byte above
// 0x7F: without one, the document's strings are valid UTF-8 ASCII.
func (s *Scanner) High() bool { return s.high }

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func (s *Scanner) SkipSpace(i int) int {
	b := s.doc
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

// Document scans the whole document as one JSON value between optional
// whitespace. When the value is an object, field is told of each of its
// members. first is the value's first byte ('{' for an object); ok is
// false when the document is not JSON.
func (s *Scanner) Document(field Field) (first byte, ok bool) {
	b := s.doc
	i := s.SkipSpace(0)
	if i == len(b) {
		return 0, false
	}
	var end int
	if b[i] == '{' {
		end = s.Object(i, 0, field)
	} else {
		end = s.Value(i, 0)
	}
	return b[i], end >= 0 && s.SkipSpace(end) == len(b)
}

// Object scans the object at doc[i] (depth objects and arrays enclose it)
// and tells field of each member; a nil field skips every value. It returns
// where the object ends, or -1.
func (s *Scanner) Object(i, depth int, field Field) int {
	depth++
	if depth > MaxNesting {
		return -1
	}
	b := s.doc
	i = s.SkipSpace(i + 1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	// This object's keys are keys[base:]; they go when it ends, and so do
	// the decoded ones, which lie after every key of its parents. (After
	// -1 the document is not JSON, and Reset clears them.)
	base, arenaBase := len(s.keys), len(s.arena)
	var seen uint64
	var set map[string]struct{}
	for {
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		end, plain := s.StringEnd(i)
		if end < 0 {
			return -1
		}
		k := keyRef{lo: int32(i + 1), hi: int32(end - 1)}
		if !plain {
			at := len(s.arena)
			s.arena = Unquote(s.arena, b[i+1:end-1])
			k = keyRef{lo: int32(at), hi: int32(len(s.arena)), arena: true}
		}
		key := s.keyBytes(k)
		// The usual key: its summary is new in this object, which is small.
		if h := keyHash(key); !s.dupSet && seen&h == 0 && len(s.keys)-base < hashKeysAfter {
			seen |= h
			s.keys = append(s.keys, k)
		} else {
			s.member(key, k, base, &seen, &set)
		}
		i = s.SkipSpace(end)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		i = s.SkipSpace(i + 1)
		if field == nil {
			i = s.Value(i, depth)
		} else {
			i = field(key, i, depth)
		}
		if i < 0 {
			return -1
		}
		var done bool
		if i, done = s.afterMember(i, '}'); done {
			s.keys, s.arena = s.keys[:base], s.arena[:arenaBase]
			return i
		}
	}
}

// Value scans any JSON value at doc[i] (depth objects and arrays enclose
// it) and returns where it ends, or -1.
func (s *Scanner) Value(i, depth int) int {
	b := s.doc
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; c {
	case '"':
		end, _ := s.StringEnd(i)
		return end
	case '{':
		return s.Object(i, depth, nil)
	case '[':
		return s.array(i, depth)
	case 't':
		return s.literal(i, "true")
	case 'f':
		return s.literal(i, "false")
	case 'n':
		return s.literal(i, "null")
	default:
		if c == '-' || ('0' <= c && c <= '9') {
			return s.number(i)
		}
	}
	return -1
}

func (s *Scanner) array(i, depth int) int {
	depth++
	if depth > MaxNesting {
		return -1
	}
	b := s.doc
	i = s.SkipSpace(i + 1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for {
		if i = s.Value(i, depth); i < 0 {
			return -1
		}
		var done bool
		if i, done = s.afterMember(i, ']'); done {
			return i
		}
	}
}

// afterMember reads what follows a member of an object or an element of
// an array, ending at doc[i]: a comma, after which it returns where the next
// one starts, or the closing byte, after which it returns the index past it
// and done. Anything else is -1 (and done, so the caller stops).
func (s *Scanner) afterMember(i int, closing byte) (next int, done bool) {
	b := s.doc
	i = s.SkipSpace(i)
	if i >= len(b) {
		return -1, true
	}
	switch b[i] {
	case ',':
		return s.SkipSpace(i + 1), false
	case closing:
		return i + 1, true
	}
	return -1, true
}

func (s *Scanner) literal(i int, lit string) int {
	if len(s.doc)-i < len(lit) || string(s.doc[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (s *Scanner) number(i int) int {
	b := s.doc
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

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// StringEnd scans the string at doc[i] (an opening quote) and returns the
// index after its closing quote, or -1, and whether it is plain: no escape
// and no byte above 0x7F. Such bytes are taken as they are, as
// encoding/json's scanner does.
func (s *Scanner) StringEnd(i int) (end int, plain bool) {
	b := s.doc
	i++
	high, esc := false, false
	for {
		// Eight bytes at a time while none is a quote, a backslash or a
		// control character.
		for i+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[i:])
			q := w ^ (ones * '"')
			bs := w ^ (ones * '\\')
			special := (((q - ones) &^ q) | ((bs - ones) &^ bs) | ((w - ones*0x20) &^ w)) & highs
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
				s.high = true
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

// Unquote appends the decoded content of a validated JSON string (without
// its quotes) to dst exactly as encoding/json decodes it: invalid UTF-8 and
// lone surrogates become U+FFFD.
func Unquote(dst, s []byte) []byte {
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

// SyntaxError is encoding/json's message for a document it rejects. Only
// documents that are not JSON should get here, so asking encoding/json
// costs nothing on the hot path and the text is its own by construction.
func SyntaxError(doc []byte) string {
	var v json.RawMessage
	if err := json.Unmarshal(doc, &v); err != nil {
		return err.Error()
	}
	return "it is not valid JSON" // unreachable while the scanner agrees with encoding/json
}
