package jsonscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/pact-action/pact-action/internal/testkit/jsonref"
	"strings"
	"testing"
)

// diffJSON reports how the scanner disagrees with encoding/json on doc: ""
// when it accepts exactly what json.Valid accepts and, in a document it
// accepts, reads every key and string as json.Unmarshal does, every number
// as an int64 as json.Unmarshal does, and names every value's type.
func diffJSON(doc []byte) string {
	var s Scanner
	s.Reset(doc)
	var members []string // keys as the scanner decoded them, in order
	first, ok := s.Document(func(key []byte, i, depth int) int {
		members = append(members, string(key))
		return s.Value(i, depth)
	})
	if want := json.Valid(doc); ok != want {
		return fmt.Sprintf("scanner says valid=%v, encoding/json %v", ok, want)
	}
	if !ok {
		if msg := SyntaxError(doc); msg == "" || msg == "it is not valid JSON" {
			return fmt.Sprintf("no encoding/json message for an invalid document: %q", msg)
		}
		return ""
	}
	name, dup := s.Duplicate()
	if wantName, wantDup := jsonref.DuplicateKey(doc); dup != wantDup || string(name) != wantName {
		return fmt.Sprintf("Duplicate() = %q, %v; encoding/json's tokens name %q, %v", name, dup, wantName, wantDup)
	}
	i := s.SkipSpace(0)
	if doc[i] != first {
		return fmt.Sprintf("first byte %q, want %q", first, doc[i])
	}
	top := Span{Lo: int32(i), Hi: int32(s.Value(i, 0))}
	if first == '{' {
		var keys []string
		s.Members(top, func(key []byte, _ Span) bool { keys = append(keys, string(key)); return true })
		if fmt.Sprint(keys) != fmt.Sprint(members) {
			return fmt.Sprintf("Members gives keys %q, Document %q", keys, members)
		}
	}
	return s.diffValue(top, 0)
}

// TestDuplicate: a member named twice in one object is found at any depth,
// names compared decoded (escapes, lone surrogates), objects apart from
// each other, past the point where an object's keys go into a map too.
func TestDuplicate(t *testing.T) {
	t.Parallel()
	many := func(n int, last string) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		b.WriteString(`"` + last + `":0}`)
		return b.String()
	}
	for _, c := range []struct {
		doc, name string
		dup       bool
	}{
		{`{"a":1,"b":2}`, "", false},
		{`{"a":1,"a":2}`, "a", true},
		{`{"agent_id":"wkr","x":1,"agent_id":"rev"}`, "agent_id", true},
		{`{"a":1,"\u0061":2}`, "a", true},
		{`{"\ud800":1,"\udc00":2}`, "\uFFFD", true},
		{`{"a":{"b":1,"b":2}}`, "b", true},
		{`{"a":[{"b":1},{"b":2}]}`, "", false},
		{`[{"a":1},{"a":1}]`, "", false},
		{`[{"a":1,"a":1}]`, "a", true},
		{`{"a":{"x":1},"b":{"x":1}}`, "", false},
		{`{"a":{"x":1},"x":1}`, "", false},
		{`{"\u0062":{"\u0063":1,"c":2}}`, "c", true},
		{`{"\u0062":{"c":1},"b":2}`, "b", true},
		{`{"\u0062":{"\u0063\u0063":1},"cc":2,"\u0062b":3}`, "", false},
		{`{"p":{"q":{"r":1,"r":2}},"p":0}`, "r", true},
		{`{"a":"a","b":"a"}`, "", false},
		{`{"":1,"":2}`, "", true},
		{many(hashKeysAfter-1, "k3"), "k3", true},
		{many(hashKeysAfter, "k0"), "k0", true},
		{many(3*hashKeysAfter, "k40"), "k40", true},
		{many(3*hashKeysAfter, "z"), "", false},
	} {
		var s Scanner
		s.Reset([]byte(c.doc))
		if _, ok := s.Document(nil); !ok {
			t.Fatalf("%s is not JSON", c.doc)
		}
		if name, dup := s.Duplicate(); dup != c.dup || string(name) != c.name {
			t.Errorf("Duplicate() of %.60s = %q, %v; want %q, %v", c.doc, name, dup, c.name, c.dup)
		}
		if msg := diffJSON([]byte(c.doc)); msg != "" {
			t.Errorf("%.60s: %s", c.doc, msg)
		}
		// Reset forgets it.
		s.Reset([]byte(`{"a":1}`))
		if _, ok := s.Document(nil); !ok {
			t.Fatal("a fresh document")
		}
		if _, dup := s.Duplicate(); dup {
			t.Errorf("Reset after %.60s kept the duplicate", c.doc)
		}
	}
}

// diffValue holds the value at sp, and the values inside it down to a
// depth of 20 (validity holds the rest), to encoding/json.
func (s *Scanner) diffValue(sp Span, depth int) string {
	raw := s.Raw(sp)
	if depth > 20 {
		return ""
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // 1E700 is JSON, and no float64
	if err := dec.Decode(&v); err != nil {
		return fmt.Sprintf("value %q: encoding/json: %v", raw, err)
	}
	want := map[string]string{"string": "a string", "map[string]interface {}": "an object", "[]interface {}": "an array",
		"bool": "a boolean", "<nil>": "null", "json.Number": "a number"}[fmt.Sprintf("%T", v)]
	if got := Kind(raw); got != want {
		return fmt.Sprintf("Kind(%q) = %q, want %q", raw, got, want)
	}
	switch raw[0] {
	case '"':
		got, ok := s.Content(sp)
		if !ok || string(got) != v.(string) {
			return fmt.Sprintf("Content(%q) = %q, %v; encoding/json reads %q", raw, got, ok, v)
		}
		if !s.IsString(sp) {
			return fmt.Sprintf("IsString(%q) is false", raw)
		}
	case '{':
		var msg string
		s.Members(sp, func(key []byte, el Span) bool {
			if _, ok := v.(map[string]any)[string(key)]; !ok {
				msg = fmt.Sprintf("key %q is not a key encoding/json reads", key)
			}
			if msg == "" {
				msg = s.diffValue(el, depth+1)
			}
			return msg == ""
		})
		return msg
	case '[':
		var msg string
		n, strs := 0, true
		s.Elements(sp, func(el Span) bool {
			n++
			strs = strs && s.IsString(el)
			msg = s.diffValue(el, depth+1)
			return msg == ""
		})
		if msg == "" && n != len(v.([]any)) {
			msg = fmt.Sprintf("Elements gives %d elements of %q, encoding/json %d", n, raw, len(v.([]any)))
		}
		if msg == "" && s.IsStringArray(sp) != strs {
			msg = fmt.Sprintf("IsStringArray(%q) = %v", raw, !strs)
		}
		return msg
	case 't', 'f', 'n':
	default:
		var n int64
		err := json.Unmarshal(raw, &n)
		if got, ok := ParseInt64(raw); ok != (err == nil) || (ok && got != n) {
			return fmt.Sprintf("ParseInt64(%q) = %d, %v; encoding/json into int64: %d, %v", raw, got, ok, n, err)
		}
	}
	return ""
}

func deep(n int, open, close string) string {
	return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
}

// trickyDocs take every path of the grammar and of the readers.
func trickyDocs() []string {
	return []string{
		``, ` `, `{}`, ` { } `, `[]`, `[ ]`, `null`, `true`, `false`, `nul`, `tru`, `"x"`, `"x`, `x`,
		`{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":1 "b":2}`, `{"a":[1,2,[3,{"b":null}]]}`, `[1,]`, `[,1]`,
		`0`, `-0`, `-`, `01`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e-5`, `1e`, `-1.5e3`, `9223372036854775807`,
		`9223372036854775808`, `-9223372036854775808`, `-9223372036854775809`, `99999999999999999999`, `NaN`, `Infinity`, `-Infinity`,
		`"\u00e9"`, `"\u00E9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\u12"`, `"\u12g4"`,
		`"\/\b\f\n\r\t\"\\"`, `"\x"`, `"\'"`, "\"\x01\"", "\"\x7f\"", "\"é\"", "\"\xff\"", "\"\xc3\"", "\"\xed\xa0\x80\"",
		"\"a\tb\"", "{\"k\xff\":\"v\xfe\"}", `{"\u0041":"\u0042"}`, `{"a":1,"a":2}`, "{\"a\":\"b\"}\n", "\t{}\r\n", `{} {}`, `{}x`,
		`"` + strings.Repeat("abcdefgh", 9) + `"`, `"` + strings.Repeat("é", 13) + `\n"`, `"` + strings.Repeat("a", 15) + "\x00\"",
		`"` + strings.Repeat("a", 7) + `\"` + strings.Repeat("b", 9) + `"`, `["a","b",1]`, `["a","b"]`, `[[],{}]`,
		deep(MaxNesting-1, "[", "]"), deep(MaxNesting, "[", "]"), deep(MaxNesting+1, "[", "]"),
		deep(MaxNesting-1, `{"a":`, "}"), deep(MaxNesting, `{"a":`, "}"), `{"a":` + strings.Repeat("[", MaxNesting+5),
	}
}

func TestScannerAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, doc := range trickyDocs() {
		if msg := diffJSON([]byte(doc)); msg != "" {
			t.Errorf("%.80q: %s", doc, msg)
		}
	}
}

// FuzzScan holds the scanner to encoding/json on arbitrary bytes:
//
//	go test ./projection/internal/jsonscan -run '^$' -fuzz '^FuzzScan$' -fuzztime 1m
func FuzzScan(f *testing.F) {
	for _, doc := range trickyDocs() {
		if len(doc) < 4096 {
			f.Add([]byte(doc))
		}
	}
	f.Add([]byte(`{"event_id":"a","ts":"2026-06-09T10:00:00Z","payload":{"roles":["worker"],"github":{"review_id":7}}}`))
	f.Add([]byte(`{"agent_id":"wkr","payload":{"\u0061":{"b":1,"b":2}},"agent_id":"rev"}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		if msg := diffJSON(doc); msg != "" {
			t.Fatalf("%q: %s", doc, msg)
		}
	})
}
