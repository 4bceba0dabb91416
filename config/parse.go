package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/schemas"
)

// Problem is one defect of the file, at a 1-based line when one is known.
type Problem struct {
	Line    int
	Message string
}

// Error is a .github/pact.yml that cannot be used. It lists every problem
// found, in file order, and wraps the YAML or schema error behind them.
type Error struct {
	Problems []Problem
	Err      error
}

// Error reports the first problem and how many more there are.
func (e *Error) Error() string {
	if len(e.Problems) == 0 {
		return pactfile.ConfigPath + " cannot be used: " + e.Err.Error()
	}
	p := e.Problems[0]
	msg := pactfile.ConfigPath
	if p.Line > 0 {
		msg += fmt.Sprintf(" line %d", p.Line)
	}
	msg += ": " + p.Message
	if n := len(e.Problems) - 1; n > 0 {
		msg += " (and " + prose.Plural(n, "more problem") + ")"
	}
	return msg
}

// errSchema is what an Error wraps when the file is YAML the schema refuses.
var errSchema = errors.New("the file does not follow schemas/pact-config.schema.json")

// Unwrap returns the underlying YAML error, or errSchema.
func (e *Error) Unwrap() error { return e.Err }

// Parse reads .github/pact.yml. An empty file, or one holding only comments,
// is Default(). Anything the schema refuses is an *Error naming the key or
// value at fault and what to write instead.
func Parse(b []byte) (*Config, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&root); errors.Is(err, io.EOF) {
		return Default(), nil
	} else if err != nil {
		return nil, yamlError(err)
	}
	if isEmptyDocument(&root) {
		// "---" alone: a document marker with nothing in it.
		var extra yaml.Node
		if errors.Is(dec.Decode(&extra), io.EOF) {
			return Default(), nil
		}
	}
	v, err := schemas.DecodeYAML(b)
	if err != nil {
		return nil, yamlError(err)
	}
	if vs := validate(v, func(loc []string, obj map[string]any) []string { return keyOrder(&root, loc, obj) }); len(vs) > 0 {
		return nil, schemaError(&root, vs)
	}
	return build(&root)
}

// keyOrder lists the keys of obj, the object at loc, in the order the file
// writes them (those it does not, from a merge key, after them, sorted).
func keyOrder(root *yaml.Node, loc []string, obj map[string]any) []string {
	out := make([]string, 0, len(obj))
	seen := make(map[string]bool, len(obj))
	if n := mappingAt(root, loc); n != nil {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := keyString(n.Content[i])
			if _, ok := obj[k]; ok && !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	rest := make([]string, 0, len(obj)-len(out))
	for k := range obj {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

func isEmptyDocument(n *yaml.Node) bool {
	if n.Kind == 0 {
		return true
	}
	if n.Kind != yaml.DocumentNode {
		return false
	}
	if len(n.Content) == 0 {
		return true
	}
	c := n.Content[0]
	return len(n.Content) == 1 && c.Kind == yaml.ScalarNode && c.ShortTag() == "!!null" && c.Value == "" && c.Style == 0
}

var yamlLine = regexp.MustCompile(`^line (\d+): `)

// yamlError explains a file that is not usable YAML.
func yamlError(err error) error {
	text := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		text = te.Errors[0]
		if n := len(te.Errors) - 1; n > 0 {
			text += fmt.Sprintf(", and %d more", n)
		}
	}
	text = strings.TrimPrefix(text, "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatch(text); m != nil {
		line, _ = strconv.Atoi(m[1])
		text = text[len(m[0]):]
	}
	return &Error{
		Problems: []Problem{{Line: line, Message: fmt.Sprintf("the file is not usable YAML (%s); fix it so it holds a single YAML mapping", text)}},
		Err:      fmt.Errorf("parse %s: %w", pactfile.ConfigPath, err),
	}
}

// schemaError turns the schema's leaf failures into problems located in
// the file.
func schemaError(root *yaml.Node, vs []violation) error {
	var probs []Problem
	seen := map[string]bool{}
	for _, v := range vs {
		p := describe(root, v)
		if key := fmt.Sprint(p.Line, p.Message); !seen[key] {
			seen[key] = true
			probs = append(probs, p)
		}
	}
	sort.SliceStable(probs, func(i, j int) bool {
		a, b := probs[i].Line, probs[j].Line
		if a == 0 || b == 0 {
			return b == 0 && a != 0
		}
		return a < b
	})
	return &Error{Problems: probs, Err: fmt.Errorf("validate %s: %w", pactfile.ConfigPath, errSchema)}
}

// topKeys names the keys the file may hold at the top level.
const topKeys = "seats, provenance, unmapped-branches, review-requests and review-teams"

// describe explains one leaf failure in the file's terms.
func describe(root *yaml.Node, k violation) Problem {
	loc := k.loc
	node := locate(root, loc)
	p := Problem{Line: lineOf(node)}
	where := strings.Join(loc, ".")
	switch k.kind {
	case violationAdditionalProperties:
		allowed, scope := topKeys, "at the top level"
		if len(loc) == 1 && loc[0] == "provenance" {
			allowed, scope = "mode and stale", "under provenance"
		}
		// The validator reports the keys in map order; name them in the
		// file's order so the message (and its line) is deterministic.
		props := append([]string(nil), k.props...)
		sort.SliceStable(props, func(i, j int) bool {
			li, lj := keyLine(node, props[i]), keyLine(node, props[j])
			if li != lj {
				return li < lj
			}
			return props[i] < props[j]
		})
		names := make([]string, len(props))
		for i, name := range props {
			names[i] = strconv.Quote(name)
		}
		if kn := keyNode(node, props[0]); kn != nil {
			p.Line = kn.Line
		}
		noun, it := "key", "it"
		if len(names) > 1 {
			noun, it = "keys", "them"
		}
		p.Message = fmt.Sprintf("unknown %s %s %s; the allowed keys there are %s, so remove or rename %s", noun, strings.Join(names, ", "), scope, allowed, it)
	case violationPropertyNames:
		if kn := keyNode(node, k.property); kn != nil {
			p.Line = kn.Line
		}
		switch where {
		case "seats":
			p.Message = fmt.Sprintf("seat %q is not a seat id; use the id the seat has in the init roster (lower-case letters, digits and hyphens)", k.property)
		case "review-teams":
			p.Message = fmt.Sprintf("review-teams names %q, which is not a seat id; use the id the seat has in the init roster (lower-case letters, digits and hyphens)", k.property)
		default:
			p.Message = fmt.Sprintf("key %q under %s is not allowed; rename it", k.property, where)
		}
	case violationEnum:
		switch where {
		case "provenance.mode":
			p.Message = fmt.Sprintf("provenance.mode is %s; set it to off, warn or require", shown(node, k.got))
		case "provenance.stale":
			p.Message = fmt.Sprintf("provenance.stale is %s; set it to sticky, tree, push or change", shown(node, k.got))
		case "unmapped-branches":
			p.Message = fmt.Sprintf("unmapped-branches is %s; set it to allow, warn or block", shown(node, k.got))
		case "review-requests":
			p.Message = fmt.Sprintf("review-requests is %s; set it to on or off", shown(node, k.got))
		default:
			p.Message = fmt.Sprintf("%s is %s; use one of %v", where, shown(node, k.got), k.want)
		}
	case violationPattern:
		switch {
		case len(loc) == 3 && loc[0] == "seats":
			p.Message = fmt.Sprintf("seats.%s lists %q, which is not a GitHub login; write the account name (letters, digits and hyphens, at most 39 characters, optionally ending in [bot])", loc[1], k.got)
		case len(loc) == 3 && loc[0] == "review-teams":
			p.Message = fmt.Sprintf("review-teams.%s lists %q, which is not a team slug; write the team's slug as its address shows it (github.com/orgs/ORG/teams/SLUG), without the organization", loc[1], k.got)
		default:
			p.Message = fmt.Sprintf("%s is %q, which does not match %s; fix the value", where, k.got, k.want[0])
		}
	case violationType:
		typ := k.got.(string)
		got := article(typ)
		if node != nil && node.Kind == yaml.ScalarNode && typ != "null" {
			v := node.Value
			if typ == "string" {
				v = strconv.Quote(v)
			}
			got = fmt.Sprintf("the %s %s", typ, v)
		}
		switch {
		case len(loc) == 0:
			p.Message = fmt.Sprintf("the file holds %s, not a mapping; write a mapping with the keys %s", got, topKeys)
		case where == "seats":
			p.Message = fmt.Sprintf("seats is %s; write it as a mapping from seat id to a list of GitHub logins", got)
		case where == "provenance":
			p.Message = fmt.Sprintf("provenance is %s; write it as a mapping with the keys mode and stale", got)
		case len(loc) == 2 && loc[0] == "seats":
			p.Message = fmt.Sprintf("seats.%s is %s; write it as a list of GitHub logins, e.g. [octocat]", loc[1], got)
		case len(loc) == 3 && loc[0] == "seats":
			p.Message = fmt.Sprintf("seats.%s lists %s, not a login; quote it if it is one (\"1234\")", loc[1], got)
		case where == "review-teams":
			p.Message = fmt.Sprintf("review-teams is %s; write it as a mapping from seat id to a list of team slugs", got)
		case len(loc) == 2 && loc[0] == "review-teams":
			p.Message = fmt.Sprintf("review-teams.%s is %s; write it as a list of team slugs, e.g. [reviewers]", loc[1], got)
		case len(loc) == 3 && loc[0] == "review-teams":
			p.Message = fmt.Sprintf("review-teams.%s lists %s, not a team slug; quote it if it is one", loc[1], got)
		default:
			p.Message = fmt.Sprintf("%s is %s but must be %s; fix its type", where, got, strings.Join(k.want, " or "))
		}
	}
	return p
}

func article(s string) string {
	switch {
	case s == "null":
		return "null"
	case s != "" && strings.IndexByte("aeiou", s[0]) >= 0:
		return "an " + s
	}
	return "a " + s
}

// shown prints a value as the file wrote it when it can.
func shown(node *yaml.Node, v any) string {
	if node != nil && node.Kind == yaml.ScalarNode {
		return strconv.Quote(node.Value)
	}
	return fmt.Sprintf("%v", v)
}

// locate follows a JSON instance location through the YAML tree; it returns
// the deepest node it reaches.
func locate(root *yaml.Node, loc []string) *yaml.Node {
	n := deref(root)
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = deref(n.Content[0])
	}
	for _, seg := range loc {
		switch {
		case n == nil:
			return nil
		case n.Kind == yaml.MappingNode:
			var next *yaml.Node
			for i := len(n.Content) - 2; i >= 0; i -= 2 {
				if keyString(n.Content[i]) == seg {
					next = deref(n.Content[i+1])
					break
				}
			}
			if next == nil {
				return n
			}
			n = next
		case n.Kind == yaml.SequenceNode:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(n.Content) {
				return n
			}
			n = deref(n.Content[i])
		default:
			return n
		}
	}
	return n
}

// mappingAt is the mapping node at loc, a path of mapping keys (nil: there
// is none).
func mappingAt(root *yaml.Node, loc []string) *yaml.Node {
	n := deref(root)
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = deref(n.Content[0])
	}
	for _, seg := range loc {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := len(n.Content) - 2; i >= 0; i -= 2 {
			if keyString(n.Content[i]) == seg {
				next = deref(n.Content[i+1])
				break
			}
		}
		n = next
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	return n
}

// keyNode finds the key node named key in a mapping node.
func keyNode(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if keyString(m.Content[i]) == key {
			return m.Content[i]
		}
	}
	return nil
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func lineOf(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	return n.Line
}

// keyString is the JSON object key a YAML mapping key becomes, by the rules
// of schemas.ValidateYAML: strings and timestamps as written, null as
// "null", booleans and numbers in their canonical form.
func keyString(k *yaml.Node) string {
	k = deref(k)
	if k == nil || k.Kind != yaml.ScalarNode {
		return ""
	}
	switch k.ShortTag() {
	case "!!null":
		return "null"
	case "!!bool":
		var b bool
		if k.Decode(&b) == nil {
			return strconv.FormatBool(b)
		}
	case "!!int":
		var i int64
		if k.Decode(&i) == nil {
			return strconv.FormatInt(i, 10)
		}
		var u uint64
		if k.Decode(&u) == nil {
			return strconv.FormatUint(u, 10)
		}
	case "!!float":
		var f float64
		if k.Decode(&f) == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	return k.Value
}

// build reads a validated document into a Config.
func build(root *yaml.Node) (*Config, error) {
	c := Default()
	top := locate(root, nil)
	if seats := mappingValue(top, "seats"); seats != nil {
		for i := 0; i+1 < len(seats.Content); i += 2 {
			seat := keyString(seats.Content[i])
			logins := []string{}
			for _, item := range deref(seats.Content[i+1]).Content {
				logins = append(logins, deref(item).Value)
			}
			c.Seats[seat] = logins
		}
	}
	if prov := mappingValue(top, "provenance"); prov != nil {
		if m := mappingValue(prov, "mode"); m != nil {
			c.Provenance.Mode = Mode(m.Value)
		}
		if s := mappingValue(prov, "stale"); s != nil {
			c.Provenance.Stale = Stale(s.Value)
		}
	}
	if u := mappingValue(top, "unmapped-branches"); u != nil {
		c.UnmappedBranches = Unmapped(u.Value)
	}
	if r := mappingValue(top, "review-requests"); r != nil {
		c.ReviewRequests = Requests(r.Value)
	}
	if teams := mappingValue(top, "review-teams"); teams != nil {
		c.ReviewTeams = map[string][]string{}
		for i := 0; i+1 < len(teams.Content); i += 2 {
			var slugs []string
			for _, item := range deref(teams.Content[i+1]).Content {
				slugs = append(slugs, deref(item).Value)
			}
			c.ReviewTeams[keyString(teams.Content[i])] = slugs
		}
	}
	// The schema allows what build reads; this guards the two against
	// drifting apart (for instance YAML merge keys, which build does not
	// follow).
	for seat, slugs := range c.ReviewTeams {
		if !projection.IsSlug(seat) || slices.Contains(slugs, "") {
			return nil, &Error{Problems: []Problem{{Message: fmt.Sprintf("review-teams entry %q could not be read; write the review-teams mapping without anchors or merge keys", seat)}},
				Err: errors.New("config: review-teams entry not read as validated")}
		}
	}
	for seat, logins := range c.Seats {
		if !projection.IsSlug(seat) {
			return nil, &Error{Problems: []Problem{{Message: fmt.Sprintf("seat %q could not be read; write the seats mapping without anchors or merge keys", seat)}},
				Err: errors.New("config: seat key not read as validated")}
		}
		for _, l := range logins {
			if l == "" {
				return nil, &Error{Problems: []Problem{{Message: fmt.Sprintf("a login of seat %q could not be read; write the list without anchors or merge keys", seat)}},
					Err: errors.New("config: login not read as validated")}
			}
		}
	}
	return c, nil
}

// mappingValue returns the value node of key in mapping m, nil when absent.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if kn := keyNode(m, key); kn != nil {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i] == kn {
				return deref(m.Content[i+1])
			}
		}
	}
	return nil
}

// keyLine is the line of a mapping key, or 0 when it cannot be found.
func keyLine(node *yaml.Node, key string) int {
	if kn := keyNode(node, key); kn != nil {
		return kn.Line
	}
	return 0
}
