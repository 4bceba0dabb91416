package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pact-action/pact-action/checks"
)

// githubSARIFRequirement is one property GitHub code scanning requires of an
// uploaded SARIF file. The table is GitHub's reference "SARIF support for
// code scanning" (docs.github.com/en/code-security/code-scanning/
// integrating-with-code-scanning/sarif-support-for-code-scanning, section
// "Supported SARIF output file properties"): every property it marks
// Required, with the limits it states. "The empty string is not supported
// for required properties", so a required string must be non-empty.
//
// Paths are dotted JSON paths; "[]" means every element of an array, which
// must itself be present (an empty array is allowed unless min says
// otherwise).
type githubSARIFRequirement struct {
	path   string
	maxLen int      // for strings: GitHub's stated limit in characters
	oneOf  []string // for strings: the only values GitHub accepts
	min    int      // for arrays: at least this many elements; for numbers: at least this
	max    int      // for arrays: at most this many elements
	why    string
}

var githubSARIFRequirements = []githubSARIFRequirement{
	// sarifLog object
	{path: "$schema", why: "sarifLog.$schema: the URI of the SARIF 2.1.0 schema"},
	{path: "version", oneOf: []string{"2.1.0"}, why: "sarifLog.version: code scanning only supports 2.1.0"},
	{path: "runs", min: 1, why: "sarifLog.runs[]: one or more runs"},
	// run object
	{path: "runs[].tool.driver", why: "run.tool.driver: the toolComponent of the analysis tool"},
	{path: "runs[].results", why: "run.results[]: the results (may be empty)"},
	// toolComponent object
	{path: "runs[].tool.driver.name", why: "toolComponent.name: code scanning filters alerts by tool name"},
	{path: "runs[].tool.driver.rules", why: "toolComponent.rules[]: the reportingDescriptors"},
	// Optional for GitHub, required by issue 10: code scanning uses it to
	// tell a tool upgrade from a code change.
	{path: "runs[].tool.driver.version", why: "toolComponent.version (optional in the reference; issue 10 requires it)"},
	// reportingDescriptor object
	{path: "runs[].tool.driver.rules[].id", why: "reportingDescriptor.id"},
	{path: "runs[].tool.driver.rules[].name", maxLen: 255, why: "reportingDescriptor.name: optional, limited to 255 characters"},
	{path: "runs[].tool.driver.rules[].shortDescription.text", maxLen: 1024, why: "reportingDescriptor.shortDescription.text, limited to 1024 characters"},
	{path: "runs[].tool.driver.rules[].fullDescription.text", maxLen: 1024, why: "reportingDescriptor.fullDescription.text, limited to 1024 characters"},
	{path: "runs[].tool.driver.rules[].help.text", why: "reportingDescriptor.help.text"},
	{path: "runs[].tool.driver.rules[].defaultConfiguration.level", oneOf: []string{"note", "warning", "error"}, why: "defaultConfiguration.level: note, warning or error"},
	// result object
	{path: "runs[].results[].message.text", why: "result.message.text: the alert's title"},
	{path: "runs[].results[].level", oneOf: []string{"none", "note", "warning", "error"}, why: "result.level overrides the rule's level"},
	{path: "runs[].results[].locations", min: 1, max: 10, why: "result.locations[]: at least one (code scanning shows no result without), at most 10"},
	{path: "runs[].results[].partialFingerprints.primaryLocationLineHash", why: "result.partialFingerprints: code scanning only uses primaryLocationLineHash"},
	// location and physicalLocation objects
	{path: "runs[].results[].locations[].physicalLocation", why: "location.physicalLocation"},
	{path: "runs[].results[].locations[].physicalLocation.artifactLocation.uri", why: "physicalLocation.artifactLocation.uri, relative to the repository root"},
	// The reference lists startColumn, endLine and endColumn as required
	// too, but its own ingestion validator (the SARIF multitool's GH1003,
	// ProvideRequiredRegionProperties, which the reference links to) says
	// "at minimum region.startLine is required ... startColumn, endLine
	// and endColumn ... have reasonable defaults": SARIF §3.30 defaults them
	// to the whole line, which is what a pact finding is about.
	{path: "runs[].results[].locations[].physicalLocation.region.startLine", min: 1, why: "physicalLocation.region.startLine (line 1 when a finding has none)"},
}

// TestSARIFMeetsGitHubCodeScanning writes SARIF for findings of every
// shape — a line, no line, a code the table does not know, none at all —
// and holds it to every requirement in the table.
func TestSARIFMeetsGitHubCodeScanning(t *testing.T) {
	t.Parallel()
	for name, findings := range map[string][]checks.Finding{
		"none":   nil,
		"sample": sampleFindings(),
		"many":   checks.Run(loadPact(t, "many")),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := WriteSARIF(&buf, SARIFTool{Name: "pactify", Version: "v1.2.3"}, findings); err != nil {
				t.Fatal(err)
			}
			var doc any
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			for _, req := range githubSARIFRequirements {
				for _, problem := range checkRequirement(doc, req) {
					t.Errorf("%s: %s", req.why, problem)
				}
			}
		})
	}
}

// TestSARIFRequirementCheckCatches keeps the checker honest: each broken
// document must fail the requirement it breaks.
func TestSARIFRequirementCheckCatches(t *testing.T) {
	t.Parallel()
	find := func(path string) githubSARIFRequirement {
		for _, r := range githubSARIFRequirements {
			if r.path == path {
				return r
			}
		}
		t.Fatalf("no requirement %s", path)
		return githubSARIFRequirement{}
	}
	const rule = `{"id":"a","name":"A","shortDescription":{"text":"s"},"fullDescription":{"text":"f"},"help":{"text":"h"},"defaultConfiguration":{"level":"error"}}`
	for _, c := range []struct{ path, doc string }{
		{"runs[].tool.driver.rules[].fullDescription.text", `{"runs":[{"tool":{"driver":{"rules":[{"id":"a","shortDescription":{"text":"s"}}]}}}]}`},
		{"runs[].tool.driver.rules[].fullDescription.text", `{"runs":[{"tool":{"driver":{"rules":[{"fullDescription":{"text":""}}]}}}]}`},
		{"runs[].tool.driver.version", `{"runs":[{"tool":{"driver":{"name":"x","rules":[` + rule + `]}}}]}`},
		{"runs[].results[].locations[].physicalLocation.region.startLine", `{"runs":[{"results":[{"locations":[{"physicalLocation":{"artifactLocation":{"uri":"x"}}}]}]}]}`},
		{"runs[].results[].locations[].physicalLocation.region.startLine", `{"runs":[{"results":[{"locations":[{"physicalLocation":{"region":{"startLine":0}}}]}]}]}`},
		{"runs[].results[].locations", `{"runs":[{"results":[{"locations":[]}]}]}`},
		{"runs[].tool.driver.rules[].shortDescription.text", `{"runs":[{"tool":{"driver":{"rules":[{"shortDescription":{"text":"` + strings.Repeat("x", 1025) + `"}}]}}}]}`},
		{"version", `{"version":"2.0.0"}`},
		{"runs", `{"runs":[]}`},
	} {
		var doc any
		if err := json.Unmarshal([]byte(c.doc), &doc); err != nil {
			t.Fatal(err)
		}
		if problems := checkRequirement(doc, find(c.path)); len(problems) == 0 {
			t.Errorf("%s passed on %s", c.path, c.doc)
		}
	}
}

// checkRequirement walks req.path through doc and says what is missing or
// out of bounds.
func checkRequirement(doc any, req githubSARIFRequirement) []string {
	var problems []string
	var walk func(v any, segs []string, at string)
	walk = func(v any, segs []string, at string) {
		if len(segs) == 0 {
			problems = append(problems, checkValue(v, req, at)...)
			return
		}
		seg := segs[0]
		each := strings.HasSuffix(seg, "[]")
		key := strings.TrimSuffix(seg, "[]")
		obj, ok := v.(map[string]any)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s is not an object", at))
			return
		}
		child, ok := obj[key]
		if !ok || child == nil {
			problems = append(problems, fmt.Sprintf("%s.%s is missing", at, key))
			return
		}
		if !each {
			walk(child, segs[1:], at+"."+key)
			return
		}
		arr, ok := child.([]any)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s.%s is not an array", at, key))
			return
		}
		for i, el := range arr {
			walk(el, segs[1:], fmt.Sprintf("%s.%s[%d]", at, key, i))
		}
	}
	walk(doc, strings.Split(req.path, "."), "$")
	return problems
}

func checkValue(v any, req githubSARIFRequirement, at string) []string {
	switch x := v.(type) {
	case string:
		switch {
		case x == "":
			return []string{at + " is empty"}
		case req.maxLen > 0 && utf8.RuneCountInString(x) > req.maxLen:
			return []string{fmt.Sprintf("%s has %d characters, over %d", at, utf8.RuneCountInString(x), req.maxLen)}
		case len(req.oneOf) > 0 && !containsString(req.oneOf, x):
			return []string{fmt.Sprintf("%s is %q, not one of %q", at, x, req.oneOf)}
		}
	case []any:
		if len(x) < req.min || (req.max > 0 && len(x) > req.max) {
			return []string{fmt.Sprintf("%s has %d elements, want %d..%d", at, len(x), req.min, req.max)}
		}
	case float64:
		if x < float64(req.min) {
			return []string{fmt.Sprintf("%s is %v, want at least %d", at, x, req.min)}
		}
	case map[string]any:
		if len(x) == 0 {
			return []string{at + " is an empty object"}
		}
	default:
		return []string{fmt.Sprintf("%s has an unexpected type %T", at, v)}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
