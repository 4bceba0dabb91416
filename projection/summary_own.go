package projection

import (
	"strings"

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
	text := string(b)
	if !strings.HasSuffix(text, "\n") {
		return Summary{}, false
	}
	lines := strings.Split(text[:len(text)-1], "\n")
	i := 0
	for i < len(lines) && strings.HasPrefix(lines[i], "#") {
		i++ // comment lines before the content
	}
	sum = Summary{Seats: map[string][]string{}, Features: map[string]string{}, Tasks: map[string]TaskSummary{}}
	// value reads "<indent><key>: <value>", a value exactly as
	// pactfile.YAMLWriter writes one on one line.
	value := func(prefix string) (string, bool) {
		if i >= len(lines) || !strings.HasPrefix(lines[i], prefix) {
			return "", false
		}
		v, ok := pactfile.ParseValue(lines[i][len(prefix):])
		i++
		return v, ok
	}
	// id is a value that names an entry: YAML readers skip an entry whose
	// id is empty, so this one does not take it.
	entryID := func(prefix string) (string, bool) {
		v, ok := value(prefix)
		return v, ok && v != ""
	}
	digits := func(prefix string) bool {
		if i >= len(lines) || !strings.HasPrefix(lines[i], prefix) || len(lines[i]) == len(prefix) {
			return false
		}
		for _, c := range lines[i][len(prefix):] {
			if c < '0' || c > '9' {
				return false
			}
		}
		i++
		return true
	}
	flow := func(prefix string) ([]string, bool) {
		if i >= len(lines) || !strings.HasPrefix(lines[i], prefix+"[") || !strings.HasSuffix(lines[i], "]") {
			return nil, false
		}
		inner := lines[i][len(prefix)+1 : len(lines[i])-1]
		i++
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
	// section reads "<key>: []" or "<key>:" and calls item for each
	// "  - " that follows.
	section := func(key string, item func() bool) bool {
		switch {
		case i < len(lines) && lines[i] == key+": []":
			i++
			return true
		case i < len(lines) && lines[i] == key+":":
			i++
		default:
			return false
		}
		if i >= len(lines) || !strings.HasPrefix(lines[i], "  - ") {
			return false // "key:" alone is null, not a list
		}
		for i < len(lines) && strings.HasPrefix(lines[i], "  - ") {
			lines[i] = "    " + lines[i][4:] // the item's first key, at its mapping's indent
			if !item() {
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
	if !section("seats", func() bool {
		id, ok1 := entryID("    id: ")
		roles, ok2 := flow("    roles: ")
		_, ok3 := value("    entry: ")
		online := i < len(lines) && (lines[i] == "    online: true" || lines[i] == "    online: false")
		i++
		sum.Seats[id] = roles
		return ok1 && ok2 && ok3 && online
	}) {
		return Summary{}, false
	}
	if !section("features", func() bool {
		id, ok1 := entryID("    id: ")
		status, ok2 := value("    status: ")
		_, ok3 := flow("    tasks: ")
		sum.Features[id] = status
		return ok1 && ok2 && ok3
	}) {
		return Summary{}, false
	}
	if !section("tasks", func() bool {
		var t TaskSummary
		id, ok1 := entryID("    id: ")
		f, ok2 := value("    feature: ")
		o, ok3 := value("    owner: ")
		r, ok4 := value("    reviewer: ")
		_, ok5 := value("    branch: ")
		_, ok6 := value("    spec: ")
		s, ok7 := value("    status: ")
		if i < len(lines) && strings.HasPrefix(lines[i], "    rounds: ") && !digits("    rounds: ") {
			return false
		}
		if i < len(lines) && strings.HasPrefix(lines[i], "    last_reason: ") {
			if _, ok := value("    last_reason: "); !ok {
				return false
			}
		}
		t.Feature, t.Owner, t.Reviewer, t.Status = f, o, r, s
		sum.Tasks[id] = t
		return ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7
	}) {
		return Summary{}, false
	}
	if i != len(lines) {
		return Summary{}, false
	}
	return sum, true
}
