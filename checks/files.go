package checks

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pact-action/pact-action/projection"
)

// Markers of the managed block that init owns in PROJECT.md and entry files.
const (
	BlockBegin = "<!-- pact:begin -->"
	BlockEnd   = "<!-- pact:end -->"
)

// Frontmatter is the YAML block at the top of a task file (spec §3.4).
type Frontmatter struct {
	ID       string `yaml:"id"`
	Feature  string `yaml:"feature"`
	Owner    string `yaml:"owner"`
	Reviewer string `yaml:"reviewer"`
}

// ParseFrontmatter reads the frontmatter of a task file: a first line of
// `---`, YAML, and a closing `---`.
func ParseFrontmatter(b []byte) (Frontmatter, error) {
	var fm Frontmatter
	text := strings.ReplaceAll(string(bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return fm, fmt.Errorf("the file does not start with a --- frontmatter line")
	}
	body, found := "", false
	for rest, off := text[4:], 0; !found && off <= len(rest); {
		line, _, more := strings.Cut(rest[off:], "\n")
		if strings.TrimRight(line, " \t") == "---" { // the closing line, even right after the opening one
			body, found = rest[:off], true
		} else if !more {
			break
		}
		off += len(line) + 1
	}
	if !found {
		return fm, fmt.Errorf("the frontmatter has no closing --- line")
	}
	if err := yaml.Unmarshal([]byte(body), &fm); err != nil {
		return fm, fmt.Errorf("the frontmatter is not valid YAML: %w", err)
	}
	return fm, nil
}

// TaskFiles checks that every assigned task has tasks/<id>.md and that its
// frontmatter mirrors the assign event (the log wins).
func TaskFiles(in Input, st *projection.State) []Finding {
	var out []Finding
	for _, id := range st.TaskOrder {
		t := st.Tasks[id]
		p := in.taskPath(id)
		b, ok := in.TaskFiles[id]
		if !ok || b == nil {
			f := newFinding(CodeTaskfileMissing, p, 0, fmt.Sprintf("task %s has no task file %s", id, p))
			f.TaskID, f.Feature = id, t.Feature
			out = append(out, f)
			continue
		}
		fm, err := ParseFrontmatter(b)
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
		if len(diffs) > 0 {
			line := 0
			if err == nil {
				line = 1
			}
			f := newFinding(CodeTaskfileMismatch, p, line, fmt.Sprintf("frontmatter of task %s: %s", id, strings.Join(diffs, "; ")))
			f.TaskID, f.Feature = id, t.Feature
			out = append(out, f)
		}
	}
	return out
}

var versionAnnotation = regexp.MustCompile(`protocol_version:\s*(\d+)`)

// ProjectHeader checks PROJECT.md's managed block and its protocol_version
// annotation (spec §3.3).
func ProjectHeader(projectPath string, project []byte, st *projection.State) []Finding {
	bad := func(line int, msg string) []Finding {
		return []Finding{newFinding(CodeProjectHeader, projectPath, line, msg)}
	}
	if project == nil {
		return bad(0, "there is no PROJECT.md")
	}
	text := string(project)
	begin := strings.Index(text, BlockBegin)
	end := -1
	if begin >= 0 { // the end marker that closes the block, not one quoted before it
		if i := strings.Index(text[begin:], BlockEnd); i >= 0 {
			end = begin + i
		}
	}
	if begin < 0 || end < begin {
		return bad(0, fmt.Sprintf("PROJECT.md has no managed block between %s and %s", BlockBegin, BlockEnd))
	}
	line := strings.Count(text[:begin], "\n") + 1
	m := versionAnnotation.FindStringSubmatch(text[begin:end])
	if m == nil {
		return bad(line, "the managed block of PROJECT.md has no protocol_version annotation")
	}
	if v, err := strconv.Atoi(m[1]); err != nil || (st.Initialized && v != st.ProtocolVersion) {
		return bad(line, fmt.Sprintf("PROJECT.md says protocol_version %s but the log's init says %d", m[1], st.ProtocolVersion))
	}
	return nil
}
