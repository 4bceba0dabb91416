// Package prose owns the few words every message needs: counted nouns,
// short commit SHAs, text folded onto one line, lists of line numbers and
// cut text. Findings (checks), renderings (report), replies (bot), the
// doctor, the configuration's errors and the GitHub adapter all say these
// things the same way because they say them through here. It is pure and
// imports nothing of ours.
package prose

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Plural counts word: "1 error", "3 errors". Word takes an s in the plural.
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// ShortSHA is the first 12 characters of a commit SHA, as messages show it.
func ShortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

// OneLine folds line breaks (CRLF, LF, CR) into spaces, so text from a log
// or a comment cannot forge extra lines of output.
func OneLine(s string) string { return lineBreaks.Replace(s) }

// FirstLine is s up to its first LF.
func FirstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// List joins up to n items with commas, then says how many more there are:
// "a, b, c, and 4 more".
func List(items []string, n int) string {
	if len(items) > n {
		return strings.Join(items[:n], ", ") + fmt.Sprintf(", and %d more", len(items)-n)
	}
	return strings.Join(items, ", ")
}

// listedLines is how many line numbers Lines names before "and N more".
const listedLines = 5

// Lines names line numbers: "line 3", "lines 3, 7, 9, 12, 20, and 4 more".
func Lines(lines []int) string {
	if len(lines) == 1 {
		return fmt.Sprintf("line %d", lines[0])
	}
	numbers := make([]string, min(len(lines), listedLines))
	for i := range numbers {
		numbers[i] = fmt.Sprint(lines[i])
	}
	if len(lines) > listedLines {
		numbers = append(numbers, fmt.Sprintf("and %d more", len(lines)-listedLines))
	}
	return "lines " + strings.Join(numbers, ", ")
}

// LineSpan is Lines, but names consecutive lines as a span: "lines 3–5".
func LineSpan(lines []int) string {
	for i := 1; i < len(lines); i++ {
		if lines[i] != lines[i-1]+1 {
			return Lines(lines)
		}
	}
	if len(lines) > 1 {
		return fmt.Sprintf("lines %d–%d", lines[0], lines[len(lines)-1])
	}
	return Lines(lines)
}

// Truncate shortens s to its first n characters and an ellipsis, for
// quoting a word someone else wrote.
func Truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// Clip cuts s to at most n bytes, mark included, on a character boundary,
// ending a cut with mark: for text bound by a size limit.
func Clip(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	cut := n - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// Bytes is a size as people read it: "512 bytes", "1.5 KiB", "256 MiB",
// "1 GiB" (one decimal below ten of a unit, none from ten on).
func Bytes(n int64) string {
	const unit = 1 << 10
	if n < unit && n > -unit {
		return Plural(int(n), "byte")
	}
	v, suffixes := float64(n)/unit, []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for (v >= unit || v <= -unit) && i < len(suffixes)-1 {
		v /= unit
		i++
	}
	if v < 10 && v > -10 && v != float64(int64(v)) {
		return fmt.Sprintf("%.1f %s", v, suffixes[i])
	}
	return fmt.Sprintf("%.0f %s", v, suffixes[i])
}
