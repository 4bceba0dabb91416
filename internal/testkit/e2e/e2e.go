// Package e2e runs the real pact-action binary the way a GitHub runner does —
// runner environment, inputs as INPUT_* variables, a webhook payload file
// adapted from GitHub's real examples — against the stateful fake GitHub of
// internal/testkit/fakegithub. It is test support: end-to-end tests of every mode
// share it, and the in-process tests of the action package share its
// scenario vocabulary (NewServer, Log, Payload) so both speak of the same
// repositories.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
	"github.com/pact-action/pact-action/internal/testkit/testbin"
)

// Owner and Repo name the repository every scenario uses.
const (
	Owner = "octo-org"
	Repo  = "octo-repo"
	// Token is the workflow token the runs present; scenarios decide what
	// it may do with fakegithub.SetToken.
	Token = "ghs_e2e_workflow_token"
)

// ServerEpoch is when the fake GitHub of NewServer starts its clock: a day
// after the logs of NewLog begin.
var ServerEpoch = time.Date(2026, 6, 10, 0, 0, 0, 0, time.UTC)

// Result is what one run of the binary left behind.
type Result struct {
	Code    int
	Stdout  string
	Stderr  string
	Outputs map[string]string
	Summary string
	Report  map[string]any
	// MaxRSS is the binary's peak resident set in bytes when Run.MeasureRSS
	// asked for it and GNU time could measure it (0 otherwise).
	MaxRSS int64
}

// Binary builds pact-action once per test process with the release flags.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := testbin.Build(testbin.ActionPackage)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// Payload loads a real webhook example (a path under testdata/github/webhooks)
// and applies edits: dotted paths to new values ("pull_request.head.sha").
func Payload(t testing.TB, example string, edits map[string]any) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testbin.ModuleRoot(), "testdata", "github", "webhooks", example))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for path, v := range edits {
		set(t, doc, strings.Split(path, "."), v)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func set(t testing.TB, m map[string]any, path []string, v any) {
	t.Helper()
	if len(path) == 1 {
		m[path[0]] = v
		return
	}
	next, ok := m[path[0]].(map[string]any)
	if !ok {
		next = map[string]any{}
		m[path[0]] = next
	}
	set(t, next, path[1:], v)
}

// Run is one workflow step running the action.
type Run struct {
	Server    *fakegithub.Server
	EventName string
	Payload   []byte
	// Inputs are the action inputs by name (mode, check-name, fail-on, ...).
	Inputs map[string]string
	// Workspace is the checkout; empty means a fresh empty directory.
	Workspace string
	// APIPath is appended to the server URL (e.g. "/api/v3" for GHES);
	// GITHUB_GRAPHQL_URL follows it as a runner sets it (/graphql, or
	// /api/graphql on GHES).
	APIPath string
	// NoGraphQLURL leaves GITHUB_GRAPHQL_URL unset, as an older runner
	// does: the endpoint is then derived from GITHUB_API_URL.
	NoGraphQLURL bool
	// Timeout bounds the run (default one minute).
	Timeout time.Duration
	// Extra environment variables.
	Env map[string]string
	// Args run the binary with arguments instead of as an action.
	Args []string
	// While runs beside the binary once it started (to signal it, say);
	// Exec waits for it too.
	While func(p *os.Process)
	// MeasureRSS runs the binary under GNU time (/usr/bin/time, Linux) to
	// report its peak resident set in Result.MaxRSS. The binary's own
	// rusage would not do: a child started from this process counts the
	// test process's memory (the fake's repositories) until it execs.
	MeasureRSS bool
}

// graphQLURL is the GITHUB_GRAPHQL_URL a runner sets for this server.
func (r Run) graphQLURL() string {
	switch {
	case r.NoGraphQLURL:
		return ""
	case strings.HasSuffix(strings.TrimRight(r.APIPath, "/"), "/api/v3"):
		return r.Server.URL + strings.TrimSuffix(strings.TrimRight(r.APIPath, "/"), "/v3") + "/graphql"
	}
	return r.Server.URL + "/graphql"
}

// Exec runs the binary and collects what it left behind.
func (r Run) Exec(t testing.TB) Result {
	t.Helper()
	dir := t.TempDir()
	ws := r.Workspace
	if ws == "" {
		ws = filepath.Join(dir, "workspace")
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	eventPath := filepath.Join(dir, "event.json")
	outputPath := filepath.Join(dir, "output")
	summaryPath := filepath.Join(dir, "summary.md")
	for _, p := range []string{outputPath, summaryPath} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(eventPath, r.Payload, 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
		"GITHUB_ACTIONS=true", "CI=true",
		"GITHUB_EVENT_NAME=" + r.EventName, "GITHUB_EVENT_PATH=" + eventPath,
		"GITHUB_REPOSITORY=" + Owner + "/" + Repo, "GITHUB_REPOSITORY_OWNER=" + Owner,
		"GITHUB_API_URL=" + r.Server.URL + r.APIPath, "GITHUB_GRAPHQL_URL=" + r.graphQLURL(), "GITHUB_SERVER_URL=https://github.example",
		"GITHUB_WORKSPACE=" + ws, "GITHUB_OUTPUT=" + outputPath, "GITHUB_STEP_SUMMARY=" + summaryPath,
		"GITHUB_RUN_ID=4242", "GITHUB_RUN_ATTEMPT=1", "GITHUB_SHA=0000000000000000000000000000000000000000",
		"RUNNER_TEMP=" + dir,
	}
	inputs := map[string]string{"token": Token}
	for k, v := range r.Inputs {
		inputs[k] = v
	}
	for k, v := range inputs {
		env = append(env, "INPUT_"+strings.ToUpper(k)+"="+v)
	}
	for k, v := range r.Env {
		env = append(env, k+"="+v)
	}
	timeout := r.Timeout
	if timeout == 0 {
		timeout = time.Minute
	}
	bin := Binary(t) // built before the clock starts: the first build is slow
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	name, args := bin, r.Args
	rssPath := ""
	if r.MeasureRSS && runtime.GOOS == "linux" {
		if timeBin, err := exec.LookPath("/usr/bin/time"); err == nil {
			rssPath = filepath.Join(dir, "maxrss")
			name, args = timeBin, append([]string{"-f", "%M", "-o", rssPath, bin}, r.Args...)
		}
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.Dir = ws
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Start()
	if err == nil {
		done := make(chan struct{})
		if r.While != nil {
			go func() {
				defer close(done)
				r.While(cmd.Process)
			}()
		} else {
			close(done)
		}
		err = cmd.Wait()
		<-done
	}
	res := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	if rssPath != "" {
		res.MaxRSS = readMaxRSS(t, rssPath)
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	default:
		t.Fatalf("run pact-action: %v\nstderr: %s", err, stderr.String())
	}
	if ctx.Err() != nil {
		t.Fatalf("pact-action did not finish within %s\nstdout: %s\nstderr: %s", timeout, res.Stdout, res.Stderr)
	}
	res.Outputs = readOutputs(t, outputPath)
	summary, _ := os.ReadFile(summaryPath)
	res.Summary = string(summary)
	if p := res.Outputs["report"]; p != "" {
		if !filepath.IsAbs(p) {
			p = filepath.Join(ws, p)
		}
		if b, err := os.ReadFile(p); err == nil {
			if err := json.Unmarshal(b, &res.Report); err != nil {
				t.Errorf("the JSON report is not JSON: %v", err)
			}
		}
	}
	return res
}

// readMaxRSS reads what GNU time -f %M wrote: the peak resident set in
// KiB, on the last line (after "Command exited with non-zero status N").
func readMaxRSS(t testing.TB, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	kib, err := strconv.ParseInt(strings.TrimSpace(lines[len(lines)-1]), 10, 64)
	if err != nil {
		t.Fatalf("GNU time wrote %q: %v", b, err)
	}
	return kib << 10
}

// readOutputs parses the GITHUB_OUTPUT file (name<<DELIMITER blocks, or
// name=value lines).
func readOutputs(t testing.TB, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if name, delim, ok := strings.Cut(line, "<<"); ok {
			var val []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				val = append(val, lines[i])
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		if name, val, ok := strings.Cut(line, "="); ok {
			out[name] = val
		}
	}
	return out
}

// Atoi reads a numeric output.
func (r Result) Atoi(t testing.TB, name string) int {
	t.Helper()
	n, err := strconv.Atoi(r.Outputs[name])
	if err != nil {
		t.Fatalf("output %s = %q is not a number (outputs %v)", name, r.Outputs[name], r.Outputs)
	}
	return n
}

// Codes lists the finding codes of the JSON report's first run.
func (r Result) Codes() []string {
	runs, _ := r.Report["runs"].([]any)
	if len(runs) == 0 {
		return nil
	}
	run, _ := runs[0].(map[string]any)
	findings, _ := run["findings"].([]any)
	var out []string
	for _, f := range findings {
		if m, ok := f.(map[string]any); ok {
			out = append(out, m["code"].(string))
		}
	}
	return out
}

// NewServer starts a fake GitHub whose workflow token may do everything.
func NewServer(t *testing.T, opts ...fakegithub.Option) *fakegithub.Server {
	t.Helper()
	// Reviews and comments come after the events of NewLog's logs, as they
	// would on GitHub.
	opts = append([]fakegithub.Option{fakegithub.WithClock(ServerEpoch)}, opts...)
	s := fakegithub.New(t, opts...)
	s.SetToken(Token, fakegithub.Token{Login: "github-actions[bot]"})
	return s
}
