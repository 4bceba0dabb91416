package ghapi_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

// shortAttempts gives every attempt a deadline short enough for a stalled
// request to fail soon, and long enough for the fake, in process, to answer
// any other on a loaded machine (a late answer would change the counts the
// tests assert; action's fault tests use the same 250 ms); no test asserts
// how long anything took.
func shortAttempts(o *ghapi.Options) { o.Retry.AttemptTimeout = attemptTimeout }

const attemptTimeout = 250 * time.Millisecond

const checkRunsPath = "/repos/" + owner + "/" + repo + "/check-runs"

// faults are the ways a request can fail without a clear answer, each
// applied (the write landed) or not.
var faults = []struct {
	name  string
	fault fakegithub.Fault
	// applied: the write landed before the answer was lost.
	applied bool
}{
	{"applied, then 502", fakegithub.Fault{Status: 502, AfterApply: true}, true},
	{"applied, connection dropped", fakegithub.Fault{Drop: true, AfterApply: true}, true},
	{"applied, answer cut off", fakegithub.Fault{Cut: true}, true},
	{"applied, no answer in time", fakegithub.Fault{Stall: true, AfterApply: true}, true},
	{"not applied, 502", fakegithub.Fault{Status: 502}, false},
	{"not applied, connection dropped", fakegithub.Fault{Drop: true}, false},
	{"not applied, no answer in time", fakegithub.Fault{Stall: true}, false},
}

// TestCreateCheckRunWithLostAnswer: whatever became of the answer to a
// create, the run is created exactly once and its id returned; one the
// create made is found by its external id, not made again.
func TestCreateCheckRunWithLostAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range faults {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakegithub.New(t)
			sha := seedRepo(t, srv)
			c, _ := newClient(t, srv, shortAttempts)
			f := tc.fault
			f.Method, f.Path = "POST", checkRunsPath
			srv.Inject(f)

			created, err := c.CreateCheckRun(context.Background(), ghapi.CheckRun{Name: "pact", HeadSHA: sha, ExternalID: "run-7"})
			id := created.ID
			if err != nil {
				t.Fatal(err)
			}
			runs := srv.AllCheckRuns()
			if len(runs) != 1 || runs[0].ID != id || runs[0].ExternalID != "run-7" {
				t.Fatalf("returned %d; check runs = %+v, want the one", id, runs)
			}
			wantPosts := 2
			if tc.applied {
				wantPosts = 1
			}
			if n := srv.CountRequests("POST", checkRunsPath); n != wantPosts {
				t.Errorf("creates = %d, want %d", n, wantPosts)
			}
		})
	}
}

// TestCreateCheckRunRefusedIsNotLookedUp: a refusal is a known outcome:
// no run, no look-up, one request.
func TestCreateCheckRunRefusedIsNotLookedUp(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	sha := seedRepo(t, srv)
	c, _ := newClient(t, srv)
	srv.FailNext("POST", checkRunsPath, 422, nil, 1)
	if _, err := c.CreateCheckRun(context.Background(), ghapi.CheckRun{Name: "pact", HeadSHA: sha, ExternalID: "run-7"}); err == nil {
		t.Fatal("a refused create succeeded")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("requests = %d, want 1: %+v", n, srv.Requests())
	}
}

// TestCompleteCheckRunWithLostAnswer: the completing request is sent again,
// with a fresh deadline, until the run is completed, and not sent again
// once it is (its annotations would be stored twice).
func TestCompleteCheckRunWithLostAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range faults {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakegithub.New(t)
			sha := seedRepo(t, srv)
			c, sl := newClient(t, srv, shortAttempts)
			created, err := c.CreateCheckRun(context.Background(), ghapi.CheckRun{Name: "pact", HeadSHA: sha})
			id := created.ID
			if err != nil {
				t.Fatal(err)
			}
			f := tc.fault
			f.Method, f.Path = "PATCH", checkRunsPath+"/*"
			srv.Inject(f)

			if err := c.CompleteCheckRun(context.Background(), id, "success", ghapi.Output{Title: "t", Summary: "s", Annotations: annotations(3)}); err != nil {
				t.Fatal(err)
			}
			runs := srv.AllCheckRuns()
			if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != "success" || len(runs[0].Annotations) != 3 {
				t.Fatalf("check runs = %+v, want one completed with 3 annotations", runs)
			}
			wantPatches, wantWaits := 2, 1
			if tc.applied {
				wantPatches, wantWaits = 1, 0
			}
			if n := srv.CountRequests("PATCH", checkRunsPath+"/*"); n != wantPatches {
				t.Errorf("patches = %d, want %d", n, wantPatches)
			}
			if n := len(sl.all()); n != wantWaits {
				t.Errorf("waits = %v, want %d", sl.all(), wantWaits)
			}
		})
	}
}

// TestCompleteCheckRunRefusedEveryTime: the completion is tried a bounded
// number of times, then the error says so; FailCheckRun alike.
func TestCompleteCheckRunRefusedEveryTime(t *testing.T) {
	t.Parallel()
	for _, fail := range []bool{false, true} {
		t.Run(map[bool]string{false: "complete", true: "fail"}[fail], func(t *testing.T) {
			t.Parallel()
			srv := fakegithub.New(t)
			sha := seedRepo(t, srv)
			c, _ := newClient(t, srv, shortAttempts)
			created, err := c.CreateCheckRun(context.Background(), ghapi.CheckRun{Name: "pact", HeadSHA: sha})
			id := created.ID
			if err != nil {
				t.Fatal(err)
			}
			srv.FailNext("PATCH", checkRunsPath+"/*", 502, nil, 99)
			if fail {
				err = c.FailCheckRun(context.Background(), id, "boom")
			} else {
				err = c.CompleteCheckRun(context.Background(), id, "success", ghapi.Output{Summary: "s"})
			}
			if err == nil || !strings.Contains(err.Error(), "(3 attempts)") || !strings.Contains(err.Error(), "502") {
				t.Fatalf("error = %v, want 3 attempts and the last status", err)
			}
			if n := srv.CountRequests("PATCH", checkRunsPath+"/*"); n != 3 {
				t.Errorf("patches = %d, want 3", n)
			}
			if runs := srv.AllCheckRuns(); runs[0].Status == "completed" {
				t.Errorf("run = %+v", runs[0])
			}
		})
	}
}

// TestReadsSurviveCutAnswers: a read whose answer is cut off, dropped or
// late is asked again and gives what it gives without the fault (REST and
// GraphQL); a write whose answer is cut off is not sent again.
func TestReadsSurviveCutAnswers(t *testing.T) {
	t.Parallel()
	reads := []struct {
		name, method, path string
		read               func(c *ghapi.Client, sha string) (any, error)
	}{
		{"REST JSON", "GET", "/repos/*/*/commits/*", func(c *ghapi.Client, sha string) (any, error) {
			return c.Commit(context.Background(), sha)
		}},
		{"REST raw", "GET", "/repos/*/*/contents/*", func(c *ghapi.Client, sha string) (any, error) {
			return c.ReadFile(context.Background(), "README.md", sha)
		}},
		{"GraphQL", "POST", "/api/graphql", func(c *ghapi.Client, sha string) (any, error) {
			return c.ReadTrees(context.Background(), ghapi.TreeRead{Commit: sha, Dirs: []string{"src"}})
		}},
	}
	for _, f := range []fakegithub.Fault{{Cut: true}, {Drop: true}, {Stall: true}, {Cut: true, Times: 3}} {
		for _, r := range reads {
			t.Run(r.name, func(t *testing.T) {
				t.Parallel()
				srv := fakegithub.New(t)
				sha := seedRepo(t, srv)
				c, _ := newClient(t, srv, shortAttempts)
				want, err := r.read(c, sha)
				if err != nil {
					t.Fatal(err)
				}
				c, _ = newClient(t, srv, shortAttempts) // nothing cached
				f := f
				f.Method, f.Path = r.method, r.path
				srv.Inject(f)
				got, err := r.read(c, sha)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("read %+v, want %+v", got, want)
				}
				faulty := 0
				for _, req := range srv.Requests() {
					if req.Fault {
						faulty++
					}
				}
				if faulty != max(f.Times, 1) {
					t.Errorf("%d answers were faulty, want %d", faulty, max(f.Times, 1))
				}
			})
		}
	}
	t.Run("a write is not sent again", func(t *testing.T) {
		t.Parallel()
		srv := fakegithub.New(t)
		sha := seedRepo(t, srv)
		c, _ := newClient(t, srv, shortAttempts)
		srv.Inject(fakegithub.Fault{Method: "POST", Path: checkRunsPath, Cut: true})
		if _, err := c.CreateCheckRun(context.Background(), ghapi.CheckRun{Name: "pact", HeadSHA: sha}); err == nil {
			t.Fatal("a create without an external id whose answer was cut succeeded")
		}
		if n := srv.CountRequests("POST", checkRunsPath); n != 1 {
			t.Errorf("creates = %d, want 1", n)
		}
	})
}

// TestReadThatNeverAnswers: a read GitHub never answers fails after the
// policy's attempts, with a message naming the request and the deadline.
func TestReadThatNeverAnswers(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	c, sl := newClient(t, srv, shortAttempts, func(o *ghapi.Options) { o.Retry.MaxAttempts = 2 })
	srv.Inject(fakegithub.Fault{Method: "GET", Path: "/repos/*/*/collaborators/*/permission", Stall: true, Times: 99})
	_, err := c.Permission(context.Background(), "alice")
	var timeout *ghapi.TimeoutError
	if !errors.As(err, &timeout) {
		t.Fatalf("error = %v, want a *TimeoutError", err)
	}
	want := "GitHub did not answer GET /api/v3/repos/acme/widgets/collaborators/alice/permission within " + attemptTimeout.String() + " (gave up after 2 attempts"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error = %q, want it to say %q", err, want)
	}
	if n, w := srv.CountRequests("GET", "/repos/*/*/collaborators/*/permission"), len(sl.all()); n != 2 || w != 1 {
		t.Errorf("requests = %d, waits = %d; want 2 and 1", n, w)
	}
}
