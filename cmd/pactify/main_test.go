package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/internal/testkit/testbin"
	"github.com/pact-action/pact-action/report"
)

// binPath is the pactify binary TestMain builds once for every end-to-end
// test.
var binPath string

func TestMain(m *testing.M) {
	flag.Parse()
	// The shipped build (scripts/build.sh): its fixed test version keeps
	// the SARIF golden file's tool version from changing with each commit.
	var err error
	binPath, err = testbin.Build("./cmd/pactify")
	if err != nil {
		fmt.Fprintln(os.Stderr, "build pactify:", err)
		os.Exit(1)
	}
	code := m.Run()
	// Best effort: both are in the temporary directory.
	_ = os.RemoveAll(filepath.Dir(binPath))
	if templates.root != "" {
		_ = os.RemoveAll(templates.root)
	}
	if conflictedTmpl.root != "" {
		_ = os.RemoveAll(conflictedTmpl.root)
	}
	os.Exit(code)
}

// unset, as an agent, runs pactify without PACT_AGENT_ID in its environment.
const unset = "\x00unset"

// t0 is the first PACT_NOW of a test; steps add minutes to it.
const t0 = "2026-06-09T10:00:00Z"

// project is a repository in a temporary directory that pactify runs in.
type project struct {
	t    *testing.T
	dir  string
	home string
	// now is PACT_NOW for the next command ("" leaves it unset).
	now string
	// extra is more of the environment (KEY=value).
	extra []string
}

// result is what one pactify process did.
type result struct {
	code           int
	stdout, stderr string
	args           []string
}

func (r result) String() string {
	return fmt.Sprintf("pactify %q: exit %d\nstdout:\n%s\nstderr:\n%s", r.args, r.code, r.stdout, r.stderr)
}

func newProject(t *testing.T) *project {
	t.Helper()
	return &project{t: t, dir: t.TempDir(), home: t.TempDir(), now: t0}
}

// env is the whole environment of a pactify process: nothing leaks in from
// the test's own environment but PATH (git is looked up on it).
func (p *project) env(agent string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + p.home,
		"LANG=C",
		// accept runs `git rev-parse HEAD`; never let it find a repository
		// above the test's directory.
		"GIT_CEILING_DIRECTORIES=" + filepath.Dir(p.dir),
		"GIT_CONFIG_NOSYSTEM=1",
	}
	if root := os.Getenv("SYSTEMROOT"); root != "" {
		env = append(env, "SYSTEMROOT="+root) // Windows programs need it
	}
	if agent != unset {
		env = append(env, "PACT_AGENT_ID="+agent)
	}
	if p.now != "" {
		env = append(env, "PACT_NOW="+p.now)
	}
	return append(env, p.extra...)
}

// run runs pactify as agent in the project and returns what it did.
func (p *project) run(agent string, args ...string) result {
	p.t.Helper()
	return runIn(p.t, p.dir, p.env(agent), args...)
}

func runIn(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	res, err := runProc(dir, env, args...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// runProc runs pactify; the error is for a process that could not run at
// all. It never calls t, so goroutines may use it.
func runProc(dir string, env []string, args ...string) (result, error) {
	res, err := runCmd(exec.Command(binPath, args...), dir, env)
	res.args = args
	if err != nil {
		return res, fmt.Errorf("run pactify %q: %w", args, err)
	}
	return res, nil
}

// runCmd runs cmd (pactify, or something that runs it) in dir with env.
func runCmd(cmd *exec.Cmd, dir string, env []string) (result, error) {
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	default:
		return res, err
	}
	return res, nil
}

// ok runs a verb that must succeed, then checks that the pact is still
// valid with no finding at all.
func (p *project) ok(agent string, args ...string) result {
	p.t.Helper()
	r := p.run(agent, args...)
	if r.code != 0 {
		p.t.Fatalf("want exit 0\n%s", r)
	}
	p.mustValidate()
	return r
}

// validateJSON is the JSON report of `pactify validate --format json`.
type validateJSON = report.JSON

func (p *project) validate(args ...string) (validateJSON, result) {
	p.t.Helper()
	r := p.run(unset, append([]string{"validate", "--format", "json"}, args...)...)
	var rep validateJSON
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		p.t.Fatalf("validate --format json printed no JSON object: %v\n%s", err, r)
	}
	return rep, r
}

// mustValidate asserts that validate finds nothing and exits 0.
func (p *project) mustValidate() {
	p.t.Helper()
	rep, r := p.validate()
	if r.code != 0 || !rep.Valid || len(rep.Findings) != 0 {
		p.t.Fatalf("validate: want valid with no findings\n%s", r)
	}
}

func (p *project) path(rel string) string { return filepath.Join(p.dir, filepath.FromSlash(rel)) }

func (p *project) read(rel string) string {
	p.t.Helper()
	b, err := os.ReadFile(p.path(rel))
	if err != nil {
		p.t.Fatal(err)
	}
	return string(b)
}

func (p *project) write(rel, text string) {
	p.t.Helper()
	if err := os.MkdirAll(filepath.Dir(p.path(rel)), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(p.path(rel), []byte(text), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

func (p *project) remove(rel string) {
	p.t.Helper()
	if err := os.Remove(p.path(rel)); err != nil {
		p.t.Fatal(err)
	}
}

// logLines returns the lines of .pact/log.jsonl, each checked to end in a
// newline.
func (p *project) logLines() []string {
	p.t.Helper()
	text := p.read(".pact/log.jsonl")
	if text == "" {
		return nil
	}
	if !strings.HasSuffix(text, "\n") {
		p.t.Fatalf("log.jsonl does not end in a newline: %q", text)
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// wireEvent is one log line as it is on the wire.
type wireEvent struct {
	EventID   string         `json:"event_id"`
	TS        string         `json:"ts"`
	AgentID   string         `json:"agent_id"`
	Role      string         `json:"role"`
	EventType string         `json:"event_type"`
	TaskID    string         `json:"task_id"`
	Feature   string         `json:"feature"`
	Payload   map[string]any `json:"payload"`
}

// parseLine decodes one log line strictly: exactly the eight envelope
// fields of docs/semantics.md, pact v1 §2.1, nothing else.
func parseLine(t *testing.T, line string) wireEvent {
	t.Helper()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &raw); err != nil {
		t.Fatalf("log line is not a JSON object: %v: %q", err, line)
	}
	if len(raw) != 8 {
		t.Fatalf("log line has %d top-level fields, want the 8 of the envelope: %s", len(raw), line)
	}
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	var ev wireEvent
	if err := dec.Decode(&ev); err != nil {
		t.Fatalf("log line does not decode as an envelope: %v: %s", err, line)
	}
	if ev.Payload == nil {
		t.Fatalf("log line has no payload object: %s", line)
	}
	return ev
}

// treeEntry is what a refusal must leave exactly as it was.
type treeEntry struct {
	mode fs.FileMode
	sum  string // content hash of a file, target of a symlink
}

// snapshot hashes every file, directory and symlink under dir.
func snapshot(t *testing.T, dir string) map[string]treeEntry {
	t.Helper()
	out := map[string]treeEntry{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := treeEntry{mode: info.Mode()}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			e.sum, err = os.Readlink(path)
		case d.Type().IsRegular():
			var b []byte
			b, err = os.ReadFile(path)
			sum := sha256.Sum256(b)
			e.sum = hex.EncodeToString(sum[:])
		}
		out[rel] = e
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTree fails the test with every difference between two snapshots.
func sameTree(t *testing.T, before, after map[string]treeEntry) {
	t.Helper()
	var diffs []string
	for path, b := range before {
		a, ok := after[path]
		switch {
		case !ok:
			diffs = append(diffs, "removed "+path)
		case a != b:
			diffs = append(diffs, fmt.Sprintf("changed %s (%v %s -> %v %s)", path, b.mode, b.sum, a.mode, a.sum))
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok {
			diffs = append(diffs, "created "+path)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Fatalf("the tree changed:\n  %s", strings.Join(diffs, "\n  "))
	}
}

// copyTree copies a directory tree, keeping modes and symlinks.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}
