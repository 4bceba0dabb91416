package pactfile

import (
	"bytes"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// tricky are strings that take every path of the encoder's scalar rules:
// each style, keywords and numbers of YAML 1.1 and 1.2, indicators, line
// breaks of every kind, controls, non-BMP characters, a byte order mark and
// invalid UTF-8 (written as !!binary).
var tricky = []string{
	"", " ", "a", "T1", "a b", "a  b", "a: b", "a:b", "a:", ":a", ": a", "- a", "-", "-a", "--", "---", "--- a", "...", "....",
	"#x", "a #b", "a#b", "?a", "? a", "?", ",a", "a,b", "[a]", "{a}", "a]", "@a", "`a", "%a", "!a", "&a", "*a", "|a", ">a", "'a", "\"a",
	"yes", "Yes", "no", "NO", "on", "Off", "y", "n", "true", "False", "TRUE", "tRue", "~", "null", "Null", "nul", "yess", "offline", "Nope",
	"1", "-1", "+1", "1.5", "1.", ".5", "1e3", "1E+3", "0x1F", "0X1f", "0o17", "0O17", "0b101", "-0b1", "-0o7", "0b2", "1_000", "_1",
	"1:20", "-1:20:30.5", "190:20:30", "1:60", "2024-01-02", "2024-1-2", "2024-01-02T10:00:00Z", "2024-01-02 10:00:00", "2024-01-02t10:00:00Z",
	"2024-13-45", "20240102", "12345-01-01", ".inf", "+.INF", "-.Inf", ".nan", ".NaN", ".5e1", "._5", ".x", ".pact/tasks/T1.md", "<<", "<a",
	"99999999999999999999", "18446744073709551615", "-9223372036854775809", "0x", "1e999", "+", "+-1", "0", "00", "0.0.0", "1.2.3",
	"a\nb", "a\n", "a\n\n", "a\n\n\n", "\n", "\n\n", "\na", " a\nb", "a \nb", "a\n b", "a\n\nb", "  x\n", "a\tb", "\t", "a\t", "\ta",
	"é", "日本語", "café au lait", "😀", "a😀b", "a\rb", "a\r", "\r", "a\r\nb", "a\r\n", "\u2028", "a\u2028b", "a\u2029", "\u0085", "a\u0085b",
	"\ufeffa", "a\ufeff", "\uffff", "\ufffe", "\ufffd", "\u00a0", "a\u00a0b", "\u00a0a", "\ue000", "\ud7ff", "\x00", "a\x00", "\x7f", "\x1b[0m", "\x07\x08\x0b\x0c",
	"'", "\"", "\\", "a'b", "a\"b", "a\\b", "'quoted'", "it's", `breaks the "--json" contract`, "naïve retry → jittered backoff",
	"invalid \xff utf8", "\xc3", "\xe2\x80", strings.Repeat("\xff", 60), strings.Repeat("x", 100), strings.Repeat("a b ", 40),
	"a\n\tb", "a\n \nb", "a \n", "a\n ", "x\r\ny\r\n", "a\u2028\nb", "\u2028a", "a\n\u2028",
}

type testItem struct {
	S    string   `yaml:"s"`
	Flow []string `yaml:"flow,flow"`
	T    string   `yaml:"t"`
	N    int      `yaml:"num,omitempty"`
	B    bool     `yaml:"b"`
}

type testDoc struct {
	Top   string     `yaml:"top"`
	Flow  []string   `yaml:"flow,flow"`
	Items []testItem `yaml:"items"`
	Last  string     `yaml:"last"`
}

func encodeWithYAML(t testing.TB, v any, indent int) []byte {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(indent)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeTestDoc writes d with YAMLWriter, the way projection writes STATE.yml.
func writeTestDoc(d testDoc, indent int) []byte {
	w := NewYAMLWriter(nil, indent)
	w.Key(0, "top")
	w.String(0, d.Top)
	w.Key(0, "flow")
	writeFlow(w, 0, d.Flow)
	w.Key(0, "items")
	if len(d.Items) == 0 {
		w.EmptySeq()
	}
	s := w.SeqIndent(0)
	for _, it := range d.Items {
		w.Item(s)
		w.Key(s+2, "s")
		w.String(s+2, it.S)
		w.Key(s+2, "flow")
		writeFlow(w, s+2, it.Flow)
		w.Key(s+2, "t")
		w.String(s+2, it.T)
		if it.N != 0 {
			w.Key(s+2, "num")
			w.Int(it.N)
		}
		w.Key(s+2, "b")
		w.Bool(it.B)
	}
	w.Key(0, "last")
	w.String(0, d.Last)
	w.End()
	return w.Buf
}

func writeFlow(w *YAMLWriter, m int, list []string) {
	if len(list) == 0 {
		w.EmptySeq()
		return
	}
	w.FlowStrings(m, list)
}

func assertSameYAML(t *testing.T, d testDoc) {
	t.Helper()
	for _, indent := range []int{2, 4} {
		want := encodeWithYAML(t, d, indent)
		if got := writeTestDoc(d, indent); !bytes.Equal(got, want) {
			t.Fatalf("indent %d: YAMLWriter wrote\n%q\nyaml.v3 writes\n%q", indent, got, want)
		}
	}
}

// TestYAMLWriterMatchesEncoder: every tricky string, in every position a
// .pact/ file puts a string, is written byte for byte as yaml.v3 writes it.
func TestYAMLWriterMatchesEncoder(t *testing.T) {
	t.Parallel()
	for _, s := range tricky {
		assertSameYAML(t, testDoc{Top: s, Flow: []string{s}, Last: s,
			Items: []testItem{{S: s, Flow: []string{s, "x", s}, T: s, N: len(s), B: len(s)%2 == 0}, {S: "x", T: s}}})
	}
	assertSameYAML(t, testDoc{})
	assertSameYAML(t, testDoc{Flow: tricky, Items: []testItem{{Flow: tricky, N: -3}}})
}

// FuzzYAMLWriter: any strings are written as yaml.v3 writes them.
//
//	go test ./pactfile/ -run '^$' -fuzz FuzzYAMLWriter -fuzztime 60s
func FuzzYAMLWriter(f *testing.F) {
	for i, s := range tricky {
		f.Add(s, tricky[(i+1)%len(tricky)], tricky[(i+7)%len(tricky)])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		assertSameYAML(t, testDoc{Top: a, Flow: []string{b, c}, Last: c,
			Items: []testItem{{S: b, Flow: []string{a}, T: c, N: len(a), B: true}, {S: c, T: a}}})
	})
}

func BenchmarkYAMLWriter(b *testing.B) {
	d := testDoc{Top: "acme-widgets"}
	for i := range 1000 {
		d.Items = append(d.Items, testItem{S: "T" + strings.Repeat("1", i%6+1), Flow: []string{"worker", "reviewer"}, T: "add a test for empty input", N: i % 3})
	}
	b.Run("yaml.v3", func(b *testing.B) {
		for b.Loop() {
			encodeWithYAML(b, d, 2)
		}
	})
	b.Run("YAMLWriter", func(b *testing.B) {
		for b.Loop() {
			writeTestDoc(d, 2)
		}
	})
}

// TestParseValue: ParseValue inverts String for every one-line value, and
// takes nothing String does not write.
func TestParseValue(t *testing.T) {
	t.Parallel()
	for _, s := range tricky {
		w := NewYAMLWriter(nil, 2)
		w.Key(0, "k")
		w.String(0, s)
		text := strings.TrimPrefix(string(w.Buf), "k: ")
		got, ok := ParseValue(text)
		if strings.Contains(text, "\n") {
			if ok {
				t.Errorf("ParseValue took the multi-line %q", text)
			}
			continue
		}
		// Values written across a raw line break (LS, PS, CR) or as
		// !!binary are left to a YAML parser.
		unusual := strings.HasPrefix(text, "!!") || strings.ContainsAny(text, "\r\u2028\u2029")
		if ok && got != s || !ok && !unusual {
			t.Errorf("ParseValue(%q) = %q, %v; want %q", text, got, ok, s)
		}
	}
	for _, text := range []string{"", "~", "null", "yes", "1", `"a`, `'a`, `"\q"`, `"a"b"`, "'a'b'", "a: b", "- a", "|", `"\x4"`, "&a x", "*a", "!x y", "a #b", " a", "a "} {
		if s, ok := ParseValue(text); ok {
			t.Errorf("ParseValue(%q) = %q: String never writes that", text, s)
		}
	}
}

// FuzzParseValue: what ParseValue takes, String writes exactly.
func FuzzParseValue(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, ok := ParseValue(text)
		if !ok {
			return
		}
		w := NewYAMLWriter(nil, 2)
		w.Key(0, "k")
		w.String(0, s)
		if string(w.Buf) != "k: "+text {
			t.Fatalf("ParseValue(%q) = %q, which String writes as %q", text, s, w.Buf)
		}
	})
}
