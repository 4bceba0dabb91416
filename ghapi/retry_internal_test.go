package ghapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
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

func TestTransportBuffersBodiesWithoutGetBody(t *testing.T) {
	t.Parallel()
	var bodies []string
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		status := http.StatusBadGateway
		if len(bodies) == 3 {
			status = http.StatusOK
		}
		return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
	})
	rt := newRetryTransport(base, RetryPolicy{MaxAttempts: 5}, func(context.Context, time.Duration) error { return nil }, nil)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://example.invalid/x", io.NopCloser(strings.NewReader(`{"a":1}`)))
	req.GetBody = nil
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if len(bodies) != 3 || bodies[0] != `{"a":1}` || bodies[2] != `{"a":1}` {
		t.Errorf("bodies sent = %q", bodies)
	}
}
