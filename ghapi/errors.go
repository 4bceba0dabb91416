package ghapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// Sentinel errors. Errors returned by Client methods wrap at most one of
// them; test with errors.Is.
var (
	// ErrNotFound: the resource (file, ref, pull request, review, ...) does
	// not exist or is not visible to the token (GitHub answers 404 for
	// both).
	ErrNotFound = errors.New("not found")
	// ErrForbidden: a 403 that is not a rate limit, e.g. a read-only
	// token creating a check run ("Resource not accessible by
	// integration").
	ErrForbidden = errors.New("forbidden")
	// ErrNotFastForward: update-ref refused to move a branch because the
	// new commit does not descend from its current head (422 "Update is
	// not a fast forward"). Re-read the branch and retry.
	ErrNotFastForward = errors.New("not a fast-forward")
	// errConflict: GitHub answered 409 (e.g. empty repository, or a
	// conflicting concurrent change).
	errConflict = errors.New("conflict")
	// ErrRateLimited: the request was still rate limited when retrying
	// stopped.
	ErrRateLimited = errors.New("rate limited")
	// ErrTooLarge: a file is larger than the caller's limit; its bytes
	// were not kept (ReadFileLimit).
	ErrTooLarge = errors.New("larger than the limit")
	// ErrWorkflowFile: GitHub refused to move a branch to a commit that
	// creates or changes a file under .github/workflows/, because the
	// token lacks the workflows permission (a GitHub App without
	// Workflows: write; a workflow's GITHUB_TOKEN can never have it).
	ErrWorkflowFile = errors.New("the token may not create or update workflow files")
)

// TimeoutError is one attempt of a request that GitHub did not answer
// within RetryPolicy.AttemptTimeout: no answer, or a pause that long in the
// middle of one. A read is then asked again (a *RetryError wraps the last
// one when retrying stops); whether a write was applied is unknown.
type TimeoutError struct {
	Method string
	Path   string
	After  time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("GitHub did not answer %s %s within %s", e.Method, e.Path, e.After)
}

// APIError is a GitHub error answer that was not retried (or no longer).
// It unwraps to the matching sentinel error, if any.
type APIError struct {
	Method     string
	Path       string
	StatusCode int
	// Message is GitHub's "message" field, verbatim.
	Message string
	// Codes lists the "code" of each entry of GitHub's "errors" array.
	Codes []string
	// DocumentationURL is GitHub's "documentation_url" field.
	DocumentationURL string
	kind             error
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d", e.Method, e.Path, e.StatusCode)
	if e.Message != "" {
		fmt.Fprintf(&b, " %s", e.Message)
	} else {
		fmt.Fprintf(&b, " %s", http.StatusText(e.StatusCode))
	}
	if len(e.Codes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(e.Codes, ", "))
	}
	return b.String()
}

// Unwrap returns the sentinel error matching the status, or nil.
func (e *APIError) Unwrap() error { return e.kind }

// wrapErr turns a go-github error into an error of this package, prefixed
// with op. It never returns go-github types.
func wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var retryErr *RetryError
	if errors.As(err, &retryErr) {
		// Drop the *url.Error around it: the RetryError names the request.
		return fmt.Errorf("%s: %w", op, retryErr)
	}
	var timeout *TimeoutError
	if errors.As(err, &timeout) {
		return fmt.Errorf("%s: %w", op, timeout)
	}
	var rle *github.RateLimitError
	if errors.As(err, &rle) {
		return fmt.Errorf("%s: %w: %s (resets at %s)", op, ErrRateLimited, rle.Message, rle.Rate.Reset.Time.UTC().Format("15:04:05Z"))
	}
	var arle *github.AbuseRateLimitError
	if errors.As(err, &arle) {
		return fmt.Errorf("%s: %w: %s", op, ErrRateLimited, arle.Message)
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return fmt.Errorf("%s: %w", op, apiErrorFrom(er))
	}
	return fmt.Errorf("%s: %w", op, err)
}

func apiErrorFrom(er *github.ErrorResponse) *APIError {
	ae := &APIError{
		StatusCode:       er.Response.StatusCode,
		Message:          er.Message,
		DocumentationURL: er.DocumentationURL,
	}
	if req := er.Response.Request; req != nil {
		ae.Method = req.Method
		ae.Path = req.URL.Path
	}
	for _, e := range er.Errors {
		if e.Code != "" {
			ae.Codes = append(ae.Codes, e.Code)
		}
	}
	switch m := strings.ToLower(ae.Message); {
	case (ae.StatusCode == http.StatusForbidden || ae.StatusCode == http.StatusUnprocessableEntity) && strings.Contains(m, "create or update workflow"):
		// "refusing to allow a GitHub App to create or update workflow
		// `…` without `workflows` permission": GitHub does not document
		// the status, so the words decide.
		ae.kind = ErrWorkflowFile
		return ae
	}
	switch ae.StatusCode {
	case http.StatusNotFound:
		ae.kind = ErrNotFound
	case http.StatusForbidden:
		ae.kind = ErrForbidden
	case http.StatusConflict:
		ae.kind = errConflict
	case http.StatusUnprocessableEntity:
		m := strings.ToLower(ae.Message)
		switch {
		case strings.Contains(m, "fast forward") || strings.Contains(m, "fast-forward"):
			ae.kind = ErrNotFastForward
		case strings.Contains(m, "reference does not exist"),
			// GET .../commits/{sha} and compares answer 422 for a commit
			// the repository does not have (e.g. dropped by a force-push).
			strings.Contains(m, "no commit found"):
			ae.kind = ErrNotFound
		}
	case http.StatusTooManyRequests:
		ae.kind = ErrRateLimited
	}
	return ae
}

// outcomeUnknown reports a failed write that GitHub may have applied: no
// answer (a timeout, a dropped connection), a cut answer, or a 5xx. A
// refusal (4xx) and a rate limit (the write was not made) are known
// outcomes.
func outcomeUnknown(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.StatusCode >= 500
	}
	var re *RetryError
	if errors.As(err, &re) && re.RateLimited {
		return false
	}
	return !errors.Is(err, ErrRateLimited)
}

// statusOf returns the HTTP status of a wrapped APIError, or 0.
func statusOf(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	return 0
}

// errorMessage extracts "message" from a GitHub JSON error body.
func errorMessage(data []byte) string {
	var body struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(data, &body) != nil {
		return ""
	}
	return body.Message
}
