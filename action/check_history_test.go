package action_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/testkit/e2e"
)

// TestCheckRewrittenHistory: the merge base's lines must be an exact prefix
// of the head's.
func TestCheckRewrittenHistory(t *testing.T) {
	t.Parallel()
	// Lines: 1 init, 2 assign T1, 3 assign T2 (another branch), 4 join,
	// 5 checkpoint T1.
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev").Assign("T2", "OTHER", "feat/other", "dev", "rev").
		Join("dev").Checkpoint("dev", "T1", "LOGIN")
	accept := base.Copy().Accept("rev", "T1", "LOGIN").Lines[5]
	lines := func(ls ...string) *e2e.Log { return &e2e.Log{Lines: ls} }
	b := base.Lines
	tests := []struct {
		name     string
		head     *e2e.Log
		want     []string
		wantLine int
		wantMsg  string
	}{
		{name: "line edited", head: lines(b[0], b[1], b[2], b[3], strings.Replace(b[4], "tests pass", "tests pass, honestly", 1), accept),
			want: sorted("log.rewritten"), wantLine: 5, wantMsg: "line 5 of the merge-base log was changed"},
		{name: "line deleted", head: lines(b[0], b[1], b[3], b[4], accept),
			want: sorted("log.rewritten"), wantLine: 3},
		{name: "lines reordered", head: lines(b[0], b[2], b[1], b[3], b[4], accept),
			want: sorted("log.rewritten"), wantLine: 2},
		{name: "line inserted before the end", head: lines(b[0], b[1], b[2], b[3], accept, b[4]),
			want: sorted("log.rewritten"), wantLine: 5, wantMsg: "a line was inserted before line 5"},
		{name: "tail truncated", head: lines(b[0], b[1], b[2], b[3]),
			want: sorted("log.rewritten", "pr.unaccepted_feature"), wantLine: 4, wantMsg: "line 5 and every line after it were deleted"},
		{name: "CRLF line terminators are not a rewrite", head: lines(b[0]+"\r", b[1]+"\r", b[2]+"\r", b[3]+"\r", b[4]+"\r", accept),
			want: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			sc := seedPR(t, s, base.Files(), tc.head.Files(), "feat/login")

			out := sc.check(t).only(t)

			fs := out.Findings
			if got := codes(fs); !slices.Equal(got, tc.want) {
				t.Fatalf("codes = %v, want %v\n%v", got, tc.want, fs)
			}
			if len(tc.want) == 0 {
				run := onlyRun(t, s, sc.headSHA, "pact", "success")
				checkOutcome(t, out, run, sc.number, 0, 0, 0)
				return
			}
			for _, f := range fs {
				if f.Code == "log.rewritten" && (f.Path != logPath || f.Line != tc.wantLine || f.Severity != checks.SeverityError || !strings.Contains(f.Message, tc.wantMsg)) {
					t.Errorf("log.rewritten at %s:%d (%s) %q; want %s:%d containing %q", f.Path, f.Line, f.Severity, f.Message, logPath, tc.wantLine, tc.wantMsg)
				}
			}
			run := onlyRun(t, s, sc.headSHA, "pact", "failure")
			checkAnnotations(t, run, fs)
			c := checks.Count(fs)
			checkOutcome(t, out, run, sc.number, c.Errors, 0, c.Pending)
			checkSummaryFindings(t, run.Summary, fs)
			if !strings.Contains(run.Text, "`log.rewritten`") {
				t.Errorf("summary or text lacks the code:\n%s\n%s", run.Summary, run.Text)
			}
			noViolations(t, s)
		})
	}
}
