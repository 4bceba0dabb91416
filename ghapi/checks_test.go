package ghapi_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

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
			id, err := c.CreateCheckRun(ctx, ghapi.CheckRun{Name: "pact", HeadSHA: head, ExternalID: "run-1", DetailsURL: "https://example.com/run/1"})
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
	id, err := c.CreateCheckRun(ctx, ghapi.CheckRun{Name: "pact", HeadSHA: head})
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
	id, err := c.CreateCheckRun(ctx, ghapi.CheckRun{Name: "pact", HeadSHA: head, Status: "queued"})
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
			id, err := c.CreateCheckRun(context.Background(), ghapi.CheckRun{Name: "pact", HeadSHA: sha, ExternalID: "run-42"})
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
