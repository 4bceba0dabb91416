// Package ownstate reads a STATE.yml laid out exactly as projection's
// Render lays it out, a line at a time, in place of a YAML reading: a
// stale STATE.yml of ours is the usual drift, and the YAML node tree of a
// 1M-event STATE.yml took gigabytes. It knows the layout, not the pact:
// projection says what each entry means, and its differential test and
// fuzz target (TestOwnSummaryMatchesYAML, FuzzOwnSummary) hold what this
// reader takes to what the YAML reading gives.
package ownstate

import (
	"bytes"
	"unicode/utf8"

	"github.com/pact-action/pact-action/internal/yamlemit"
)

// Task is what Parse reads of a task besides its id.
type Task struct {
	Feature, Status, Owner, Reviewer string
}

// Visitor takes the entries Parse reads, in the file's order.
type Visitor struct {
	Seat    func(id string, roles []string)
	Feature func(id, status string)
	Task    func(id string, t Task)
}

// Parse reads a STATE.yml laid out exactly as Render lays it out, every
// value on one line as yamlemit.Writer writes it (yamlemit.ParseValue) and
// every list item plain text (yamlemit.PlainText): it hands v each seat
// and its roles, each feature and its status and each task, and returns
// the project. ok is false for a file in any other shape (v may have been
// handed part of it), which the caller then reads as YAML. longest is the
// longest value a render can hold of the log compared with it (a line of
// the log): a value over 16 times that is not copied but cut to longest+1
// bytes, which differ from any: a long line, within max-pact-bytes, is
// not held twice.
func Parse(b []byte, longest int, v Visitor) (project string, ok bool) {
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return "", false
	}
	maxValue := 16 * longest
	// The file is read in place, a line at a time; a string is made of each
	// value, once for values that repeat (owners, statuses, features).
	intern := map[string]string{}
	text := func(raw []byte) string {
		if s, ok := intern[string(raw)]; ok {
			return s
		}
		s := string(raw)
		if len(intern) < 1<<16 {
			intern[s] = s
		}
		return s
	}
	pos := 0
	var line []byte
	atEnd := false
	advance := func() {
		if pos >= len(b) {
			line, atEnd = nil, true
			return
		}
		end := pos + bytes.IndexByte(b[pos:], '\n')
		line, pos = b[pos:end], end+1
	}
	// rest is the current line after prefix, if it starts with it.
	rest := func(prefix string) ([]byte, bool) {
		if atEnd || len(line) < len(prefix) || string(line[:len(prefix)]) != prefix {
			return nil, false
		}
		return line[len(prefix):], true
	}
	is := func(whole string) bool { return !atEnd && string(line) == whole }
	advance()
	for !atEnd && len(line) > 0 && line[0] == '#' {
		if !plainComment(string(line)) {
			return "", false
		}
		advance() // comment lines before the content
	}
	// value reads "<indent><key>: <value>", a value exactly as
	// yamlemit.Writer writes one on one line.
	value := func(prefix string) (string, bool) {
		r, ok := rest(prefix)
		if !ok {
			return "", false
		}
		if len(r) > maxValue {
			// No value of the log is this long (a value is at most
			// longest, and writing it at most quadruples it), so it
			// differs whatever it says: its start stands for it, rather
			// than a copy of a value as large as the file.
			advance()
			return string(r[:longest+1]), true
		}
		v, ok := yamlemit.ParseValue(text(r))
		advance()
		return v, ok
	}
	// entryID is a value that names an entry: YAML readers skip an entry
	// whose id is empty, so this one does not take it.
	entryID := func(prefix string) (string, bool) {
		v, ok := value(prefix)
		return v, ok && v != ""
	}
	digits := func(prefix string) bool {
		r, ok := rest(prefix)
		if !ok || len(r) == 0 {
			return false
		}
		for _, c := range r {
			if c < '0' || c > '9' {
				return false
			}
		}
		advance()
		return true
	}
	flow := func(prefix string) ([]string, bool) {
		r, ok := rest(prefix + "[")
		if !ok || len(r) == 0 || r[len(r)-1] != ']' {
			return nil, false
		}
		inner := r[:len(r)-1]
		advance()
		list := []string{}
		if len(inner) == 0 {
			return list, true
		}
		for _, item := range bytes.Split(inner, []byte(", ")) {
			s := text(item)
			if !yamlemit.PlainText(s) {
				return nil, false
			}
			list = append(list, s)
		}
		return list, true
	}
	// section reads "<key>: []", or "<key>:" and then each item that begins
	// with "  - id: "; item reads the item's keys after that id.
	section := func(key string, item func(id string) bool) bool {
		switch {
		case is(key + ": []"):
			advance()
			return true
		case is(key + ":"):
			advance()
		default:
			return false
		}
		if _, ok := rest("  - "); !ok {
			return false // "key:" alone is null, not a list
		}
		for {
			if _, ok := rest("  - "); !ok {
				return true
			}
			id, ok := entryID("  - id: ")
			if !ok || !item(id) {
				return false
			}
		}
	}

	project, ok = value("project: ")
	if !ok || !digits("protocol_version: ") {
		return "", false
	}
	if _, ok := value("base_branch: "); !ok {
		return "", false
	}
	if !section("seats", func(id string) bool {
		roles, ok1 := flow("    roles: ")
		_, ok2 := value("    entry: ")
		online := is("    online: true") || is("    online: false")
		advance()
		v.Seat(id, roles)
		return ok1 && ok2 && online
	}) {
		return "", false
	}
	if !section("features", func(id string) bool {
		status, ok1 := value("    status: ")
		_, ok2 := flow("    tasks: ")
		v.Feature(id, status)
		return ok1 && ok2
	}) {
		return "", false
	}
	if !section("tasks", func(id string) bool {
		var t Task
		var ok [6]bool
		t.Feature, ok[0] = value("    feature: ")
		t.Owner, ok[1] = value("    owner: ")
		t.Reviewer, ok[2] = value("    reviewer: ")
		_, ok[3] = value("    branch: ")
		_, ok[4] = value("    spec: ")
		t.Status, ok[5] = value("    status: ")
		if _, at := rest("    rounds: "); at && !digits("    rounds: ") {
			return false
		}
		if _, at := rest("    last_reason: "); at {
			if _, ok := value("    last_reason: "); !ok {
				return false
			}
		}
		v.Task(id, t)
		return ok == [6]bool{true, true, true, true, true, true}
	}) {
		return "", false
	}
	if !atEnd {
		return "", false
	}
	return project, true
}

// plainComment reports whether a comment line holds only characters YAML
// takes in a comment: UTF-8, no control character and no line break of
// any kind (YAML refuses the whole file for the first, and ends the comment
// at the second).
func plainComment(line string) bool {
	if !utf8.ValidString(line) {
		return false
	}
	for _, r := range line {
		switch {
		case r == '\t', 0x20 <= r && r <= 0x7E, 0xA0 <= r && r <= 0xD7FF && r != 0x2028 && r != 0x2029,
			0xE000 <= r && r <= 0xFFFD && r != 0xFEFF, 0x10000 <= r && r <= 0x10FFFF:
		default:
			return false
		}
	}
	return true
}
