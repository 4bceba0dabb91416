// Package testbin builds the project's real binaries for end-to-end tests
// with scripts/build.sh, the build the release and the image use (the tests
// here hold the Dockerfile and the release workflow to it), once per test
// process.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

// BuildScript is the one build of every shipped binary, relative to the
// module root.
const BuildScript = "scripts/build.sh"

// Version is what test binaries report as their version: fixed, so golden
// files do not change with every commit, and not a real release's.
const Version = "v0.0.0-testbin"

// ActionPackage is the package the Dockerfile builds as the entrypoint.
const ActionPackage = "./cmd/pact-action"

// ReleasePackages are the binaries a release publishes.
var ReleasePackages = []string{"./cmd/pactify", ActionPackage}

var (
	mu    sync.Mutex
	built = map[string]string{}
	dir   string
)

// ModuleRoot finds the repository root from this source file.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// Build compiles pkg (e.g. "./cmd/pactify") once and returns the binary's path.
func Build(pkg string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if p, ok := built[pkg]; ok {
		return p, nil
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "pact-testbin-")
		if err != nil {
			return "", fmt.Errorf("make a directory for test binaries: %w", err)
		}
		dir = d
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	if err := RunBuildScript(pkg, out, Version, nil); err != nil {
		return "", err
	}
	built[pkg] = out
	return out, nil
}

// RunBuildScript runs scripts/build.sh for pkg into out (an absolute path)
// with VERSION set and extra environment such as GOOS and GOARCH.
func RunBuildScript(pkg, out, version string, env []string) error {
	cmd := exec.Command("bash", BuildScript, pkg, out)
	cmd.Dir = ModuleRoot()
	cmd.Env = append(append(os.Environ(), "VERSION="+version), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", BuildScript, pkg, err, b)
	}
	return nil
}
