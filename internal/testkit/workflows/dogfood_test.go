package workflows

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/pact-action/pact-action/internal/testkit/e2e"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/internal/testkit/testbin"
)

// dogfoodInputs are the `with:` inputs of pact.yml's `uses: ./` step.
func dogfoodInputs(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testbin.ModuleRoot(), ".github", "workflows", "pact.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var w struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	for _, j := range w.Jobs {
		for _, s := range j.Steps {
			if s.Uses == "./" {
				return s.With
			}
		}
	}
	t.Fatal("pact.yml has no `uses: ./` step")
	return nil
}

// examplePact is the shipped example's pact directory, as repository files.
func examplePact(t *testing.T, pactDir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	root := testbin.ModuleRoot()
	err := filepath.WalkDir(filepath.Join(root, filepath.FromSlash(pactDir)), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files[pactDir+"/log.jsonl"] == "" {
		t.Fatalf("pact.yml's pact-dir %s holds no log.jsonl", pactDir)
	}
	// The repository's own configuration, read from the base branch as on
	// GitHub.
	cfg, err := os.ReadFile(filepath.Join(root, ".github", "pact.yml"))
	if err != nil {
		t.Fatal(err)
	}
	files[".github/pact.yml"] = string(cfg)
	return files
}

// TestDogfoodJudgesTheExample runs the real binary with pact.yml's inputs
// against a fake GitHub holding this repository's example, as the workflow
// does on our pull requests: an ordinary PR passes, a PR that rewrites the
// example's history fails, a PR from a branch that ships one of its
// features waits for its reviews.
func TestDogfoodJudgesTheExample(t *testing.T) {
	t.Parallel()
	inputs := dogfoodInputs(t)
	if inputs["mode"] != "check" || inputs["pact-dir"] == "" {
		t.Fatalf("pact.yml runs the action with %v, want mode: check and a pact-dir", inputs)
	}
	example := examplePact(t, inputs["pact-dir"])
	logPath := inputs["pact-dir"] + "/log.jsonl"
	for _, c := range []struct {
		name       string
		branch     string
		change     func(files map[string]string)
		conclusion string
		exit       int
		codes      []string
	}{
		{"an ordinary pull request", "ship", func(f map[string]string) { f["cmd/pactify/main.go"] = "package main\n" }, "success", 0, nil},
		{"a pull request that rewrites the example's log", "ship", func(f map[string]string) {
			lines := strings.SplitAfter(f[logPath], "\n")
			f[logPath] = strings.Join(append(lines[:1], lines[2:]...), "")
		}, "failure", 1, []string{"log.rewritten"}},
		{"a pull request from a branch the example's feature ships on", "feat/signup", func(map[string]string) {}, "action_required", 0, []string{"pr.unaccepted_feature"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := e2e.NewServer(t)
			s.CommitFiles(e2e.Owner, e2e.Repo, "main", example, "maintainer")
			head := map[string]string{}
			for k, v := range example {
				head[k] = v
			}
			c.change(head)
			s.CommitFiles(e2e.Owner, e2e.Repo, c.branch, head, "contributor", fakegithub.From("main"))
			n := s.OpenPR(e2e.Owner, e2e.Repo, fakegithub.PRSeed{Head: c.branch, Base: "main", Author: "contributor"})
			headSHA := s.BranchHead(e2e.Owner, e2e.Repo, c.branch)
			payload := e2e.Payload(t, "pull_request/synchronize.payload.json", map[string]any{
				"number": n, "pull_request.number": n,
				"pull_request.head.ref": c.branch, "pull_request.head.sha": headSHA,
				"pull_request.head.repo.full_name": e2e.Owner + "/" + e2e.Repo,
				"pull_request.base.ref":            "main", "pull_request.base.sha": s.BranchHead(e2e.Owner, e2e.Repo, "main"),
				"pull_request.base.repo.full_name": e2e.Owner + "/" + e2e.Repo,
				"repository.full_name":             e2e.Owner + "/" + e2e.Repo, "repository.name": e2e.Repo,
			})
			res := e2e.Run{Server: s, EventName: "pull_request", Payload: payload, Inputs: inputs}.Exec(t)
			if res.Code != c.exit || res.Outputs["conclusion"] != c.conclusion {
				t.Fatalf("exit %d, conclusion %q; want %d, %q\nstdout: %s\nstderr: %s", res.Code, res.Outputs["conclusion"], c.exit, c.conclusion, res.Stdout, res.Stderr)
			}
			runs := s.CheckRuns(headSHA)
			if len(runs) != 1 || runs[0].Name != "pact" || runs[0].Conclusion != c.conclusion {
				t.Errorf("check runs on the head: %+v", runs)
			}
			codes := res.Codes()
			for _, want := range c.codes {
				if !slices.Contains(codes, want) {
					t.Errorf("findings %v lack %s", codes, want)
				}
			}
			if c.codes == nil && slices.ContainsFunc(codes, func(code string) bool { return !strings.HasPrefix(code, "provenance.") }) {
				t.Errorf("an ordinary PR got findings %v", codes)
			}
		})
	}
}
