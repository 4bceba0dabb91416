package checks

import (
	"sort"

	"github.com/pact-action/pact-action/projection"
)

// Severity says what a finding blocks: an error fails validation and the
// check; pending blocks a merge without being a violation; a warning blocks
// nothing.
type Severity string

// Severities.
const (
	SeverityError   Severity = "error"
	SeverityPending Severity = "pending"
	SeverityWarning Severity = "warning"
)

// Codes this package adds to projection's replay codes (docs/semantics.md §6).
const (
	CodeDrift                projection.Code = "drift.state"
	CodeDriftMissing         projection.Code = "drift.missing_state"
	CodeTaskfileMismatch     projection.Code = "taskfile.mismatch"
	CodeTaskfileMissing      projection.Code = "taskfile.missing"
	CodeProjectHeader        projection.Code = "project.header"
	CodeLogRewritten         projection.Code = "log.rewritten"
	CodePRUnaccepted         projection.Code = "pr.unaccepted_feature"
	CodeProvenanceUnverified projection.Code = "provenance.unverified"
	CodeProvenanceStale      projection.Code = "provenance.stale"
	// CodeProvenanceFutureTS and CodePRUnmappedBranch are new codes
	// (docs/semantics.md §6 allows additions; §5 describes the second).
	CodeProvenanceFutureTS projection.Code = "provenance.future_ts"
	CodePRUnmappedBranch   projection.Code = "pr.unmapped_branch"
	// CodeConfigInvalid is ours (docs/semantics.md §6 allows new codes): the
	// repository's .github/pact.yml cannot be used.
	CodeConfigInvalid projection.Code = "config.invalid"
	// CodeMergeConflict is ours too: the log or STATE.yml holds git's
	// conflict markers, a merge in progress (docs/semantics.md §8).
	CodeMergeConflict projection.Code = "merge.conflict_markers"
)

// Finding is one judged defect, located where it can be.
type Finding struct {
	Code     projection.Code `json:"code"`
	Severity Severity        `json:"severity"`
	Path     string          `json:"path"`
	Line     int             `json:"line,omitempty"`
	EventID  string          `json:"event_id"`
	TaskID   string          `json:"task_id"`
	Feature  string          `json:"feature"`
	Message  string          `json:"message"`
	Hint     string          `json:"hint"`
	// Omitted is set on the one entry of a list that stands for the
	// findings of its code and severity left out past MaxListed
	// (docs/semantics.md §7): how many there are. Such an entry has no
	// line; its message says how many more. The JSON report lists these
	// apart, in its omitted field.
	Omitted int `json:"-"`
}

// AnnotatedLine is the line a finding is shown on where a line is required
// (check-run annotations, SARIF regions): its own, or line 1 of its file
// when it has none (drift, a missing file, init.missing at the end).
func (f Finding) AnnotatedLine() int {
	if f.Line < 1 {
		return 1
	}
	return f.Line
}

// Counts tallies findings by severity.
type Counts struct {
	Errors, Pending, Warnings int
}

// Total is the number of findings counted, of every severity.
func (c Counts) Total() int { return c.Errors + c.Pending + c.Warnings }

// Count tallies findings by severity, exactly: an entry that stands for
// omitted findings counts as many as it stands for.
func Count(findings []Finding) Counts {
	var c Counts
	for _, f := range findings {
		n := f.count()
		switch f.Severity {
		case SeverityError:
			c.Errors += n
		case SeverityPending:
			c.Pending += n
		case SeverityWarning:
			c.Warnings += n
		}
	}
	return c
}

// count is how many findings f stands for.
func (f Finding) count() int {
	if f.Omitted > 0 {
		return f.Omitted
	}
	return 1
}

// Sort orders findings for display: by path, then line (lineless last), then
// code. It is stable so equal findings keep their judged order.
func Sort(findings []Finding) {
	sort.SliceStable(findings, func(i, j int) bool {
		a, b := findings[i], findings[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			if a.Line == 0 || b.Line == 0 {
				return b.Line == 0
			}
			return a.Line < b.Line
		}
		return a.Code < b.Code
	})
}

// newFinding fills severity and hint from the code table.
func newFinding(code projection.Code, path string, line int, msg string) Finding {
	info := Describe(code)
	return Finding{Code: code, Severity: info.Severity, Path: path, Line: line, Message: msg, Hint: info.Hint}
}
