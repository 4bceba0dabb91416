// Package schematest compiles the JSON Schema documents of package schemas
// (once, on first use) for the tests that hold the product's own code to
// them: config's validation of .github/pact.yml, projection's decoder, the
// documents' own tests. The product never imports it, so no pactify call
// pays the JSON Schema library's initialisation.
package schematest

import (
	"bytes"
	"fmt"
	"io/fs"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pact-action/pact-action/schemas"
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
	entries, err := fs.ReadDir(schemas.FS, ".")
	if err != nil {
		panic(fmt.Sprintf("schemas: reading embedded files: %v", err))
	}
	for _, e := range entries {
		data, err := schemas.FS.ReadFile(e.Name())
		if err != nil {
			panic(fmt.Sprintf("schemas: reading %s: %v", e.Name(), err))
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			panic(fmt.Sprintf("schemas: parsing %s: %v", e.Name(), err))
		}
		if err := c.AddResource(schemas.BaseURL+e.Name(), doc); err != nil {
			panic(fmt.Sprintf("schemas: adding %s: %v", e.Name(), err))
		}
	}
	compiled = make(map[string]*jsonschema.Schema)
	for _, name := range []string{schemas.EventFile, schemas.SeatFile, schemas.TaskFile, schemas.PactConfigFile} {
		s, err := c.Compile(schemas.BaseURL + name)
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
func Event() *jsonschema.Schema { return get(schemas.EventFile) }

// Seat returns the compiled validator for one seat object of the init roster.
func Seat() *jsonschema.Schema { return get(schemas.SeatFile) }

// Task returns the compiled validator for the frontmatter of a task file.
func Task() *jsonschema.Schema { return get(schemas.TaskFile) }

// PactConfig returns the compiled validator for .github/pact.yml.
func PactConfig() *jsonschema.Schema { return get(schemas.PactConfigFile) }

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

// ValidateYAML decodes one YAML document from data into the JSON data model
// (schemas.DecodeYAML) and validates it against s. It is meant for task
// frontmatter and .github/pact.yml. A validation failure is a
// *jsonschema.ValidationError; any other error means data is not usable YAML.
func ValidateYAML(s *jsonschema.Schema, data []byte) error {
	v, err := schemas.DecodeYAML(data)
	if err != nil {
		return err
	}
	return s.Validate(v)
}
