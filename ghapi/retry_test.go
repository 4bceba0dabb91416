package ghapi_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

func TestRetry(t *testing.T) {
	t.Parallel()
	type fault struct {
		method, path string
		status       int
		header       http.Header
		times        int
	}
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	const prPath = "/repos/acme/widgets/pulls/1"
	tests := []struct {
		name   string
		faults []fault
		policy *ghapi.RetryPolicy
		// wantDelays bounds each recorded wait: [min, max] pairs.
		wantDelays   [][2]time.Duration
		wantRequests int
		wantErr      error
		wantMsg      []string
	}{
		{
			name:         "5xx then success",
			faults:       []fault{{"GET", prPath, 502, nil, 2}},
			wantDelays:   [][2]time.Duration{{500 * time.Millisecond, time.Second}, {time.Second, 2 * time.Second}},
			wantRequests: 3,
		},
		{
			name:         "secondary rate limit honours Retry-After",
			faults:       []fault{{"GET", prPath, 403, hdr("Retry-After", "7"), 1}},
			wantDelays:   [][2]time.Duration{{7 * time.Second, 7 * time.Second}},
			wantRequests: 2,
		},
		{
			name:         "429 honours Retry-After",
			faults:       []fault{{"GET", prPath, 429, hdr("Retry-After", "3"), 2}},
			wantDelays:   [][2]time.Duration{{3 * time.Second, 3 * time.Second}, {3 * time.Second, 3 * time.Second}},
			wantRequests: 3,
		},
		{
			name: "429 honours a Retry-After date",
			faults: []fault{{"GET", prPath, 429, hdr("Retry-After", clock.Add(5*time.Second).Format(http.TimeFormat),
				"Date", clock.Format(http.TimeFormat)), 1}},
			wantDelays:   [][2]time.Duration{{5 * time.Second, 5 * time.Second}},
			wantRequests: 2,
		},
		{
			// The reset time has a one-second resolution: one second of slack.
			name: "429 waits for x-ratelimit-reset",
			faults: []fault{{"GET", prPath, 429, hdr("X-Ratelimit-Remaining", "0",
				"X-Ratelimit-Reset", strconv.FormatInt(clock.Add(10*time.Second).Unix(), 10), "Date", clock.Format(http.TimeFormat)), 1}},
			wantDelays:   [][2]time.Duration{{11 * time.Second, 11 * time.Second}},
			wantRequests: 2,
		},
		{
			name:         "429 without headers waits a minute capped by MaxDelay",
			faults:       []fault{{"GET", prPath, 429, nil, 1}},
			wantDelays:   [][2]time.Duration{{30 * time.Second, 30 * time.Second}},
			wantRequests: 2,
		},
		{
			name:         "403 secondary rate limit message without headers",
			faults:       []fault{{"GET", prPath, 403, nil, 1}},
			wantDelays:   [][2]time.Duration{{30 * time.Second, 30 * time.Second}},
			wantRequests: 2,
		},
		{
			name:         "5xx Retry-After honoured",
			faults:       []fault{{"GET", prPath, 503, hdr("Retry-After", "5"), 1}},
			wantDelays:   [][2]time.Duration{{5 * time.Second, 5 * time.Second}},
			wantRequests: 2,
		},
		{
			name:         "gives up after max attempts",
			faults:       []fault{{"GET", prPath, 503, nil, 10}},
			wantDelays:   [][2]time.Duration{{500 * time.Millisecond, time.Second}, {time.Second, 2 * time.Second}, {2 * time.Second, 4 * time.Second}},
			wantRequests: 4,
			wantMsg:      []string{"gave up after 4 attempts over", "max 4 attempts", "last status 503 Service Unavailable", "Server Error"},
		},
		{
			name:         "gives up at once when Retry-After exceeds MaxDelay",
			faults:       []fault{{"GET", prPath, 403, hdr("Retry-After", "3600"), 1}},
			wantRequests: 1,
			wantErr:      ghapi.ErrRateLimited,
			wantMsg:      []string{"gave up after 1 attempt over", "server asked to wait 1h0m0s", "last status 403 Forbidden", "secondary rate limit"},
		},
		{
			name:         "gives up when MaxElapsed would be exceeded",
			faults:       []fault{{"GET", prPath, 503, hdr("Retry-After", "3"), 10}},
			policy:       &ghapi.RetryPolicy{MaxAttempts: 10, BaseDelay: time.Second, MaxDelay: 10 * time.Second, MaxElapsed: 7 * time.Second},
			wantDelays:   [][2]time.Duration{{3 * time.Second, 3 * time.Second}, {3 * time.Second, 3 * time.Second}},
			wantRequests: 3,
			wantMsg:      []string{"gave up after 3 attempts over 6s", "next wait would exceed the 7s limit", "last status 503"},
		},
		{
			name:         "501 is not retried",
			faults:       []fault{{"GET", prPath, 501, nil, 1}},
			wantRequests: 1,
			wantMsg:      []string{"501"},
		},
		{
			name:         "404 is not retried",
			faults:       []fault{{"GET", prPath, 404, nil, 1}},
			wantRequests: 1,
			wantErr:      ghapi.ErrNotFound,
		},
		{
			name:         "MaxAttempts 1 disables retries",
			faults:       []fault{{"GET", prPath, 502, nil, 1}},
			policy:       &ghapi.RetryPolicy{MaxAttempts: 1},
			wantRequests: 1,
			wantMsg:      []string{"gave up after 1 attempt over", "last status 502"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakegithub.New(t)
			seedRepo(t, srv)
			srv.CommitFiles(owner, repo, "topic", map[string]string{"a": "1"}, "bob")
			n := srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "topic", Base: "main"})
			for _, f := range tt.faults {
				srv.FailNext(f.method, f.path, f.status, f.header, f.times)
			}
			c, sl := newClient(t, srv, func(o *ghapi.Options) {
				if tt.policy != nil {
					o.Retry = *tt.policy
				}
			})
			pr, err := c.PullRequest(context.Background(), n)
			failing := tt.wantErr != nil || tt.wantMsg != nil
			switch {
			case failing && err == nil:
				t.Fatalf("PullRequest succeeded, want an error")
			case !failing && err != nil:
				t.Fatalf("PullRequest: %v", err)
			case !failing && pr.Number != n:
				t.Fatalf("PullRequest = %+v", pr)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("error = %v, want %v", err, tt.wantErr)
			}
			for _, m := range tt.wantMsg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not contain %q", err, m)
				}
			}
			delays := sl.all()
			if len(delays) != len(tt.wantDelays) {
				t.Fatalf("waits = %v, want %d waits", delays, len(tt.wantDelays))
			}
			for i, d := range delays {
				if b := tt.wantDelays[i]; d < b[0] || d > b[1] {
					t.Errorf("wait %d = %v, want within [%v, %v]", i, d, b[0], b[1])
				}
			}
			if got := srv.CountRequests("GET", prPath); got != tt.wantRequests {
				t.Errorf("requests = %d, want %d", got, tt.wantRequests)
			}
		})
	}
}

func TestRetryErrorDetails(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	srv.FailNext("GET", "/repos/acme/widgets/collaborators/alice/permission", 502, nil, 99)
	c, _ := newClient(t, srv)
	_, err := c.Permission(context.Background(), "alice")
	var re *ghapi.RetryError
	if !errors.As(err, &re) {
		t.Fatalf("error %v is not a *RetryError", err)
	}
	if re.Attempts != 4 || re.LastStatus != 502 || re.Method != "GET" || re.Elapsed <= 0 || errors.Is(err, ghapi.ErrRateLimited) {
		t.Errorf("RetryError = %+v", re)
	}
	if strings.HasSuffix(err.Error(), ".") || strings.Contains(err.Error(), `Get "`) {
		t.Errorf("error message %q ends with a period or keeps the url.Error wrapper", err)
	}
}

func TestRetryReplaysRequestBodies(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	head := seedRepo(t, srv)
	srv.FailNext("POST", "/repos/acme/widgets/check-runs", 500, nil, 1)
	srv.FailNext("PATCH", "/repos/acme/widgets/check-runs/*", 502, nil, 2)
	srv.FailNext("POST", "/repos/acme/widgets/git/*", 503, nil, 3)
	c, sl := newClient(t, srv)
	ctx := context.Background()

	created, err := c.CreateCheckRun(ctx, ghapi.CheckRun{Name: "pact", HeadSHA: head})
	id := created.ID
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CompleteCheckRun(ctx, id, "success", ghapi.Output{Title: "t", Summary: "s", Annotations: annotations(60)}); err != nil {
		t.Fatal(err)
	}
	runs := srv.CheckRuns(head)
	if len(runs) != 1 || runs[0].Name != "pact" || len(runs[0].Annotations) != 60 || runs[0].Conclusion != "success" {
		t.Fatalf("check runs = %+v", runs)
	}
	sha, err := c.CommitFiles(ctx, "main", head, map[string]ghapi.File{"f": {[]byte("content")}}, "m")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := srv.FileAt(sha, "f"); got != "content" {
		t.Errorf("committed content = %q", got)
	}
	if len(sl.all()) != 6 {
		t.Errorf("waits = %v, want 6", sl.all())
	}
}

func TestRetryStopsWhenContextIsCanceled(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	srv.FailNext("GET", "/repos/acme/widgets/collaborators/alice/permission", 503, nil, 5)
	ctx, cancel := context.WithCancel(context.Background())
	c, _ := newClient(t, srv, func(o *ghapi.Options) {
		o.Sleep = func(ctx context.Context, d time.Duration) error {
			cancel()
			return ctx.Err()
		}
	})
	_, err := c.Permission(ctx, "alice")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if n := srv.CountRequests("GET", "/repos/acme/widgets/collaborators/alice/permission"); n != 1 {
		t.Errorf("requests = %d, want 1", n)
	}
}

func TestRetryIsLogged(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	srv.FailNext("GET", "/repos/acme/widgets/collaborators/alice/permission", 503, nil, 1)
	var buf bytes.Buffer
	c, _ := newClient(t, srv, func(o *ghapi.Options) {
		o.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	})
	if _, err := c.Permission(context.Background(), "alice"); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "retrying") || !strings.Contains(out, "status=503") || !strings.Contains(out, "attempt=1") {
		t.Errorf("log = %q", out)
	}
}

// A Retry-After of an hour is refused at once (TestRetry); one within
// MaxDelay but past the caller's deadline is slept until the deadline,
// whose own message (PACT_TIMEOUT, PACT_RUN_TIMEOUT) the caller then gives
// (TestBinaryHungGitHub).
//
// The runner's clock off GitHub's: a primary rate limit's reset six
// seconds away on GitHub's clock (the fake dates its answers by its own
// clock, as GitHub does) is waited out for those six seconds and the one
// of slack, whether the runner is in step, minutes ahead (where the reset
// read as past sent four more requests at once, and the request failed)
// or behind (where it read as minutes away, over the longest wait, and
// the request failed at once). An hour off changes nothing either.
func TestRetryClockSkew(t *testing.T) {
	t.Parallel()
	const path = "/repos/acme/widgets/collaborators/alice/permission"
	for name, skew := range map[string]time.Duration{
		"runner in step":             0,
		"runner ahead by 2 minutes":  2 * time.Minute,
		"runner behind by 2 minutes": -2 * time.Minute,
		"runner ahead by an hour":    time.Hour,
		"runner behind by an hour":   -time.Hour,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := fakegithub.New(t)
			seedRepo(t, srv)
			github := srv.Now()
			reset := strconv.FormatInt(github.Add(6*time.Second).Unix(), 10)
			srv.FailNext("GET", path, 429, http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {reset}}, 1)
			c, sl := newClient(t, srv, func(o *ghapi.Options) { o.Now = func() time.Time { return github.Add(skew) } })

			if _, err := c.Permission(context.Background(), "alice"); err != nil {
				t.Fatalf("Permission: %v", err)
			}
			if waits := sl.all(); len(waits) != 1 || waits[0] != 7*time.Second {
				t.Errorf("waits = %v, want one of 7s (the reset, and a second of slack)", waits)
			}
			if n := srv.CountRequests("GET", path); n != 2 {
				t.Errorf("requests = %d, want 2", n)
			}
		})
	}
}

// TestRateLimitGateNotOnRunnersClock: the last request a primary rate
// limit allows succeeds saying none remain; the next one is sent (and a
// rate-limited answer would be waited out on GitHub's clock), not refused
// by go-github without a request until its reset has passed on the
// runner's clock.
func TestRateLimitGateNotOnRunnersClock(t *testing.T) {
	t.Parallel()
	const path = "/repos/acme/widgets/collaborators/alice/permission"
	// go-github's gate compares the reset with time.Now: GitHub's clock
	// here is the machine's.
	srv := fakegithub.New(t, fakegithub.WithClock(time.Now()))
	seedRepo(t, srv)
	srv.SetPermission("alice", fakegithub.Write)
	reset := strconv.FormatInt(srv.Now().Add(time.Hour).Unix(), 10)
	srv.Inject(fakegithub.Fault{Method: "GET", Path: path, Serve: true,
		Header: http.Header{"X-Ratelimit-Limit": {"1000"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {reset}}})
	c, _ := newClient(t, srv, func(o *ghapi.Options) { o.Now = time.Now })

	for i := range 2 {
		if _, err := c.Permission(context.Background(), "alice"); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	if n := srv.CountRequests("GET", path); n != 2 {
		t.Errorf("requests = %d, want 2: the second was refused without being sent", n)
	}
}
