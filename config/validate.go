package config

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sync"

	"github.com/pact-action/pact-action/schemas"
)

// violation is one leaf failure of .github/pact.yml against
// schemas/pact-config.schema.json, in the terms of a JSON Schema validator:
// where in the document (loc, JSON instance location) and which keyword.
// TestValidateMatchesSchema holds validate to the schema itself, compiled
// by a JSON Schema library that the product does not link: its package
// initialisation would run on every pactify call (docs/performance.md).
type violation struct {
	loc  []string
	kind violationKind
	// props: the unknown keys (additionalProperties false); property: the
	// key that is no seat slug (propertyNames); got: the value (enum), the
	// string (pattern) or the JSON type's name (type); want: the allowed
	// values, the pattern, or the types.
	props    []string
	property string
	got      any
	want     []string
}

type violationKind int

const (
	violationType violationKind = iota + 1
	violationAdditionalProperties
	violationPropertyNames
	violationEnum
	violationPattern
)

// configSchema is what validate needs of the schema documents, read from
// them once: the keys allowed at each level, the values of each enum and
// the patterns. The structure (which keyword applies where) is validate's.
type configSchema struct {
	top, provenance   []string
	enums             map[string][]string // by JSON instance location, dot-joined
	login, team, seat *regexp.Regexp
	loginSrc, teamSrc string
	seatSrc           string
}

var (
	schemaOnce sync.Once
	schema     configSchema
)

// loadSchema reads configSchema from the embedded documents. A failure is a
// defect of the embedded files, caught by the tests, so it panics.
func loadSchema() {
	type prop struct {
		Enum       []string        `json:"enum"`
		Properties map[string]prop `json:"properties"`
	}
	type def struct {
		Pattern string `json:"pattern"`
	}
	var cfg struct {
		Properties map[string]prop `json:"properties"`
		Defs       map[string]def  `json:"$defs"`
	}
	var seat struct {
		Defs map[string]def `json:"$defs"`
	}
	for name, v := range map[string]any{schemas.PactConfigFile: &cfg, schemas.SeatFile: &seat} {
		b, err := schemas.FS.ReadFile(name)
		if err == nil {
			err = json.Unmarshal(b, v)
		}
		if err != nil {
			panic(fmt.Sprintf("config: reading %s: %v", name, err))
		}
	}
	schema = configSchema{enums: map[string][]string{}}
	for k, p := range cfg.Properties {
		schema.top = append(schema.top, k)
		if p.Enum != nil {
			schema.enums[k] = p.Enum
		}
		for k2, p2 := range p.Properties {
			if k == "provenance" {
				schema.provenance = append(schema.provenance, k2)
			}
			if p2.Enum != nil {
				schema.enums[k+"."+k2] = p2.Enum
			}
		}
	}
	schema.loginSrc, schema.teamSrc, schema.seatSrc = cfg.Defs["login"].Pattern, cfg.Defs["team"].Pattern, seat.Defs["slug"].Pattern
	schema.login = regexp.MustCompile(schema.loginSrc)
	schema.team = regexp.MustCompile(schema.teamSrc)
	schema.seat = regexp.MustCompile(schema.seatSrc)
}

// validate judges the document v (the JSON data model of
// schemas.DecodeYAML) as pact-config.schema.json does, taking the keys of
// each object in the order order gives (the file's). It returns every leaf
// failure, none when v is valid.
func validate(v any, order func(loc []string, obj map[string]any) []string) []violation {
	schemaOnce.Do(loadSchema)
	var out []violation
	at := func(loc ...string) []string { return slices.Clone(loc) }
	typeOf := func(loc []string, v any, want string) bool {
		if got := jsonType(v); got != want {
			out = append(out, violation{loc: loc, kind: violationType, got: got, want: []string{want}})
			return false
		}
		return true
	}
	enum := func(loc []string, v any, key string) {
		allowed := schema.enums[key]
		if s, ok := v.(string); ok && slices.Contains(allowed, s) {
			return
		}
		out = append(out, violation{loc: loc, kind: violationEnum, got: v, want: allowed})
	}
	unknown := func(loc []string, obj map[string]any, allowed []string) {
		var props []string
		for _, k := range order(loc, obj) {
			if !slices.Contains(allowed, k) {
				props = append(props, k)
			}
		}
		if len(props) > 0 {
			out = append(out, violation{loc: loc, kind: violationAdditionalProperties, props: props})
		}
	}
	// seatLists: a mapping from seat slug to a list of strings matching re.
	seatLists := func(key string, v any, re *regexp.Regexp, src string) {
		loc := at(key)
		obj, ok := v.(map[string]any)
		if !typeOf(loc, v, "object") || !ok {
			return
		}
		for _, seat := range order(loc, obj) {
			list := obj[seat]
			if typeOf(at(key, seat), list, "array") {
				for i, item := range list.([]any) {
					iloc := at(key, seat, fmt.Sprint(i))
					if typeOf(iloc, item, "string") && !re.MatchString(item.(string)) {
						out = append(out, violation{loc: iloc, kind: violationPattern, got: item, want: []string{src}})
					}
				}
			}
		}
		for _, seat := range order(loc, obj) {
			if !schema.seat.MatchString(seat) {
				out = append(out, violation{loc: loc, kind: violationPropertyNames, property: seat})
			}
		}
	}
	root, ok := v.(map[string]any)
	if !typeOf(nil, v, "object") || !ok {
		return out
	}
	for _, key := range order(nil, root) {
		val := root[key]
		switch key {
		case "seats":
			seatLists(key, val, schema.login, schema.loginSrc)
		case "review-teams":
			seatLists(key, val, schema.team, schema.teamSrc)
		case "provenance":
			obj, ok := val.(map[string]any)
			if !typeOf(at(key), val, "object") || !ok {
				continue
			}
			for _, k := range order(at(key), obj) {
				if slices.Contains(schema.provenance, k) {
					enum(at(key, k), obj[k], key+"."+k)
				}
			}
			unknown(at(key), obj, schema.provenance)
		default:
			if _, ok := schema.enums[key]; ok {
				enum(at(key), val, key)
			}
		}
	}
	unknown(nil, root, schema.top)
	return out
}

// jsonType names the JSON type of a value of the JSON data model as JSON
// Schema does (a number is "number", integral or not).
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
