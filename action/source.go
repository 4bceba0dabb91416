package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/pactdir"
	"github.com/pact-action/pact-action/projection"
)

// maxFileBytes bounds a file read from the workspace the way GitHub bounds
// what its contents and blobs APIs serve (100 MB), so a checkout cannot
// make the job read more than the API path would.
const maxFileBytes = 100 << 20

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

// diskSource reads files of a work tree someone else committed: only
// regular files inside it, bounded like the API (pactdir.ReadRegular).
type diskSource struct{ root string }

func (s diskSource) read(ctx context.Context, path string) ([]byte, error) {
	return pactdir.ReadRegular(ctx, s.root, path, maxFileBytes)
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
	ctx := context.Background()
	const small = 1 << 20
	read := func(root, name string) []byte {
		b, _ := pactdir.ReadRegular(ctx, root, name, small)
		return b
	}
	gitDir := filepath.Join(dir, ".git")
	if b := read(dir, ".git"); b != nil {
		// A worktree or submodule: ".git" is a file naming the real dir.
		if rest, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
			gitDir = rest
			if !filepath.IsAbs(gitDir) {
				gitDir = filepath.Join(dir, gitDir)
			}
		}
	}
	head := read(gitDir, "HEAD")
	if head == nil {
		return ""
	}
	ref, isRef := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !isRef {
		return strings.TrimSpace(string(head))
	}
	if b := read(gitDir, ref); b != nil {
		return strings.TrimSpace(string(b))
	}
	for _, line := range bytes.Split(read(gitDir, "packed-refs"), []byte("\n")) {
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
		if _, err := os.Lstat(filepath.Join(workspace, filepath.FromSlash(logPath))); err == nil {
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

// headFiles is the pact of one commit, read once however many pull
// requests it is the head of.
type headFiles struct {
	sha, source string
	dir         string
	log         []byte // nil: no log
	parsed      *projection.Log
	replay      *projection.Result
	state       []byte
	project     []byte
	taskFiles   map[string][]byte
	unread      map[string]bool
}

// readHead reads the head's log, STATE.yml, PROJECT.md and task files.
func readHead(ctx context.Context, gh FileReader, t Target, s Settings) (*headFiles, error) {
	logPath := s.pactPath("log.jsonl")
	src := headSource(gh, t.Workspace, t.HeadSHA, logPath)
	h := &headFiles{sha: t.HeadSHA, source: src.describe(), dir: s.pactDir(), taskFiles: map[string][]byte{}}
	var err error
	if h.log, err = readRequired(ctx, src, logPath); err != nil {
		return nil, err
	}
	h.parsed = projection.ParseBytes(h.log)
	h.replay = projection.Replay(h.parsed)
	if h.log == nil || h.replay.Unsupported != nil {
		return h, nil
	}
	if h.state, err = readRequired(ctx, src, s.pactPath("STATE.yml")); err != nil {
		return nil, err
	}
	if h.project, err = readRequired(ctx, src, s.pactPath("PROJECT.md")); err != nil {
		return nil, err
	}
	if h.unread, err = readTaskFiles(ctx, src, s, h.replay.State, h.taskFiles); err != nil {
		return nil, err
	}
	return h, nil
}

// input is what validate judges of the head, with the base branch's
// configuration (nil: none).
func (h *headFiles) input(rawConfig []byte) checks.Input {
	return checks.Input{Dir: h.dir, Scan: &h.parsed.Scan, Replay: h.replay, State: h.state, Project: h.project, TaskFiles: h.taskFiles, Config: rawConfig}
}

// maxTaskFiles bounds the task files read through the API per run; a pact
// with more tasks skips the mirror check for the rest rather than spend the
// token's rate limit on it.
const maxTaskFiles = 200

// readTaskFiles reads the task files into into, and returns the ids of the
// tasks whose files it did not read (beyond maxTaskFiles through the API).
func readTaskFiles(ctx context.Context, src fileSource, s Settings, st *projection.State, into map[string][]byte) (map[string]bool, error) {
	_, onDisk := src.(diskSource)
	for i, id := range st.TaskOrder {
		if i >= maxTaskFiles && !onDisk {
			slog.Warn("too many tasks to read every task file through the API; the rest are not mirror-checked", "read", maxTaskFiles, "tasks", len(st.TaskOrder))
			unread := map[string]bool{}
			for _, rest := range st.TaskOrder[i:] {
				unread[rest] = true
			}
			return unread, nil
		}
		b, err := readRequired(ctx, src, s.pactPath("tasks/"+id+".md"))
		if err != nil {
			return nil, err
		}
		into[id] = b
	}
	return nil, nil
}

// dropUnread removes the task-file findings of tasks whose files were not
// read: checks.TaskFiles cannot tell an unread file from a missing one.
func dropUnread(findings []checks.Finding, unread map[string]bool) []checks.Finding {
	if len(unread) == 0 {
		return findings
	}
	out := findings[:0]
	for _, f := range findings {
		if (f.Code == checks.CodeTaskfileMissing || f.Code == checks.CodeTaskfileMismatch) && unread[f.TaskID] {
			continue
		}
		out = append(out, f)
	}
	return out
}
