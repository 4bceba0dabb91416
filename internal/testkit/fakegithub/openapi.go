package fakegithub

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// specRelPath is the OpenAPI subset, relative to the module root.
const specRelPath = "testdata/github/openapi/rest-subset.json"

// schemaBase names the in-memory schema resources.
const schemaBase = "https://fakegithub.invalid/openapi/"

// operation is one method+path of the OpenAPI subset, ready to validate
// requests and responses.
type operation struct {
	id       string
	method   string
	template string // e.g. /repos/{owner}/{repo}/contents/{path}
	segments []pathSegment
	params   map[string]*paramSpec // by "in:name"

	// request is the compiled JSON request body schema (nil: no body).
	request         *jsonschema.Schema
	requestRequired bool
	// responses maps a documented status to its application/json schema;
	// a nil schema means the status is documented without JSON content.
	responses map[int]*jsonschema.Schema
}

type pathSegment struct {
	literal string
	param   string // set for {param}
	multi   bool   // x-multi-segment: matches the rest of the path
}

type paramSpec struct {
	name     string
	in       string
	required bool
	typ      string
	enum     []string
}

// apiSpec is the loaded, compiled OpenAPI subset.
type apiSpec struct {
	ops        []*operation
	basicError *jsonschema.Schema
}

var (
	specOnce   sync.Once
	loadedSpec *apiSpec
	specErr    error
)

// loadSpec loads and compiles the OpenAPI subset once per process.
func loadSpec() (*apiSpec, error) {
	specOnce.Do(func() {
		p, err := findModuleFile(specRelPath)
		if err != nil {
			specErr = err
			return
		}
		data, err := os.ReadFile(p)
		if err != nil {
			specErr = fmt.Errorf("read openapi subset: %w", err)
			return
		}
		loadedSpec, specErr = compileSpec(data)
		if specErr != nil {
			specErr = fmt.Errorf("openapi subset %s: %w", p, specErr)
		}
	})
	return loadedSpec, specErr
}

// findModuleFile locates a file of the module (rel is relative to its root)
// from this source file, then from the working directory, by walking up to
// the module root (the directory with go.mod).
func findModuleFile(rel string) (string, error) {
	var starts []string
	if _, file, _, ok := runtime.Caller(0); ok {
		starts = append(starts, filepath.Dir(file))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, dir := range starts {
		for d := dir; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				p := filepath.Join(d, filepath.FromSlash(rel))
				if _, err := os.Stat(p); err == nil {
					return p, nil
				}
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", fmt.Errorf("cannot find %s above %v", rel, starts)
}

func compileSpec(data []byte) (*apiSpec, error) {
	docAny, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	doc, _ := docAny.(map[string]any)
	comps, _ := doc["components"].(map[string]any)
	if comps == nil {
		return nil, errors.New("no components")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()

	schemas, _ := comps["schemas"].(map[string]any)
	conv := map[string]any{}
	for name, s := range schemas {
		conv[name] = convertSchema(s)
	}
	componentsURL := schemaBase + "components.json"
	if err := c.AddResource(componentsURL, map[string]any{"$defs": conv}); err != nil {
		return nil, fmt.Errorf("add components: %w", err)
	}

	n := 0
	compile := func(s any) (*jsonschema.Schema, error) {
		n++
		u := fmt.Sprintf("%sinline/%d.json", schemaBase, n)
		if err := c.AddResource(u, convertSchema(s)); err != nil {
			return nil, err
		}
		return c.Compile(u)
	}

	spec := &apiSpec{}
	if spec.basicError, err = c.Compile(componentsURL + "#/$defs/basic-error"); err != nil {
		return nil, fmt.Errorf("compile basic-error: %w", err)
	}
	compParams, _ := comps["parameters"].(map[string]any)
	compResponses, _ := comps["responses"].(map[string]any)
	compBodies, _ := comps["requestBodies"].(map[string]any)

	paths, _ := doc["paths"].(map[string]any)
	for _, tmpl := range sortedKeys(paths) {
		item, _ := paths[tmpl].(map[string]any)
		var shared []any
		if ps, ok := item["parameters"].([]any); ok {
			shared = ps
		}
		for _, method := range sortedKeys(item) {
			opObj, ok := item[method].(map[string]any)
			if !ok || method == "parameters" {
				continue
			}
			op := &operation{
				id:        str(opObj["operationId"]),
				method:    strings.ToUpper(method),
				template:  tmpl,
				params:    map[string]*paramSpec{},
				responses: map[int]*jsonschema.Schema{},
			}
			params, _ := opObj["parameters"].([]any)
			for _, p := range append(append([]any(nil), shared...), params...) {
				pm := resolveRef(p, "#/components/parameters/", compParams)
				ps := &paramSpec{name: str(pm["name"]), in: str(pm["in"])}
				ps.required, _ = pm["required"].(bool)
				if sch, ok := pm["schema"].(map[string]any); ok {
					ps.typ = str(sch["type"])
					if en, ok := sch["enum"].([]any); ok {
						for _, e := range en {
							ps.enum = append(ps.enum, fmt.Sprint(e))
						}
					}
				}
				op.params[ps.in+":"+ps.name] = ps
				if ps.in == "path" {
					if multi, _ := pm["x-multi-segment"].(bool); multi {
						ps.typ = "multi:" + ps.typ
					}
				}
			}
			op.segments = parseTemplate(tmpl, op.params)
			if rb, ok := opObj["requestBody"]; ok {
				body := resolveRef(rb, "#/components/requestBodies/", compBodies)
				op.requestRequired, _ = body["required"].(bool)
				if sch := jsonContentSchema(body); sch != nil {
					if op.request, err = compile(sch); err != nil {
						return nil, fmt.Errorf("%s request body: %w", op.id, err)
					}
				}
			}
			responses, _ := opObj["responses"].(map[string]any)
			for code, r := range responses {
				status, err := strconv.Atoi(code)
				if err != nil {
					continue // "default" is not used by the subset
				}
				resp := resolveRef(r, "#/components/responses/", compResponses)
				var compiled *jsonschema.Schema
				if sch := jsonContentSchema(resp); sch != nil {
					if compiled, err = compile(sch); err != nil {
						return nil, fmt.Errorf("%s response %d: %w", op.id, status, err)
					}
				}
				op.responses[status] = compiled
			}
			spec.ops = append(spec.ops, op)
		}
	}
	return spec, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// resolveRef follows a {"$ref": prefix+name} into comps.
func resolveRef(v any, prefix string, comps map[string]any) map[string]any {
	m, _ := v.(map[string]any)
	for i := 0; i < 8 && m != nil; i++ {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		m, _ = comps[strings.TrimPrefix(ref, prefix)].(map[string]any)
	}
	return m
}

func jsonContentSchema(obj map[string]any) any {
	content, _ := obj["content"].(map[string]any)
	mt, _ := content["application/json"].(map[string]any)
	if mt == nil {
		return nil
	}
	return mt["schema"]
}

func parseTemplate(tmpl string, params map[string]*paramSpec) []pathSegment {
	var segs []pathSegment
	for _, part := range strings.Split(strings.Trim(tmpl, "/"), "/") {
		if strings.HasPrefix(part, "{") && strings.HasSuffix(part, "}") {
			name := part[1 : len(part)-1]
			ps := params["path:"+name]
			multi := ps != nil && strings.HasPrefix(ps.typ, "multi:")
			if multi {
				ps.typ = strings.TrimPrefix(ps.typ, "multi:")
			}
			segs = append(segs, pathSegment{param: name, multi: multi})
			continue
		}
		segs = append(segs, pathSegment{literal: part})
	}
	return segs
}

// convertSchema turns an OpenAPI 3.0 schema object into JSON Schema 2020-12:
// nullable becomes a "null" type (or an anyOf with null), $refs to
// components point at the shared components resource, oneOf is relaxed to
// anyOf (see below), and OpenAPI-only keywords (discriminator, example,
// xml, externalDocs) are dropped.
func convertSchema(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, val := range m {
		switch k {
		case "nullable", "discriminator", "example", "examples", "xml", "externalDocs":
		case "$ref":
			ref := str(val)
			if name, ok := strings.CutPrefix(ref, "#/components/schemas/"); ok {
				ref = schemaBase + "components.json#/$defs/" + name
			}
			out[k] = ref
		case "properties", "patternProperties":
			props, _ := val.(map[string]any)
			conv := map[string]any{}
			for name, s := range props {
				conv[name] = convertSchema(s)
			}
			out[k] = conv
		case "items", "additionalProperties", "not":
			out[k] = convertSchema(val)
		case "allOf", "anyOf", "oneOf":
			list, _ := val.([]any)
			conv := make([]any, len(list))
			for i, s := range list {
				conv[i] = convertSchema(s)
			}
			if k == "oneOf" {
				// GitHub's description has oneOf alternatives that
				// overlap (e.g. the 409 of create-or-update-file-contents:
				// basic-error | repository-rule-violation-error, which
				// every error body matches both of), so exclusivity is
				// not checked: at least one alternative must match.
				k = "anyOf"
			}
			out[k] = conv
		default:
			out[k] = val
		}
	}
	if nullable, _ := m["nullable"].(bool); nullable {
		if t, ok := out["type"].(string); ok {
			out["type"] = []any{t, "null"}
			if en, ok := out["enum"].([]any); ok {
				out["enum"] = append(append([]any(nil), en...), nil)
			}
		} else {
			return map[string]any{"anyOf": []any{map[string]any{"type": "null"}, out}}
		}
	}
	return out
}

// literals counts the template's fixed segments: among templates that
// match a path, the one with more of them is the more specific.
func (op *operation) literals() int {
	n := 0
	for _, seg := range op.segments {
		if seg.param == "" {
			n++
		}
	}
	return n
}

// match returns the path parameters if p (escaped, without the API
// prefix) matches the operation's template.
func (op *operation) match(method string, rawSegs []string) (map[string]string, bool) {
	if method != op.method {
		return nil, false
	}
	return matchSegments(op.segments, rawSegs)
}

func matchSegments(segs []pathSegment, raw []string) (map[string]string, bool) {
	params := map[string]string{}
	i := 0
	for si, seg := range segs {
		if seg.multi {
			rest := len(segs) - si - 1
			n := len(raw) - i - rest
			if n < 1 {
				return nil, false
			}
			parts := make([]string, n)
			for j := 0; j < n; j++ {
				u, err := url.PathUnescape(raw[i+j])
				if err != nil {
					return nil, false
				}
				parts[j] = u
			}
			params[seg.param] = strings.Join(parts, "/")
			i += n
			continue
		}
		if i >= len(raw) {
			return nil, false
		}
		u, err := url.PathUnescape(raw[i])
		if err != nil {
			return nil, false
		}
		if seg.param != "" {
			if u == "" {
				return nil, false
			}
			params[seg.param] = u
		} else if u != seg.literal {
			return nil, false
		}
		i++
	}
	if i != len(raw) {
		return nil, false
	}
	return params, true
}

// checkParams validates path and query parameters against the operation.
func (op *operation) checkParams(pathParams map[string]string, query url.Values) []string {
	var problems []string
	for _, ps := range op.params {
		var val string
		var present bool
		switch ps.in {
		case "path":
			val, present = pathParams[ps.name]
		case "query":
			present = query.Has(ps.name)
			val = query.Get(ps.name)
		default:
			continue
		}
		if !present {
			if ps.required {
				problems = append(problems, fmt.Sprintf("missing required %s parameter %q", ps.in, ps.name))
			}
			continue
		}
		if p := checkParamValue(ps, val); p != "" {
			problems = append(problems, p)
		}
	}
	for name := range query {
		if op.params["query:"+name] == nil {
			problems = append(problems, fmt.Sprintf("query parameter %q is not defined by %s", name, op.id))
		}
	}
	return problems
}

func checkParamValue(ps *paramSpec, val string) string {
	switch ps.typ {
	case "integer":
		if _, err := strconv.ParseInt(val, 10, 64); err != nil {
			return fmt.Sprintf("%s parameter %q: %q is not an integer", ps.in, ps.name, val)
		}
	case "boolean":
		if val != "true" && val != "false" {
			return fmt.Sprintf("%s parameter %q: %q is not a boolean", ps.in, ps.name, val)
		}
	}
	if len(ps.enum) > 0 {
		for _, e := range ps.enum {
			if e == val {
				return ""
			}
		}
		return fmt.Sprintf("%s parameter %q: %q is not one of %v", ps.in, ps.name, val, ps.enum)
	}
	return ""
}

// validateJSON validates a JSON document against a compiled schema.
func validateJSON(sch *jsonschema.Schema, data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("invalid json: %w", err)
	}
	return sch.Validate(inst)
}
