package ghapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestBackoffBounds(t *testing.T) {
	t.Parallel()
	p := RetryPolicy{MaxAttempts: 10, BaseDelay: time.Second, MaxDelay: 10 * time.Second, MaxElapsed: time.Hour}
	tests := []struct {
		name    string
		jitter  float64
		attempt int
		want    time.Duration
	}{
		{name: "first retry, no jitter", jitter: 0, attempt: 1, want: 500 * time.Millisecond},
		{name: "first retry, full jitter", jitter: 1, attempt: 1, want: time.Second},
		{name: "third retry", jitter: 0.5, attempt: 3, want: 3 * time.Second},
		{name: "capped by MaxDelay", jitter: 1, attempt: 8, want: 10 * time.Second},
		{name: "capped, no jitter", jitter: 0, attempt: 60, want: 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rt := newRetryTransport(nil, p, nil, nil)
			rt.jitter = func() float64 { return tt.jitter }
			if got := rt.backoff(tt.attempt); got != tt.want {
				t.Errorf("backoff(%d) = %v, want %v", tt.attempt, got, tt.want)
			}
		})
	}
}

func TestTransportErrorsRetryOnlySafeMethods(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method    string
		graphQL   bool // a GraphQL query: a read sent as a POST
		wantCalls int32
	}{
		{http.MethodGet, false, 3},
		{http.MethodHead, false, 3},
		{http.MethodPost, false, 1},
		{http.MethodPatch, false, 1},
		{http.MethodPost, true, 3},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s graphql=%v", tt.method, tt.graphQL), func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				calls.Add(1)
				return nil, errors.New("connection reset by peer")
			})
			rt := newRetryTransport(base, RetryPolicy{MaxAttempts: 3}, func(context.Context, time.Duration) error { return nil }, nil)
			ctx := context.Background()
			if tt.graphQL {
				ctx = context.WithValue(ctx, graphQLKey{}, true)
			}
			req, _ := http.NewRequestWithContext(ctx, tt.method, "http://example.invalid/x", nil)
			resp, err := rt.RoundTrip(req)
			if err == nil {
				_ = resp.Body.Close() // the test has failed already
				t.Fatal("RoundTrip succeeded")
			}
			if got := calls.Load(); got != tt.wantCalls {
				t.Errorf("calls = %d, want %d", got, tt.wantCalls)
			}
		})
	}
}

// TestRateLimitWaitOnGitHubsClock: a rate limit's mandated wait, as
// classify reads it from an answer, is measured on GitHub's clock (the
// answer's Date) whatever the runner's, which counts only where the answer
// has no Date or one that does not parse. A Retry-After in seconds needs
// no clock.
func TestRateLimitWaitOnGitHubsClock(t *testing.T) {
	t.Parallel()
	github := time.Date(2026, time.March, 2, 9, 30, 0, 0, time.UTC)
	epoch := func(d time.Duration) string { return strconv.FormatInt(github.Add(d).Unix(), 10) }
	httpDate := func(d time.Duration) string { return github.Add(d).Format(http.TimeFormat) }
	const (
		primary   = `{"message":"API rate limit exceeded for installation ID 1."}`
		secondary = `{"message":"You have exceeded a secondary rate limit."}`
	)
	tests := []struct {
		name   string
		status int
		header http.Header
		body   string
		skew   time.Duration // the runner's clock minus GitHub's
		// want is the mandated wait; minWait, a floor when none is.
		want, minWait time.Duration
		noWait        bool
	}{
		{name: "reset, runner in step", status: 403, header: http.Header{"Date": {httpDate(0)}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {epoch(6 * time.Second)}},
			body: primary, want: 7 * time.Second},
		{name: "reset, runner 2 minutes ahead", status: 403, header: http.Header{"Date": {httpDate(0)}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {epoch(6 * time.Second)}},
			body: primary, skew: 2 * time.Minute, want: 7 * time.Second},
		{name: "reset, runner 2 minutes behind", status: 429, header: http.Header{"Date": {httpDate(0)}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {epoch(6 * time.Second)}},
			skew: -2 * time.Minute, want: 7 * time.Second},
		{name: "reset past on GitHub's clock", status: 403, header: http.Header{"Date": {httpDate(0)}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {epoch(-5 * time.Second)}},
			body: primary, skew: -2 * time.Minute, want: 0},
		{name: "Date in RFC 850 form", status: 429, header: http.Header{"Date": {github.Format(time.RFC850)}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {epoch(6 * time.Second)}},
			skew: time.Hour, want: 7 * time.Second},
		{name: "no Date: the runner's clock, in step", status: 429, header: http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {epoch(6 * time.Second)}},
			want: 7 * time.Second},
		{name: "no Date: the runner's clock, 2 minutes behind", status: 429, header: http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {epoch(6 * time.Second)}},
			skew: -2 * time.Minute, want: 2*time.Minute + 7*time.Second},
		{name: "garbled Date: the runner's clock", status: 429, header: http.Header{"Date": {"yesterday"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {epoch(6 * time.Second)}},
			skew: 2 * time.Minute, want: 0},
		{name: "Retry-After seconds: no clock", status: 403, header: http.Header{"Date": {httpDate(-time.Hour)}, "Retry-After": {"4"}},
			body: secondary, skew: 2 * time.Minute, want: 4 * time.Second},
		{name: "Retry-After before x-ratelimit-reset", status: 429, header: http.Header{"Date": {httpDate(0)}, "Retry-After": {"4"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {epoch(50 * time.Second)}},
			skew: -2 * time.Minute, want: 4 * time.Second},
		{name: "Retry-After date, runner ahead", status: 429, header: http.Header{"Date": {httpDate(0)}, "Retry-After": {httpDate(5 * time.Second)}},
			skew: 2 * time.Minute, want: 5 * time.Second},
		{name: "Retry-After date, runner behind", status: 503, header: http.Header{"Date": {httpDate(0)}, "Retry-After": {httpDate(5 * time.Second)}},
			skew: -2 * time.Minute, want: 5 * time.Second},
		{name: "reset while requests remain: a secondary limit", status: 403, header: http.Header{"Date": {httpDate(0)}, "X-Ratelimit-Remaining": {"12"}, "X-Ratelimit-Reset": {epoch(6 * time.Second)}},
			body: secondary, skew: 2 * time.Minute, noWait: true, minWait: secondaryRateLimitMinWait},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rt := newRetryTransport(nil, RetryPolicy{}, nil, nil)
			rt.now = func() time.Time { return github.Add(tt.skew) }
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://example.invalid/x", nil)
			resp := &http.Response{StatusCode: tt.status, Header: tt.header, Body: io.NopCloser(strings.NewReader(tt.body)), Request: req}
			v := rt.classify(req, resp, nil)
			if !v.retry || v.status != tt.status {
				t.Fatalf("verdict %+v: not retried", v)
			}
			if v.hasWait == tt.noWait || v.hasWait && v.wait != tt.want || v.minWait != tt.minWait {
				t.Errorf("wait %v (mandated %v), at least %v; want %v (mandated %v), at least %v", v.wait, v.hasWait, v.minWait, tt.want, !tt.noWait, tt.minWait)
			}
		})
	}
}

// TestRetryAfterForms: every form a Retry-After can take, sent through the
// transport on a 429. A number of seconds is waited as it says, however
// large: past MaxDelay the request fails at once saying how long GitHub
// asked for, never after a wait that wrapped around (a duration of 2^63
// nanoseconds is 292 years, and Retry-After has no bound). A value that
// is neither a number of seconds nor an HTTP date is no mandate: the
// secondary limit's minute applies, capped by MaxDelay.
func TestRetryAfterForms(t *testing.T) {
	t.Parallel()
	github := time.Date(2026, time.March, 2, 9, 30, 0, 0, time.UTC)
	policy := RetryPolicy{MaxAttempts: 3, BaseDelay: time.Second, MaxDelay: 30 * time.Second, MaxElapsed: 2 * time.Minute}
	tests := []struct {
		name, retryAfter string
		// waits are the sleeps before the retries; giveUp, what the error
		// says when the request fails at once ("": it is retried and then
		// answered).
		waits  []time.Duration
		giveUp string
	}{
		{name: "seconds", retryAfter: "7", waits: []time.Duration{7 * time.Second}},
		{name: "seconds with spaces", retryAfter: " 7 ", waits: []time.Duration{7 * time.Second}},
		{name: "zero", retryAfter: "0", waits: []time.Duration{0}},
		{name: "an HTTP date on GitHub's clock", retryAfter: github.Add(4 * time.Second).Format(http.TimeFormat), waits: []time.Duration{4 * time.Second}},
		{name: "an HTTP date past", retryAfter: github.Add(-time.Hour).Format(http.TimeFormat), waits: []time.Duration{0}},
		{name: "over MaxDelay", retryAfter: "3600", giveUp: "server asked to wait 1h0m0s"},
		{name: "seconds past int64 nanoseconds", retryAfter: "9223372037", giveUp: "server asked to wait"},
		{name: "seconds that wrap around to a third of a second", retryAfter: "18446744074", giveUp: "server asked to wait"},
		{name: "seconds past uint64", retryAfter: "99999999999999999999999", giveUp: "server asked to wait"},
		{name: "negative", retryAfter: "-5", waits: []time.Duration{30 * time.Second}},
		{name: "a fraction", retryAfter: "1.5", waits: []time.Duration{30 * time.Second}},
		{name: "garbled", retryAfter: "soon", waits: []time.Duration{30 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var sent atomic.Int32
			base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if sent.Add(1) > 1 {
					return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{}`)), Request: r}, nil
				}
				h := http.Header{"Date": {github.Format(http.TimeFormat)}, "Retry-After": {tt.retryAfter}}
				return &http.Response{StatusCode: http.StatusTooManyRequests, Header: h, Body: io.NopCloser(strings.NewReader(`{"message":"slow down"}`)), Request: r}, nil
			})
			var waits []time.Duration
			rt := newRetryTransport(base, policy, func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }, nil)
			rt.now = func() time.Time { return github.Add(3 * time.Minute) } // the runner's clock is ahead
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://example.invalid/x", nil)
			resp, err := rt.RoundTrip(req)
			if tt.giveUp != "" {
				if err == nil || !strings.Contains(err.Error(), tt.giveUp) || !errors.Is(err, ErrRateLimited) || sent.Load() != 1 || len(waits) != 0 {
					t.Fatalf("after %d request(s) and waits %v: %v; want one request, no wait and an error saying %q", sent.Load(), waits, err, tt.giveUp)
				}
				return
			}
			if err != nil {
				t.Fatalf("RoundTrip: %v", err)
			}
			_ = resp.Body.Close()
			if fmt.Sprint(waits) != fmt.Sprint(tt.waits) || sent.Load() != 2 {
				t.Errorf("waits %v over %d requests, want %v then the answer", waits, sent.Load(), tt.waits)
			}
		})
	}
}
