// Package schemas holds the machine-readable contract of Pact v1 as JSON Schema
// 2020-12 documents, embedded in the binary, and compiled validators for them.
//
// The documents:
//
//   - event.schema.json: one line of .pact/log.jsonl (docs/semantics.md, pact v1 §2): the envelope,
//     the scope rules for task_id and feature, and the required payload fields
//     of the seven event types.
//   - seat.schema.json: one seat of the init roster (docs/semantics.md, pact v1 §6.2). Its $defs/slug
//     is the seat slug pattern shared by the other documents.
//   - task.schema.json: the YAML frontmatter of .pact/tasks/<id>.md (docs/semantics.md, pact v1 §3.4).
//   - pact-config.schema.json: a repository's .github/pact.yml.
//
// Their $id values live under https://pact-action.dev/schemas/ and they refer
// to one another by relative reference, so they resolve without any network.
//
// Which finding a schema failure is: for an event, failing a keyword inside
// event.schema.json's $defs/payload-* (or inside seat.schema.json) is
// schema.payload; failing any other keyword is schema.envelope, which wins when
// both fail. Findings that have their own code are deliberately left out of the
// schemas: an empty or missing event_id (event_id.missing; event_id is optional
// in the schema but must be a string when present), role versus event_type
// (role.mismatch), roster membership and roles, seat ids of the roster
// (roster.invalid_seat_id), unsafe task ids, and protocol_version above 1
// (version.unsupported).
//
// # Known gap: integral numbers written with a fraction or exponent
//
// JSON Schema 2020-12 knows numbers only by their mathematical value, and its
// "integer" is any number with a zero fractional part: 1.0, 1.00, 1e0, 1E0 and
// 10e-1 all satisfy "type": "integer", and no standard keyword can see how a
// number was written. The validator used here follows
// that (it tests the decoded json.Number with big.Rat.IsInt). docs/semantics.md §7
// however says protocol_version must be a JSON integer and that 1.0 is
// schema.payload. So exactly one disagreement is known, and it is pinned by
// TestIntegralFractionIsInteger:
//
//	An init event whose payload.protocol_version is a JSON number token
//	containing '.', 'e' or 'E' but with an integral value of at least 1
//	(1.0, 1e0, 2.0, 1.5e1, ...) is VALID against event.schema.json, but is
//	schema.payload under docs/semantics.md §7.
//
// Hand-written checks must therefore test the token itself, as [IsJSONInteger]
// does, and an agreement test between them and this schema must expect that
// one difference. Integers written plainly (1, 2, 10) agree. The same
// value-based reading applies to every "integer" in these documents, but
// protocol_version is the only one that is asserted on events (the optional
// github.review_id and github.comment_id are documented, not asserted).
package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strconv"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// FS holds the schema documents, at the top level (e.g. "event.schema.json").
//
//go:embed *.json
var FS embed.FS

// BaseURL is the URL prefix of every schema's $id; a document's $id is
// BaseURL followed by its file name.
const BaseURL = "https://pact-action.dev/schemas/"

// The files in FS, and the $id suffix of each.
const (
	EventFile      = "event.schema.json"
	SeatFile       = "seat.schema.json"
	TaskFile       = "task.schema.json"
	PactConfigFile = "pact-config.schema.json"
)

var (
	compileOnce sync.Once
	compiled    map[string]*jsonschema.Schema
)

// compileAll compiles every embedded document once, with format assertions on
// (so "format": "date-time" is checked, not just annotated). A failure is a
// defect of the embedded files, caught by the tests, so it panics.
func compileAll() {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	entries, err := fs.ReadDir(FS, ".")
	if err != nil {
		panic(fmt.Sprintf("schemas: reading embedded files: %v", err))
	}
	for _, e := range entries {
		data, err := FS.ReadFile(e.Name())
		if err != nil {
			panic(fmt.Sprintf("schemas: reading %s: %v", e.Name(), err))
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			panic(fmt.Sprintf("schemas: parsing %s: %v", e.Name(), err))
		}
		if err := c.AddResource(BaseURL+e.Name(), doc); err != nil {
			panic(fmt.Sprintf("schemas: adding %s: %v", e.Name(), err))
		}
	}
	compiled = make(map[string]*jsonschema.Schema)
	for _, name := range []string{EventFile, SeatFile, TaskFile, PactConfigFile} {
		s, err := c.Compile(BaseURL + name)
		if err != nil {
			panic(fmt.Sprintf("schemas: compiling %s: %v", name, err))
		}
		compiled[name] = s
	}
}

func get(name string) *jsonschema.Schema {
	compileOnce.Do(compileAll)
	return compiled[name]
}

// Event returns the compiled validator for one log.jsonl event.
func Event() *jsonschema.Schema { return get(EventFile) }

// Seat returns the compiled validator for one seat object of the init roster.
func Seat() *jsonschema.Schema { return get(SeatFile) }

// Task returns the compiled validator for the frontmatter of a task file.
func Task() *jsonschema.Schema { return get(TaskFile) }

// PactConfig returns the compiled validator for .github/pact.yml.
func PactConfig() *jsonschema.Schema { return get(PactConfigFile) }

// ValidateJSON decodes one JSON value from data, keeping numbers exact
// (json.Number), and validates it against s. Trailing data after the value is
// an error. A validation failure is a *jsonschema.ValidationError; any other
// error means data is not JSON.
func ValidateJSON(s *jsonschema.Schema, data []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// ValidateYAML decodes one YAML document from data and validates it against s.
// It is meant for task frontmatter and .github/pact.yml.
//
// Values are converted to the JSON data model first: scalar mapping keys
// become strings (true, 1 and null become "true", "1" and "null"; two keys
// that become the same string are an error), integers and finite floats
// become json.Number, scalars YAML would read as timestamps stay strings
// exactly as written, and NaN or infinities are an error. Empty input (or
// only comments) decodes as null; more than one document is an error. YAML
// reads unquoted 42, true or null as a number, a boolean or null, so a schema
// expecting a string rejects them. A validation failure is a
// *jsonschema.ValidationError; any other error means data is not usable YAML.
func ValidateYAML(s *jsonschema.Schema, data []byte) error {
	v, err := decodeYAML(data)
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// decodeYAML decodes the single YAML document in data into the JSON data
// model. Empty input is null.
func decodeYAML(data []byte) (any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc, extra yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, err
		}
		return nil, errors.New("yaml: more than one document")
	}
	timestampsAsText(&doc)
	var raw any
	if err := doc.Decode(&raw); err != nil {
		return nil, err
	}
	return fromYAML(raw)
}

// timestampsAsText retags every scalar that YAML would read as a timestamp
// (2026-06-09, or anything tagged !!timestamp) as a string, so it keeps its
// text exactly as written instead of becoming a time.Time.
func timestampsAsText(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!timestamp" {
		n.Tag = "!!str"
	}
	for _, c := range n.Content {
		timestampsAsText(c)
	}
}

// fromYAML converts a value decoded by yaml.v3 into the JSON data model the
// validator accepts.
func fromYAML(v any) (any, error) {
	switch v := v.(type) {
	case nil, bool, string:
		return v, nil
	case int:
		return json.Number(strconv.FormatInt(int64(v), 10)), nil
	case int64:
		return json.Number(strconv.FormatInt(v, 10)), nil
	case uint64:
		return json.Number(strconv.FormatUint(v, 10)), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("yaml: %v is not a JSON number", v)
		}
		return json.Number(strconv.FormatFloat(v, 'g', -1, 64)), nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			c, err := fromYAML(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			c, err := fromYAML(e)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			ks, err := yamlKey(k)
			if err != nil {
				return nil, err
			}
			if _, dup := out[ks]; dup {
				return nil, fmt.Errorf("yaml: two mapping keys read as %q", ks)
			}
			c, err := fromYAML(e)
			if err != nil {
				return nil, err
			}
			out[ks] = c
		}
		return out, nil
	default:
		return nil, fmt.Errorf("yaml: unsupported value of type %T", v)
	}
}

// yamlKey turns a scalar mapping key into its JSON object key. yaml.v3
// itself refuses sequence and mapping keys when decoding into interface{}.
func yamlKey(k any) (string, error) {
	c, err := fromYAML(k)
	if err != nil {
		return "", err
	}
	switch c := c.(type) {
	case nil:
		return "null", nil
	case string:
		return c, nil
	case bool, json.Number:
		return fmt.Sprint(c), nil
	default:
		return "", fmt.Errorf("yaml: mapping key of type %T is not a scalar", k)
	}
}

// IsJSONInteger reports whether n is written as a JSON integer: an optional
// minus sign and decimal digits without a leading zero, with no fraction and
// no exponent. It is the lexical test that event.schema.json cannot express
// (see the package documentation): IsJSONInteger("1") is true, while "1.0" and
// "1e0" are false although JSON Schema's "integer" accepts them.
func IsJSONInteger(n json.Number) bool {
	s := string(n)
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
