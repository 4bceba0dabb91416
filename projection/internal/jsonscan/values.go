package jsonscan

import (
	"bytes"
	"unicode/utf8"
)

// Readers of the values a scan recorded: every Span given here must come
// from a scan of the current document, which validated it.

// Raw returns the bytes of the value at sp (nil when absent).
func (s *Scanner) Raw(sp Span) []byte {
	if !sp.Present() {
		return nil
	}
	return s.doc[sp.Lo:sp.Hi]
}

// Content returns the decoded bytes of the string at sp, or ok false when
// the value is absent or not a string. The bytes are valid until the next
// call.
func (s *Scanner) Content(sp Span) (b []byte, ok bool) {
	if !sp.Present() || s.doc[sp.Lo] != '"' {
		return nil, false
	}
	b = s.doc[sp.Lo+1 : sp.Hi-1]
	if sp.Plain || (bytes.IndexByte(b, '\\') < 0 && (!s.high || utf8.Valid(b))) {
		return b, true
	}
	s.strBuf = Unquote(s.strBuf[:0], b)
	return s.strBuf, true
}

// IsString reports whether the value at sp is a string, without decoding
// it.
func (s *Scanner) IsString(sp Span) bool { return sp.Present() && s.doc[sp.Lo] == '"' }

// Elements calls fn for each element of the array at sp until fn returns
// false.
func (s *Scanner) Elements(sp Span, fn func(el Span) bool) {
	b := s.doc
	i := s.SkipSpace(int(sp.Lo) + 1)
	if b[i] == ']' {
		return
	}
	for {
		end := s.Value(i, 0)
		if !fn(Span{int32(i), int32(end), false}) {
			return
		}
		i = s.SkipSpace(end)
		if b[i] == ']' {
			return
		}
		i = s.SkipSpace(i + 1)
	}
}

// Members calls fn for each member of the object at sp, with the decoded
// key, until fn returns false. The key is valid during the call.
func (s *Scanner) Members(sp Span, fn func(key []byte, v Span) bool) {
	b := s.doc
	i := s.SkipSpace(int(sp.Lo) + 1)
	if b[i] == '}' {
		return
	}
	var key []byte
	for {
		end, plain := s.StringEnd(i)
		key = append(key[:0], b[i+1:end-1]...)
		if !plain {
			key = Unquote(key[:0], b[i+1:end-1])
		}
		i = s.SkipSpace(s.SkipSpace(end) + 1)
		vend := s.Value(i, 0)
		if !fn(key, Span{int32(i), int32(vend), false}) {
			return
		}
		i = s.SkipSpace(vend)
		if b[i] == '}' {
			return
		}
		i = s.SkipSpace(i + 1)
	}
}

// IsStringArray reports whether the value at sp is an array of strings.
func (s *Scanner) IsStringArray(sp Span) bool {
	if !sp.Present() || s.doc[sp.Lo] != '[' {
		return false
	}
	ok := true
	s.Elements(sp, func(el Span) bool {
		ok = s.doc[el.Lo] == '"'
		return ok
	})
	return ok
}

// Kind names the JSON type of a value for messages ("a string", "null",
// "missing" for none).
func Kind(raw []byte) string {
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

// IsInteger reports whether raw is a JSON number written without a
// fraction or exponent.
func IsInteger(raw []byte) bool {
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

// ParseInt64 is strconv.ParseInt(raw, 10, 64) on a JSON number: ok is
// false for a fraction, an exponent or a value out of range, as
// encoding/json refuses such a number for an int64.
func ParseInt64(raw []byte) (int64, bool) {
	if !IsInteger(raw) {
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
