package ghapi

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy bounds the retries made by the transport. A zero field takes
// its default (defaultRetryPolicy: 5 attempts, backoff from 1s up to 1m,
// 3m in all, 30s an attempt); set MaxAttempts to 1 to disable retries.
type RetryPolicy struct {
	// MaxAttempts is the total number of attempts, the first one included.
	MaxAttempts int
	// BaseDelay is the first backoff delay; it doubles on every retry.
	BaseDelay time.Duration
	// MaxDelay caps a single wait. A server-mandated wait (Retry-After,
	// x-ratelimit-reset) longer than MaxDelay is not shortened: the
	// transport gives up at once instead, because GitHub penalises clients
	// that retry before the time it asked for.
	MaxDelay time.Duration
	// MaxElapsed caps the total time spent on one request, waits included.
	// A retry whose wait would cross it is not made.
	MaxElapsed time.Duration
	// AttemptTimeout bounds one attempt: the wait for GitHub's answer,
	// then the wait for each next part of its body. It is not a bound on
	// a whole download, which may take longer while bytes keep coming; an
	// attempt past it fails with a *TimeoutError.
	AttemptTimeout time.Duration
}

// defaultRetryPolicy returns the policy used for zero fields of
// Options.Retry.
func defaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		MaxAttempts: 5,
		BaseDelay:   time.Second,
		MaxDelay:    time.Minute,
		MaxElapsed:  3 * time.Minute,
		// Far above what GitHub takes to start answering (its own limit
		// for a request is 10s), far below the job's timeout.
		AttemptTimeout: 30 * time.Second,
	}
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	d := defaultRetryPolicy()
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = d.MaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = d.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = d.MaxDelay
	}
	if p.MaxElapsed <= 0 {
		p.MaxElapsed = d.MaxElapsed
	}
	if p.AttemptTimeout <= 0 {
		p.AttemptTimeout = d.AttemptTimeout
	}
	return p
}

// secondaryRateLimitMinWait is the wait GitHub asks for after a secondary
// rate limit that carries neither Retry-After nor x-ratelimit-reset ("wait
// for at least one minute"). It is capped by RetryPolicy.MaxDelay.
const secondaryRateLimitMinWait = time.Minute

// RetryError is returned when the transport stops retrying a request that
// kept failing with a retryable outcome. It unwraps to ErrRateLimited when
// the last outcome was a rate limit, and to the transport error, if any.
type RetryError struct {
	Method string
	Path   string
	// Attempts is the number of requests sent.
	Attempts int
	// Elapsed is the time spent, waits included.
	Elapsed time.Duration
	// LastStatus is the HTTP status of the last response (0 when the last
	// attempt failed without a response).
	LastStatus int
	// LastMessage is the "message" of the last GitHub error body, if any.
	LastMessage string
	// RateLimited reports that the last response was a rate limit.
	RateLimited bool
	// Reason says why retrying stopped.
	Reason string
	// Err is the transport error of the last attempt, if any.
	Err error
}

func (e *RetryError) Error() string {
	var b strings.Builder
	var timeout *TimeoutError
	if errors.As(e.Err, &timeout) {
		// What timed out comes first: it is what a reader needs to know.
		fmt.Fprintf(&b, "GitHub did not answer %s %s within %s (gave up after %d attempt", e.Method, e.Path, timeout.After, e.Attempts)
	} else {
		fmt.Fprintf(&b, "%s %s: gave up after %d attempt", e.Method, e.Path, e.Attempts)
	}
	if e.Attempts != 1 {
		b.WriteString("s")
	}
	fmt.Fprintf(&b, " over %s", e.Elapsed.Round(time.Millisecond))
	if timeout != nil {
		if e.Reason != "" {
			fmt.Fprintf(&b, ", %s", e.Reason)
		}
		b.WriteString(")")
		return b.String()
	}
	if e.Reason != "" {
		fmt.Fprintf(&b, " (%s)", e.Reason)
	}
	switch {
	case e.LastStatus != 0:
		fmt.Fprintf(&b, ": last status %d %s", e.LastStatus, http.StatusText(e.LastStatus))
		if e.LastMessage != "" {
			fmt.Fprintf(&b, ": %s", e.LastMessage)
		}
	case e.Err != nil:
		fmt.Fprintf(&b, ": last error: %v", e.Err)
	}
	return b.String()
}

// Unwrap exposes ErrRateLimited and the last transport error.
func (e *RetryError) Unwrap() []error {
	var errs []error
	if e.RateLimited {
		errs = append(errs, ErrRateLimited)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// retryTransport retries requests that failed with a transient outcome. It
// is the only retry mechanism of the package and sits below the oauth2
// transport, so it sees (and replays) fully authenticated requests.
type retryTransport struct {
	base   http.RoundTripper
	policy RetryPolicy
	sleep  func(context.Context, time.Duration) error
	logger *slog.Logger
	now    func() time.Time
	jitter func() float64 // in [0, 1)
}

func newRetryTransport(base http.RoundTripper, p RetryPolicy, sleep func(context.Context, time.Duration) error, logger *slog.Logger) *retryTransport {
	if base == nil {
		base = http.DefaultTransport
	}
	if sleep == nil {
		sleep = SleepContext
	}
	return &retryTransport{
		base:   base,
		policy: p.withDefaults(),
		sleep:  sleep,
		logger: logger,
		now:    time.Now,
		jitter: rand.Float64,
	}
}

// SleepContext waits d or until ctx is done: the default wait between
// retries, here and for callers that retry on their own (the bot's
// re-read-and-retry on a moved branch).
func SleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// applyOnceKey marks a request context whose write must not be repeated
// blindly on a 5xx: GitHub may have applied it before failing. Rate limits
// (which mean "not applied") are still retried.
type applyOnceKey struct{}

// oneAttemptKey marks a request context whose request is sent once: a
// look-up inside a caller's own bounded retries (finishCheckRun), which
// would otherwise multiply them.
type oneAttemptKey struct{}

func (t *retryTransport) maxAttempts(req *http.Request) int {
	if req.Context().Value(oneAttemptKey{}) != nil {
		return 1
	}
	return t.policy.MaxAttempts
}

// verdict is the classification of one attempt.
type verdict struct {
	retry       bool
	rateLimited bool
	// wait is a server-mandated wait (Retry-After or x-ratelimit-reset);
	// hasWait tells it apart from "no mandate".
	wait    time.Duration
	hasWait bool
	// minWait is a lower bound for the backoff (secondary rate limit
	// without headers).
	minWait time.Duration
	status  int
	message string
}

// RoundTrip implements http.RoundTripper.
func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	start := t.now()

	getBody, err := replayableBody(req)
	if err != nil {
		return nil, err
	}

	var waited time.Duration
	for attempt := 1; ; attempt++ {
		resp, rtErr := t.try(req, getBody)
		v := t.classify(req, resp, rtErr)
		if !v.retry {
			if resp != nil {
				hideReset(resp.Header)
			}
			if resp != nil && isRead(req) && resp.StatusCode/100 == 2 {
				resp.Body = &resumableBody{t: t, req: req, getBody: getBody, status: resp.StatusCode, cur: resp.Body,
					sum: sha256.New(), attempt: attempt, start: start, waited: waited}
			}
			return resp, rtErr
		}

		elapsed := max(t.now().Sub(start), waited)
		delay := t.backoff(attempt)
		if v.minWait > delay {
			delay = min(v.minWait, t.policy.MaxDelay)
		}
		reason := ""
		switch {
		case attempt >= t.maxAttempts(req):
			reason = fmt.Sprintf("max %d attempts", t.maxAttempts(req))
		case v.hasWait && v.wait > t.policy.MaxDelay:
			reason = fmt.Sprintf("server asked to wait %s, more than the %s maximum delay", v.wait.Round(time.Second), t.policy.MaxDelay)
		case v.hasWait && elapsed+v.wait > t.policy.MaxElapsed, !v.hasWait && elapsed+delay > t.policy.MaxElapsed:
			reason = fmt.Sprintf("next wait would exceed the %s limit", t.policy.MaxElapsed)
		}
		if v.hasWait {
			delay = v.wait
		}
		if reason != "" {
			if resp != nil {
				drain(resp.Body)
			}
			return nil, &RetryError{
				Method:      req.Method,
				Path:        req.URL.Path,
				Attempts:    attempt,
				Elapsed:     elapsed,
				LastStatus:  v.status,
				LastMessage: v.message,
				RateLimited: v.rateLimited,
				Reason:      reason,
				Err:         rtErr,
			}
		}
		if resp != nil {
			drain(resp.Body)
		}
		t.logRetry(ctx, req, "github request failed, retrying", attempt, v, delay, rtErr)
		if err := t.sleep(ctx, delay); err != nil {
			return nil, fmt.Errorf("waiting to retry %s %s after attempt %d: %w", req.Method, req.URL.Path, attempt, err)
		}
		waited += delay
	}
}

func (t *retryTransport) logRetry(ctx context.Context, req *http.Request, msg string, attempt int, v verdict, delay time.Duration, err error) {
	if t.logger == nil {
		return
	}
	t.logger.LogAttrs(ctx, slog.LevelWarn, msg,
		slog.String("method", req.Method),
		slog.String("path", req.URL.Path),
		slog.Int("attempt", attempt),
		slog.Int("status", v.status),
		slog.Bool("rate_limited", v.rateLimited),
		slog.Duration("delay", delay),
		slog.Any("error", err),
	)
}

// isRead reports a request that may be sent again whatever became of the
// last one: a GET (HEAD, OPTIONS) or a GraphQL query.
func isRead(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	return req.Context().Value(graphQLKey{}) != nil
}

// backoff is the exponential delay before retry number attempt (1-based),
// with "equal jitter": half fixed, half random.
func (t *retryTransport) backoff(attempt int) time.Duration {
	d := t.policy.BaseDelay
	for i := 1; i < attempt && d < t.policy.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, t.policy.MaxDelay)
	half := d / 2
	return half + time.Duration(t.jitter()*float64(d-half))
}

// classify decides whether an attempt is retried.
func (t *retryTransport) classify(req *http.Request, resp *http.Response, err error) verdict {
	if err != nil {
		// Retry transport failures only for requests that are safe to
		// repeat: a POST that failed mid-way may have been applied, except
		// a GraphQL query, which is a read sent as a POST.
		// An attempt past its own deadline (a *TimeoutError) is such a
		// failure; the caller's deadline or cancellation is not.
		var timeout *TimeoutError
		if !errors.As(err, &timeout) && (req.Context().Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			return verdict{}
		}
		return verdict{retry: isRead(req)}
	}
	status := resp.StatusCode
	switch {
	case status == http.StatusOK && req.Context().Value(graphQLKey{}) != nil:
		// GraphQL answers a primary rate limit with 200 and an error.
		msg, limited := graphQLRateLimited(peekBody(resp))
		if !limited {
			return verdict{}
		}
		v := verdict{retry: true, rateLimited: true, status: status, message: msg}
		t.rateLimitWait(resp, &v)
		return v
	case status == http.StatusTooManyRequests:
		v := verdict{retry: true, rateLimited: true, status: status}
		v.message = peekMessage(resp)
		t.rateLimitWait(resp, &v)
		return v
	case status == http.StatusForbidden:
		msg := peekMessage(resp)
		v := verdict{status: status, message: msg}
		if !isRateLimit403(resp, msg) {
			return v
		}
		v.retry, v.rateLimited = true, true
		t.rateLimitWait(resp, &v)
		return v
	case status >= 500 && status != http.StatusNotImplemented:
		if req.Context().Value(applyOnceKey{}) != nil {
			// The caller checks whether the write landed before repeating it.
			return verdict{}
		}
		v := verdict{retry: true, status: status, message: peekMessage(resp)}
		if d, ok := retryAfter(resp.Header, githubNow(resp.Header, t.now())); ok {
			v.wait, v.hasWait = d, true
		}
		return v
	}
	return verdict{}
}

// rateLimitWait fills the mandated wait of a rate-limit response following
// GitHub's guidance: Retry-After first, then x-ratelimit-reset when
// x-ratelimit-remaining is 0, else at least a minute. A date in either is
// measured on GitHub's clock (githubNow).
func (t *retryTransport) rateLimitWait(resp *http.Response, v *verdict) {
	now := githubNow(resp.Header, t.now())
	if d, ok := retryAfter(resp.Header, now); ok {
		v.wait, v.hasWait = d, true
		return
	}
	if d, ok := rateLimitReset(resp.Header, now); ok {
		v.wait, v.hasWait = d, true
		return
	}
	v.minWait = secondaryRateLimitMinWait
}

// githubNow is the moment of an answer on GitHub's clock: its Date header
// (the origin server's clock when it answered, as HTTP defines it), or local,
// the runner's clock, where the answer has none or one that does not
// parse. x-ratelimit-reset and a Retry-After date are instants of GitHub's
// clock, and a runner's clock may be minutes off it: two minutes ahead, a
// reset six seconds away reads as past and the request is sent again at
// once, the attempts spent hammering the limit, which GitHub penalises;
// two minutes behind, it reads as two minutes away, longer than the
// longest wait, and the request gives up at once (docs/check.md, "Where it
// runs"). The Date's one-second resolution errs on the late side, which
// rateLimitReset's second of slack covers.
func githubNow(h http.Header, local time.Time) time.Time {
	if d := h.Get("Date"); d != "" {
		if at, err := http.ParseTime(d); err == nil {
			return at
		}
	}
	return local
}

// hideReset keeps go-github from gating requests on the runner's clock.
// Once an answer says no request remains (the last one the limit allows
// still succeeds), go-github refuses every later request without sending
// it until x-ratelimit-reset has passed by time.Now, and never waits: a
// runner behind GitHub's clock fails for minutes after the limit was
// reset, and one in step fails at once where a short wait would do. This
// transport is where rate limits are waited out, on GitHub's clock
// (rateLimitWait), so go-github is not told when the limit resets: it
// then sends the request, and a rate-limited answer comes back here.
func hideReset(h http.Header) {
	if h.Get("X-Ratelimit-Remaining") == "0" {
		h.Del("X-Ratelimit-Reset")
	}
}

// isRateLimit403 tells a rate-limited 403 apart from a permission error.
func isRateLimit403(resp *http.Response, msg string) bool {
	h := resp.Header
	if h.Get("Retry-After") != "" {
		return true
	}
	if h.Get("X-Ratelimit-Remaining") == "0" && h.Get("X-Ratelimit-Reset") != "" {
		return true
	}
	m := strings.ToLower(msg)
	return strings.Contains(m, "secondary rate limit") ||
		strings.Contains(m, "abuse detection") ||
		strings.Contains(m, "api rate limit exceeded")
}

// retryAfter is the wait a Retry-After asks for: a number of seconds, or
// an HTTP date on GitHub's clock (now). A number of seconds has no bound
// in HTTP, and one past what a Duration holds (292 years) would wrap
// around to a short or negative wait, retried at once: it is the longest
// wait instead, which the transport refuses to make.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseUint(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if err != nil || secs > uint64(math.MaxInt64/time.Second) {
			return math.MaxInt64, true
		}
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

func rateLimitReset(h http.Header, now time.Time) (time.Duration, bool) {
	if h.Get("X-Ratelimit-Remaining") != "0" {
		return 0, false
	}
	epoch, err := strconv.ParseInt(strings.TrimSpace(h.Get("X-Ratelimit-Reset")), 10, 64)
	if err != nil {
		return 0, false
	}
	// One second of slack: the reset time has a one-second resolution.
	return max(time.Unix(epoch, 0).Sub(now)+time.Second, 0), true
}
