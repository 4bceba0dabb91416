package projection

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Summary is the meaning of a STATE.yml that drift is judged on: project,
// seats, feature statuses and each task's status, owner and reviewer. Render
// details (order, quoting, extra keys) are deliberately left out so a
// STATE.yml written by another implementation compares fairly.
type Summary struct {
	Project  string
	Seats    map[string][]string // seat id → roles (nil when the file gives none)
	Features map[string]string   // feature id → status
	Tasks    map[string]TaskSummary
}

// TaskSummary is what drift compares of one task.
type TaskSummary struct {
	Feature, Status, Owner, Reviewer string
}

// Summarize takes the meaning of a replayed state.
func Summarize(s *State) Summary {
	sum := Summary{Project: s.Project, Seats: map[string][]string{}, Features: map[string]string{}, Tasks: map[string]TaskSummary{}}
	for _, seat := range s.Seats {
		sum.Seats[seat.ID] = nonNil(seat.Roles)
	}
	for _, id := range s.FeatureOrder {
		sum.Features[id] = string(s.FeatureStatus(id))
	}
	for _, id := range s.TaskOrder {
		t := s.Tasks[id]
		sum.Tasks[id] = TaskSummary{Feature: t.Feature, Status: string(t.Status), Owner: t.Owner, Reviewer: t.Reviewer}
	}
	return sum
}

// ParseStateSummary reads the meaning out of a STATE.yml. It accepts our own
// render and the usual shapes of others: sections named seats or agents, and
// lists of objects with an id or maps keyed by id; tasks at the top level or
// nested in their features.
func ParseStateSummary(b []byte) (Summary, error) {
	if sum, ok := parseOwnSummary(b); ok {
		return sum, nil
	}
	return parseYAMLSummary(b)
}

// parseYAMLSummary is ParseStateSummary for a STATE.yml of any shape.
func parseYAMLSummary(b []byte) (Summary, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return Summary{}, fmt.Errorf("STATE.yml is not valid YAML: %w", err)
	}
	p := plainer{budget: stateNodeBudget(len(b)), open: map[*yaml.Node]bool{}}
	doc, err := p.plain(&root)
	if err != nil {
		return Summary{}, err
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return Summary{}, fmt.Errorf("STATE.yml is not a YAML mapping")
	}
	sum := Summary{Seats: map[string][]string{}, Features: map[string]string{}, Tasks: map[string]TaskSummary{}}
	switch p := top["project"].(type) {
	case string:
		sum.Project = p
	case map[string]any:
		sum.Project = str(p["name"])
	}
	seats := top["seats"]
	if seats == nil {
		seats = top["agents"]
	}
	for id, v := range entries(seats) {
		var roles []string
		switch v := v.(type) {
		case map[string]any:
			roles = strs(v["roles"])
		case []any:
			roles = strs(v)
		}
		sum.Seats[id] = roles
	}
	for id, v := range entries(top["features"]) {
		m, _ := v.(map[string]any)
		if s, isString := v.(string); isString {
			sum.Features[id] = s
			continue
		}
		sum.Features[id] = statusOf(m)
		for tid, tv := range entries(m["tasks"]) {
			if tm, ok := tv.(map[string]any); ok {
				sum.Tasks[tid] = taskOf(tm, id)
			}
		}
	}
	for id, v := range entries(top["tasks"]) {
		if m, ok := v.(map[string]any); ok {
			sum.Tasks[id] = taskOf(m, "")
		}
	}
	return sum, nil
}

// maxStateNodes bounds the YAML nodes a small STATE.yml may expand to,
// aliases included: a pull request brings its own STATE.yml, so it is
// untrusted.
const maxStateNodes = 1 << 22

// stateNodeBudget is how many YAML nodes a STATE.yml of size bytes may
// expand to: maxStateNodes, or one per byte for a larger file. Without
// aliases a document has fewer nodes than bytes (pactify writes about one
// per ten), so only an alias can exhaust it, and what aliases may cost
// stays in proportion to the file. A fixed bound made the STATE.yml of
// about 1.8M events "too large".
func stateNodeBudget(size int) int {
	return max(maxStateNodes, size)
}

// plainer.plain turns a YAML node into maps keyed by the text of their keys, lists,
// and scalars kept as the text they are written with (an empty null is nil).
// Meaning is the text a reader sees: another implementation may write the
// id 7, true, 1.0 or null without quotes, as a key or a value, and mean the
// id, where a typed decode would give a number, a bool or nothing and a map
// with such keys would not even be keyed by strings.
type plainer struct {
	budget int
	open   map[*yaml.Node]bool // aliases being expanded, to refuse cycles
}

func (p *plainer) plain(n *yaml.Node) (any, error) {
	if p.budget--; p.budget < 0 {
		return nil, fmt.Errorf("STATE.yml is too large: it expands to more than %d YAML nodes", maxStateNodes)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return p.plain(n.Content[0])
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, nil
		}
		if p.open[n.Alias] {
			return nil, fmt.Errorf("STATE.yml is not valid YAML: anchor %q contains itself", n.Value)
		}
		p.open[n.Alias] = true
		v, err := p.plain(n.Alias)
		delete(p.open, n.Alias)
		return v, err
	case yaml.ScalarNode:
		if n.Value == "" && n.ShortTag() == "!!null" {
			return nil, nil
		}
		return n.Value, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := p.plain(c)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := p.plain(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			if k := n.Content[i]; k.Kind == yaml.ScalarNode { // a complex or aliased key names nothing
				out[k.Value] = v
			}
		}
		return out, nil
	}
	return nil, nil
}

func taskOf(m map[string]any, feature string) TaskSummary {
	if f := str(m["feature"]); f != "" {
		feature = f
	}
	return TaskSummary{Feature: feature, Status: statusOf(m), Owner: str(m["owner"]), Reviewer: str(m["reviewer"])}
}

func statusOf(m map[string]any) string {
	if s := str(m["status"]); s != "" {
		return s
	}
	return str(m["state"])
}

// entries turns a list of objects carrying an id, or a map keyed by id, into
// id → value.
func entries(v any) map[string]any {
	out := map[string]any{}
	switch v := v.(type) {
	case map[string]any:
		for k, item := range v {
			out[k] = item
		}
	case []any:
		for _, item := range v {
			switch item := item.(type) {
			case map[string]any:
				id := str(item["id"])
				if id == "" {
					id = str(item["name"])
				}
				if id != "" {
					out[id] = item
				}
			case string:
				out[item] = nil
			}
		}
	}
	return out
}

func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func strs(v any) []string {
	list, ok := v.([]any)
	if !ok {
		if s, isString := v.(string); isString { // "worker, reviewer"
			parts := strings.Split(s, ",")
			for i := range parts {
				parts[i] = strings.TrimSpace(parts[i])
			}
			return parts
		}
		return nil
	}
	out := []string{}
	for _, item := range list {
		out = append(out, str(item))
	}
	return out
}

// Diff lists, sorted and one per line, how got (a STATE.yml) differs from
// want (a fresh projection). It is empty when they mean the same.
func Diff(want, got Summary) []string {
	var out []string
	if want.Project != got.Project {
		out = append(out, fmt.Sprintf("project: STATE.yml says %q, the log says %q", got.Project, want.Project))
	}
	for id, roles := range want.Seats {
		gr, ok := got.Seats[id]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("seat %s: missing from STATE.yml", id))
		case gr != nil && !sameSet(gr, roles):
			out = append(out, fmt.Sprintf("seat %s roles: STATE.yml says [%s], the log says [%s]", id, strings.Join(gr, ", "), strings.Join(roles, ", ")))
		}
	}
	for id := range got.Seats {
		if _, ok := want.Seats[id]; !ok {
			out = append(out, fmt.Sprintf("seat %s: in STATE.yml but not declared in the log", id))
		}
	}
	for id, st := range want.Features {
		gs, ok := got.Features[id]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("feature %s: missing from STATE.yml (the log says %s)", id, st))
		case gs != st:
			out = append(out, fmt.Sprintf("feature %s status: STATE.yml says %s, the log says %s", id, orNone(gs), st))
		}
	}
	for id := range got.Features {
		if _, ok := want.Features[id]; !ok {
			out = append(out, fmt.Sprintf("feature %s: in STATE.yml but has no task in the log", id))
		}
	}
	for id, wt := range want.Tasks {
		gt, ok := got.Tasks[id]
		if !ok {
			out = append(out, fmt.Sprintf("task %s: missing from STATE.yml (the log says %s)", id, wt.Status))
			continue
		}
		fields := []struct{ name, got, want string }{
			{"status", gt.Status, wt.Status}, {"owner", gt.Owner, wt.Owner}, {"reviewer", gt.Reviewer, wt.Reviewer},
		}
		// A render that does not say which feature a task belongs to is
		// not wrong about it.
		if gt.Feature != "" {
			fields = append(fields, struct{ name, got, want string }{"feature", gt.Feature, wt.Feature})
		}
		for _, f := range fields {
			if f.got != f.want {
				out = append(out, fmt.Sprintf("task %s %s: STATE.yml says %s, the log says %s", id, f.name, orNone(f.got), f.want))
			}
		}
	}
	for id := range got.Tasks {
		if _, ok := want.Tasks[id]; !ok {
			out = append(out, fmt.Sprintf("task %s: in STATE.yml but never assigned in the log", id))
		}
	}
	sort.Strings(out)
	return out
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
