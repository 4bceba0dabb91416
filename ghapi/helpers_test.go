package ghapi_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

const (
	owner = "acme"
	repo  = "widgets"
)

// clock is the pinned time of every test client: waits computed from
// x-ratelimit-reset and Retry-After dates are exact, however long the test
// was paused before its request.
var clock = time.Date(2026, time.March, 2, 9, 30, 0, 0, time.UTC)

// sleeper records the waits of the retry transport instead of sleeping.
type sleeper struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.delays = append(s.delays, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeper) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.delays...)
}

// newClient returns a client for acme/widgets on srv. The fake is reached
// through its GitHub Enterprise Server style URL (/api/v3).
func newClient(t *testing.T, srv *fakegithub.Server, mutate ...func(*ghapi.Options)) (*ghapi.Client, *sleeper) {
	t.Helper()
	sl := &sleeper{}
	o := ghapi.Options{
		Token:      "test-token",
		APIURL:     srv.URL,
		Owner:      owner,
		Repo:       repo,
		HTTPClient: srv.Client(),
		Retry:      ghapi.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Second, MaxDelay: 30 * time.Second, MaxElapsed: 2 * time.Minute},
		Sleep:      sl.sleep,
		Now:        func() time.Time { return clock },
	}
	for _, m := range mutate {
		m(&o)
	}
	c, err := ghapi.New(context.Background(), o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, sl
}

// seedRepo creates acme/widgets with a main branch and returns its head.
func seedRepo(t *testing.T, srv *fakegithub.Server) string {
	t.Helper()
	return srv.CommitFiles(owner, repo, "main", map[string]string{
		"README.md":        "# widgets\n",
		".pact/log.jsonl":  "{\"event\":\"init\"}\n",
		"src/widget.go":    "package widget\n",
		"src/deep/dir.txt": "deep\n",
	}, "alice", fakegithub.Verified())
}
