package action_test

import (
	"slices"
	"testing"

	"github.com/pact-action/pact-action/internal/e2e"
	"github.com/pact-action/pact-action/internal/fakegithub"
)

// prPayload adapts GitHub's real pull_request example to a PR of ours.
func prPayload(t *testing.T, s *fakegithub.Server, number int, head, base string) []byte {
	t.Helper()
	return e2e.Payload(t, "pull_request/synchronize.payload.json", map[string]any{
		"number": number, "pull_request.number": number,
		"pull_request.head.ref": head, "pull_request.head.sha": s.BranchHead(e2e.Owner, e2e.Repo, head),
		"pull_request.head.repo.full_name": e2e.Owner + "/" + e2e.Repo,
		"pull_request.base.ref":            base, "pull_request.base.sha": s.BranchHead(e2e.Owner, e2e.Repo, base),
		"pull_request.base.repo.full_name": e2e.Owner + "/" + e2e.Repo,
		"repository.full_name":             e2e.Owner + "/" + e2e.Repo, "repository.name": e2e.Repo,
	})
}

func TestCheckCleanPR(t *testing.T) {
	t.Parallel()
	s := e2e.NewServer(t)
	base := e2e.NewLog().Assign("T1", "LOGIN", "feat/login", "dev", "rev")
	s.CommitFiles(e2e.Owner, e2e.Repo, "main", base.Files(), "lead")
	head := base.Copy().Join("dev").Checkpoint("dev", "T1", "LOGIN").Accept("rev", "T1", "LOGIN")
	s.CommitFiles(e2e.Owner, e2e.Repo, "feat/login", head.Files(), "dev", fakegithub.From("main"))
	n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: "feat/login", Base: "main"})
	headSHA := s.BranchHead(e2e.Owner, e2e.Repo, "feat/login")

	res := e2e.Run{Server: s, EventName: "pull_request", Payload: prPayload(t, s, n, "feat/login", "main")}.Exec(t)

	if res.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", res.Code, res.Stdout, res.Stderr)
	}
	runs := s.CheckRuns(headSHA)
	if len(runs) != 1 {
		t.Fatalf("check runs on the head = %d, want 1", len(runs))
	}
	if r := runs[0]; r.Name != "pact" || r.Status != "completed" || r.Conclusion != "success" {
		t.Errorf("check run = %+v", r)
	}
	if res.Outputs["conclusion"] != "success" || res.Atoi(t, "errors") != 0 {
		t.Errorf("outputs = %v", res.Outputs)
	}
	if len(res.Summary) == 0 || !slices.Contains([]bool{true}, len(res.Codes()) == 0) {
		t.Errorf("summary empty or findings present: %v\n%s", res.Codes(), res.Summary)
	}
	if v := s.Violations(); len(v) != 0 {
		t.Errorf("OpenAPI violations: %v", v)
	}
}
