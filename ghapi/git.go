package ghapi

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v60/github"
)

// CommitFiles writes files (path → content, mode 100644) on top of
// parentSHA as one commit, then moves branch to it without force, through
// the Git Data API: the parent's tree (known when this client read the
// parent through ReadTrees, else one call), a tree on it holding the files
// (text inline, streamed into the request: treeRequest; a file that is not
// valid UTF-8 as a blob of its own), the commit, and the update of
// refs/heads/<branch>: three calls in the usual case. It returns the new
// commit SHA.
//
// If branch no longer points at parentSHA (someone pushed meanwhile) the
// update is refused and the error wraps ErrNotFastForward: re-read the
// branch, rebuild the files and call again. The commit has no explicit
// author, so GitHub attributes it to the token's identity (and signs it
// when the token belongs to an app). Files cannot be deleted.
func (c *Client) CommitFiles(ctx context.Context, branch, parentSHA string, files map[string]File, message string) (string, error) {
	op := fmt.Sprintf("commit %d files to %s", len(files), branch)
	if branch == "" || parentSHA == "" || message == "" {
		return "", fmt.Errorf("%s: branch, parent sha and message are required", op)
	}
	if len(files) == 0 {
		return "", fmt.Errorf("%s: no files", op)
	}
	parentTree, known := c.cache.tree(parentSHA)
	if !known {
		parent, _, err := c.gh.Git.GetCommit(ctx, c.owner, c.repo, parentSHA)
		if err != nil {
			return "", wrapErr(op+": get parent commit", err)
		}
		parentTree = parent.GetTree().GetSHA()
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		clean := strings.Trim(p, "/")
		if clean == "" || clean != p || strings.Contains("/"+p+"/", "/../") || strings.Contains(p, "//") {
			return "", fmt.Errorf("%s: invalid path %q", op, p)
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	entries := make([]treeEntry, 0, len(paths))
	for _, p := range paths {
		entry := treeEntry{path: p}
		if f := files[p]; f.size() > 0 && f.validUTF8() {
			// GitHub writes the blob from the tree's inline content: its
			// bytes are the UTF-8 of the JSON string, exactly the file's.
			entry.content = f
		} else {
			blob, _, err := c.gh.Git.CreateBlob(ctx, c.owner, c.repo, &github.Blob{
				Content:  github.String(base64.StdEncoding.EncodeToString(f.join())),
				Encoding: github.String("base64"),
			})
			if err != nil {
				return "", wrapErr(op+": create blob for "+p, err)
			}
			entry.sha = blob.GetSHA()
		}
		entries = append(entries, entry)
	}
	tree, err := c.createTree(ctx, parentTree, entries)
	if err != nil {
		return "", wrapErr(op+": create tree", err)
	}
	commit, _, err := c.gh.Git.CreateCommit(ctx, c.owner, c.repo, &github.Commit{
		Message: github.String(message),
		Tree:    &github.Tree{SHA: tree.SHA},
		Parents: []*github.Commit{{SHA: github.String(parentSHA)}},
	}, nil)
	if err != nil {
		return "", wrapErr(op+": create commit", err)
	}
	if err := c.moveBranch(ctx, branch, parentSHA, commit.GetSHA()); err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	// What was written is known by its ids: a later read of the new
	// commit (the check of it) takes these blobs by the ids GitHub reports.
	c.cache.putTree(commit.GetSHA(), tree.GetSHA())
	for _, p := range paths {
		if f := files[p]; c.cache.keeps(f.size()) {
			c.cache.putBlob(f.join(), commit.GetSHA())
		}
	}
	return commit.GetSHA(), nil
}

// createTree creates a tree on baseTree holding entries, the request's
// body streamed (treeRequest), and made again for each attempt.
func (c *Client) createTree(ctx context.Context, baseTree string, entries []treeEntry) (*github.Tree, error) {
	req, err := c.gh.NewRequest(http.MethodPost, c.repoPath()+"/git/trees", nil)
	if err != nil {
		return nil, err
	}
	body, size := treeRequest(baseTree, entries)
	req.Body, req.ContentLength = io.NopCloser(body()), size
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(body()), nil }
	req.Header.Set("Content-Type", "application/json")
	tree := new(github.Tree)
	if _, err := c.gh.Do(ctx, req, tree); err != nil {
		return nil, err
	}
	return tree, nil
}

// moveBranch moves branch from parent to commit without force. An update
// whose outcome is unknown (no answer, a cut answer, a 5xx) is not taken
// for a failure: GitHub may have moved the branch, and the caller would
// then report a write that landed as failed (and a re-run find its lines
// written by no run that checked them). The branch is read instead: at
// commit, the update landed; at parent, it is sent again (writeAttempts in
// all); anywhere else, someone else moved it, which is ErrNotFastForward.
func (c *Client) moveBranch(ctx context.Context, branch, parent, commit string) error {
	ref := "heads/" + branch
	for attempt := 1; ; attempt++ {
		_, _, err := c.gh.Git.UpdateRef(context.WithValue(ctx, applyOnceKey{}, true), c.owner, c.repo, &github.Reference{
			Ref: github.String(ref), Object: &github.GitObject{SHA: github.String(commit)},
		}, false)
		if err == nil {
			return nil
		}
		err = wrapErr("update branch", err)
		if !outcomeUnknown(err) || ctx.Err() != nil {
			return err
		}
		at, _, rerr := c.gh.Git.GetRef(ctx, c.owner, c.repo, ref)
		switch {
		case rerr != nil:
			return fmt.Errorf("%w; it may have moved to %s, and reading it failed too: %w", err, commit, wrapErr("read branch "+branch, rerr))
		case at.GetObject().GetSHA() == commit:
			c.logger.Warn("the branch was moved though the answer was lost", "branch", branch, "commit", commit, "error", err)
			return nil
		case at.GetObject().GetSHA() != parent:
			return fmt.Errorf("%w: %s moved to %s meanwhile (%w)", ErrNotFastForward, branch, at.GetObject().GetSHA(), err)
		case attempt == writeAttempts:
			return fmt.Errorf("%w (%d attempts)", err, attempt)
		}
		delay := c.backoff(attempt)
		c.logger.Warn("github request failed, retrying", "method", http.MethodPatch, "path", "git/refs/"+ref, "attempt", attempt,
			"status", statusOf(err), "delay", delay, "error", err, "note", "the branch did not move; moving it again")
		if err := c.sleep(ctx, delay); err != nil {
			return fmt.Errorf("%w (%d attempts)", err, attempt)
		}
	}
}

// MatchingRefs lists the refs whose names start with refs/<prefix> (for
// example heads/gh-readonly-queue/main/), by full name, with the commit
// each points at.
func (c *Client) MatchingRefs(ctx context.Context, prefix string) (map[string]string, error) {
	refs, _, err := c.gh.Git.ListMatchingRefs(ctx, c.owner, c.repo, &github.ReferenceListOptions{Ref: prefix})
	if err != nil {
		return nil, wrapErr("list the refs matching "+prefix, err)
	}
	out := make(map[string]string, len(refs))
	for _, r := range refs {
		out[r.GetRef()] = r.GetObject().GetSHA()
	}
	return out, nil
}
