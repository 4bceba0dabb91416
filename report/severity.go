package report

import "github.com/pact-action/pact-action/checks"

// severityWords is how each rendering names a severity: SARIF's level, a
// check-run annotation's level, the summary's icon, and what the severity
// blocks (SARIF rules' full descriptions).
type severityWords struct {
	sarif, annotation, icon, meaning string
}

// Annotation levels, as the Checks API names them (Annotation.Level).
const (
	LevelFailure = "failure"
	LevelWarning = "warning"
	LevelNotice  = "notice"
)

var bySeverity = map[checks.Severity]severityWords{
	checks.SeverityError:   {"error", LevelFailure, "❌ error", "An error: it fails validation and the pact check."},
	checks.SeverityPending: {"note", LevelNotice, "⏳ waiting", "Pending: the merge waits for reviews; it is not a violation."},
	checks.SeverityWarning: {"warning", LevelWarning, "⚠️ warning", "A warning: it blocks nothing."},
}

// words names s; a severity of a newer engine shows as a note, blocking
// nothing.
func words(s checks.Severity) severityWords {
	if w, ok := bySeverity[s]; ok {
		return w
	}
	return severityWords{"note", LevelNotice, "⚠️ warning", "Severity " + string(s) + "."}
}
