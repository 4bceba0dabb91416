package action_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/projection"
)

// Check mode where GitHub is not cooperative: server errors, rate limits,
// retries that give up, files too large for the usual endpoints.

// TestCheckAPI5xxThenSuccess: transient server errors on every kind of call
// are retried, and the verdict is the same as without them.
func TestCheckAPI5xxThenSuccess(t *testing.T) {
	t.Parallel()
	retryAfter := http.Header{"Retry-After": []string{"1"}}
	tests := []struct {
		name, method, path string
		status             int
		header             http.Header
		times              int
	}{
		{name: "compare 502 twice", method: "GET", path: repoPath + "/compare/*", status: 502, times: 2},
		{name: "graphql 500", method: "POST", path: "/graphql", status: 500, times: 1},
		{name: "create check run 503 with Retry-After", method: "POST", path: repoPath + "/check-runs", status: 503, header: retryAfter, times: 1},
		{name: "complete check run 504", method: "PATCH", path: repoPath + "/check-runs/*", status: 504, times: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
			head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN")
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")
			s.FailNext(tc.method, tc.path, tc.status, tc.header, tc.times)

			res := sc.check(t)
			out := res.only(t)

			if got := faults(s); got != tc.times {
				t.Errorf("injected answers served = %d, want %d", got, tc.times)
			}
			if len(res.waits) != tc.times {
				t.Errorf("waited %d times (%v), want once per failed attempt", len(res.waits), res.waits)
			}
			if !strings.Contains(res.log, "github request failed, retrying") || !strings.Contains(res.log, fmt.Sprintf("status=%d", tc.status)) {
				t.Errorf("the retry is not logged:\n%s", res.log)
			}
			run := onlyRun(t, s, sc.headSHA, "pact", "action_required")
			if got := codes(out.Findings); !slices.Equal(got, []string{"pr.unaccepted_feature"}) {
				t.Errorf("codes = %v", got)
			}
			checkAnnotations(t, run, out.Findings)
			checkOutcome(t, out, run, sc.number, 0, 0, 1)
			noViolations(t, s)
		})
	}
}

// TestCheckSecondaryRateLimit: a secondary rate limit (403 or 429 with
// Retry-After) is waited out, then the run goes on.
func TestCheckSecondaryRateLimit(t *testing.T) {
	t.Parallel()
	// GitHub answers a GraphQL primary rate limit with 200 and an error.
	graphQLLimited := []byte(`{"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded for installation ID 1."}]}`)
	for _, status := range []int{403, 429, 200} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
			head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")
			// The check run creation and the read of the head's pact
			// (GraphQL) each hit the limit.
			s.FailNext("POST", repoPath+"/check-runs", max(status, 403), http.Header{"Retry-After": []string{"1"}}, 1)
			fault := fakegithub.Fault{Method: "POST", Path: "/graphql", Status: status, Header: http.Header{"Retry-After": []string{"1"}}}
			if status == 200 {
				fault.Body = graphQLLimited
			}
			s.Inject(fault)

			res := sc.check(t)
			out := res.only(t)

			if got := faults(s); got != 2 {
				t.Errorf("rate-limited answers served = %d, want 2", got)
			}
			if len(res.waits) != 2 || res.waits[0] < time.Second || res.waits[1] < time.Second {
				t.Errorf("waits = %v: did not honour Retry-After: 1 twice", res.waits)
			}
			if !strings.Contains(res.log, "rate_limited=true") {
				t.Errorf("the rate limit is not logged:\n%s", res.log)
			}
			if out.Fallback {
				t.Errorf("a rate-limited 403 was taken for a read-only token: %s", out.FallbackReason)
			}
			run := onlyRun(t, s, sc.headSHA, "pact", "success")
			if got := s.CountRequests("POST", repoPath+"/check-runs"); got != 2 {
				t.Errorf("create check run sent %d times, want 2 (limited, then created)", got)
			}
			checkOutcome(t, out, run, sc.number, 0, 0, 0)
			noViolations(t, s)
		})
	}
}

// TestCheckGivesUpLeavesRunFailed: when retries give up mid-way, the check
// run is completed as failed with the error (never left in_progress), and
// the run fails with one sentence saying what gave up (the binary's exit 2:
// TestBinaryOperationalErrors).
func TestCheckGivesUpLeavesRunFailed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, method, path string
		skip               int // requests let through first
		times              int // default: every request
		want               string
		gaveUp             string // default: the transport's "gave up after 5 attempts"
	}{
		{name: "compare", method: "GET", path: repoPath + "/compare/*", want: "find the merge base of"},
		{name: "the head's pact", method: "POST", path: "/graphql", want: "read .pact/log.jsonl, .pact/STATE.yml"},
		// The second GraphQL request reads the merge base's log and tasks/
		// listing (the pull request changes no task file, so none is read
		// by blob id in between).
		{name: "the merge base's log", method: "POST", path: "/graphql", skip: 1, want: "read the merge base"},
		// Completing fails three times (each a patch of its own, after
		// reading that the run is not completed); failing the run on the
		// way out, the third request goes through.
		{name: "complete check run", method: "PATCH", path: repoPath + "/check-runs/*", times: 5, want: "post the verdict to check run",
			gaveUp: "3 attempts"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
			head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")
			times := tc.times
			if times == 0 {
				times = 100
			}
			s.Inject(fakegithub.Fault{Method: tc.method, Path: tc.path, Status: 500, Header: http.Header{"Retry-After": []string{"1"}}, Times: times, Skip: tc.skip})

			err := sc.check(t).failed(t)
			gaveUp := tc.gaveUp
			if gaveUp == "" {
				gaveUp = "gave up after 5 attempts"
			}

			if got := faults(s); got != 5 {
				t.Errorf("attempts = %d, want 5 (the default policy)", got)
			}
			runs := s.CheckRuns(sc.headSHA)
			if len(runs) != 1 {
				t.Fatalf("check runs = %d, want 1", len(runs))
			}
			r := runs[0]
			if r.Status != "completed" || r.Conclusion != "failure" || r.Title != "pact-action failed" {
				t.Errorf("check run left %s/%s %q", r.Status, r.Conclusion, r.Title)
			}
			if !strings.Contains(r.Summary, "pact-action stopped before it finished judging this commit") || !strings.Contains(r.Summary, tc.want) ||
				!strings.Contains(r.Summary, gaveUp) {
				t.Errorf("check run summary does not carry the error:\n%s", r.Summary)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, tc.want) || !strings.Contains(msg, gaveUp) || !strings.Contains(msg, "500") {
				t.Errorf("error is not one clear line: %q", msg)
			}
			noViolations(t, s)
		})
	}
}

// TestCheckRateLimitTooLong: a rate limit asking for a longer wait than the
// policy allows gives up at once with a clear message; it is not mistaken for
// a read-only token.
func TestCheckRateLimitTooLong(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	sc := seedPR(t, s, base.Files(), base.Copy().Join("dev").Files(), "feat/login")
	s.FailNext("POST", repoPath+"/check-runs", 403, http.Header{"Retry-After": []string{"600"}}, 1)

	res := sc.check(t)
	err := res.failed(t)

	if len(res.waits) != 0 {
		t.Errorf("waited %v for a limit it was going to give up on", res.waits)
	}
	if len(res.outcomes) != 0 {
		t.Errorf("a rate limit was taken for a read-only token: %+v", res.outcomes)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, `create the "pact" check run on `) || !strings.Contains(msg, "server asked to wait 10m0s") {
		t.Errorf("error = %q", msg)
	}
	if len(s.CheckRuns(sc.headSHA)) != 0 {
		t.Error("a check run was created")
	}
	noViolations(t, s)
}

// TestCheckLargeLog: logs over 1 MB are read, through the raw media type or,
// when even that refuses them, through the blobs API.
func TestCheckLargeLog(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat("x", 60<<10)
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	for i := range 20 { // ~1.2 MB of lines of an unknown type, ignored
		base.Raw(draft(t, 100+i, "dev", "note", "", "", map[string]any{"text": pad}))
	}
	head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
	if len(base.Text()) <= 1<<20 {
		t.Fatalf("the base log is only %d bytes", len(base.Text()))
	}
	tests := []struct {
		name  string
		opts  []fakegithub.Option
		blobs bool
	}{
		{name: "raw media type"},
		{name: "blobs fallback", opts: []fakegithub.Option{fakegithub.WithRawContentLimit(512 << 10)}, blobs: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t, tc.opts...)
			sc := seedPR(t, s, base.Files(), head.Files(), "feat/login")

			out := sc.check(t).only(t)

			fs := out.Findings
			// The second accept (line 26) proves the whole log was read.
			if len(fs) != 1 || fs[0].Code != projection.CodeInvalidTransition || fs[0].Line != 26 {
				t.Fatalf("findings = %+v, want state.invalid_transition on line 26", fs)
			}
			run := onlyRun(t, s, sc.headSHA, "pact", "failure")
			checkAnnotations(t, run, fs)
			checkOutcome(t, out, run, sc.number, 1, 0, 0)
			// GraphQL cuts Blob.text at 512,000 bytes: the head log and the
			// merge base's (read with the listing of its tasks/) are read by
			// their blob ids, whatever the raw media type would serve.
			if blobReads := s.CountRequests("GET", repoPath+"/git/blobs/*"); blobReads != 2 {
				t.Errorf("blob reads = %d, want 2 (the head log and the merge-base log)", blobReads)
			}
			noViolations(t, s)
		})
	}
}
