package action

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/ghapi"
)

// TestSuperseded: of the runs of the check's name and app listed in
// progress on the head, a run supersedes those this action created
// (newExternalID's form) that are older than it, the oldest first, at
// most maxSuperseded; never itself, a newer run, nor a run of another
// form (a job's own check run of the same name, another tool's).
func TestSuperseded(t *testing.T) {
	t.Parallel()
	ours := func(n int) string { return fmt.Sprintf("%s%032x", externalIDPrefix, n) }
	listed := func(ids ...int64) []ghapi.ListedRun {
		var out []ghapi.ListedRun
		for _, id := range ids {
			out = append(out, ghapi.ListedRun{ID: id, ExternalID: ours(int(id))})
		}
		return out
	}
	var flood []int64
	for id := int64(1); id <= maxSuperseded+2; id++ {
		flood = append(flood, id)
	}
	for _, tc := range []struct {
		name   string
		listed []ghapi.ListedRun
		own    int64
		want   []int64
	}{
		{name: "nothing listed", own: 50},
		{name: "only itself", listed: listed(50), own: 50},
		{name: "an older run of ours", listed: listed(7, 50), own: 50, want: []int64{7}},
		{name: "a newer run", listed: listed(50, 61), own: 50},
		{name: "older ones and a newer one", listed: listed(3, 7, 50, 61), own: 50, want: []int64{3, 7}},
		{name: "no run of ours to supersede from", listed: listed(7), own: 0},
		{name: "a job's own check run of the name", listed: []ghapi.ListedRun{{ID: 7}}, own: 50},
		{name: "another tool's external id", listed: []ghapi.ListedRun{{ID: 7, ExternalID: "6f1c2d0e-build"}}, own: 50},
		{name: "our prefix, not our form", listed: []ghapi.ListedRun{{ID: 7, ExternalID: externalIDPrefix + "x"}, {ID: 8, ExternalID: externalIDPrefix + strings.Repeat("g", 32)}}, own: 50},
		{name: "a flood", listed: listed(append(flood, 50)...), own: 50, want: flood[:maxSuperseded]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := superseded(tc.listed, tc.own); !slices.Equal(got, tc.want) {
				t.Errorf("superseded = %v, want %v", got, tc.want)
			}
		})
	}
	if id := newExternalID(); !isOwnExternalID(id) {
		t.Errorf("newExternalID() = %q, not of its own form", id)
	}
}
