package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/pactdir"
)

// fileSource reads repository files at one commit; nil, nil means absent.
type fileSource interface {
	read(ctx context.Context, path string) ([]byte, error)
	describe() string
}

// apiSource reads files at a ref through the GitHub API.
type apiSource struct {
	gh  FileReader
	ref string
}

// FileReader is the one GitHub call every mode needs.
type FileReader interface {
	ReadFile(ctx context.Context, path, ref string) ([]byte, error)
}

func (s apiSource) read(ctx context.Context, path string) ([]byte, error) {
	b, err := s.gh.ReadFile(ctx, path, s.ref)
	if errors.Is(err, ghapi.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

func (s apiSource) describe() string { return "the GitHub API at " + short(s.ref) }

// diskSource reads files of a work tree.
type diskSource struct{ root string }

func (s diskSource) read(_ context.Context, path string) ([]byte, error) {
	return pactdir.ReadOptional(filepath.Join(s.root, filepath.FromSlash(path)))
}

func (s diskSource) describe() string { return "the workspace" }

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// WorkspaceHead resolves the commit checked out in dir by reading .git
// directly (the action's image has no git binary). It returns "" when dir is
// not a work tree or HEAD cannot be resolved.
func WorkspaceHead(dir string) string {
	gitDir := filepath.Join(dir, ".git")
	if b, err := os.ReadFile(gitDir); err == nil {
		// A worktree or submodule: ".git" is a file naming the real dir.
		if rest, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
			gitDir = rest
			if !filepath.IsAbs(gitDir) {
				gitDir = filepath.Join(dir, gitDir)
			}
		}
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	ref, isRef := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !isRef {
		return strings.TrimSpace(string(head))
	}
	if b, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
		return strings.TrimSpace(string(b))
	}
	packed, err := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	if err != nil {
		return ""
	}
	for _, line := range bytes.Split(packed, []byte("\n")) {
		if sha, name, ok := strings.Cut(string(line), " "); ok && name == ref {
			return sha
		}
	}
	return ""
}

// headSource prefers the workspace when it holds exactly the head commit
// and its log (a sparse checkout may leave .pact/ out); otherwise the API at
// that commit.
func headSource(gh FileReader, workspace, headSHA, logPath string) fileSource {
	if workspace != "" && headSHA != "" && WorkspaceHead(workspace) == headSHA {
		if _, err := os.Stat(filepath.Join(workspace, filepath.FromSlash(logPath))); err == nil {
			return diskSource{root: workspace}
		}
	}
	return apiSource{gh: gh, ref: headSHA}
}

func readRequired(ctx context.Context, src fileSource, path string) ([]byte, error) {
	b, err := src.read(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("read %s from %s: %w", path, src.describe(), err)
	}
	return b, nil
}
