package testbin

import (
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// releaseTestVar asks for the release build's own test (.ci/run sets it).
const releaseTestVar = "PACT_TEST_RELEASE"

// Image is where a release publishes the action's image.
const Image = "ghcr.io/pact-action/pact-action"

// releasedImage is action.yml's runs.image on a release commit.
var releasedImage = regexp.MustCompile(`^docker://` + regexp.QuoteMeta(Image) + `@sha256:[0-9a-f]{64}$`)

// workflow is the part of a workflow file these tests read.
type workflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		Steps []struct {
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func readWorkflow(t *testing.T, name string) workflow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ModuleRoot(), ".github", "workflows", name))
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return w
}

func readFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ModuleRoot(), rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReleaseWorkflowBuildsWithTheScripts: release.yml builds binaries only
// through scripts/release-binaries.sh (which builds every release package
// with scripts/build.sh) and the image only from the Dockerfile, for both
// architectures, with the release's version.
func TestReleaseWorkflowBuildsWithTheScripts(t *testing.T) {
	t.Parallel()
	w := readWorkflow(t, "release.yml")
	if w.Env["IMAGE"] != Image {
		t.Errorf("release.yml IMAGE = %q, want %s", w.Env["IMAGE"], Image)
	}
	var binaries, pin, image bool
	for job, j := range w.Jobs {
		for _, s := range j.Steps {
			if strings.Contains(s.Run, "go build") {
				t.Errorf("job %s builds by hand: %q; use %s", job, s.Run, buildScript)
			}
			if strings.Contains(s.Run, `scripts/release-binaries.sh "$VERSION" dist`) {
				binaries = true
			}
			if strings.Contains(s.Run, `scripts/pin-image.sh "${IMAGE}@${DIGEST}"`) && s.Env["DIGEST"] == "${{ needs.image.outputs.digest }}" {
				pin = true
			}
			if strings.HasPrefix(s.Uses, "docker/build-push-action@") {
				image = true
				if s.With["file"] != "Dockerfile" || s.With["context"] != "." || s.With["push"] != "true" {
					t.Errorf("build-push-action with %v: want the repository's Dockerfile, pushed", s.With)
				}
				if s.With["platforms"] != "linux/amd64,linux/arm64" {
					t.Errorf("image platforms %q, want linux/amd64,linux/arm64", s.With["platforms"])
				}
				if s.With["build-args"] != "VERSION=${{ env.VERSION }}" {
					t.Errorf("image build-args %q: the image must link the release's version", s.With["build-args"])
				}
			}
		}
	}
	if !binaries || !pin || !image {
		t.Errorf("release.yml: binaries via scripts/release-binaries.sh %v, image via build-push-action %v, action.yml pinned to the image's digest %v", binaries, image, pin)
	}
	script := readFile(t, "scripts/release-binaries.sh")
	for _, want := range []string{
		"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64",
		`"$root/` + buildScript + `" "./cmd/$cmd"`,
	} {
		if !strings.Contains(script, want) {
			t.Errorf("scripts/release-binaries.sh lacks %q", want)
		}
	}
	loop := regexp.MustCompile(`for cmd in ([^;]+);`).FindStringSubmatch(script)
	if loop == nil {
		t.Fatal("scripts/release-binaries.sh has no `for cmd in …;` loop over the packages")
	}
	var pkgs []string
	for _, cmd := range strings.Fields(loop[1]) {
		pkgs = append(pkgs, "./cmd/"+cmd)
	}
	if fmt.Sprint(pkgs) != fmt.Sprint(ReleasePackages) {
		t.Errorf("the release builds %v, want %v", pkgs, ReleasePackages)
	}
}

// TestReleaseBinariesAreBuiltLikeTheTests runs the release's binary build
// for this machine's platform and compares what it made with what the tests
// run: the same packages and platform, stripped, each with
// the version it was given linked in, and the release static with trimmed
// paths (the tests' build keeps the test run's cgo setting and paths:
// scripts/build.sh's TEST_BUILD). The release build compiles the standard
// library and every module again, about 55 s of CPU on a cold cache, so it
// runs when PACT_TEST_RELEASE=1 asks for it, as .ci/run does, and not in a
// newcomer's first `go test ./...`.
func TestReleaseBinariesAreBuiltLikeTheTests(t *testing.T) {
	t.Parallel()
	skipUnlessLinux(t, "scripts/release-binaries.sh")
	if os.Getenv(releaseTestVar) != "1" {
		t.Skipf("the release build runs with %s=1 (.ci/run sets it)", releaseTestVar)
	}
	const version = "v9.9.9-agreement"
	dist := t.TempDir()
	target := runtime.GOOS + "/" + runtime.GOARCH
	cmd := exec.Command("bash", "scripts/release-binaries.sh", version, dist)
	cmd.Dir = ModuleRoot()
	cmd.Env = append(os.Environ(), "TARGETS="+target)
	if err := serialized(func() error {
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("scripts/release-binaries.sh: %w\n%s", err, b)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sums := readSums(t, filepath.Join(dist, "SHA256SUMS"))
	if len(sums) != len(ReleasePackages) {
		t.Errorf("SHA256SUMS lists %d files, want %d", len(sums), len(ReleasePackages))
	}
	for _, pkg := range ReleasePackages {
		name := fmt.Sprintf("%s_%s_%s_%s", filepath.Base(pkg), version, runtime.GOOS, runtime.GOARCH)
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		released := filepath.Join(dist, name)
		b, err := os.ReadFile(released)
		if err != nil {
			t.Fatalf("the release did not build %s: %v", name, err)
		}
		sum := sha256.Sum256(b)
		if sums[name] != hex.EncodeToString(sum[:]) {
			t.Errorf("SHA256SUMS says %s is %q, it is %x", name, sums[name], sum)
		}
		tested, err := Build(pkg)
		if err != nil {
			t.Fatal(err)
		}
		rel, test := buildSettings(t, released), buildSettings(t, tested)
		if rel["path"] != "github.com/pact-action/pact-action/"+strings.TrimPrefix(pkg, "./") {
			t.Errorf("%s is built from %s, want %s", name, rel["path"], pkg)
		}
		for _, key := range []string{"path", "GOOS", "GOARCH", "-buildmode", "-compiler"} {
			if rel[key] != test[key] {
				t.Errorf("%s: the release has %s=%q, the tests' build %q", pkg, key, rel[key], test[key])
			}
		}
		if rel["-trimpath"] != "true" || rel["CGO_ENABLED"] != "0" {
			t.Errorf("%s: -trimpath=%s CGO_ENABLED=%s, want a static build with trimmed paths", name, rel["-trimpath"], rel["CGO_ENABLED"])
		}
		for _, bin := range []string{released, tested} {
			if symbols(t, bin) {
				t.Errorf("%s has a symbol table: -ldflags -s -w did not apply", bin)
			}
		}
		for bin, want := range map[string]string{released: version, tested: Version} {
			out, err := exec.Command(bin, "--version").Output()
			if err != nil {
				t.Fatalf("%s --version: %v", bin, err)
			}
			if !strings.HasPrefix(string(out), filepath.Base(pkg)+" "+want+" ") {
				t.Errorf("%s --version = %q, want the linked-in %s", bin, out, want)
			}
		}
	}
}

// buildSettings is what Go recorded of a binary's build.
func buildSettings(t *testing.T, path string) map[string]string {
	t.Helper()
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := map[string]string{"path": info.Path}
	for _, kv := range info.Settings {
		s[kv.Key] = kv.Value
	}
	return s
}

// symbols reports whether an ELF binary kept its symbol table (elsewhere it
// answers false: the check is Linux's, where the tests and the image run).
func symbols(t *testing.T, path string) bool {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return f.Section(".symtab") != nil
}

func readSums(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q is not `<sha256>  <file>`", line)
		}
		sums[name] = sum
	}
	return sums
}

// TestGoVersionAgrees: the Dockerfile's build stage and the workflows build
// with the same Go patch release (the image's GOTOOLCHAIN, the workflows'
// GO_VERSION), no older than go.mod's language version and the base image.
func TestGoVersionAgrees(t *testing.T) {
	t.Parallel()
	dockerfile := readFile(t, "Dockerfile")
	base := regexp.MustCompile(`(?m)^FROM --platform=\$BUILDPLATFORM golang:(\d+\.\d+\.\d+)-`).FindStringSubmatch(dockerfile)
	if base == nil {
		t.Fatal("the Dockerfile names no golang:X.Y.Z base image")
	}
	tc := regexp.MustCompile(`(?m)^ENV GOTOOLCHAIN=go(\d+\.\d+\.\d+)$`).FindStringSubmatch(dockerfile)
	if tc == nil {
		t.Fatal("the Dockerfile's build stage sets no GOTOOLCHAIN=goX.Y.Z: the image would build with its base image's Go")
	}
	goVersion := tc[1]
	for _, name := range []string{"ci.yml", "release.yml"} {
		if got := readWorkflow(t, name).Env["GO_VERSION"]; got != goVersion {
			t.Errorf("%s sets up Go %q, the Dockerfile builds with %s", name, got, goVersion)
		}
	}
	if versionLess(goVersion, base[1]) {
		t.Errorf("the Dockerfile's GOTOOLCHAIN go%s is older than its base image's Go %s", goVersion, base[1])
	}
	mod := regexp.MustCompile(`(?m)^go (\d+\.\d+(?:\.\d+)?)$`).FindStringSubmatch(readFile(t, "go.mod"))
	if mod == nil || versionLess(goVersion, mod[1]) {
		t.Errorf("go.mod says go %v; the image's Go %s is older", mod, goVersion)
	}
	if regexp.MustCompile(`(?m)^toolchain `).MatchString(readFile(t, "go.mod")) {
		t.Error("go.mod has a toolchain line: every go command on an older Go would download it, and golangci-lint built by that Go refuses to run (docs/decisions.md)")
	}
}

// versionLess compares dotted Go versions numerically ("1.26" < "1.26.8").
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// TestPinImage runs the release's action.yml rewrite on a copy: only
// runs.image changes, to the digest; anything but IMAGE@sha256:<64 hex> is
// refused and leaves the file alone.
func TestPinImage(t *testing.T) {
	t.Parallel()
	skipUnlessLinux(t, "scripts/pin-image.sh")
	original := readFile(t, "action.yml")
	if !strings.Contains(original, "\n  image: Dockerfile\n") {
		t.Fatal("action.yml on main must build the Dockerfile: `  image: Dockerfile`")
	}
	pin := func(ref string) (string, error) {
		path := filepath.Join(t.TempDir(), "action.yml")
		if err := os.WriteFile(path, []byte(original), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("bash", filepath.Join(ModuleRoot(), "scripts", "pin-image.sh"), ref, path).CombinedOutput()
		b, rerr := os.ReadFile(path)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err != nil {
			return string(b), fmt.Errorf("%w: %s", err, out)
		}
		return string(b), nil
	}
	digest := "sha256:" + strings.Repeat("0123456789abcdef", 4)
	got, err := pin(Image + "@" + digest)
	if err != nil {
		t.Fatal(err)
	}
	var before, after map[string]any
	if err := yaml.Unmarshal([]byte(original), &before); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(got), &after); err != nil {
		t.Fatal(err)
	}
	runs := after["runs"].(map[string]any)
	if image, _ := runs["image"].(string); !releasedImage.MatchString(image) || image != "docker://"+Image+"@"+digest {
		t.Errorf("runs.image = %q", image)
	}
	runs["image"] = "Dockerfile"
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("pin-image.sh changed more than runs.image:\n%s", got)
	}
	for _, bad := range []string{Image + ":v1.2.3", Image + "@sha256:abc", "UPPER/case@" + digest, Image + "@" + digest + "; rm -rf /"} {
		if got, err := pin(bad); err == nil || got != original {
			t.Errorf("pin-image.sh accepted %q (or changed the file)", bad)
		}
	}
}
