package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/projection"
)

// TestOmittedErrorsStillFail: findings the listing leaves out are only
// counted, in one entry per code and severity (docs/semantics.md §7).
// Whatever is listed — here nothing but a hundred warnings of the same
// code — every verdict counts the omitted errors: the conclusion, the
// title, the summary, validate's verdict line, the JSON report's valid and
// errors, and the entry is annotated first.
func TestOmittedErrorsStillFail(t *testing.T) {
	t.Parallel()
	code := projection.CodeMalformedJSON
	var findings []checks.Finding
	for i := range checks.MaxListed {
		findings = append(findings, checks.Finding{Code: code, Severity: checks.SeverityWarning, Path: ".pact/log.jsonl", Line: i + 1, Message: "harmless"})
	}
	findings = append(findings, checks.Finding{Code: code, Severity: checks.SeverityError, Path: ".pact/log.jsonl", Omitted: 5000,
		Message: "5000 more findings with this code not listed"})

	if c := Conclusion(findings); c != ConclusionFailure {
		t.Errorf("conclusion %s", c)
	}
	if got := Title(findings); got != "5000 violations — merge blocked" {
		t.Errorf("title %q", got)
	}
	if got := verdictLine(findings); !strings.HasPrefix(got, "invalid: 5000 errors, 100 warnings") {
		t.Errorf("verdict line %q", got)
	}
	if s := Summary(Verdict{CheckName: "pact", Findings: findings}); !strings.Contains(s, "## ❌ pact: 5000 violations") || !strings.Contains(s, "5000 error(s), 0 waiting, 100 warning(s)") {
		t.Errorf("summary:\n%s", s)
	}
	j := newJSON(findings)
	if j.Valid || j.Errors != 5000 || j.Warnings != 100 || len(j.Findings) != 100 || len(j.Omitted) != 1 || j.Omitted[0].Count != 5000 {
		t.Errorf("JSON valid %v, errors %d, warnings %d, %d listed, omitted %+v", j.Valid, j.Errors, j.Warnings, len(j.Findings), j.Omitted)
	}
	anns, _ := WorkflowAnnotations(findings)
	if len(anns) == 0 || anns[0].Level != LevelFailure || !strings.Contains(anns[0].Message, "5000 more") {
		t.Errorf("the first workflow annotation is %+v", anns[0])
	}
	var text bytes.Buffer
	if err := WriteText(&text, findings); err != nil || !strings.Contains(text.String(), "5000 more findings") {
		t.Errorf("validate's text lacks the omitted entry (%v)", err)
	}
}
