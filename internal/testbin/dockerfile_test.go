package testbin

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// No Docker engine runs where our tests run, so this test reads the
// Dockerfile and holds it to the build the test suite runs and to the
// action contract.
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
	var build string
	for _, r := range runs {
		if strings.Contains(r, "go build") {
			build = r
		}
	}
	if build == "" {
		t.Fatal("no RUN line builds with go build")
	}
	for _, env := range Env {
		if !strings.Contains(build, env) {
			t.Errorf("build line %q lacks %s, which the tests build with", build, env)
		}
	}
	for _, f := range Flags {
		if !slices.Contains(strings.Fields(build), f) {
			t.Errorf("build line %q lacks %s, which the tests build with", build, f)
		}
	}
	if !strings.HasSuffix(build, " "+ActionPackage) {
		t.Errorf("build line %q does not build %s", build, ActionPackage)
	}
	out := regexp.MustCompile(`-o (\S+)`).FindStringSubmatch(build)
	if out == nil {
		t.Fatalf("build line %q names no output", build)
	}
	copyLine := regexp.MustCompile(`(?m)^COPY --from=\S+ ` + regexp.QuoteMeta(out[1]) + ` (\S+)$`).FindStringSubmatch(text)
	if copyLine == nil {
		t.Fatalf("the final stage does not copy the built %s", out[1])
	}
	want := `["` + copyLine[1] + `"]`
	if entrypoint != want {
		t.Errorf("ENTRYPOINT is %s, want the exec form %s of the copied binary", entrypoint, want)
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
	if action.Runs.Using != "docker" || (action.Runs.Image != "Dockerfile" && !strings.HasPrefix(action.Runs.Image, "docker://")) {
		t.Errorf("action.yml runs = %+v, want a docker action", action.Runs)
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
