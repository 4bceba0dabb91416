package projection

import (
	"strings"
	"unicode/utf8"

	"github.com/pact-action/pact-action/pactfile"
)

// parseOwnSummary reads the meaning of a STATE.yml laid out exactly as
// Render lays it out, every value on one line as pactfile.YAMLWriter writes
// it (pactfile.ParseValue) and every list item plain text
// (pactfile.PlainText): a stale STATE.yml of ours, the usual drift. ok is
// false for a file in any other shape, and ParseStateSummary then reads it
// as YAML. Where ok is true the Summary is the one the YAML reading gives
// (a differential test and a fuzz target hold the two together), at a
// fraction of the cost: the YAML node tree of a 1M-event STATE.yml took
// gigabytes.
func parseOwnSummary(b []byte) (sum Summary, ok bool) {
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return Summary{}, false
	}
	// The values are substrings of one copy of the file: no line is held
	// on its own.
	text := string(b)
	pos := 0
	line, atEnd := "", false
	advance := func() {
		if pos >= len(text) {
			line, atEnd = "", true
			return
		}
		end := pos + strings.IndexByte(text[pos:], '\n')
		line, pos = text[pos:end], end+1
	}
	advance()
	for !atEnd && strings.HasPrefix(line, "#") {
		if !plainComment(line) {
			return Summary{}, false
		}
		advance() // comment lines before the content
	}
	sum = Summary{Seats: map[string][]string{}, Features: map[string]string{}, Tasks: map[string]TaskSummary{}}
	// value reads "<indent><key>: <value>", a value exactly as
	// pactfile.YAMLWriter writes one on one line.
	value := func(prefix string) (string, bool) {
		if atEnd || !strings.HasPrefix(line, prefix) {
			return "", false
		}
		v, ok := pactfile.ParseValue(line[len(prefix):])
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
		if atEnd || !strings.HasPrefix(line, prefix) || len(line) == len(prefix) {
			return false
		}
		for _, c := range line[len(prefix):] {
			if c < '0' || c > '9' {
				return false
			}
		}
		advance()
		return true
	}
	flow := func(prefix string) ([]string, bool) {
		if atEnd || !strings.HasPrefix(line, prefix+"[") || !strings.HasSuffix(line, "]") {
			return nil, false
		}
		inner := line[len(prefix)+1 : len(line)-1]
		advance()
		list := []string{}
		if inner == "" {
			return list, true
		}
		for _, item := range strings.Split(inner, ", ") {
			if !pactfile.PlainText(item) {
				return nil, false
			}
			list = append(list, item)
		}
		return list, true
	}
	// section reads "<key>: []", or "<key>:" and then each item that begins
	// with "  - id: "; item reads the item's keys after that id.
	section := func(key string, item func(id string) bool) bool {
		switch {
		case !atEnd && line == key+": []":
			advance()
			return true
		case !atEnd && line == key+":":
			advance()
		default:
			return false
		}
		if atEnd || !strings.HasPrefix(line, "  - ") {
			return false // "key:" alone is null, not a list
		}
		for !atEnd && strings.HasPrefix(line, "  - ") {
			id, ok := entryID("  - id: ")
			if !ok || !item(id) {
				return false
			}
		}
		return true
	}

	project, ok := value("project: ")
	if !ok || !digits("protocol_version: ") {
		return Summary{}, false
	}
	if _, ok := value("base_branch: "); !ok {
		return Summary{}, false
	}
	sum.Project = project
	if !section("seats", func(id string) bool {
		roles, ok1 := flow("    roles: ")
		_, ok2 := value("    entry: ")
		online := !atEnd && (line == "    online: true" || line == "    online: false")
		advance()
		sum.Seats[id] = roles
		return ok1 && ok2 && online
	}) {
		return Summary{}, false
	}
	if !section("features", func(id string) bool {
		status, ok1 := value("    status: ")
		_, ok2 := flow("    tasks: ")
		sum.Features[id] = status
		return ok1 && ok2
	}) {
		return Summary{}, false
	}
	if !section("tasks", func(id string) bool {
		var t TaskSummary
		var ok [6]bool
		t.Feature, ok[0] = value("    feature: ")
		t.Owner, ok[1] = value("    owner: ")
		t.Reviewer, ok[2] = value("    reviewer: ")
		_, ok[3] = value("    branch: ")
		_, ok[4] = value("    spec: ")
		t.Status, ok[5] = value("    status: ")
		if !atEnd && strings.HasPrefix(line, "    rounds: ") && !digits("    rounds: ") {
			return false
		}
		if !atEnd && strings.HasPrefix(line, "    last_reason: ") {
			if _, ok := value("    last_reason: "); !ok {
				return false
			}
		}
		sum.Tasks[id] = t
		return ok == [6]bool{true, true, true, true, true, true}
	}) {
		return Summary{}, false
	}
	if !atEnd {
		return Summary{}, false
	}
	return sum, true
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
