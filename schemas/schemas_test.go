package schemas_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/pact-action/pact-action/internal/testkit/schematest"
	"github.com/pact-action/pact-action/schemas"
)

// del marks a field to remove in an edit.
type delMarker struct{}

var del = delMarker{}

// event returns a valid event of the given type, as a generic JSON value.
func event(typ string) map[string]any {
	e := map[string]any{
		"event_id":   "0f8e2c1a9b7d4e6f8a1b2c3d4e5f6a7b",
		"ts":         "2026-06-09T10:00:00Z",
		"agent_id":   "lead",
		"role":       "orchestrator",
		"event_type": typ,
		"task_id":    "T1",
		"feature":    "CLI-INIT",
	}
	switch typ {
	case "init":
		e["task_id"], e["feature"] = "", ""
		e["payload"] = map[string]any{
			"project":          "demo",
			"protocol_version": json.RawMessage("1"),
			"seats": []any{
				map[string]any{"id": "lead", "roles": []any{"orchestrator"}, "entry": "AGENTS.md"},
				map[string]any{"id": "opencode", "roles": []any{"worker"}, "entry": "AGENTS.md"},
				map[string]any{"id": "claude-opus", "roles": []any{"reviewer"}, "entry": "CLAUDE.md"},
			},
			"base_branch": "main",
		}
	case "assign":
		e["payload"] = map[string]any{"owner": "opencode", "reviewer": "claude-opus", "branch": "feat/cli-init", "spec": ".pact/tasks/T1.md"}
	case "join":
		e["agent_id"], e["role"], e["task_id"], e["feature"] = "opencode", "worker", "", ""
		e["payload"] = map[string]any{"roles": []any{"worker"}}
	case "checkpoint":
		e["agent_id"], e["role"] = "opencode", "worker"
		e["payload"] = map[string]any{"evidence": "tests pass\nsee CI run 12"}
	case "accept":
		e["agent_id"], e["role"] = "claude-opus", "reviewer"
		e["payload"] = map[string]any{}
	case "changes_requested":
		e["agent_id"], e["role"] = "claude-opus", "reviewer"
		e["payload"] = map[string]any{"reason": "needs a test"}
	case "merge":
		e["task_id"] = ""
		e["payload"] = map[string]any{}
	default:
		e["payload"] = map[string]any{}
	}
	return e
}

// edit returns a JSON encoding of a copy of v with the fields at the given
// slash-separated paths set (or removed, for del). A json.RawMessage value is
// written as is, so number tokens such as 1.0 survive.
func edit(t *testing.T, v map[string]any, kv ...any) []byte {
	t.Helper()
	var c map[string]any
	if err := json.Unmarshal(mustJSON(t, v), &c); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(kv); i += 2 {
		path := strings.Split(kv[i].(string), "/")
		m := c
		for _, p := range path[:len(path)-1] {
			m = m[p].(map[string]any)
		}
		last := path[len(path)-1]
		if kv[i+1] == del {
			delete(m, last)
		} else {
			m[last] = kv[i+1]
		}
	}
	return mustJSON(t, c)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var eventTypes = []string{"init", "assign", "join", "checkpoint", "accept", "changes_requested", "merge"}

type jsonCase struct {
	name string
	doc  []byte
	// For invalid cases built by editCase: every failing keyword must sit at
	// instance location at or below it, and when missing is set the failure
	// at at must be that required property being absent.
	at, missing string
	located     bool
}

// editCase is a case made by edit, which also records where the first edit
// must make the document fail: at its path, or for a removal, at its parent
// as a missing property.
func editCase(t *testing.T, name string, v map[string]any, kv ...any) jsonCase {
	t.Helper()
	c := jsonCase{name: name, doc: edit(t, v, kv...), located: true}
	path := "/" + kv[0].(string)
	if kv[1] == del {
		i := strings.LastIndex(path, "/")
		c.at, c.missing = path[:i], path[i+1:]
	} else {
		c.at = path
	}
	return c
}

func expectJSON(t *testing.T, s *jsonschema.Schema, valid bool, cases []jsonCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := schematest.ValidateJSON(s, tc.doc)
			checkVerdict(t, err, valid, tc.doc)
			var ve *jsonschema.ValidationError
			if !valid && tc.located && errors.As(err, &ve) {
				checkLocation(t, ve, tc)
			}
		})
	}
}

// checkLocation verifies that every leaf error of ve is at tc.at or below
// it, so a case cannot pass by failing for an unrelated reason.
func checkLocation(t *testing.T, ve *jsonschema.ValidationError, tc jsonCase) {
	t.Helper()
	var leaves []*jsonschema.ValidationError
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	for _, l := range leaves {
		loc := ""
		if len(l.InstanceLocation) > 0 {
			loc = "/" + strings.Join(l.InstanceLocation, "/")
		}
		if tc.missing != "" {
			req, ok := l.ErrorKind.(*kind.Required)
			if loc != tc.at || !ok || !slices.Contains(req.Missing, tc.missing) {
				t.Errorf("want only %q missing at %q, got %v at %q", tc.missing, tc.at, l.ErrorKind, loc)
			}
			continue
		}
		if loc != tc.at && !strings.HasPrefix(loc, tc.at+"/") {
			t.Errorf("want failures at %q, got %v at %q", tc.at, l.ErrorKind, loc)
		}
	}
}

func checkVerdict(t *testing.T, err error, valid bool, doc []byte) {
	t.Helper()
	if valid && err != nil {
		t.Errorf("want valid, got: %v\ndoc: %s", err, doc)
	}
	if !valid {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("want a validation error, got %v\ndoc: %s", err, doc)
		}
	}
}

func TestEmbeddedDocuments(t *testing.T) {
	for _, name := range []string{schemas.EventFile, schemas.SeatFile, schemas.TaskFile, schemas.PactConfigFile} {
		data, err := schemas.FS.ReadFile(name)
		if err != nil {
			t.Fatalf("%s not embedded: %v", name, err)
		}
		var doc struct {
			Schema string `json:"$schema"`
			ID     string `json:"$id"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if doc.Schema != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema = %q, want draft 2020-12", name, doc.Schema)
		}
		if doc.ID != schemas.BaseURL+name {
			t.Errorf("%s: $id = %q, want %q", name, doc.ID, schemas.BaseURL+name)
		}
	}
	for name, s := range map[string]*jsonschema.Schema{"Event": schematest.Event(), "Seat": schematest.Seat(), "Task": schematest.Task(), "PactConfig": schematest.PactConfig()} {
		if s == nil {
			t.Errorf("%s() = nil", name)
		}
	}
	if first, second := schematest.Event(), schematest.Event(); first != second {
		t.Error("schematest.Event() compiles more than once")
	}
}

func TestEventValid(t *testing.T) {
	var cases []jsonCase
	for _, typ := range eventTypes {
		cases = append(cases, jsonCase{name: "every type/" + typ, doc: edit(t, event(typ))})
	}
	cases = append(cases,
		jsonCase{name: "unknown event_type, envelope only", doc: edit(t, event("handoff"), "payload", map[string]any{"anything": 1})},
		jsonCase{name: "unknown event_type differing from a v1 type only in case", doc: edit(t, event("Init"), "task_id", "T9")},
		jsonCase{name: "empty event_type string is unknown, not invalid", doc: edit(t, event(""))},
		jsonCase{name: "event_id missing: event_id.missing, not schema", doc: edit(t, event("accept"), "event_id", del)},
		jsonCase{name: "event_id empty: event_id.missing, not schema", doc: edit(t, event("accept"), "event_id", "")},
		jsonCase{name: "extra top-level field", doc: edit(t, event("merge"), "x-signature", "abc")},
		jsonCase{name: "extra payload field", doc: edit(t, event("checkpoint"), "payload/files", []any{"a.go"})},
		jsonCase{name: "ts with fraction", doc: edit(t, event("join"), "ts", "2026-06-09T10:00:00.5Z")},
		jsonCase{name: "ts with nanoseconds", doc: edit(t, event("join"), "ts", "2026-06-09T10:00:00.123456789Z")},
		jsonCase{name: "ts on 29 February of a leap year", doc: edit(t, event("join"), "ts", "2028-02-29T23:59:59Z")},
		jsonCase{name: "agent_id digits and hyphens", doc: edit(t, event("accept"), "agent_id", "0-gpt-4")},
		jsonCase{name: "role contradicting event_type: role.mismatch, not schema", doc: edit(t, event("accept"), "role", "worker")},
		jsonCase{name: "protocol_version 2: version.unsupported, not schema", doc: edit(t, event("init"), "payload/protocol_version", 2)},
		jsonCase{name: "empty roster: a roster finding, not schema", doc: edit(t, event("init"), "payload/seats", []any{})},
		jsonCase{name: "roster seat id not a slug: roster.invalid_seat_id, not schema", doc: edit(t, event("init"), "payload/seats", []any{
			map[string]any{"id": "Bad Seat", "roles": []any{}, "entry": ""},
		})},
		jsonCase{name: "seat with extra field", doc: edit(t, event("init"), "payload/seats", []any{
			map[string]any{"id": "lead", "roles": []any{"orchestrator"}, "entry": "AGENTS.md", "model": "x"},
		})},
		jsonCase{name: "assign owner not a slug: roster.unknown_seat, not schema", doc: edit(t, event("assign"), "payload/owner", "Not A Seat")},
		jsonCase{name: "join with no roles", doc: edit(t, event("join"), "payload/roles", []any{})},
		jsonCase{name: "checkpoint with empty evidence", doc: edit(t, event("checkpoint"), "payload/evidence", "")},
		jsonCase{name: "checkpoint with empty feature", doc: edit(t, event("checkpoint"), "feature", "")},
		jsonCase{name: "accept with empty feature", doc: edit(t, event("accept"), "feature", "")},
		jsonCase{name: "changes_requested with empty feature", doc: edit(t, event("changes_requested"), "feature", "")},
		jsonCase{name: "accept with commit and github", doc: edit(t, event("accept"),
			"payload/commit", "0123456789abcdef0123456789abcdef01234567",
			"payload/github", map[string]any{"review_id": 1, "comment_id": 2, "url": "https://github.com/o/r/pull/1", "login": "octocat", "head_sha": "abc"})},
		jsonCase{name: "changes_requested with github", doc: edit(t, event("changes_requested"), "payload/github", map[string]any{"comment_id": 9})},
		jsonCase{name: "optional fields are documented, not asserted", doc: edit(t, event("accept"), "payload/commit", 5, "payload/github", "not an object")},
	)
	expectJSON(t, schematest.Event(), true, cases)
}

func TestEventInvalid(t *testing.T) {
	var cases []jsonCase
	for _, f := range []string{"ts", "agent_id", "role", "event_type", "task_id", "feature", "payload"} {
		for _, typ := range []string{"assign", "handoff"} {
			cases = append(cases, editCase(t, "required "+f+" missing/"+typ, event(typ), f, del))
		}
	}
	wrong := []struct {
		name, field string
		value       any
	}{
		{"event_id null is schema.envelope", "event_id", nil},
		{"event_id number", "event_id", 7},
		{"ts number", "ts", 1780000000},
		{"agent_id number", "agent_id", 1},
		{"agent_id empty", "agent_id", ""},
		{"agent_id upper case", "agent_id", "Claude"},
		{"agent_id leading hyphen", "agent_id", "-claude"},
		{"agent_id underscore", "agent_id", "claude_opus"},
		{"agent_id trailing newline", "agent_id", "claude\n"},
		{"role outside the enum", "role", "admin"},
		{"role wrong case", "role", "Worker"},
		{"role null", "role", nil},
		{"event_type number", "event_type", 1},
		{"event_type null", "event_type", nil},
		{"event_type array", "event_type", []any{"init"}},
		{"task_id number", "task_id", 1},
		{"task_id null", "task_id", nil},
		{"feature number", "feature", 2},
		{"payload array", "payload", []any{}},
		{"payload string", "payload", "{}"},
		{"payload null", "payload", nil},
	}
	for _, w := range wrong {
		cases = append(cases, editCase(t, "wrong type/"+w.name, event("checkpoint"), w.field, w.value))
		cases = append(cases, editCase(t, "wrong type, unknown event_type/"+w.name, event("handoff"), w.field, w.value))
	}
	for _, ts := range []struct{ name, ts string }{
		{"lower-case t", "2026-06-09t10:00:00Z"},
		{"lower-case z", "2026-06-09T10:00:00z"},
		{"offset +00:00", "2026-06-09T10:00:00+00:00"},
		{"offset -00:00", "2026-06-09T10:00:00-00:00"},
		{"no zone", "2026-06-09T10:00:00"},
		{"30 February", "2026-02-30T10:00:00Z"},
		{"29 February of a common year", "2026-02-29T10:00:00Z"},
		{"month 13", "2026-13-01T10:00:00Z"},
		{"no seconds", "2026-06-09T10:00Z"},
		{"space separator", "2026-06-09 10:00:00Z"},
		{"hour 24", "2026-06-09T24:00:00Z"},
		{"minute 60", "2026-06-09T10:60:00Z"},
		{"leap second", "2026-06-30T23:59:60Z"},
		{"fraction without digits", "2026-06-09T10:00:00.Z"},
		{"comma fraction", "2026-06-09T10:00:00,5Z"},
		{"one-digit month", "2026-6-09T10:00:00Z"},
		{"date only", "2026-06-09"},
		{"leading space", " 2026-06-09T10:00:00Z"},
		{"trailing newline", "2026-06-09T10:00:00Z\n"},
		{"empty", ""},
	} {
		cases = append(cases, editCase(t, "ts/"+ts.name, event("join"), "ts", ts.ts))
	}
	scope := []struct {
		name, typ string
		kv        []any
	}{
		{"init with task_id", "init", []any{"task_id", "T1"}},
		{"init with feature", "init", []any{"feature", "F"}},
		{"join with task_id", "join", []any{"task_id", "T1"}},
		{"join with feature", "join", []any{"feature", "F"}},
		{"merge with task_id", "merge", []any{"task_id", "T1"}},
		{"merge with empty feature", "merge", []any{"feature", ""}},
		{"assign with empty task_id", "assign", []any{"task_id", ""}},
		{"assign with empty feature", "assign", []any{"feature", ""}},
		{"checkpoint with empty task_id", "checkpoint", []any{"task_id", ""}},
		{"accept with empty task_id", "accept", []any{"task_id", ""}},
		{"changes_requested with empty task_id", "changes_requested", []any{"task_id", ""}},
	}
	for _, s := range scope {
		cases = append(cases, editCase(t, "scope/"+s.name, event(s.typ), s.kv...))
	}
	payload := []struct {
		name, typ string
		kv        []any
	}{
		{"init without project", "init", []any{"payload/project", del}},
		{"init without protocol_version", "init", []any{"payload/protocol_version", del}},
		{"init without seats", "init", []any{"payload/seats", del}},
		{"init without base_branch", "init", []any{"payload/base_branch", del}},
		{"init project number", "init", []any{"payload/project", 1}},
		{"init base_branch null", "init", []any{"payload/base_branch", nil}},
		{"protocol_version 0 is below the minimum", "init", []any{"payload/protocol_version", 0}},
		{"protocol_version -1", "init", []any{"payload/protocol_version", -1}},
		{"protocol_version \"1\" is a string", "init", []any{"payload/protocol_version", "1"}},
		{"protocol_version 1.5 is not an integer", "init", []any{"payload/protocol_version", json.RawMessage("1.5")}},
		{"protocol_version true is a boolean", "init", []any{"payload/protocol_version", true}},
		{"protocol_version null", "init", []any{"payload/protocol_version", nil}},
		{"seats is an object", "init", []any{"payload/seats", map[string]any{"lead": map[string]any{}}}},
		{"seats is a string", "init", []any{"payload/seats", "lead"}},
		{"seat is a string", "init", []any{"payload/seats", []any{"lead"}}},
		{"seat is null", "init", []any{"payload/seats", []any{nil}}},
		{"seat without id", "init", []any{"payload/seats", []any{map[string]any{"roles": []any{}, "entry": "A.md"}}}},
		{"seat without roles", "init", []any{"payload/seats", []any{map[string]any{"id": "lead", "entry": "A.md"}}}},
		{"seat without entry", "init", []any{"payload/seats", []any{map[string]any{"id": "lead", "roles": []any{}}}}},
		{"seat id number", "init", []any{"payload/seats", []any{map[string]any{"id": 1, "roles": []any{}, "entry": "A.md"}}}},
		{"seat roles a string", "init", []any{"payload/seats", []any{map[string]any{"id": "lead", "roles": "orchestrator", "entry": "A.md"}}}},
		{"seat roles holding a number", "init", []any{"payload/seats", []any{map[string]any{"id": "lead", "roles": []any{1}, "entry": "A.md"}}}},
		{"seat entry null", "init", []any{"payload/seats", []any{map[string]any{"id": "lead", "roles": []any{}, "entry": nil}}}},
		{"assign without owner", "assign", []any{"payload/owner", del}},
		{"assign without reviewer", "assign", []any{"payload/reviewer", del}},
		{"assign without branch", "assign", []any{"payload/branch", del}},
		{"assign without spec", "assign", []any{"payload/spec", del}},
		{"assign owner number", "assign", []any{"payload/owner", 3}},
		{"assign branch null", "assign", []any{"payload/branch", nil}},
		{"join without roles", "join", []any{"payload/roles", del}},
		{"join roles a string", "join", []any{"payload/roles", "worker"}},
		{"join roles holding null", "join", []any{"payload/roles", []any{nil}}},
		{"checkpoint without evidence", "checkpoint", []any{"payload/evidence", del}},
		{"checkpoint evidence array", "checkpoint", []any{"payload/evidence", []any{"a"}}},
		{"changes_requested without reason", "changes_requested", []any{"payload/reason", del}},
		{"changes_requested reason number", "changes_requested", []any{"payload/reason", 1}},
	}
	for _, p := range payload {
		cases = append(cases, editCase(t, "payload/"+p.name, event(p.typ), p.kv...))
	}
	cases = append(cases,
		jsonCase{name: "not an object/array", doc: []byte(`[]`)},
		jsonCase{name: "not an object/null", doc: []byte(`null`)},
		jsonCase{name: "not an object/string", doc: []byte(`"init"`)},
		jsonCase{name: "not an object/number", doc: []byte(`1`)},
	)
	expectJSON(t, schematest.Event(), false, cases)
}

// TestIntegralFractionIsInteger pins how the validator reads integral numbers
// written with a fraction or an exponent: as integers, as JSON Schema says.
// docs/semantics.md §7 wants protocol_version 1.0 to be schema.payload; the schema
// cannot express that (see the package documentation), so hand-written checks
// test the token with IsJSONInteger and must differ from the schema exactly
// here. If this test starts failing, the validator changed and that documented
// exception must be revisited.
func TestIntegralFractionIsInteger(t *testing.T) {
	for _, tok := range []string{"1.0", "1.00", "1e0", "1E0", "1e+0", "10e-1", "0.1e1", "2.0", "1.5e1"} {
		t.Run(tok, func(t *testing.T) {
			doc := edit(t, event("init"), "payload/protocol_version", json.RawMessage(tok))
			if err := schematest.ValidateJSON(schematest.Event(), doc); err != nil {
				t.Errorf("validator changed: protocol_version %s is now rejected: %v", tok, err)
			}
			if schemas.IsJSONInteger(json.Number(tok)) {
				t.Errorf("schemas.IsJSONInteger(%s) = true, want false", tok)
			}
		})
	}
	for _, tok := range []string{"1.5", "0.5", "1e-1", "0.9"} {
		t.Run("not integral "+tok, func(t *testing.T) {
			doc := edit(t, event("init"), "payload/protocol_version", json.RawMessage(tok))
			if schematest.ValidateJSON(schematest.Event(), doc) == nil {
				t.Errorf("protocol_version %s accepted", tok)
			}
		})
	}
}

func TestIsJSONInteger(t *testing.T) {
	for tok, want := range map[string]bool{
		"1": true, "0": true, "-1": true, "10": true, "123456789012345678901234567890": true,
		"1.0": false, "1e0": false, "1E0": false, "01": false, "-": false, "": false,
		"+1": false, "-0": true, "1 ": false, "0x1": false, "-01": false,
	} {
		if got := schemas.IsJSONInteger(json.Number(tok)); got != want {
			t.Errorf("schemas.IsJSONInteger(%q) = %v, want %v", tok, got, want)
		}
	}
}

func TestSeat(t *testing.T) {
	expectJSON(t, schematest.Seat(), true, []jsonCase{
		{name: "minimal", doc: []byte(`{"id":"claude-opus","roles":["reviewer"],"entry":"CLAUDE.md"}`)},
		{name: "no roles, empty strings", doc: []byte(`{"id":"","roles":[],"entry":""}`)},
		{name: "id not a slug is a roster finding, not schema", doc: []byte(`{"id":"Claude Opus","roles":["reviewer"],"entry":"CLAUDE.md"}`)},
		{name: "extra field", doc: []byte(`{"id":"a","roles":[],"entry":"A.md","model":"x"}`)},
	})
	expectJSON(t, schematest.Seat(), false, []jsonCase{
		{name: "missing id", doc: []byte(`{"roles":[],"entry":"A.md"}`)},
		{name: "missing roles", doc: []byte(`{"id":"a","entry":"A.md"}`)},
		{name: "missing entry", doc: []byte(`{"id":"a","roles":[]}`)},
		{name: "id number", doc: []byte(`{"id":1,"roles":[],"entry":"A.md"}`)},
		{name: "roles comma-separated string", doc: []byte(`{"id":"a","roles":"worker,reviewer","entry":"A.md"}`)},
		{name: "roles holding an object", doc: []byte(`{"id":"a","roles":[{}],"entry":"A.md"}`)},
		{name: "entry array", doc: []byte(`{"id":"a","roles":[],"entry":["A.md"]}`)},
		{name: "array, not object", doc: []byte(`["a","worker","A.md"]`)},
		{name: "string in id:roles:entry form", doc: []byte(`"a:worker:A.md"`)},
	})
}

type yamlCase struct {
	name string
	doc  string
}

func expectYAML(t *testing.T, s *jsonschema.Schema, valid bool, cases []yamlCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkVerdict(t, schematest.ValidateYAML(s, []byte(tc.doc)), valid, []byte(tc.doc))
		})
	}
}

func TestTask(t *testing.T) {
	expectYAML(t, schematest.Task(), true, []yamlCase{
		{"spec example", "id: T1\nfeature: CLI-INIT\nowner: opencode\nreviewer: claude-opus\n"},
		{"quoted numeric id", "id: \"42\"\nfeature: F\nowner: a\nreviewer: b\n"},
		{"extra field", "id: T1\nfeature: F\nowner: a\nreviewer: b\nbranch: feat/x\n"},
		{"date-like feature stays a string", "id: T1\nfeature: 2026-06-09\nowner: a\nreviewer: b\n"},
	})
	expectYAML(t, schematest.Task(), false, []yamlCase{
		{"missing id", "feature: F\nowner: a\nreviewer: b\n"},
		{"missing feature", "id: T1\nowner: a\nreviewer: b\n"},
		{"missing owner", "id: T1\nfeature: F\nreviewer: b\n"},
		{"missing reviewer", "id: T1\nfeature: F\nowner: a\n"},
		{"unquoted numeric id is a YAML integer", "id: 42\nfeature: F\nowner: a\nreviewer: b\n"},
		{"empty id", "id: \"\"\nfeature: F\nowner: a\nreviewer: b\n"},
		{"empty feature", "id: T1\nfeature: \"\"\nowner: a\nreviewer: b\n"},
		{"null owner", "id: T1\nfeature: F\nowner:\nreviewer: b\n"},
		{"owner not a slug", "id: T1\nfeature: F\nowner: Open Code\nreviewer: b\n"},
		{"reviewer not a slug", "id: T1\nfeature: F\nowner: a\nreviewer: Claude\n"},
		{"sequence, not mapping", "- id: T1\n"},
		{"empty document", ""},
	})
}

func TestPactConfig(t *testing.T) {
	expectYAML(t, schematest.PactConfig(), true, []yamlCase{
		{"full", `seats:
  claude-opus: [octocat, "claude-agent[bot]"]
  opencode:
    - opencode-agent[bot]
    - "1234"
provenance:
  mode: require
  stale: tree
`},
		{"empty mapping", "{}\n"},
		{"seats only", "seats: {lead: [Mona-Lisa]}\n"},
		{"provenance only, unquoted off stays a string", "provenance:\n  mode: off\n  stale: sticky\n"},
		{"mode warn, stale push", "provenance: {mode: warn, stale: push}\n"},
		{"seat with no logins", "seats: {lead: []}\n"},
		{"digit-led seat", "seats: {0-gpt: [a]}\n"},
		{"login of 39 characters", "seats: {lead: [" + strings.Repeat("a", 39) + "]}\n"},
		{"bot login of 39+5 characters", "seats:\n  lead:\n    - " + strings.Repeat("a", 39) + "[bot]\n"},
	})
	expectYAML(t, schematest.PactConfig(), false, []yamlCase{
		{"unknown top-level key", "seats: {}\nreviewers: [octocat]\n"},
		{"unknown provenance key", "provenance: {mode: warn, strict: true}\n"},
		{"mode outside the enum", "provenance: {mode: strict}\n"},
		{"mode boolean", "provenance: {mode: false}\n"},
		{"stale outside the enum", "provenance: {stale: always}\n"},
		{"seat name not a slug", "seats: {Claude: [octocat]}\n"},
		{"seat name with underscore", "seats: {claude_opus: [octocat]}\n"},
		{"logins a string", "seats: {lead: octocat}\n"},
		{"logins a mapping", "seats: {lead: {octocat: true}}\n"},
		{"unquoted numeric login is a YAML integer", "seats: {lead: [1234]}\n"},
		{"login with leading hyphen", "seats: {lead: [-octocat]}\n"},
		{"login with a space", "seats: {lead: [\"octo cat\"]}\n"},
		{"login of 40 characters", "seats: {lead: [" + strings.Repeat("a", 40) + "]}\n"},
		{"login with a suffix after [bot]", "seats: {lead: [\"a[bot]x\"]}\n"},
		{"login with [app] suffix", "seats: {lead: [\"a[app]\"]}\n"},
		{"login with @", "seats: {lead: [\"@octocat\"]}\n"},
		{"seats a list", "seats: [lead]\n"},
		{"provenance a string", "provenance: require\n"},
		{"top level a list", "- seats\n"},
		{"empty document is null", ""},
		{"comment-only document is null", "# no configuration yet\n"},
	})
}

func TestValidateJSONErrors(t *testing.T) {
	var ve *jsonschema.ValidationError
	for name, doc := range map[string]string{
		"not JSON":      `{"ts":`,
		"trailing data": `{} {}`,
		"NaN":           `{"x":NaN}`,
	} {
		err := schematest.ValidateJSON(schematest.Seat(), []byte(doc))
		if err == nil || errors.As(err, &ve) {
			t.Errorf("%s: want a decoding error, got %v", name, err)
		}
	}
}

func TestValidateYAMLErrors(t *testing.T) {
	var ve *jsonschema.ValidationError
	for name, doc := range map[string]string{
		"two documents":               "seats: {}\n---\nseats: {}\n",
		"bad YAML":                    "seats: [\n",
		"NaN":                         "x: .nan\n",
		"infinity":                    "x: -.inf\n",
		"keys equal once stringified": "1: a\n\"1\": b\n",
		"duplicate keys":              "seats: {}\nseats: {}\n",
	} {
		err := schematest.ValidateYAML(schematest.PactConfig(), []byte(doc))
		if err == nil || errors.As(err, &ve) {
			t.Errorf("%s: want a decoding error, got %v", name, err)
		}
	}
}

// TestFromYAML checks the conversion to the JSON data model.
func TestFromYAML(t *testing.T) {
	const doc = `
int: 7
big: 18446744073709551615
neg: -3
float: 1.5
whole: 2.0
ts: !!timestamp 2026-06-09T10:00:00.50+00:00
plain-date: 2026-06-09
bool: true
null-value: ~
list: [1, a]
1: int key
true: bool key
~: null key
anchor: &a {x: 1}
ref: *a
`
	got, err := schemas.DecodeYAML([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var gotMap, want map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&gotMap); err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"int":7,"big":18446744073709551615,"neg":-3,"float":1.5,"whole":2,
		"ts":"2026-06-09T10:00:00.50+00:00","plain-date":"2026-06-09","bool":true,"null-value":null,
		"list":[1,"a"],"1":"int key","true":"bool key","null":"null key",
		"anchor":{"x":1},"ref":{"x":1}}`
	dec = json.NewDecoder(strings.NewReader(wantJSON))
	dec.UseNumber()
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustJSON(t, gotMap), mustJSON(t, want)) {
		t.Errorf("fromYAML:\n got %s\nwant %s", mustJSON(t, gotMap), mustJSON(t, want))
	}
	if _, ok := got.(map[string]any)["int"].(json.Number); !ok {
		t.Errorf("int converted to %T, want json.Number", got.(map[string]any)["int"])
	}
}

// TestCorpus holds testdata/corpus.expect to the event schema, line by line.
func TestCorpus(t *testing.T) {
	lines := readLines(t, "testdata/corpus.jsonl")
	expect := readLines(t, "testdata/corpus.expect")
	if len(lines) != len(expect) {
		t.Fatalf("corpus.jsonl has %d lines, corpus.expect %d", len(lines), len(expect))
	}
	seen := map[string]bool{}
	validTypes := map[string]bool{}
	for i, line := range lines {
		if !json.Valid([]byte(line)) {
			t.Errorf("corpus line %d is not JSON", i+1)
			continue
		}
		err := schematest.ValidateJSON(schematest.Event(), []byte(line))
		seen[expect[i]] = true
		switch expect[i] {
		case "valid":
			if err != nil {
				t.Errorf("corpus line %d: expected valid, got %v", i+1, err)
			}
			var e struct {
				EventType string `json:"event_type"`
			}
			if json.Unmarshal([]byte(line), &e) == nil {
				validTypes[e.EventType] = true
			}
		case "invalid":
			if err == nil {
				t.Errorf("corpus line %d: expected invalid, schema accepts it", i+1)
			}
		default:
			t.Errorf("corpus.expect line %d: %q is neither valid nor invalid", i+1, expect[i])
		}
	}
	if !seen["valid"] || !seen["invalid"] {
		t.Error("corpus lacks valid or invalid lines")
	}
	for _, typ := range eventTypes {
		if !validTypes[typ] {
			t.Errorf("corpus has no valid %s event", typ)
		}
	}
}

func readLines(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
