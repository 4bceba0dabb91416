// Package version owns the version both binaries report (--version, and the
// SARIF tool driver): the value a release links in with
// -ldflags "-X github.com/pact-action/pact-action/internal/version.version=v1.2.3",
// else the module version Go recorded in the build info (`go install
// ...@v1.2.3` records v1.2.3; a build in a git checkout records a
// pseudo-version), else "devel".
package version

import (
	"runtime/debug"
	"strings"
)

// version is set by the release build's -ldflags -X (scripts/build.sh).
var version string

// linkTarget is the -X target of scripts/build.sh, which the Dockerfile
// and the release build through (TestBuildScriptLinksTheVersion).
const linkTarget = "github.com/pact-action/pact-action/internal/version.version"

// String is the version of this binary.
func String() string {
	info, _ := debug.ReadBuildInfo()
	return resolve(version, info)
}

// resolve picks the linked-in version over the build info's.
func resolve(linked string, info *debug.BuildInfo) string {
	if linked = strings.TrimSpace(linked); linked != "" {
		return linked
	}
	if info == nil {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel+" + rev
}

// Line is what `--version` prints: the program, its version and the Go
// toolchain that built it, as `gh --version` does.
func Line(program string) string {
	goVersion := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		goVersion = info.GoVersion
	}
	return program + " " + String() + " (" + goVersion + ")\n"
}
