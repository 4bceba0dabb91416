package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/projection"
)

func TestAnnotationsPointAtALine(t *testing.T) {
	t.Parallel()
	anns := annotations([]checks.Finding{finding(checks.SeverityError, 0, "no line"), finding(checks.SeverityWarning, 7, "w"), finding(checks.SeverityPending, 3, "p")})
	want := []struct {
		line  int
		level string
	}{{1, "failure"}, {7, "warning"}, {3, "notice"}}
	for i, w := range want {
		if anns[i].Line != w.line || anns[i].Level != w.level {
			t.Errorf("annotation %d = line %d level %s, want line %d level %s", i, anns[i].Line, anns[i].Level, w.line, w.level)
		}
	}
}

func TestByImportanceOrdersErrorsThenWaitingThenWarnings(t *testing.T) {
	t.Parallel()
	in := []checks.Finding{finding(checks.SeverityWarning, 1, "w1"), finding(checks.SeverityPending, 2, "p"), finding(checks.SeverityError, 3, "e"), finding(checks.SeverityWarning, 4, "w2")}
	got := ByImportance(in)
	var order []string
	for _, f := range got {
		order = append(order, f.Message)
	}
	if strings.Join(order, ",") != "e,p,w1,w2" {
		t.Errorf("order = %v, want e,p,w1,w2", order)
	}
}

// A check run annotates at most MaxCheckRunAnnotations findings, the most
// important first; the summary counts the rest and no longer claims every
// finding is annotated.
func TestCheckRunAnnotationsAreCapped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		warnings, errors int
		wantLeft         int
	}{
		{warnings: 3, errors: 2},
		{warnings: 0, errors: MaxCheckRunAnnotations},
		{warnings: 100, errors: 100, wantLeft: 200 - MaxCheckRunAnnotations},
		{warnings: 10000, errors: 1, wantLeft: 10001 - MaxCheckRunAnnotations},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d warnings, %d errors", tt.warnings, tt.errors), func(t *testing.T) {
			t.Parallel()
			var fs []checks.Finding
			for i := range tt.warnings {
				fs = append(fs, finding(checks.SeverityWarning, i+1, "w"))
			}
			for i := range tt.errors {
				fs = append(fs, finding(checks.SeverityError, tt.warnings+i+1, "e"))
			}
			anns, left := CheckRunAnnotations(fs)
			if left != tt.wantLeft || len(anns) != len(fs)-tt.wantLeft {
				t.Fatalf("annotations %d, left %d; want %d, %d", len(anns), left, len(fs)-tt.wantLeft, tt.wantLeft)
			}
			for i, a := range anns {
				if wantErr := i < tt.errors; (a.Level == "failure") != wantErr {
					t.Fatalf("annotation %d is %s: errors must come first", i, a.Level)
				}
			}
			sum := Summary(Verdict{CheckName: "pact", Findings: fs, State: projection.NewState(), Unannotated: left})
			note := fmt.Sprintf("%d more finding(s) are not annotated", left)
			if strings.Contains(sum, note) != (left > 0) {
				t.Errorf("summary says %q: %v, want %v", note, strings.Contains(sum, note), left > 0)
			}
			if left > 0 && strings.Contains(sum, "every finding is annotated") {
				t.Error("the summary claims every finding is annotated")
			}
		})
	}
}

// A step without a check run writes at most MaxWorkflowAnnotations
// commands: errors first, and when some are left out, the last says how
// many.
func TestWorkflowAnnotationsLeaveRoomToSayWhatIsLeftOut(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		warnings, errors int
		wantAnns         int
		wantMore         string
	}{
		{warnings: 2, errors: 1, wantAnns: 3},
		{warnings: maxWorkflowAnnotations - 1, errors: 1, wantAnns: maxWorkflowAnnotations},
		{warnings: maxWorkflowAnnotations, errors: 1, wantAnns: maxWorkflowAnnotations - 1, wantMore: "pact: 2 more finding(s) are not annotated"},
	} {
		var fs []checks.Finding
		for i := range tt.warnings {
			fs = append(fs, finding(checks.SeverityWarning, i+1, "w"))
		}
		for i := range tt.errors {
			fs = append(fs, finding(checks.SeverityError, tt.warnings+i+1, "e"))
		}
		anns, more := WorkflowAnnotations(fs)
		if len(anns) != tt.wantAnns || (tt.wantMore == "") != (more == "") || !strings.Contains(more, tt.wantMore) {
			t.Errorf("%d warnings, %d errors: %d annotations, more %q; want %d, %q", tt.warnings, tt.errors, len(anns), more, tt.wantAnns, tt.wantMore)
		}
		if len(anns) > 0 && anns[0].Level != LevelFailure {
			t.Errorf("%d warnings, %d errors: the first annotation is %s, want the error", tt.warnings, tt.errors, anns[0].Level)
		}
	}
}
