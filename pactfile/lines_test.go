package pactfile

import (
	"bytes"
	"strings"
	"testing"
)

func TestSplitLines(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"":                  nil,
		"\n":                {""},
		"\n\n":              {"", ""},
		"a":                 {"a"},
		"a\n":               {"a"},
		"a\r":               {"a"},
		"\r":                nil,
		"a\n\r":             {"a"}, // a lone CR at the end is no line
		"a\n\r\n":           {"a", ""},
		"a\r\nb\r\n":        {"a", "b"},
		"a\n\nb":            {"a", "", "b"},
		"a\r\r\n":           {"a\r"},
		BOM:                 {""}, // a BOM alone is one empty line
		BOM + "\n":          {""},
		BOM + "a\nb":        {"a", "b"},
		"a\n" + BOM + "b\n": {"a", BOM + "b"}, // only line 1 starts after one
		BOM + BOM + "a\n":   {BOM + "a"},
		"\r\n\r\n":          {"", ""},
		"{\"x\":1}\r\n\r":   {"{\"x\":1}"},
		"x\n\ry\n":          {"x", "\ry"},
		"a\nb\n\n":          {"a", "b", ""},
	} {
		var got []string
		for _, l := range SplitLines([]byte(in)) {
			got = append(got, string(l))
		}
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Errorf("SplitLines(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzSplitLines: the lines of any log hold no LF, end in no CR that came
// before an LF, and there are as many as the LFs plus an unterminated last
// line that is neither empty nor a lone CR; appending a line after a final
// newline appends exactly that line.
//
//	go test ./pactfile -run '^$' -fuzz '^FuzzSplitLines$' -fuzztime 20s
func FuzzSplitLines(f *testing.F) {
	for _, s := range []string{"", "a\n", "a\r\nb", BOM + "x\n", "a\n\r", "\r", BOM} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		lines := SplitLines(b)
		want := bytes.Count(b, []byte("\n"))
		if last := b[bytes.LastIndexByte(b, '\n')+1:]; len(last) > 0 && string(last) != "\r" {
			want++
		}
		if len(lines) != want {
			t.Fatalf("SplitLines(%q) has %d lines, want %d", b, len(lines), want)
		}
		for _, l := range lines {
			if bytes.IndexByte(l, '\n') >= 0 {
				t.Fatalf("a line holds an LF: %q", l)
			}
		}
		if len(b) > 0 && b[len(b)-1] == '\n' {
			more := SplitLines(append(append([]byte(nil), b...), "{}\r\n"...))
			if len(more) != len(lines)+1 || string(more[len(lines)]) != "{}" {
				t.Fatalf("appending a line to %q: %q", b, more)
			}
		}
	})
}

func TestLineEnding(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                 "\n",
		"a":                "\n",
		"a\n":              "\n",
		"a\r\n":            "\r\n",
		"a\r\nb":           "\r\n", // a hand edit without the final newline
		"a\nb\r\n":         "\r\n", // the last break decides
		"a\r\nb\n":         "\n",
		"\n":               "\n",
		"\r\n":             "\r\n",
		"a\r":              "\n", // a lone CR is no line break
		"a\r\r\n":          "\r\n",
		BOM + "{}\r\n{}":   "\r\n",
		"{}\r\n{}\r\n\r\n": "\r\n",
	} {
		if got := LineEnding([]byte(in)); got != want {
			t.Errorf("LineEnding(%q) = %q, want %q", in, got, want)
		}
	}
	if got := WithLineEnding("a\nb\n", "\r\n"); got != "a\r\nb\r\n" {
		t.Errorf("WithLineEnding CRLF = %q", got)
	}
	if got := WithLineEnding("a\nb\n", "\n"); got != "a\nb\n" {
		t.Errorf("WithLineEnding LF = %q", got)
	}
}
