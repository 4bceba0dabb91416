package ghapi

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"slices"
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
	changes := make([]TreeChange, 0, len(files))
	for p, f := range files {
		changes = append(changes, TreeChange{Path: p, Content: f})
	}
	return c.commitTree(ctx, op, branch, []string{parentSHA}, parentTree, changes, message)
}

// TreeChange is one path of a tree written over a base tree: Delete
// removes what stands there; otherwise the path gets Entry, an object
// GitHub already has (a file, link or submodule, by id, type and mode),
// or, when Entry is absent, a regular file (mode 100644) holding Content.
type TreeChange struct {
	Path    string
	Entry   GitEntry
	Content File
	Delete  bool
}

// treeEntries turns changes into the entries of a tree request, sorted by
// path: a file's text inline (streamed: treeRequest), and a file that is
// not valid UTF-8 (or is empty) as a blob of its own first.
func (c *Client) treeEntries(ctx context.Context, op string, changes []TreeChange) ([]treeEntry, error) {
	sorted := slices.Clone(changes)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	entries := make([]treeEntry, 0, len(sorted))
	for i, ch := range sorted {
		p := ch.Path
		clean := strings.Trim(p, "/")
		if clean == "" || clean != p || strings.Contains("/"+p+"/", "/../") || strings.Contains("/"+p+"/", "/./") || strings.Contains(p, "//") ||
			(i > 0 && sorted[i-1].Path == p) {
			return nil, fmt.Errorf("%s: invalid path %q", op, p)
		}
		switch {
		case ch.Delete:
			// A null sha removes the path.
			entries = append(entries, treeEntry{path: p, delete: true})
		case !ch.Entry.Absent():
			if !isObjectID(ch.Entry.OID) || (ch.Entry.Type != "blob" && ch.Entry.Type != "commit") {
				return nil, fmt.Errorf("%s: %q: not an entry of a file, link or submodule: %+v", op, p, ch.Entry)
			}
			entries = append(entries, treeEntry{path: p, mode: fmt.Sprintf("%06o", ch.Entry.Mode), typ: ch.Entry.Type, sha: ch.Entry.OID})
		case ch.Content.size() > 0 && ch.Content.validUTF8():
			// GitHub writes the blob from the tree's inline content: its
			// bytes are the UTF-8 of the JSON string, exactly the file's.
			entries = append(entries, treeEntry{path: p, content: ch.Content})
		default:
			blob, _, err := c.gh.Git.CreateBlob(ctx, c.owner, c.repo, &github.Blob{
				Content:  github.String(base64.StdEncoding.EncodeToString(ch.Content.join())),
				Encoding: github.String("base64"),
			})
			if err != nil {
				return nil, wrapErr(op+": create blob for "+p, err)
			}
			entries = append(entries, treeEntry{path: p, sha: blob.GetSHA()})
		}
	}
	return entries, nil
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

// CommitTree writes a commit whose tree is baseTree (a tree id) with
// changes laid over it, whose parents are parents (the first is the
// branch's head now), then moves branch from parents[0] to it without
// force, through the Git Data API: the tree (text inline; a blob first for
// a file that is not valid UTF-8), the commit, the ref update. It is how
// the bot merges a pull request's base into its branch: the merge commit's
// parents are the head and the base's tip. A branch that moved meanwhile
// is ErrNotFastForward; a commit that changes a workflow file, for a
// token without that permission, ErrWorkflowFile; in both cases the
// commit made stays dangling, which is harmless.
func (c *Client) CommitTree(ctx context.Context, branch string, parents []string, baseTree string, changes []TreeChange, message string) (string, error) {
	op := fmt.Sprintf("commit %d changed paths to %s", len(changes), branch)
	if branch == "" || len(parents) == 0 || !isObjectID(baseTree) || message == "" {
		return "", fmt.Errorf("%s: branch, parents, base tree and message are required", op)
	}
	return c.commitTree(ctx, op, branch, parents, baseTree, changes, message)
}

// commitTree is CommitTree, and CommitFiles once it knows its parent's
// tree, for arguments checked, its errors said as op.
func (c *Client) commitTree(ctx context.Context, op, branch string, parents []string, baseTree string, changes []TreeChange, message string) (string, error) {
	entries, err := c.treeEntries(ctx, op, changes)
	if err != nil {
		return "", err
	}
	treeSHA := baseTree
	if len(entries) > 0 {
		tree, err := c.createTree(ctx, baseTree, entries)
		if err != nil {
			return "", wrapErr(op+": create tree", err)
		}
		treeSHA = tree.GetSHA()
	}
	ps := make([]*github.Commit, len(parents))
	for i, p := range parents {
		ps[i] = &github.Commit{SHA: github.String(p)}
	}
	commit, _, err := c.gh.Git.CreateCommit(ctx, c.owner, c.repo, &github.Commit{
		Message: github.String(message),
		Tree:    &github.Tree{SHA: github.String(treeSHA)},
		Parents: ps,
	}, nil)
	if err != nil {
		return "", wrapErr(op+": create commit", err)
	}
	if err := c.moveBranch(ctx, branch, parents[0], commit.GetSHA()); err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	c.cache.putTree(commit.GetSHA(), treeSHA)
	for _, ch := range changes {
		if !ch.Delete && ch.Entry.Absent() && c.cache.keeps(ch.Content.size()) {
			c.cache.putBlob(ch.Content.join(), commit.GetSHA())
		}
	}
	return commit.GetSHA(), nil
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
