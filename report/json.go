package report

import (
	"encoding/json"
	"io"

	"github.com/pact-action/pact-action/checks"
)

// JSON is the JSON form of a verdict: `pactify validate --format json`, and
// the part of every JSON report of the action that judges one head.
//
// The counts are exact; findings lists at most checks.MaxListed of each
// code and severity, and omitted (left out when empty) says how many more
// of each there are (docs/semantics.md §7).
type JSON struct {
	Valid    bool             `json:"valid"`
	Errors   int              `json:"errors"`
	Warnings int              `json:"warnings"`
	Pending  int              `json:"pending"`
	Findings []checks.Finding `json:"findings"`
	Omitted  []OmittedJSON    `json:"omitted,omitempty"`
}

// OmittedJSON is how many findings of one code and severity the findings
// list leaves out, and the file the first of them is on.
type OmittedJSON struct {
	Code     string          `json:"code"`
	Severity checks.Severity `json:"severity"`
	Path     string          `json:"path"`
	Count    int             `json:"count"`
}

// newJSON builds the JSON form of findings; valid means no error finding.
func newJSON(findings []checks.Finding) JSON {
	c := checks.Count(findings)
	listed := make([]checks.Finding, 0, len(findings))
	var omitted []OmittedJSON
	for _, f := range findings {
		if f.Omitted > 0 {
			omitted = append(omitted, OmittedJSON{Code: string(f.Code), Severity: f.Severity, Path: f.Path, Count: f.Omitted})
			continue
		}
		listed = append(listed, f)
	}
	return JSON{Valid: c.Errors == 0, Errors: c.Errors, Warnings: c.Warnings, Pending: c.Pending, Findings: listed, Omitted: omitted}
}

// WriteJSON writes the JSON form of findings, indented.
func WriteJSON(w io.Writer, findings []checks.Finding) error {
	return writeIndented(w, newJSON(findings))
}

// CheckJSON is the action's judgement of one head: `pact-action check
// --local --format json`, and each run of the report file.
type CheckJSON struct {
	Conclusion string `json:"conclusion"`
	HeadSHA    string `json:"head_sha,omitempty"`
	CheckRunID int64  `json:"check_run_id,omitempty"`
	JSON
}

// Write writes the judgement as indented JSON.
func (j CheckJSON) Write(w io.Writer) error { return writeIndented(w, j) }

// NewCheckJSON builds the judgement of one head; head and the check run's
// id are left out when empty.
func NewCheckJSON(conclusion, head string, checkRunID int64, findings []checks.Finding) CheckJSON {
	return CheckJSON{Conclusion: conclusion, HeadSHA: head, CheckRunID: checkRunID, JSON: newJSON(findings)}
}

// ActionJSON is the action's report file (the report output): the
// strictest conclusion and one run per judged head.
type ActionJSON struct {
	Conclusion string    `json:"conclusion"`
	Runs       []RunJSON `json:"runs"`
}

// RunJSON is one judged head of the report file, with the pull request it
// was judged for (left out when none).
type RunJSON struct {
	PullRequest int `json:"pull_request,omitempty"`
	CheckJSON
}

// NewActionJSON starts a report file of the conclusion with no runs yet
// (an empty list, never null).
func NewActionJSON(conclusion string) ActionJSON {
	return ActionJSON{Conclusion: conclusion, Runs: []RunJSON{}}
}

// writeIndented writes v as JSON indented by two spaces, with a final
// newline.
func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
