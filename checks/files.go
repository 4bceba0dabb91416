package checks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// taskFiles checks that every assigned task has tasks/<id>.md (judged
// from in.TaskListing when there is one) and that the front matter of each
// file read mirrors the assign event (the log wins). A file that begins
// with exactly the front matter pactify writes for its task is not parsed.
func taskFiles(in Input, st *projection.State) []Finding {
	var out []Finding
	for _, t := range st.TaskList() {
		id := t.ID
		b := in.TaskFiles[id]
		has := b != nil || in.TaskFilesMatched[id]
		if in.TaskListing != nil {
			has = in.TaskListing[id]
		}
		if !has {
			f := newFinding(CodeTaskfileMissing, in.layout().Task(id), 0, fmt.Sprintf("task %s has no task file %s", id, in.layout().Task(id)))
			f.TaskID, f.Feature = id, t.Feature
			out = append(out, f)
			continue
		}
		if b == nil {
			continue // matched, or listed and not read
		}
		if f, bad := TaskFile(in.layout().Task(id), t, b); bad {
			out = append(out, f)
		}
	}
	return out
}

// TaskFile judges the task file b at path of task t: whether its front
// matter mirrors the task's assign event. It says nothing (false) when it
// does; a file that begins with exactly what pactify writes is not parsed.
func TaskFile(path string, t *projection.Task, b []byte) (Finding, bool) {
	want := t.FrontMatter()
	if pactfile.TaskMatches(b, want) {
		return Finding{}, false
	}
	fm, err := pactfile.ParseTask(b)
	var diffs []string
	if err != nil {
		diffs = append(diffs, err.Error())
	} else {
		for _, c := range []struct{ name, got, want string }{
			{"id", fm.ID, t.ID}, {"feature", fm.Feature, t.Feature}, {"owner", fm.Owner, t.Owner}, {"reviewer", fm.Reviewer, t.Reviewer},
		} {
			if c.got != c.want {
				diffs = append(diffs, fmt.Sprintf("%s is %q but the log says %q", c.name, c.got, c.want))
			}
		}
	}
	if len(diffs) == 0 {
		return Finding{}, false
	}
	line := 0
	if err == nil {
		line = 1
	}
	f := newFinding(CodeTaskfileMismatch, path, line, fmt.Sprintf("frontmatter of task %s: %s", t.ID, strings.Join(diffs, "; ")))
	f.TaskID, f.Feature = t.ID, t.Feature
	return f, true
}

// projectHeader checks PROJECT.md's managed block and its protocol_version
// annotation (docs/semantics.md, pact v1 §3.3), read as pactify init writes them
// (pactfile.ParseProject).
func projectHeader(projectPath string, project []byte, st *projection.State) []Finding {
	bad := func(line int, msg string) []Finding {
		f := newFinding(CodeProjectHeader, projectPath, line, msg)
		f.Hint = reinitHint(projectPath, st)
		return []Finding{f}
	}
	if project == nil {
		return bad(0, "there is no PROJECT.md")
	}
	h, ok := pactfile.ParseProject(project)
	if !ok {
		return bad(0, fmt.Sprintf("PROJECT.md has no managed block between %s and %s", pactfile.BlockBegin, pactfile.BlockEnd))
	}
	if h.ProtocolVersion == "" {
		return bad(h.Line, "the managed block of PROJECT.md has no protocol_version annotation")
	}
	if v, err := strconv.Atoi(h.ProtocolVersion); err != nil || (st.Initialized && v != st.ProtocolVersion) {
		return bad(h.Line, fmt.Sprintf("PROJECT.md says protocol_version %s but the log's init says %d", h.ProtocolVersion, st.ProtocolVersion))
	}
	return nil
}
