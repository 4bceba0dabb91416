// Package testbin builds the project's real binaries for end-to-end tests
// with scripts/build.sh, the build the release and the image use (the tests
// here hold the Dockerfile and the release workflow to it), once per test
// process: with TEST_BUILD=1, which keeps the test run's own cgo setting
// and paths so the build reuses what `go test` compiled (scripts/build.sh
// says why; TestReleaseBinariesAreBuiltLikeTheTests compares the two).
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

// buildScript is the one build of every shipped binary, relative to the
// module root.
const buildScript = "scripts/build.sh"

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
	out := filepath.Join(dir, filepath.Base(pkg)+exe)
	if err := runBuildScript(pkg, out, Version, []string{"TEST_BUILD=1"}); err != nil {
		return "", err
	}
	built[pkg] = out
	return out, nil
}

// runBuildScript runs scripts/build.sh for pkg into out (an absolute path)
// with VERSION set and extra environment such as GOOS and GOARCH.
func runBuildScript(pkg, out, version string, env []string) error {
	cmd := exec.Command(Bash(), buildScript, pkg, out)
	cmd.Dir = ModuleRoot()
	cmd.Env = append(append(os.Environ(), "VERSION="+version), env...)
	return serialized(func() error {
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s %s: %w\n%s", buildScript, pkg, err, b)
		}
		return nil
	})
}

// serialized runs build holding an exclusive lock on this checkout's
// scripts/build.sh, which every test process building with it takes.
// `go test ./...` runs several packages' tests at once, and concurrent go
// builds do not share work in progress: each would compile and link the
// commands' own packages again. One at a time, the first builds and the
// rest find its work in the build cache.
func serialized(build func() error) error {
	f, err := os.Open(filepath.Join(ModuleRoot(), buildScript))
	if err != nil {
		return fmt.Errorf("open %s to lock it: %w", buildScript, err)
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		return fmt.Errorf("lock %s: %w", buildScript, err)
	}
	defer func() { _ = unlockFile(f) }()
	return build()
}

// exe is what a binary's name ends in on this system.
var exe = map[bool]string{true: ".exe"}[runtime.GOOS == "windows"]

// Bash is the bash that runs the project's scripts: on Windows, Git for
// Windows' own, beside its git (a bash found first on PATH may be WSL's,
// which names this file system otherwise).
func Bash() string {
	if runtime.GOOS != "windows" {
		return "bash"
	}
	if git, err := exec.LookPath("git"); err == nil {
		for _, rel := range []string{`..\bin\bash.exe`, `..\..\bin\bash.exe`} {
			if p := filepath.Join(filepath.Dir(git), rel); isFile(p) {
				return p
			}
		}
	}
	return "bash"
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// skipUnlessLinux skips a test of what runs on Linux only: the release
// and the image are built there (.github/workflows/release.yml), and their
// scripts use GNU find and sed.
func skipUnlessLinux(t interface{ Skipf(string, ...any) }, what string) {
	if runtime.GOOS != "linux" {
		t.Skipf("%s runs on Linux only (the release is built there with GNU tools); this is %s", what, runtime.GOOS)
	}
}
