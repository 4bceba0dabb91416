package report

import (
	"fmt"
	"slices"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/prose"
)

// Annotation is one line annotation, in the check run's terms.
type Annotation struct {
	Path    string
	Line    int
	Level   string // LevelFailure, LevelWarning or LevelNotice
	Title   string
	Message string
}

// annotations turns every finding into an annotation, on its
// AnnotatedLine since GitHub needs a line; GitHub shows their text as it
// is, so what someone else wrote goes through PlainText.
func annotations(findings []checks.Finding) []Annotation {
	out := make([]Annotation, 0, len(findings))
	for _, f := range findings {
		// A task file's path holds its task id: GitHub shows it above the
		// message, so its hidden characters are written out too (such a
		// path then names no file, and the annotation shows on the check
		// run only).
		out = append(out, Annotation{Path: PlainText(f.Path), Line: f.AnnotatedLine(), Level: words(f.Severity).annotation,
			Title: PlainText(fmt.Sprintf("%s (%s)", f.Code, f.Severity)), Message: PlainText(prose.OneLine(f.Message)) + "\nHint: " + PlainText(f.Hint)})
	}
	return out
}

// ByImportance orders findings for places that show only a few: errors,
// then waiting, then warnings, each in file order.
func ByImportance(findings []checks.Finding) []checks.Finding {
	rank := map[checks.Severity]int{checks.SeverityError: 0, checks.SeverityPending: 1, checks.SeverityWarning: 2}
	out := append([]checks.Finding(nil), findings...)
	slices.SortStableFunc(out, func(a, b checks.Finding) int { return rank[a.Severity] - rank[b.Severity] })
	return out
}

// MaxCheckRunAnnotations is how many findings a check run annotates: three
// requests of the 50 annotations GitHub takes per request. GitHub's Checks
// API reference gives no number it displays per check run (only 50 per
// request, and 10 warning and 10 error annotations per step for workflow
// commands), so a few requests bound what a run costs; the summary counts
// the rest and the JSON report lists them.
const MaxCheckRunAnnotations = 150

// CheckRunAnnotations are the annotations a check run carries: the most
// important findings (ByImportance), at most MaxCheckRunAnnotations;
// left is how many findings are not annotated (an entry standing for
// omitted ones counts as many).
func CheckRunAnnotations(findings []checks.Finding) (anns []Annotation, left int) {
	ordered := ByImportance(findings)
	if len(ordered) > MaxCheckRunAnnotations {
		left = checks.Count(ordered[MaxCheckRunAnnotations:]).Total()
		ordered = ordered[:MaxCheckRunAnnotations]
	}
	return annotations(ordered), left
}

// maxWorkflowAnnotations is how many error, warning and notice commands
// GitHub shows per step; the fallback summarises the rest in one line.
const maxWorkflowAnnotations = 10

// WorkflowAnnotations are the workflow commands a step without a check run
// (a read-only token) writes: the most important findings, errors first,
// one fewer than GitHub shows when some must be left out, so the last line
// (more, "" when none are left out) can say how many.
func WorkflowAnnotations(findings []checks.Finding) (anns []Annotation, more string) {
	ordered := ByImportance(findings)
	if len(ordered) > maxWorkflowAnnotations {
		keep := maxWorkflowAnnotations - 1
		more = fmt.Sprintf("pact: %d more finding(s) are not annotated (GitHub shows %d per step); the job summary and the JSON report list them", checks.Count(ordered[keep:]).Total(), maxWorkflowAnnotations)
		ordered = ordered[:keep]
	}
	return annotations(ordered), more
}
