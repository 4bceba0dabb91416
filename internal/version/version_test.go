package version

import (
	"os"
	"runtime/debug"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, c := range []struct {
		name   string
		linked string
		info   *debug.BuildInfo
		want   string
	}{
		{"the release's -X wins", "v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}}, "v1.2.3"},
		{"blank -X is ignored", "  ", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}}, "v0.9.0"},
		{"go install records the module version", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0"},
		{"a checkout build without a tag", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("0123456789abcdef0123", "false")}, "devel+0123456789ab"},
		{"a dirty checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("abc", "true")}, "devel+abc-dirty"},
		{"no vcs, no version", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{"no build info", "", nil, "devel"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := resolve(c.linked, c.info); got != c.want {
				t.Errorf("resolve = %q, want %q", got, c.want)
			}
		})
	}
}

func TestLineNamesProgramVersionAndGo(t *testing.T) {
	t.Parallel()
	got := Line("pactify")
	if !strings.HasPrefix(got, "pactify "+String()+" (go") || !strings.HasSuffix(got, ")\n") {
		t.Errorf("Line = %q", got)
	}
}

// TestBuildScriptLinksTheVersion: the build every binary of a release and
// of the tests comes from sets the variable String reads.
func TestBuildScriptLinksTheVersion(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../scripts/build.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "-X "+linkTarget+"=") {
		t.Errorf("scripts/build.sh does not link the version into %s", linkTarget)
	}
}
