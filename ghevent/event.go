// Package ghevent owns what pact-action knows of the GitHub workflow event
// that started its job: the webhook payload's few fields it reads (Event,
// Parse), which mode an event name asks for when the mode input is auto
// (ModeFor), which events re-judge every open pull request (Rejudges),
// which bring pull requests up to date with their bases (UpdatesBranches),
// and the pull request a merge queue's branch names (MergeGroupPRs). It is
// pure: bytes and names in, no GitHub client. action's run dispatches on it,
// and doctor reads a workflow's triggers with the same ModeFor and
// UpdatesBranches.
package ghevent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Event is the part of a webhook payload pact-action reads: which pull
// request, review, comment or merge group an event is about, and who caused
// it. Everything the verdict or an event written depends on (heads, bases,
// review states, comment bodies and times) is read from GitHub when the job
// runs, since a re-run replays an old payload; so it is not here. Our own
// small structs keep go-github inside ghapi; unknown fields are ignored.
type Event struct {
	Action      string       `json:"action"`
	PullRequest *PullRequest `json:"pull_request"`
	MergeGroup  *struct {
		HeadSHA string `json:"head_sha"`
		HeadRef string `json:"head_ref"`
		BaseRef string `json:"base_ref"`
		// BaseSHA is the group's parent commit: the head of the group
		// queued ahead of it, or the base branch's tip. GitHub sets it and
		// a re-run replays it for the same head; the reader checks it is
		// a commit the head builds on before trusting it.
		BaseSHA string `json:"base_sha"`
	} `json:"merge_group"`
	Review *struct {
		ID   int64 `json:"id"`
		User User  `json:"user"`
	} `json:"review"`
	Comment *struct {
		ID int64 `json:"id"`
		// Body only lets the bot skip its own replies early.
		Body              string `json:"body"`
		AuthorAssociation string `json:"author_association"`
		User              User   `json:"user"`
	} `json:"comment"`
	Issue *struct {
		Number      int             `json:"number"`
		PullRequest json.RawMessage `json:"pull_request"`
	} `json:"issue"`
	Repository struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
	Sender User `json:"sender"`
	// Ref is what a push moved (refs/heads/<branch>, refs/tags/<tag>):
	// which branch, never its tip, which is read from GitHub.
	Ref string `json:"ref"`
}

// PushedBranch is the branch a push moved, "" when it moved a tag or the
// payload names none.
func (e *Event) PushedBranch() string {
	b, ok := strings.CutPrefix(e.Ref, "refs/heads/")
	if !ok {
		return ""
	}
	return b
}

// User is a GitHub account in a payload.
type User struct {
	Login string `json:"login"`
}

// PullRequest is a pull request in a payload: its number only.
type PullRequest struct {
	Number int `json:"number"`
}

// OnPullRequest says an issue_comment's issue is a pull request's
// conversation.
func (e *Event) OnPullRequest() bool {
	return e.Issue != nil && len(e.Issue.PullRequest) > 0 && string(e.Issue.PullRequest) != "null"
}

// Parse reads a webhook payload.
func Parse(b []byte) (*Event, error) {
	var ev Event
	if err := json.Unmarshal(b, &ev); err != nil {
		return nil, fmt.Errorf("the event payload is not valid JSON: %w", err)
	}
	return &ev, nil
}

// UnknownEventError is an event name mode auto has no mode for.
type UnknownEventError struct{ Name string }

func (e *UnknownEventError) Error() string {
	return fmt.Sprintf("mode auto does not know what to do on %q events; set the mode input to check or bot", e.Name)
}

// ParseMode reads the mode input: auto (also when empty), check or bot,
// in any case and with surrounding space.
func ParseMode(input string) (string, error) {
	switch m := strings.ToLower(strings.TrimSpace(input)); m {
	case "":
		return "auto", nil
	case "auto", "check", "bot":
		return m, nil
	default:
		return "", fmt.Errorf("the mode input must be auto, check or bot, not %q", m)
	}
}

// ModeFor resolves mode "auto" for an event name: check for pull requests,
// merge groups, manual and scheduled runs; bot for reviews and comments.
// An event it does not know is an *UnknownEventError.
func ModeFor(eventName string) (string, error) {
	switch eventName {
	case "pull_request", "pull_request_target", "merge_group", "workflow_dispatch", "schedule", "push":
		return "check", nil
	case "pull_request_review", "issue_comment", "pull_request_review_comment":
		return "bot", nil
	}
	return "", &UnknownEventError{Name: eventName}
}

// Rejudges says whether an event re-judges every open pull request: a
// manual or scheduled run does, in check mode and in bot mode alike, so a
// missed event never leaves a pull request stuck.
func Rejudges(eventName string) bool {
	return eventName == "workflow_dispatch" || eventName == "schedule"
}

// UpdatesBranches says whether a run brings the open pull requests up to
// date with their bases (docs/bot.md, "Keeping pull requests mergeable"),
// for the mode input (ParseMode's auto, check or bot), the event and its
// payload, and the repository's default branch as GitHub names it when
// the job runs (never the payload's repository.default_branch: a re-run
// replays an old payload): on a push to that branch, which is how its
// pull requests fall behind, and on a manual or scheduled run, which
// catches what a missed push left; never in mode check, which only
// reads (a check workflow has no contents: write).
func UpdatesBranches(mode, eventName string, ev *Event, defaultBranch string) bool {
	switch {
	case mode == "check":
		return false
	case Rejudges(eventName):
		return true
	case eventName == "push":
		b := ev.PushedBranch()
		return b != "" && b == defaultBranch
	}
	return false
}

// MayUpdateBranches says whether UpdatesBranches could say yes once the
// default branch is known: only then is GitHub asked for it.
func MayUpdateBranches(mode, eventName string, ev *Event) bool {
	return UpdatesBranches(mode, eventName, ev, ev.PushedBranch())
}

var queuedPR = regexp.MustCompile(`(?:^|/)pr-(\d+)-[0-9a-f]+$`)

// MergeGroupPRs lists the pull request a merge queue's branch
// (refs/heads/gh-readonly-queue/<base>/pr-<n>-<sha>) names: the one the
// group was formed for. The group also carries the pull requests queued
// ahead of it (queuedPRs finds them). None when the ref has another shape.
func MergeGroupPRs(headRef string) []int {
	m := queuedPR.FindStringSubmatch(headRef)
	if m == nil {
		return nil
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return nil
	}
	return []int{n}
}
