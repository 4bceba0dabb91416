package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
	"gopkg.in/yaml.v3"
)

// No Docker engine runs where our tests run, so this test reads the
// Dockerfile and holds it to the build the test suite runs (scripts/build.sh
// for the action's package), to a pinned base image, and to the action
// contract.
func TestDockerfileBuildsWhatTheTestsBuild(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(ModuleRoot(), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	var froms, runs []string
	entrypoint := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "FROM "):
			froms = append(froms, line)
		case strings.HasPrefix(line, "RUN "):
			runs = append(runs, line)
		case strings.HasPrefix(line, "ENTRYPOINT "):
			entrypoint = strings.TrimPrefix(line, "ENTRYPOINT ")
		case strings.HasPrefix(line, "USER "):
			t.Errorf("Dockerfile has %q: GitHub runs container actions as root to read the workspace", line)
		}
	}
	if len(froms) < 2 {
		t.Fatalf("Dockerfile has %d stage(s), want a multi-stage build", len(froms))
	}
	// The build stage runs on the builder's platform and cross-compiles,
	// from a base image pinned by digest with its Go patch release named.
	base := regexp.MustCompile(`^FROM --platform=\$BUILDPLATFORM golang:(\d+\.\d+\.\d+)-\w+@sha256:[0-9a-f]{64} AS build$`)
	if !base.MatchString(froms[0]) {
		t.Errorf("build stage %q: want FROM --platform=$BUILDPLATFORM golang:X.Y.Z-<distro>@sha256:<digest> AS build", froms[0])
	}
	for _, from := range froms[1:] {
		if from != "FROM scratch" && !strings.Contains(from, "@sha256:") {
			t.Errorf("%q is not pinned by digest", from)
		}
	}
	var build string
	for _, r := range runs {
		if strings.Contains(r, "go build") {
			t.Errorf("%q builds by hand; build with %s, the one build of every shipped binary", r, buildScript)
		}
		if strings.Contains(r, buildScript) {
			build = r
		}
	}
	if build == "" {
		t.Fatalf("no RUN line builds with %s", buildScript)
	}
	want := regexp.MustCompile(`^RUN GOOS=\$TARGETOS GOARCH=\$TARGETARCH VERSION=\$VERSION bash ` + regexp.QuoteMeta(buildScript) + ` ` + regexp.QuoteMeta(ActionPackage) + ` (/\S+)$`)
	out := want.FindStringSubmatch(build)
	if out == nil {
		t.Fatalf("build line %q: want RUN GOOS=$TARGETOS GOARCH=$TARGETARCH VERSION=$VERSION bash %s %s /OUT", build, buildScript, ActionPackage)
	}
	for _, arg := range []string{"ARG TARGETOS", "ARG TARGETARCH", "ARG VERSION="} {
		if !strings.Contains(text, "\n"+arg) {
			t.Errorf("Dockerfile lacks %q, which the build line needs", arg)
		}
	}
	copyLine := regexp.MustCompile(`(?m)^COPY --from=\S+ ` + regexp.QuoteMeta(out[1]) + ` (\S+)$`).FindStringSubmatch(text)
	if copyLine == nil {
		t.Fatalf("the final stage does not copy the built %s", out[1])
	}
	wantEntry := `["` + copyLine[1] + `"]`
	if entrypoint != wantEntry {
		t.Errorf("ENTRYPOINT is %s, want the exec form %s of the copied binary", entrypoint, wantEntry)
	}
	if !strings.HasPrefix(copyLine[1], "/") {
		t.Errorf("entrypoint %s is not absolute", copyLine[1])
	}
	if !strings.Contains(text, "ca-certificates") {
		t.Error("the final image has no CA certificates; HTTPS to the GitHub API would fail")
	}

	var action struct {
		Runs struct {
			Using string `yaml:"using"`
			Image string `yaml:"image"`
		} `yaml:"runs"`
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Outputs map[string]any `yaml:"outputs"`
	}
	ab, err := os.ReadFile(filepath.Join(ModuleRoot(), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(ab, &action); err != nil {
		t.Fatal(err)
	}
	// main builds the Dockerfile; a release commit runs the published image
	// by digest (scripts/pin-image.sh).
	if action.Runs.Using != "docker" || (action.Runs.Image != "Dockerfile" && !releasedImage.MatchString(action.Runs.Image)) {
		t.Errorf("action.yml runs = %+v, want a docker action on the Dockerfile or on %s@sha256:<digest>", action.Runs, Image)
	}
	for name, def := range map[string]string{"mode": "auto", "token": "${{ github.token }}", "check-name": "pact", "pact-dir": ".pact", "fail-on": "error"} {
		if got, ok := action.Inputs[name]; !ok || got.Default != def {
			t.Errorf("input %s = %+v, want default %q", name, got, def)
		}
	}
	for _, name := range []string{"conclusion", "errors", "warnings", "pending", "report"} {
		if _, ok := action.Outputs[name]; !ok {
			t.Errorf("action.yml lacks output %s", name)
		}
	}
	readme, err := os.ReadFile(filepath.Join(ModuleRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name := range action.Inputs {
		if !strings.Contains(string(readme), "| `"+name+"` |") {
			t.Errorf("README's action reference does not document input %s", name)
		}
	}
}

// TestDockerignoreKeepsTheBuild: the build context the image gets
// (.dockerignore, read with Docker's own matcher) keeps every file the
// Dockerfile's build reads — go.mod, go.sum, the build script and the Go
// files of every package of this module pact-action links, embedded files
// included — and leaves out the history and the tests.
func TestDockerignoreKeepsTheBuild(t *testing.T) {
	t.Parallel()
	root := ModuleRoot()
	f, err := os.Open(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	patterns, err := ignorefile.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	m, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatal(err)
	}
	excluded := func(rel string) bool {
		t.Helper()
		ex, err := m.MatchesOrParentMatches(filepath.ToSlash(rel))
		if err != nil {
			t.Fatal(err)
		}
		return ex
	}
	cmd := exec.Command("go", "list", "-deps", "-f", `{{if .Module}}{{if .Module.Main}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{range .EmbedFiles}} {{.}}{{end}}{{end}}{{end}}`, "./cmd/pact-action")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	needed := []string{"go.mod", "go.sum", buildScript}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		dir, err := filepath.Rel(root, fields[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range fields[1:] {
			needed = append(needed, filepath.Join(dir, name))
		}
	}
	if len(needed) < 20 {
		t.Fatalf("go list names %d files of the build; want the packages pact-action links", len(needed))
	}
	for _, p := range needed {
		if excluded(p) {
			t.Errorf(".dockerignore leaves out %s, which the image's build reads", p)
		}
	}
	for _, p := range []string{".git/HEAD", "action/check_test.go", "projection/testdata/x", "internal/testkit/fakegithub/server.go", "docs/check.md", "examples/demo/.pact/log.jsonl"} {
		if !excluded(p) {
			t.Errorf(".dockerignore sends %s into the build context", p)
		}
	}
}
