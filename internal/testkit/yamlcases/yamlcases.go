// Package yamlcases holds the YAML scalars that the tests of every writer
// and reader of YAML (internal/yamlemit, pactfile's task front matter) run
// through, so one list stays complete: test support only.
package yamlcases

import "strings"

// Tricky are strings that take every path of the encoder's scalar rules:
// each style, keywords and numbers of YAML 1.1 and 1.2, indicators, line
// breaks of every kind, controls, non-BMP characters, a byte order mark and
// invalid UTF-8 (written as !!binary).
var Tricky = []string{
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
