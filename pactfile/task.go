package pactfile

import (
	"bytes"
	"fmt"
	"github.com/pact-action/pact-action/internal/yamlemit"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Task is the front matter of a task file, tasks/<id>.md (docs/semantics.md, pact v1 §3.4): a
// mirror of the task's assign event.
type Task struct {
	ID       string `yaml:"id"`
	Feature  string `yaml:"feature"`
	Owner    string `yaml:"owner"`
	Reviewer string `yaml:"reviewer"`
}

// newTaskBody is the body a new task file starts with.
const newTaskBody = "## Spec\n\n## Acceptance\n- [ ] \n\n## Handoff log\n"

// formatTask is the front matter block pactify writes: a --- line, the four
// keys in the spec's order, each written as yaml.Marshal writes a one-key
// map, and a closing --- line.
func formatTask(fm Task) []byte {
	return appendTask(nil, fm)
}

// appendTask appends formatTask(fm) to dst.
func appendTask(dst []byte, fm Task) []byte {
	w := yamlemit.NewWriter(append(dst, "---\n"...), 4)
	for _, kv := range [...]struct{ key, value string }{{"id", fm.ID}, {"feature", fm.Feature}, {"owner", fm.Owner}, {"reviewer", fm.Reviewer}} {
		// Each key is its own document, as four yaml.Marshal calls wrote it.
		w.NewDocument()
		w.Key(0, kv.key)
		w.String(0, kv.value)
		w.End()
	}
	return append(w.Buf, "---\n"...)
}

// TaskFile is what tasks/<id>.md holds once assign has written it: the
// front matter of fm, then the body of old, the file as it was (the body of
// a new file when old is nil). Only the front matter of an existing file is
// replaced (as ParseTask finds it); a file with none keeps all of its text
// as the body. The body keeps its text with LF line ends, as the front
// matter is written, so that no file mixes CRLF and LF.
func TaskFile(fm Task, old []byte) []byte {
	body := newTaskBody
	if old != nil {
		body = strings.ReplaceAll(string(TrimBOM(old)), "\r\n", "\n")
		if _, rest, err := cutFrontMatter(old); err == nil {
			body = rest
		}
	}
	return append(formatTask(fm), body...)
}

// ParseTask reads the front matter of a task file: a first line of ---,
// YAML, and a closing --- line. A byte order mark and CRLF line ends are
// allowed; keys may come in any order and others may be present.
func ParseTask(b []byte) (Task, error) {
	var fm Task
	front, _, err := cutFrontMatter(b)
	if err != nil {
		return fm, err
	}
	if err := yaml.Unmarshal([]byte(front), &fm); err != nil {
		return fm, fmt.Errorf("the frontmatter is not valid YAML: %w", err)
	}
	return fm, nil
}

// cutFrontMatter splits a task file, without its byte order mark and with
// LF line ends, into the YAML between the opening --- line and the closing
// one (spaces or tabs may follow it; it may come right after the opening
// line, or end the file), and the body after it.
func cutFrontMatter(b []byte) (front, body string, err error) {
	text := strings.ReplaceAll(string(TrimBOM(b)), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return "", "", fmt.Errorf("the file does not start with a --- frontmatter line")
	}
	rest := text[4:]
	for off := 0; off <= len(rest); {
		line, after, more := strings.Cut(rest[off:], "\n")
		if strings.TrimRight(line, " \t") == "---" {
			return rest[:off], after, nil
		}
		if !more {
			break
		}
		off += len(line) + 1
	}
	return "", "", fmt.Errorf("the frontmatter has no closing --- line")
}

// TaskMatches reports, without parsing, that ParseTask(b) would return fm
// and no error: b begins with exactly the front matter pactify writes for
// fm, and every value of fm is one that front matter reads back unchanged.
// When it says false, parse: the file may still mean fm, written by hand.
func TaskMatches(b []byte, fm Task) bool {
	if !readsBack(fm.ID) || !readsBack(fm.Feature) || !readsBack(fm.Owner) || !readsBack(fm.Reviewer) {
		return false
	}
	var buf [256]byte
	return bytes.HasPrefix(b, appendTask(buf[:0], fm))
}

// readsBack reports whether a front matter value surely parses back to
// itself: UTF-8 on one line, with no character YAML folds, normalises or
// strips (line breaks, tabs, other controls, a byte order mark, spaces at
// either end). Such a value is written plain or quoted on its key's line,
// and each of those reads back exactly.
func readsBack(s string) bool {
	if !utf8.ValidString(s) || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7F || r == 0x85 || r == 0xFEFF || r == 0x2028 || r == 0x2029 {
			return false
		}
	}
	return true
}
