// Package schemas holds the machine-readable contract of Pact v1 as JSON Schema
// 2020-12 documents, embedded in the binary, and the reading of YAML into the
// JSON data model they judge (DecodeYAML). It compiles nothing: a JSON Schema
// library's package initialisation alone compiles the meta-schemas, on every
// pactify call (docs/performance.md), so the product judges with code of its
// own (config's validation of .github/pact.yml, projection's decoder), and the
// tests hold that code to these documents through internal/testkit/schematest.
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
	"math"
	"strconv"

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

// DecodeYAML decodes the single YAML document in data into the JSON data
// model a JSON Schema validator takes, for task frontmatter and
// .github/pact.yml. Empty input (or only comments) is null.
//
// Scalar mapping keys become strings (true, 1 and null become "true", "1"
// and "null"; two keys that become the same string are an error), integers
// and finite floats become json.Number, scalars YAML would read as
// timestamps stay strings exactly as written, and NaN or infinities are an
// error; more than one document is an error. YAML reads unquoted 42, true
// or null as a number, a boolean or null, so a schema expecting a string
// rejects them. An error means data is not usable YAML.
func DecodeYAML(data []byte) (any, error) {
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
