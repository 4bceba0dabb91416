// Package testbin builds the project's real binaries for end-to-end tests,
// with exactly the flags the release image uses (the Dockerfile test holds
// the two together), once per test process.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

// Flags are the go build flags of every shipped binary; the Dockerfile adds
// only -ldflags that strip symbols.
var Flags = []string{"-trimpath"}

// Env is the build environment of every shipped binary: static, no cgo.
var Env = []string{"CGO_ENABLED=0"}

// ActionPackage is the package the Dockerfile builds as the entrypoint.
const ActionPackage = "./cmd/pact-action"

var (
	mu    sync.Mutex
	built = map[string]string{}
	dir   string
)

// ModuleRoot finds the repository root from this source file.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
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
	args := append(append([]string{"build"}, Flags...), "-o", out, pkg)
	cmd := exec.Command("go", args...)
	cmd.Dir = ModuleRoot()
	cmd.Env = append(os.Environ(), Env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	built[pkg] = out
	return out, nil
}
