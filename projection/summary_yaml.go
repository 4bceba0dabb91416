package projection

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// The reading of a STATE.yml of any shape, as YAML: what ParseStateSummary
// falls back on when the file is not our own render (internal/ownstate). A
// pull request brings its own STATE.yml, so the node budget bounds what
// aliases may cost.

// maxYAMLStateBytes is the largest STATE.yml read as YAML when it is not
// in pactify's own format (docs/check.md): a YAML reading holds about a
// hundred bytes per byte read, so a larger file is not read and is
// drift.state saying so. Our own render, of any size, takes the line
// reader instead.
const maxYAMLStateBytes = 2 << 20

// parseYAMLSummary is ParseStateSummary for a STATE.yml of any shape.
func parseYAMLSummary(b []byte) (Summary, error) {
	if len(b) > maxYAMLStateBytes {
		return Summary{}, fmt.Errorf("STATE.yml is not in the format pactify writes, and at %d bytes it is larger than the %d MiB read as YAML of another format; rewrite it with any pactify verb that writes (it renders STATE.yml from the log)", len(b), maxYAMLStateBytes>>20)
	}
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
