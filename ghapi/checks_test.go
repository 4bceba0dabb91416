package ghapi_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

func annotations(n int) []ghapi.Annotation {
	levels := []string{"failure", "warning", "notice"}
	out := make([]ghapi.Annotation, n)
	for i := range out {
		out[i] = ghapi.Annotation{
			Path: ".pact/log.jsonl", StartLine: i + 1, EndLine: i + 1, Level: levels[i%3],
			Title: fmt.Sprintf("rule %d", i), Message: fmt.Sprintf("problem %d", i),
		}
	}
	return out
}

func TestCompleteCheckRunDeliversEveryAnnotation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		annotations int
		wantPatches int
	}{
		{name: "none", annotations: 0, wantPatches: 1},
		{name: "a few", annotations: 3, wantPatches: 1},
		{name: "exactly 50", annotations: 50, wantPatches: 1},
		{name: "51", annotations: 51, wantPatches: 2},
		{name: "120", annotations: 120, wantPatches: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakegithub.New(t)
			head := seedRepo(t, srv)
			c, _ := newClient(t, srv)
			ctx := context.Background()
			created, err := c.CreateCheckRun(ctx, ghapi.CheckRun{Name: "pact", HeadSHA: head, ExternalID: "run-1", DetailsURL: "https://example.com/run/1"})
			id := created.ID
			if err != nil {
				t.Fatal(err)
			}
			runs := srv.CheckRuns(head)
			if len(runs) != 1 || runs[0].Status != "in_progress" {
				t.Fatalf("after create: %+v", runs)
			}
			want := annotations(tt.annotations)
			err = c.CompleteCheckRun(ctx, id, "failure", ghapi.Output{Title: "Pact", Summary: "summary", Text: "text", Annotations: want})
			if err != nil {
				t.Fatal(err)
			}
			runs = srv.CheckRuns(head)
			if len(runs) != 1 {
				t.Fatalf("check runs = %d, want 1", len(runs))
			}
			got := runs[0]
			if got.Status != "completed" || got.Conclusion != "failure" || got.Title != "Pact" || got.Summary != "summary" || got.Text != "text" {
				t.Errorf("run = %+v", got)
			}
			if got.ExternalID != "run-1" || got.DetailsURL != "https://example.com/run/1" || got.Name != "pact" {
				t.Errorf("run lost its identity: %+v", got)
			}
			if len(got.Annotations) != tt.annotations {
				t.Fatalf("stored %d annotations, want %d", len(got.Annotations), tt.annotations)
			}
			for i, a := range got.Annotations {
				w := want[i]
				if a.Path != w.Path || a.StartLine != w.StartLine || a.Level != w.Level || a.Message != w.Message || a.Title != w.Title {
					t.Fatalf("annotation %d = %+v, want %+v", i, a, w)
				}
			}
			if patches := got.Requests - 1; patches != tt.wantPatches {
				t.Errorf("update requests = %d, want %d", patches, tt.wantPatches)
			}
		})
	}
}

func TestCompleteCheckRunRejectsBadInput(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	head := seedRepo(t, srv)
	c, _ := newClient(t, srv)
	ctx := context.Background()
	created, err := c.CreateCheckRun(ctx, ghapi.CheckRun{Name: "pact", HeadSHA: head})
	id := created.ID
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		conclusion string
		out        ghapi.Output
	}{
		{name: "unknown conclusion", conclusion: "great", out: ghapi.Output{Summary: "s"}},
		{name: "bad level", conclusion: "success", out: ghapi.Output{Annotations: []ghapi.Annotation{{Path: "a", Level: "error", Message: "m"}}}},
		{name: "no message", conclusion: "success", out: ghapi.Output{Annotations: []ghapi.Annotation{{Path: "a", Level: "notice"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := c.CompleteCheckRun(ctx, id, tt.conclusion, tt.out); err == nil {
				t.Fatal("CompleteCheckRun succeeded")
			}
		})
	}
	if got := srv.CheckRuns(head)[0].Requests; got != 1 {
		t.Errorf("invalid input reached GitHub: %d requests", got)
	}
	if err := c.CompleteCheckRun(ctx, 424242, "success", ghapi.Output{Summary: "s"}); !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("unknown check run error = %v, want ErrNotFound", err)
	}
}

func TestFailCheckRun(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	head := seedRepo(t, srv)
	c, _ := newClient(t, srv)
	ctx := context.Background()
	created, err := c.CreateCheckRun(ctx, ghapi.CheckRun{Name: "pact", HeadSHA: head, Status: "queued"})
	id := created.ID
	if err != nil {
		t.Fatal(err)
	}
	if err := c.FailCheckRun(ctx, id, "panic: boom"); err != nil {
		t.Fatal(err)
	}
	run := srv.CheckRuns(head)[0]
	if run.Status != "completed" || run.Conclusion != "failure" || run.Summary != "panic: boom" {
		t.Errorf("run = %+v", run)
	}
}

// A create that GitHub applied before failing with a 5xx must not leave a
// second, orphaned run: with an external id the client finds the first.
func TestCreateCheckRunDoesNotDuplicateAnAppliedCreate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		afterApply bool
		wantRuns   int
	}{
		{"applied then failed: the run is found, not created again", true, 1},
		{"failed before applying: created on the next attempt", false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fakegithub.New(t)
			sha := seedRepo(t, srv)
			c, _ := newClient(t, srv)
			srv.Inject(fakegithub.Fault{Method: "POST", Path: "/repos/" + owner + "/" + repo + "/check-runs", Status: 502, Times: 1, AfterApply: tt.afterApply})
			created, err := c.CreateCheckRun(context.Background(), ghapi.CheckRun{Name: "pact", HeadSHA: sha, ExternalID: "run-42"})
			id := created.ID
			if err != nil {
				t.Fatal(err)
			}
			runs := srv.CheckRuns(sha)
			if len(runs) != tt.wantRuns {
				t.Fatalf("check runs = %d, want %d", len(runs), tt.wantRuns)
			}
			if runs[0].ID != id {
				t.Errorf("returned id %d, stored run %d", id, runs[0].ID)
			}
		})
	}
}

// TestReadTreesListsRunsInProgress: a commit's read lists, in the same
// request, the check runs of one name that one app created there and that
// are still in progress, oldest first, with their external ids: not
// another app's, another name's, a completed one or one on another
// commit. GraphQL or, where it does not answer, the REST API in one call.
// A token that may not read checks gets the files all the same, with the
// runs not listed.
func TestReadTreesListsRunsInProgress(t *testing.T) {
	t.Parallel()
	other := fakegithub.App{ID: 4242, Slug: "other", Name: "Other", Owner: "acme"}
	for _, tc := range []struct {
		name     string
		opts     []fakegithub.Option
		noChecks bool
		wantRuns bool
	}{
		{name: "graphql", wantRuns: true},
		{name: "rest", opts: []fakegithub.Option{fakegithub.WithoutGraphQL()}, wantRuns: true},
		{name: "graphql, a token that may not read checks", noChecks: true},
		{name: "rest, a token that may not read checks", opts: []fakegithub.Option{fakegithub.WithoutGraphQL()}, noChecks: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := fakegithub.New(t, tc.opts...)
			head := seedRepo(t, srv)
			elsewhere := srv.CommitFiles(owner, repo, "topic", map[string]string{"a": "1"}, "bob")
			seed := func(s fakegithub.CheckRunSeed) int64 {
				if s.HeadSHA == "" {
					s.HeadSHA = head
				}
				return srv.SeedCheckRun(owner, repo, s)
			}
			first := seed(fakegithub.CheckRunSeed{Name: "pact", ExternalID: "pact-action-1"})
			seed(fakegithub.CheckRunSeed{Name: "pact", App: other, ExternalID: "pact-action-2"})
			seed(fakegithub.CheckRunSeed{Name: "pact-lint", ExternalID: "pact-action-3"})
			seed(fakegithub.CheckRunSeed{Name: "pact", Status: "completed", Conclusion: "success", ExternalID: "pact-action-4"})
			seed(fakegithub.CheckRunSeed{Name: "pact", HeadSHA: elsewhere, ExternalID: "pact-action-5"})
			seed(fakegithub.CheckRunSeed{Name: "pact", Status: "queued", ExternalID: "pact-action-6"})
			job := seed(fakegithub.CheckRunSeed{Name: "pact"})
			if tc.noChecks {
				srv.SetToken("test-token", fakegithub.Token{NoChecks: true})
			}
			c, _ := newClient(t, srv)
			before := len(srv.Requests())

			trees, err := c.ReadTrees(context.Background(), ghapi.TreeRead{Commit: head, Files: []string{"README.md"},
				Runs: &ghapi.RunsQuery{Name: "pact", App: fakegithub.GitHubActions.ID}})

			if err != nil {
				t.Fatalf("ReadTrees: %v", err)
			}
			tr := trees[0]
			if string(tr.Entries["README.md"].Data) != "# widgets\n" {
				t.Errorf("README.md = %q", tr.Entries["README.md"].Data)
			}
			want := []ghapi.ListedRun{{ID: first, ExternalID: "pact-action-1"}, {ID: job}}
			switch {
			case tc.wantRuns && (!tr.RunsListed || !slices.Equal(tr.Runs, want)):
				t.Errorf("runs %+v (listed %v), want %+v", tr.Runs, tr.RunsListed, want)
			case !tc.wantRuns && (tr.RunsListed || tr.Runs != nil):
				t.Errorf("runs %+v (listed %v), want none listed", tr.Runs, tr.RunsListed)
			}
			// Over GraphQL, the runs come with the files: one request.
			if rest := srv.Requests()[before:]; tc.opts == nil && len(rest) != 1 {
				t.Errorf("requests = %d, want 1: %+v", len(rest), rest)
			}
		})
	}
}

// TestSupersedeCheckRun: a superseded run is completed in one request with
// the conclusion, completion time, title and summary given; a completion
// GitHub refuses or does not answer is not sent again, and another app's
// run cannot be completed.
func TestSupersedeCheckRun(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	head := seedRepo(t, srv)
	c, _ := newClient(t, srv)
	ctx := context.Background()
	created, err := c.CreateCheckRun(ctx, ghapi.CheckRun{Name: "pact", HeadSHA: head})
	if err != nil || created.App != fakegithub.GitHubActions.ID {
		t.Fatalf("CreateCheckRun = %+v, %v; want GitHub Actions' run", created, err)
	}
	orphan := srv.SeedCheckRun(owner, repo, fakegithub.CheckRunSeed{Name: "pact", HeadSHA: head})
	at := time.Date(2026, 3, 2, 9, 31, 7, 0, time.UTC)
	patch := "/repos/acme/widgets/check-runs/" + strconv.FormatInt(orphan, 10)

	srv.FailNext("PATCH", patch, 502, nil, 1)
	if err := c.SupersedeCheckRun(ctx, orphan, "failure", at, ghapi.Output{Title: "t", Summary: "s"}); err == nil || srv.CountRequests("PATCH", patch) != 1 {
		t.Errorf("a 502: %v after %d requests, want an error after 1", err, srv.CountRequests("PATCH", patch))
	}
	if err := c.SupersedeCheckRun(ctx, orphan, "action_required", at, ghapi.Output{Title: "superseded", Summary: "see the newer run"}); err != nil {
		t.Fatal(err)
	}
	var got fakegithub.CheckRun
	for _, r := range srv.CheckRuns(head) {
		if r.ID == orphan {
			got = r
		}
	}
	if got.Status != "completed" || got.Conclusion != "action_required" || !got.CompletedAt.Equal(at) || got.Title != "superseded" || got.Summary != "see the newer run" || len(got.Annotations) != 0 {
		t.Errorf("superseded run = %+v", got)
	}

	theirs := srv.SeedCheckRun(owner, repo, fakegithub.CheckRunSeed{Name: "pact", HeadSHA: head, App: fakegithub.App{ID: 77, Slug: "ci", Name: "CI", Owner: "acme"}})
	if err := c.SupersedeCheckRun(ctx, theirs, "success", at, ghapi.Output{Title: "t", Summary: "s"}); !errors.Is(err, ghapi.ErrForbidden) {
		t.Errorf("another app's run: %v, want forbidden", err)
	}
}

// TestReadTreesRunsListingNeverDelaysTheRead: through the REST API the
// listing of the runs in progress is a call of its own, made while the
// judgement reads the head, before its verdict is posted. It is asked
// once: a listing GitHub refuses or leaves unanswered is not asked again,
// and no wait is spent on it (the next run on the commit lists them
// again), so the runs left in progress never delay a verdict; the files
// stand, the runs not listed.
func TestReadTreesRunsListingNeverDelaysTheRead(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]fakegithub.Fault{
		"a 5xx every time": {Status: 502, Times: 10},
		"no answer":        {Stall: true, Times: 10},
		"a rate limit":     {Status: 403, Header: map[string][]string{"Retry-After": {"20"}}, Times: 10},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := fakegithub.New(t, fakegithub.WithoutGraphQL())
			head := seedRepo(t, srv)
			srv.SeedCheckRun(owner, repo, fakegithub.CheckRunSeed{Name: "pact", HeadSHA: head, ExternalID: "pact-action-1"})
			listing := "/repos/acme/widgets/commits/" + head + "/check-runs"
			f.Method, f.Path = "GET", listing
			srv.Inject(f)
			c, sl := newClient(t, srv, func(o *ghapi.Options) { o.Retry.AttemptTimeout = 200 * time.Millisecond })

			trees, err := c.ReadTrees(context.Background(), ghapi.TreeRead{Commit: head, Files: []string{"README.md"},
				Runs: &ghapi.RunsQuery{Name: "pact", App: fakegithub.GitHubActions.ID}})

			if err != nil {
				t.Fatalf("ReadTrees: %v", err)
			}
			if tr := trees[0]; string(tr.Entries["README.md"].Data) != "# widgets\n" || tr.RunsListed || tr.Runs != nil {
				t.Errorf("README.md %q, runs %+v (listed %v); want the file and no runs listed", tr.Entries["README.md"].Data, tr.Runs, tr.RunsListed)
			}
			if n := srv.CountRequests("GET", listing); n != 1 {
				t.Errorf("the listing was asked %d times, want once", n)
			}
			if w := sl.all(); len(w) != 0 {
				t.Errorf("waited %v for the listing", w)
			}
		})
	}
}
