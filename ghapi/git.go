package ghapi

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"

	"github.com/google/go-github/v60/github"
)

// BranchHead returns the commit SHA branch points at.
func (c *Client) BranchHead(ctx context.Context, branch string) (string, error) {
	ref, _, err := c.gh.Git.GetRef(ctx, c.owner, c.repo, "heads/"+branch)
	if err != nil {
		return "", wrapErr("get branch "+branch, err)
	}
	return ref.GetObject().GetSHA(), nil
}

// CommitFiles writes files (path → content, mode 100644) on top of
// parentSHA as one commit, then moves branch to it without force, through
// the Git Data API: get the parent commit (for its tree), create one blob
// per file, create a tree on the parent's tree, create the commit, update
// refs/heads/<branch>. It returns the new commit SHA.
//
// If branch no longer points at parentSHA (someone pushed meanwhile) the
// update is refused and the error wraps ErrNotFastForward: re-read the
// branch, rebuild the files and call again. The commit has no explicit
// author, so GitHub attributes it to the token's identity (and signs it
// when the token belongs to an app). Files cannot be deleted.
func (c *Client) CommitFiles(ctx context.Context, branch, parentSHA string, files map[string][]byte, message string) (string, error) {
	op := fmt.Sprintf("commit %d files to %s", len(files), branch)
	if branch == "" || parentSHA == "" || message == "" {
		return "", fmt.Errorf("%s: branch, parent sha and message are required", op)
	}
	if len(files) == 0 {
		return "", fmt.Errorf("%s: no files", op)
	}
	parent, _, err := c.gh.Git.GetCommit(ctx, c.owner, c.repo, parentSHA)
	if err != nil {
		return "", wrapErr(op+": get parent commit", err)
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
	entries := make([]*github.TreeEntry, 0, len(paths))
	for _, p := range paths {
		blob, _, err := c.gh.Git.CreateBlob(ctx, c.owner, c.repo, &github.Blob{
			Content:  github.String(base64.StdEncoding.EncodeToString(files[p])),
			Encoding: github.String("base64"),
		})
		if err != nil {
			return "", wrapErr(op+": create blob for "+p, err)
		}
		entries = append(entries, &github.TreeEntry{
			Path: github.String(p),
			Mode: github.String("100644"),
			Type: github.String("blob"),
			SHA:  blob.SHA,
		})
	}
	tree, _, err := c.gh.Git.CreateTree(ctx, c.owner, c.repo, parent.GetTree().GetSHA(), entries)
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
	_, _, err = c.gh.Git.UpdateRef(ctx, c.owner, c.repo, &github.Reference{
		Ref:    github.String("heads/" + branch),
		Object: &github.GitObject{SHA: commit.SHA},
	}, false)
	if err != nil {
		return "", wrapErr(op+": update branch", err)
	}
	return commit.GetSHA(), nil
}
