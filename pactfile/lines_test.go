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
// line that is neither empty nor a lone CR; Line gives each of them; appending a line after a final
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
		for n := 0; n <= len(lines)+1; n++ {
			line, ok := Line(b, n)
			if in := n >= 1 && n <= len(lines); ok != in || in && !bytes.Equal(line, lines[n-1]) {
				t.Fatalf("Line(%q, %d) = %q, %v; SplitLines has %d lines", b, n, line, ok, len(lines))
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

func TestAppendLines(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ log, want string }{
		{"", "A\nB\n"},
		{"x\n", "x\nA\nB\n"},
		{"x\r\n", "x\r\nA\r\nB\r\n"},
		{"x", "x\nA\nB\n"},                   // a hand edit without the final newline
		{"x\r\ny", "x\r\ny\r\nA\r\nB\r\n"},   // … in a CRLF log
		{"x\r\ny\n", "x\r\ny\nA\nB\n"},       // the last break decides
		{BOM, BOM + "\nA\nB\n"},              // a BOM alone is one empty line
		{"x\r", "x\r\nA\nB\n"},               // a lone CR is no line break
		{"x\n\n", "x\n\nA\nB\n"},             // a blank line stays
		{"x\r\n\r\n", "x\r\n\r\nA\r\nB\r\n"}, // … in CRLF too
	} {
		got := AppendLines([]byte(c.log), []byte(c.log), []byte("A"), []byte("B"))
		if string(got) != c.want {
			t.Errorf("AppendLines(%q, A, B) = %q, want %q", c.log, got, c.want)
		}
	}
	if got := AppendLines([]byte("keep:"), []byte("x\r\n")); string(got) != "keep:" {
		t.Errorf("AppendLines of no line = %q, want dst unchanged", got)
	}
}

// FuzzAppendLines: appending a line to any log keeps the log as it was,
// adds exactly that line (after an unterminated last line, which it ends
// first), ends the new line as the log's last line break does, and needs
// only the log's end from two bytes before its last LF: what pactify reads
// of a log it appends to.
//
//	go test ./pactfile -run '^$' -fuzz '^FuzzAppendLines$' -fuzztime 20s
func FuzzAppendLines(f *testing.F) {
	for _, s := range []string{"", "a\n", "a\r\nb", BOM + "x\n", "a\n\r", BOM, "a\r\n\r\n"} {
		f.Add([]byte(s), []byte(`{"x":1}`))
	}
	f.Fuzz(func(t *testing.T, log, line []byte) {
		if bytes.ContainsAny(line, "\r\n") || len(line) == 0 || line[0] != '{' {
			return // an encoded event is a JSON object on one line
		}
		out := AppendLines(bytes.Clone(log), log, line)
		if !bytes.HasPrefix(out, log) {
			t.Fatalf("AppendLines changed the log %q: %q", log, out)
		}
		before, after := SplitLines(log), SplitLines(out)
		extra := 1
		if last := log[bytes.LastIndexByte(log, '\n')+1:]; string(last) == "\r" {
			extra = 2 // the lone CR that was no line becomes an empty one
		}
		if len(after) != len(before)+extra || !bytes.Equal(after[len(after)-1], line) {
			t.Fatalf("appending %q to %q gives the lines %q, after %q", line, log, after, before)
		}
		for i := range before[:max(0, len(before)-1)] {
			if !bytes.Equal(before[i], after[i]) {
				t.Fatalf("appending to %q changed line %d: %q", log, i+1, after[i])
			}
		}
		if eol := LineEnding(log); !bytes.HasSuffix(out, append(bytes.Clone(line), eol...)) || LineEnding(out) != eol {
			t.Fatalf("appending to %q (line ending %q) gives %q", log, eol, out)
		}
		from := max(0, bytes.LastIndexByte(log, '\n')-1)
		if tail := AppendLines(nil, log[from:], line); !bytes.Equal(tail, out[len(log):]) {
			t.Fatalf("from the end %q of %q: %q, from the whole log: %q", log[from:], log, tail, out[len(log):])
		}
	})
}
