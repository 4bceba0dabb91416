package doctor

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// workflowFile is what doctor reads of a GitHub Actions workflow file: its
// triggers, its permissions and the steps of its jobs.
type workflowFile struct {
	Name string
	// On maps each event the workflow runs on to its filters.
	On          map[string]trigger
	Permissions permissions
	Jobs        []job
}

// trigger is one event of `on:` with the filters doctor cares about.
type trigger struct {
	// Types is the activity types listed, nil when `types` is absent (the
	// event's default types apply).
	Types []string
	// Branches and BranchesIgnore are the branch filters (of the base
	// branch, for pull requests).
	Branches, BranchesIgnore []string
	// PathFiltered reports paths or paths-ignore: a pull request outside
	// them never runs the workflow.
	PathFiltered bool
}

// job is one job of a workflow.
type job struct {
	ID string
	// Name is the job's name: key, the name of the check run GitHub posts
	// for the job ("" when unset: the check run is named after ID).
	Name        string
	Permissions permissions
	// Uses is set for a job that calls a reusable workflow.
	Uses  string
	Steps []step
}

// step is one step of a job.
type step struct {
	Uses string
	With map[string]string
	// Line is the 1-based line of the step in the file.
	Line int
}

// permissions is a `permissions:` block of a workflow or job.
type permissions struct {
	// Set reports that the block is present.
	Set bool
	// All is "read" or "write" for read-all / write-all.
	All string
	// Scopes maps a scope (contents, checks, ...) to read, write or none.
	Scopes map[string]string
}

// Access levels of a permission scope, weakest first.
const (
	accessNone  = "none"
	accessRead  = "read"
	accessWrite = "write"
)

// Level is the access the block grants to scope. Scopes a mapping does not
// name get none, as on GitHub (metadata is always readable).
func (p permissions) Level(scope string) string {
	switch {
	case p.All != "":
		return p.All
	case scope == "metadata":
		return accessRead
	}
	if l, ok := p.Scopes[scope]; ok {
		return l
	}
	return accessNone
}

// defaultTokenPermissions is what a job without any permissions block
// gets from the repository's setting ("read" or "write"), per GitHub's
// table for GITHUB_TOKEN: the restricted default reads contents and
// packages only.
func defaultTokenPermissions(setting string) permissions {
	if setting == accessWrite {
		return permissions{Set: true, All: accessWrite}
	}
	return permissions{Set: true, Scopes: map[string]string{"contents": accessRead, "packages": accessRead, "metadata": accessRead}}
}

func accessRank(level string) int {
	switch level {
	case accessWrite:
		return 2
	case accessRead:
		return 1
	}
	return 0
}

// parseWorkflow reads a workflow file. It is lenient where GitHub is (an
// event given as a string, a list or a map; types as a string or a list)
// and fails only when the file is not YAML or not a mapping.
func parseWorkflow(b []byte) (*workflowFile, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("not valid YAML: %w", err)
	}
	if len(doc.Content) == 0 {
		return nil, errors.New("the file is empty")
	}
	root := deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("the file is not a YAML mapping")
	}
	w := &workflowFile{On: map[string]trigger{}}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i].Value, deref(root.Content[i+1])
		switch key {
		case "name":
			w.Name = val.Value
		case "on", "true": // "true": a YAML 1.1 reader's spelling of on
			w.On = parseOn(val)
		case "permissions":
			w.Permissions = parsePermissions(val)
		case "jobs":
			w.Jobs = parseJobs(val)
		}
	}
	return w, nil
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil {
		return &yaml.Node{}
	}
	return n
}

func parseOn(n *yaml.Node) map[string]trigger {
	out := map[string]trigger{}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Value != "" {
			out[n.Value] = trigger{}
		}
	case yaml.SequenceNode:
		for _, e := range n.Content {
			if e = deref(e); e.Kind == yaml.ScalarNode {
				out[e.Value] = trigger{}
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			out[n.Content[i].Value] = parseTrigger(deref(n.Content[i+1]))
		}
	}
	return out
}

func parseTrigger(n *yaml.Node) trigger {
	var t trigger
	if n.Kind != yaml.MappingNode {
		return t
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		val := deref(n.Content[i+1])
		switch n.Content[i].Value {
		case "types":
			t.Types = strings1(val)
			if t.Types == nil {
				t.Types = []string{}
			}
		case "branches":
			t.Branches = strings1(val)
		case "branches-ignore":
			t.BranchesIgnore = strings1(val)
		case "paths", "paths-ignore":
			t.PathFiltered = true
		}
	}
	return t
}

// strings1 reads a string or a list of strings.
func strings1(n *yaml.Node) []string {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil
		}
		return []string{n.Value}
	case yaml.SequenceNode:
		var out []string
		for _, e := range n.Content {
			if e = deref(e); e.Kind == yaml.ScalarNode {
				out = append(out, e.Value)
			}
		}
		return out
	}
	return nil
}

func parsePermissions(n *yaml.Node) permissions {
	p := permissions{Set: true}
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.Value {
		case "read-all":
			p.All = accessRead
		case "write-all":
			p.All = accessWrite
		default:
			p.Scopes = map[string]string{}
		}
	case yaml.MappingNode:
		p.Scopes = map[string]string{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			p.Scopes[n.Content[i].Value] = deref(n.Content[i+1]).Value
		}
	default:
		p.Scopes = map[string]string{}
	}
	return p
}

func parseJobs(n *yaml.Node) []job {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	var out []job
	for i := 0; i+1 < len(n.Content); i += 2 {
		j := job{ID: n.Content[i].Value}
		body := deref(n.Content[i+1])
		if body.Kind != yaml.MappingNode {
			out = append(out, j)
			continue
		}
		for k := 0; k+1 < len(body.Content); k += 2 {
			val := deref(body.Content[k+1])
			switch body.Content[k].Value {
			case "name":
				j.Name = val.Value
			case "permissions":
				j.Permissions = parsePermissions(val)
			case "uses":
				j.Uses = val.Value
			case "steps":
				if val.Kind == yaml.SequenceNode {
					for _, s := range val.Content {
						j.Steps = append(j.Steps, parseStep(deref(s)))
					}
				}
			}
		}
		out = append(out, j)
	}
	return out
}

func parseStep(n *yaml.Node) step {
	s := step{Line: n.Line}
	if n.Kind != yaml.MappingNode {
		return s
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		val := deref(n.Content[i+1])
		switch n.Content[i].Value {
		case "uses":
			s.Uses = strings.TrimSpace(val.Value)
		case "with":
			if val.Kind == yaml.MappingNode {
				s.With = map[string]string{}
				for k := 0; k+1 < len(val.Content); k += 2 {
					s.With[val.Content[k].Value] = deref(val.Content[k+1]).Value
				}
			}
		}
	}
	return s
}

// actionRepository is where this action lives on GitHub.
const actionRepository = "pact-action/pact-action"

var (
	actionRef = regexp.MustCompile(`(?i)^pact-action/pact-action@\S+$`)
	actionImg = regexp.MustCompile(`(?i)^docker://ghcr\.io/pact-action/pact-action([:@]\S*)?$`)
)

// usesThisAction tells whether a step's `uses:` runs pact-action: the
// published action at any ref, its image, or `./` in pact-action's own
// repository (self).
func usesThisAction(uses string, self bool) bool {
	switch {
	case actionRef.MatchString(uses), actionImg.MatchString(uses):
		return true
	case self:
		return uses == "./" || uses == "."
	}
	return false
}

// Default activity types of the events doctor judges, from GitHub's
// "Events that trigger workflows".
var defaultTypes = map[string][]string{
	"pull_request":                {"opened", "synchronize", "reopened"},
	"pull_request_target":         {"opened", "synchronize", "reopened"},
	"pull_request_review":         {"submitted", "edited", "dismissed"},
	"issue_comment":               {"created", "edited", "deleted"},
	"pull_request_review_comment": {"created", "edited", "deleted"},
}

// EffectiveTypes is the activity types the trigger of event runs on.
func (t trigger) EffectiveTypes(event string) []string {
	if t.Types != nil {
		return t.Types
	}
	return defaultTypes[event]
}

// RunsFor reports whether the trigger's branch filters let a pull request
// (or merge group) into branch run the workflow.
func (t trigger) RunsFor(branch string) bool {
	if t.Branches != nil {
		return filterMatches(t.Branches, branch)
	}
	if t.BranchesIgnore != nil {
		return !filterMatches(t.BranchesIgnore, branch)
	}
	return true
}

// filterMatches applies GitHub's branch filter patterns in order: a later
// "!pattern" excludes what an earlier one included.
func filterMatches(patterns []string, branch string) bool {
	in := false
	for _, p := range patterns {
		neg := strings.HasPrefix(p, "!")
		if globMatch(strings.TrimPrefix(p, "!"), branch) {
			in = !neg
		}
	}
	return in
}

// globMatch implements GitHub's filter pattern syntax: * matches anything
// but '/', ** anything, ? and + make the preceding character optional or
// repeatable, [...] is a character class; other characters match
// themselves.
func globMatch(pattern, name string) bool {
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '*' && i+1 < len(pattern) && pattern[i+1] == '*':
			re.WriteString(".*")
			i++
		case c == '*':
			re.WriteString("[^/]*")
		case (c == '?' || c == '+') && i > 0:
			re.WriteByte(c)
		case c == '[':
			if end := strings.IndexByte(pattern[i:], ']'); end > 1 {
				re.WriteString(pattern[i : i+end+1])
				i += end
				continue
			}
			re.WriteString(regexp.QuoteMeta(string(c)))
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString("$")
	ok, err := regexp.MatchString(re.String(), name)
	return ok && err == nil
}
