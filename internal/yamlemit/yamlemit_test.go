package yamlemit

import (
	"bytes"
	"github.com/pact-action/pact-action/internal/testkit/yamlcases"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// tricky are the scalars that take every path of the encoder (yamlcases).
var tricky = yamlcases.Tricky

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

// writeTestDoc writes d with Writer, the way projection writes STATE.yml.
func writeTestDoc(d testDoc, indent int) []byte {
	w := NewWriter(nil, indent)
	writeTestHead(w, d)
	if len(d.Items) == 0 {
		w.EmptySeq()
	}
	s := w.SeqIndent(0)
	for _, it := range d.Items {
		w.Item(s)
		writeItemStart(w, s, it)
		writeItemEnd(w, s, it)
	}
	writeTestTail(w, d)
	return w.Buf
}

// writeJoinedTestDoc writes d as projection writes the tasks of a large
// STATE.yml: item k's first values (to t, a string, after which a writer
// may stand anywhere) by a writer of their own, which starts past an item's
// "-", its bytes joined to the first writer's at that "-", and the first
// writer going on from the second's mark (Resume). It reports whether the
// two writers stood at one mark at the join.
func writeJoinedTestDoc(d testDoc, indent, k int) ([]byte, bool) {
	w := NewWriter(nil, indent)
	writeTestHead(w, d)
	s := w.SeqIndent(0)
	for i, it := range d.Items {
		w.Item(s)
		if i != k {
			writeItemStart(w, s, it)
			writeItemEnd(w, s, it)
			continue
		}
		part := NewWriter(nil, indent)
		part.Item(s)
		part.Buf = part.Buf[:0]
		if w.Mark() != part.Mark() {
			return nil, false
		}
		writeItemStart(part, s, it)
		w.Buf = append(w.Buf, part.Buf...)
		w.Resume(part.Mark())
		writeItemEnd(w, s, it)
	}
	writeTestTail(w, d)
	return w.Buf, true
}

func writeTestHead(w *Writer, d testDoc) {
	w.Key(0, "top")
	w.String(0, d.Top)
	w.Key(0, "flow")
	writeFlow(w, 0, d.Flow)
	w.Key(0, "items")
}

// writeItemStart writes an item's values up to t, after its "-" in the
// sequence at indent s; writeItemEnd the rest.
func writeItemStart(w *Writer, s int, it testItem) {
	w.Key(s+2, "s")
	w.String(s+2, it.S)
	w.Key(s+2, "flow")
	writeFlow(w, s+2, it.Flow)
	w.Key(s+2, "t")
	w.String(s+2, it.T)
}

func writeItemEnd(w *Writer, s int, it testItem) {
	if it.N != 0 {
		w.Key(s+2, "num")
		w.Int(it.N)
	}
	w.Key(s+2, "b")
	w.Bool(it.B)
}

func writeTestTail(w *Writer, d testDoc) {
	w.Key(0, "last")
	w.String(0, d.Last)
	w.End()
}

func writeFlow(w *Writer, m int, list []string) {
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
			t.Fatalf("indent %d: Writer wrote\n%q\nyaml.v3 writes\n%q", indent, got, want)
		}
		for k := range d.Items {
			got, same := writeJoinedTestDoc(d, indent, k)
			if !same || !bytes.Equal(got, want) {
				t.Fatalf("indent %d, joined at item %d (marks equal: %v): Writers wrote\n%q\nyaml.v3 writes\n%q", indent, k, same, got, want)
			}
		}
	}
}

// TestWriterMatchesEncoder: every tricky string, in every position a
// .pact/ file puts a string, is written byte for byte as yaml.v3 writes it.
func TestWriterMatchesEncoder(t *testing.T) {
	t.Parallel()
	for _, s := range tricky {
		assertSameYAML(t, testDoc{Top: s, Flow: []string{s}, Last: s,
			Items: []testItem{{S: s, Flow: []string{s, "x", s}, T: s, N: len(s), B: len(s)%2 == 0}, {S: "x", T: s}}})
	}
	assertSameYAML(t, testDoc{})
	assertSameYAML(t, testDoc{Flow: tricky, Items: []testItem{{Flow: tricky, N: -3}}})
}

// FuzzWriter: any strings are written as yaml.v3 writes them.
//
//	go test ./pactfile/ -run '^$' -fuzz FuzzWriter -fuzztime 60s
func FuzzWriter(f *testing.F) {
	for i, s := range tricky {
		f.Add(s, tricky[(i+1)%len(tricky)], tricky[(i+7)%len(tricky)])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		assertSameYAML(t, testDoc{Top: a, Flow: []string{b, c}, Last: c,
			Items: []testItem{{S: b, Flow: []string{a}, T: c, N: len(a), B: true}, {S: c, T: a}}})
	})
}

func BenchmarkWriter(b *testing.B) {
	d := testDoc{Top: "acme-widgets"}
	for i := range 1000 {
		d.Items = append(d.Items, testItem{S: "T" + strings.Repeat("1", i%6+1), Flow: []string{"worker", "reviewer"}, T: "add a test for empty input", N: i % 3})
	}
	b.Run("yaml.v3", func(b *testing.B) {
		for b.Loop() {
			encodeWithYAML(b, d, 2)
		}
	})
	b.Run("Writer", func(b *testing.B) {
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
		w := NewWriter(nil, 2)
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
		w := NewWriter(nil, 2)
		w.Key(0, "k")
		w.String(0, s)
		if string(w.Buf) != "k: "+text {
			t.Fatalf("ParseValue(%q) = %q, which String writes as %q", text, s, w.Buf)
		}
	})
}
