// Package jsonref holds the encoding/json-based oracles that the fast JSON
// readers' tests are held to: test support only.
package jsonref

import (
	"bytes"
	"encoding/json"
)

// DuplicateKey walks the JSON document line with encoding/json's token
// stream and returns the first member name, in document order, that an
// object at any depth already has (docs/semantics.md §7). It is the
// reference both of the log's decoders (projection's reference decoder and
// jsonscan's Duplicate) are held to: names compared as encoding/json
// decodes them.
func DuplicateKey(line []byte) (string, bool) {
	type frame struct {
		keys    map[string]bool // nil for an array
		wantKey bool
	}
	var stack []frame
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		top := len(stack) - 1
		if name, ok := tok.(string); ok && top >= 0 && stack[top].keys != nil && stack[top].wantKey {
			if stack[top].keys[name] {
				return name, true
			}
			stack[top].keys[name], stack[top].wantKey = true, false
			continue
		}
		// Any other token starts or ends a value.
		switch tok {
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:top]
			continue
		}
		if top >= 0 && stack[top].keys != nil {
			stack[top].wantKey = true // after this value, the next key
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		}
	}
}
