package ghevent_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/ghevent"
)

// What pact-action reads of an event: the mode auto picks, the events that
// re-judge every open pull request, the pull requests a merge queue's head
// ref names, and the payload's fields.

func TestParseMode(t *testing.T) {
	t.Parallel()
	for input, want := range map[string]string{
		"": "auto", "  ": "auto", "auto": "auto", "check": "check", "bot": "bot", " Bot ": "bot", "CHECK": "check",
		"sometimes": "", "checks": "", "auto,bot": "",
	} {
		got, err := ghevent.ParseMode(input)
		if got != want || (err != nil) != (want == "") {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", input, got, err, want)
		}
		if err != nil && !strings.Contains(err.Error(), "must be auto, check or bot") {
			t.Errorf("ParseMode(%q) error does not name the modes: %v", input, err)
		}
	}
}

func TestModeFor(t *testing.T) {
	t.Parallel()
	for event, want := range map[string]string{
		"pull_request": "check", "pull_request_target": "check", "merge_group": "check", "workflow_dispatch": "check", "schedule": "check", "push": "check",
		"pull_request_review": "bot", "issue_comment": "bot", "pull_request_review_comment": "bot",
		"check_suite": "", "release": "",
	} {
		got, err := ghevent.ModeFor(event)
		if got != want || (err != nil) != (want == "") {
			t.Errorf("ModeFor(%q) = %q, %v; want %q", event, got, err, want)
		}
		if err != nil && !strings.Contains(err.Error(), "set the mode input to check or bot") {
			t.Errorf("ModeFor(%q) error does not say what to do: %v", event, err)
		}
		var unknown *ghevent.UnknownEventError
		if (err != nil) != errors.As(err, &unknown) || (unknown != nil && unknown.Name != event) {
			t.Errorf("ModeFor(%q) = %T, want an *UnknownEventError naming it exactly when it fails", event, err)
		}
	}
}

func TestRejudges(t *testing.T) {
	t.Parallel()
	for event, want := range map[string]bool{
		"workflow_dispatch": true, "schedule": true,
		"pull_request": false, "push": false, "merge_group": false, "pull_request_review": false, "issue_comment": false, "": false,
	} {
		if got := ghevent.Rejudges(event); got != want {
			t.Errorf("Rejudges(%q) = %v, want %v", event, got, want)
		}
	}
}

func TestMergeGroupPRs(t *testing.T) {
	t.Parallel()
	for ref, want := range map[string][]int{
		"refs/heads/gh-readonly-queue/main/pr-12-0123abcd": {12},
		"gh-readonly-queue/release/v2/pr-7-deadbeef":       {7},
		"refs/heads/gh-readonly-queue/main/pr-x-0123abcd":  nil,
		"refs/heads/feature/pr-12":                         nil,
		"":                                                 nil,
	} {
		if got := ghevent.MergeGroupPRs(ref); !slices.Equal(got, want) {
			t.Errorf("MergeGroupPRs(%q) = %v, want %v", ref, got, want)
		}
	}
}

func TestParseEvent(t *testing.T) {
	t.Parallel()
	if _, err := ghevent.Parse([]byte(`{"pull_request":`)); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("a truncated payload: %v", err)
	}
	// What a payload names is read; unknown fields and the many fields read
	// from GitHub instead (heads, bases, states) are ignored.
	ev, err := ghevent.Parse([]byte(`{"action":"submitted","pull_request":{"number":7,"head":{"sha":"ignored"}},` +
		`"review":{"id":9,"state":"approved","user":{"login":"rev"}},"sender":{"login":"rev"},"repository":{"full_name":"o/r"},"x":[1]}`))
	if err != nil || ev.Action != "submitted" || ev.PullRequest == nil || ev.PullRequest.Number != 7 || ev.Review == nil || ev.Review.ID != 9 ||
		ev.Review.User.Login != "rev" || ev.Sender.Login != "rev" || ev.Repository.FullName != "o/r" {
		t.Errorf("Parse = %+v, %v", ev, err)
	}
}

// A merge_group payload names the group's head, ref, base branch and
// parent commit (base_sha), as GitHub's own example has them.
func TestParseMergeGroup(t *testing.T) {
	t.Parallel()
	ev, err := ghevent.Parse([]byte(`{"action":"checks_requested","merge_group":{"head_sha":"2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d",` +
		`"head_ref":"refs/heads/gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64",` +
		`"base_sha":"380387fbc80638b734a49e1be1c4dfec1c01b33c","base_ref":"refs/heads/main"}}`))
	if err != nil || ev.MergeGroup == nil {
		t.Fatalf("Parse = %+v, %v", ev, err)
	}
	mg := ev.MergeGroup
	if mg.HeadSHA != "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d" || mg.BaseSHA != "380387fbc80638b734a49e1be1c4dfec1c01b33c" ||
		mg.BaseRef != "refs/heads/main" || !slices.Equal(ghevent.MergeGroupPRs(mg.HeadRef), []int{104}) {
		t.Errorf("merge group = %+v", mg)
	}
}

// Which runs bring the open pull requests up to date with their bases: a
// push to the default branch GitHub names (whatever the payload says the
// repository's default branch is), a manual or scheduled run; never mode
// check, never a push to another branch or a tag, never a review.
func TestUpdatesBranches(t *testing.T) {
	t.Parallel()
	push := func(ref string) *ghevent.Event {
		ev, err := ghevent.Parse([]byte(`{"ref":"` + ref + `","repository":{"full_name":"o/r","default_branch":"master"}}`))
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	none := &ghevent.Event{}
	for _, tc := range []struct {
		mode, event string
		ev          *ghevent.Event
		def         string
		want, may   bool
	}{
		{"auto", "push", push("refs/heads/main"), "main", true, true},
		{"bot", "push", push("refs/heads/main"), "main", true, true},
		{"check", "push", push("refs/heads/main"), "main", false, false},
		{"auto", "push", push("refs/heads/main"), "trunk", false, true},
		{"auto", "push", push("refs/heads/master"), "main", false, true}, // the payload's default_branch says master: not asked
		{"auto", "push", push("refs/heads/feat/x"), "main", false, true},
		{"auto", "push", push("refs/tags/main"), "main", false, false},
		{"auto", "push", push(""), "", false, false},
		{"auto", "schedule", none, "", true, true},
		{"bot", "workflow_dispatch", none, "main", true, true},
		{"check", "workflow_dispatch", none, "main", false, false},
		{"auto", "pull_request", none, "main", false, false},
		{"auto", "pull_request_review", none, "main", false, false},
		{"auto", "merge_group", none, "main", false, false},
	} {
		if got := ghevent.UpdatesBranches(tc.mode, tc.event, tc.ev, tc.def); got != tc.want {
			t.Errorf("UpdatesBranches(%s, %s, ref %q, default %q) = %v, want %v", tc.mode, tc.event, tc.ev.Ref, tc.def, got, tc.want)
		}
		if got := ghevent.MayUpdateBranches(tc.mode, tc.event, tc.ev); got != tc.may {
			t.Errorf("MayUpdateBranches(%s, %s, ref %q) = %v, want %v", tc.mode, tc.event, tc.ev.Ref, got, tc.may)
		}
	}
	if b := push("refs/heads/feat/x").PushedBranch(); b != "feat/x" {
		t.Errorf("PushedBranch = %q", b)
	}
}
