package action

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Event is the part of a webhook payload pact-action reads. Our own small
// structs keep go-github inside ghapi; unknown fields are ignored.
type Event struct {
	Action      string       `json:"action"`
	PullRequest *PullRequest `json:"pull_request"`
	MergeGroup  *struct {
		HeadSHA string `json:"head_sha"`
		HeadRef string `json:"head_ref"`
		BaseSHA string `json:"base_sha"`
		BaseRef string `json:"base_ref"`
	} `json:"merge_group"`
	Review *struct {
		ID          int64  `json:"id"`
		State       string `json:"state"`
		Body        string `json:"body"`
		CommitID    string `json:"commit_id"`
		HTMLURL     string `json:"html_url"`
		SubmittedAt string `json:"submitted_at"`
		User        User   `json:"user"`
	} `json:"review"`
	Comment *struct {
		ID                int64  `json:"id"`
		Body              string `json:"body"`
		HTMLURL           string `json:"html_url"`
		CreatedAt         string `json:"created_at"`
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
}

// User is a GitHub account in a payload.
type User struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

// PullRequest is a pull request in a payload.
type PullRequest struct {
	Number int `json:"number"`
	Head   struct {
		SHA  string `json:"sha"`
		Ref  string `json:"ref"`
		Repo *struct {
			FullName string `json:"full_name"`
		} `json:"repo"`
	} `json:"head"`
	Base struct {
		SHA  string `json:"sha"`
		Ref  string `json:"ref"`
		Repo struct {
			FullName string `json:"full_name"`
		} `json:"repo"`
	} `json:"base"`
	User User `json:"user"`
}

// Fork reports whether the PR's head lives in another repository (or in
// one that was deleted).
func (p *PullRequest) Fork() bool {
	return p.Head.Repo == nil || !strings.EqualFold(p.Head.Repo.FullName, p.Base.Repo.FullName)
}

// ParseEvent reads a webhook payload.
func ParseEvent(b []byte) (*Event, error) {
	var ev Event
	if err := json.Unmarshal(b, &ev); err != nil {
		return nil, fmt.Errorf("the event payload is not valid JSON: %w", err)
	}
	return &ev, nil
}

// ModeFor resolves mode "auto" for an event name: check for pull requests,
// merge groups, manual and scheduled runs; bot for reviews and comments.
func ModeFor(eventName string) (string, error) {
	switch eventName {
	case "pull_request", "pull_request_target", "merge_group", "workflow_dispatch", "schedule", "push":
		return "check", nil
	case "pull_request_review", "issue_comment", "pull_request_review_comment":
		return "bot", nil
	}
	return "", fmt.Errorf("mode auto does not know what to do on %q events; set the mode input to check or bot", eventName)
}

var queuedPR = regexp.MustCompile(`(?:^|/)pr-(\d+)-[0-9a-f]+$`)

// MergeGroupPRs lists the pull request a merge group's head ref
// (refs/heads/gh-readonly-queue/<base>/pr-<n>-<sha>) names: the one the
// group was formed for. The pull requests queued before it are in the
// group's base and are judged in their own groups. None when the ref has
// another shape.
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
