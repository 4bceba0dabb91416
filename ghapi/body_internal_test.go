package ghapi

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// cutReader gives s, then fails as a dropped connection does.
type cutReader struct{ r io.Reader }

func (c *cutReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.EOF {
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}

// TestResumeJoinsOnlyTheSameAnswer: a cut answer goes on from the next
// attempt's only when that attempt's first bytes are the ones read; two
// halves of different answers are never joined.
func TestResumeJoinsOnlyTheSameAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, second, want, wantErr string
	}{
		{name: "the same answer", second: "abcdef", want: "abcdef"},
		{name: "a different answer", second: "abXdef", wantErr: "different answer"},
		{name: "a shorter answer", second: "ab", wantErr: "unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			calls := 0
			base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				calls++
				body := io.Reader(&cutReader{strings.NewReader("abc")})
				if calls > 1 {
					body = strings.NewReader(tt.second)
				}
				return &http.Response{StatusCode: 200, Body: io.NopCloser(body), Header: http.Header{}, Request: r}, nil
			})
			rt := newRetryTransport(base, RetryPolicy{MaxAttempts: 2}, func(ctx context.Context, d time.Duration) error { return nil }, nil)
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "https://api.github.com/repos/o/r/contents/f", nil)
			resp, err := rt.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			switch {
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("read %q, %v; want an error saying %q", got, err, tt.wantErr)
			case tt.wantErr == "" && (err != nil || string(got) != tt.want):
				t.Fatalf("read %q, %v; want %q", got, err, tt.want)
			}
			if calls != 2 {
				t.Errorf("attempts = %d, want 2", calls)
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
