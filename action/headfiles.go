package action

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/pactdir"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// maxFileBytes bounds a file read from the workspace the way GitHub bounds
// what its contents and blobs APIs serve (100 MB), so a checkout cannot
// make the job read more than the API path would.
const maxFileBytes = 100 << 20

// fileSource reads repository files at one commit; nil, nil means absent.
type fileSource interface {
	read(ctx context.Context, path string) ([]byte, error)
	// readAll reads several files, in as few requests as the source can.
	readAll(ctx context.Context, paths []string) ([][]byte, error)
	describe() string
}

// apiSource reads files at a ref through the GitHub API.
type apiSource struct {
	gh  fileReader
	ref string
}

// fileReader is the one GitHub call every mode needs: a file at a ref, at
// most limit bytes of it (a larger one wraps ghapi.ErrTooLarge), whole or
// as it comes (ReadFileStream: for what a log is read for and never kept,
// docs/semantics.md §7).
type fileReader interface {
	ReadFileLimit(ctx context.Context, path, ref string, limit int64) ([]byte, error)
	ReadFileStream(ctx context.Context, path, ref string, limit int64, fn func(r io.Reader) error) error
}

func (s apiSource) read(ctx context.Context, path string) ([]byte, error) {
	b, err := s.gh.ReadFileLimit(ctx, path, s.ref, maxFileBytes)
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

func (s apiSource) describe() string { return "the GitHub API at " + prose.ShortSHA(s.ref) }

// stream reads path as it comes, to fn; found is false (and fn not called)
// when the file is absent.
func (s apiSource) stream(ctx context.Context, path string, fn func(r io.Reader) error) (found bool, err error) {
	err = s.gh.ReadFileStream(ctx, path, s.ref, maxFileBytes, fn)
	switch {
	case errors.Is(err, ghapi.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read %s from %s: %w", path, s.describe(), err)
	}
	return true, nil
}

func (s apiSource) readAll(ctx context.Context, paths []string) ([][]byte, error) {
	return readEach(ctx, s, paths)
}

// diskSource reads files of a work tree someone else committed: only
// regular files inside it, bounded like the API (pactdir.ReadRegular), and
// counted against the judgement's budget like what the API serves.
type diskSource struct {
	root   string
	budget *readBudget
}

func (s diskSource) read(ctx context.Context, path string) ([]byte, error) {
	n, binding := s.budget.limit(maxFileBytes)
	b, err := pactdir.ReadRegular(ctx, s.root, path, n)
	if errors.Is(err, pactdir.ErrTooLarge) && binding {
		return nil, s.budget.over(path)
	}
	if err != nil {
		return nil, err
	}
	return b, s.budget.take(path, int64(len(b)))
}

func (s diskSource) readAll(ctx context.Context, paths []string) ([][]byte, error) {
	return readEach(ctx, s, paths)
}

func (s diskSource) describe() string { return "the workspace" }

// list lists dir of the workspace by name (no blob ids), counted against
// the budget as the API's listing is.
func (s diskSource) list(_ context.Context, dir string) (map[string]string, error) {
	names, err := pactdir.ListRegular(s.root, dir)
	if err != nil {
		return nil, fmt.Errorf("list %s in %s: %w", dir, s.describe(), err)
	}
	out := make(map[string]string, len(names))
	n := int64(0)
	for _, name := range names {
		out[name] = ""
		n += int64(len(name)) + listedEntryBytes
	}
	return out, s.budget.take(dir+"/ (the list of its files)", n)
}

// workspaceHead resolves the commit checked out in dir by reading .git
// directly (the action's image has no git binary). It returns "" when dir is
// not a work tree or HEAD cannot be resolved.
func workspaceHead(dir string) string {
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

// headOnDisk reports whether the workspace holds exactly the head commit
// and its log (a sparse checkout may leave .pact/ out).
func headOnDisk(workspace, headSHA, logPath string) bool {
	if workspace == "" || headSHA == "" || workspaceHead(workspace) != headSHA {
		return false
	}
	_, err := os.Lstat(filepath.Join(workspace, filepath.FromSlash(logPath)))
	return err == nil
}

// treeSource serves the files of one commit that ReadTrees read or
// listed: a listed file is read by its blob id through blobs (nil: none
// may be). A path that holds something else than a regular file (a
// symbolic link, a submodule, a directory) fails the read, as the
// workspace reader refuses what is not a regular file.
type treeSource struct {
	tree  ghapi.Tree
	blobs blobReader
}

// blobReader reads files a tree listed, by blob id.
type blobReader interface {
	ReadBlobs(ctx context.Context, blobs []ghapi.BlobRef) (map[string][]byte, error)
}

func (s treeSource) read(ctx context.Context, path string) ([]byte, error) {
	e, err := s.file(path)
	switch {
	case err != nil || e == nil:
		return nil, err
	case e.Data != nil:
		return e.Data, nil
	}
	got, err := s.readBlobs(ctx, []ghapi.BlobRef{{Path: path, OID: e.OID, Size: e.Size}})
	if err != nil {
		return nil, err
	}
	return nonNil(got[e.OID]), nil
}

// readAll reads paths, the ones only listed in one ReadBlobs call.
func (s treeSource) readAll(ctx context.Context, paths []string) ([][]byte, error) {
	out := make([][]byte, len(paths))
	var unread []ghapi.BlobRef
	for i, p := range paths {
		e, err := s.file(p)
		switch {
		case err != nil:
			return nil, fmt.Errorf("read %s from %s: %w", p, s.describe(), err)
		case e == nil:
		case e.Data != nil:
			out[i] = e.Data
		default:
			unread = append(unread, ghapi.BlobRef{Path: p, OID: e.OID, Size: e.Size})
		}
	}
	if len(unread) == 0 {
		return out, nil
	}
	got, err := s.readBlobs(ctx, unread)
	if err != nil {
		return nil, fmt.Errorf("read the task files from %s: %w", s.describe(), err)
	}
	for i, p := range paths {
		if e := s.tree.Entries[p]; out[i] == nil && e.Kind == ghapi.KindFile {
			out[i] = nonNil(got[e.OID])
		}
	}
	return out, nil
}

// file is the regular file at path (nil: none), or why what is there is
// not read as one.
func (s treeSource) file(path string) (*ghapi.Entry, error) {
	e, ok := s.tree.Entries[path]
	switch {
	case !ok:
		return nil, nil
	case e.Kind != ghapi.KindFile:
		return nil, fmt.Errorf("%w (it is a %s in commit %s)", pactdir.ErrNotRegular, e.Kind, prose.ShortSHA(s.tree.Commit))
	}
	return &e, nil
}

func (s treeSource) readBlobs(ctx context.Context, refs []ghapi.BlobRef) (map[string][]byte, error) {
	if s.blobs == nil {
		return nil, fmt.Errorf("%s was listed, not read, in commit %s", refs[0].Path, prose.ShortSHA(s.tree.Commit))
	}
	return s.blobs.ReadBlobs(ctx, refs)
}

// nonNil is b, or an empty file for nil.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func (s treeSource) describe() string { return "the GitHub API at " + prose.ShortSHA(s.tree.Commit) }

// list is what the tree listed directly inside dir: each entry's name and
// blob id (a directory's or a link's too; the listing names what is there).
func (s treeSource) list(_ context.Context, dir string) (map[string]string, error) {
	return treeListing(s.tree, dir), nil
}

// treeListing is what t lists directly inside dir, by name, with each
// entry's object id.
func treeListing(t ghapi.Tree, dir string) map[string]string {
	prefix := strings.TrimSuffix(dir, "/") + "/"
	out := map[string]string{}
	for p, e := range t.Entries {
		if name, ok := strings.CutPrefix(p, prefix); ok && name != "" && !strings.Contains(name, "/") {
			out[name] = e.OID
		}
	}
	return out
}

// pactSource is a fileSource that also lists a directory: name to blob id
// ("" where the source has none, as on disk).
type pactSource interface {
	fileSource
	list(ctx context.Context, dir string) (map[string]string, error)
}

// readEach reads paths one by one.
func readEach(ctx context.Context, src fileSource, paths []string) ([][]byte, error) {
	out := make([][]byte, len(paths))
	for i, p := range paths {
		b, err := readRequired(ctx, src, p)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
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
	// src reads the head's files; tasks is its listing of tasks/: task
	// file name to blob id ("" when read from the workspace).
	src   pactSource
	tasks map[string]string
	// runs are the check runs of the judgement's name and app in progress
	// on the head, read with it (judge's posted run; none when not asked,
	// or when GitHub did not answer that part).
	runs []ghapi.ListedRun
}

// baseTip is a base branch as one judgement sees it: its tip. Its
// .github/pact.yml grants nothing (the configuration is the default
// branch's: trustedconfig.go).
type baseTip struct {
	sha string
}

// readHead reads what judging a head needs, in one GraphQL request
// whatever the number of tasks: the head's log, STATE.yml, PROJECT.md and
// the listing of its tasks/ directory, with the tip of each base branch
// named and, unless the run already holds it, the configuration on the
// default branch (configRead) (from the workspace instead when it holds
// the head), and the check runs posted runs supersedes. No task file is
// read here (headFiles.changedTaskFiles), nothing else under .pact/ is
// read, and every byte read counts against budget.
func readHead(ctx context.Context, gh reader, budget *readBudget, t target, r *eventRun, posted ghapi.CreatedRun, bases []string) (*headFiles, map[string]baseTip, *config.File, error) {
	s := r.settings
	logPath := s.layout().Log()
	var reads []ghapi.TreeRead
	onDisk := headOnDisk(t.Workspace, t.HeadSHA, logPath)
	// The check runs the verdict's run supersedes are listed in the same
	// request, from the head's read (docs/check.md, "Where it runs").
	var runs *ghapi.RunsQuery
	if posted.App != 0 {
		runs = &ghapi.RunsQuery{Name: s.CheckName, App: posted.App}
	}
	headRead := !onDisk || runs != nil
	if headRead {
		read := ghapi.TreeRead{Commit: t.HeadSHA, Runs: runs}
		if !onDisk {
			read.Files = []string{logPath, s.layout().State(), s.layout().Project()}
			if s.pactDir() != "." {
				read.Files = append(read.Files, s.pactDir())
			}
			read.Dirs = []string{s.layout().Tasks()}
		}
		reads = append(reads, read)
	}
	for _, b := range bases {
		reads = append(reads, ghapi.TreeRead{Branch: b})
	}
	cfg := r.config
	if cfg == nil {
		reads = append(reads, configRead())
	}
	trees, err := gh.ReadTrees(ctx, reads...)
	if err != nil {
		return nil, nil, nil, err
	}
	if cfg == nil {
		if cfg, err = r.keepConfig(ctx, trees[len(trees)-1]); err != nil {
			return nil, nil, nil, err
		}
	}
	var src pactSource = diskSource{root: t.Workspace, budget: budget}
	var listed []ghapi.ListedRun
	if headRead {
		tree := trees[0]
		trees = trees[1:]
		listed = tree.Runs
		if !onDisk {
			if e, ok := tree.Entries[s.pactDir()]; ok && e.Kind != ghapi.KindDir {
				return nil, nil, nil, fmt.Errorf("read %s from the GitHub API at %s: it is a %s, not a directory", s.pactDir(), prose.ShortSHA(t.HeadSHA), e.Kind)
			}
			src = treeSource{tree: tree, blobs: gh}
		}
	}
	tips := map[string]baseTip{}
	for i, b := range bases {
		tips[b] = baseTip{sha: trees[i].Commit}
	}
	h, err := readPact(ctx, src, t.HeadSHA, s)
	if h != nil {
		h.runs = listed
	}
	return h, tips, cfg, err
}

// readPact reads the log, and STATE.yml, PROJECT.md and the listing of
// tasks/ when the log can be replayed: never a file the protocol does not
// name.
func readPact(ctx context.Context, src pactSource, sha string, s settings) (*headFiles, error) {
	h := &headFiles{sha: sha, source: src.describe(), dir: s.pactDir(), src: src}
	var err error
	if h.log, err = readRequired(ctx, src, s.layout().Log()); err != nil {
		return nil, err
	}
	// No events kept: provenance decodes again the few it needs
	// (projection.EachEvent), so junk lines cost no memory per line.
	h.parsed, h.replay = projection.ReadBytes(h.log, projection.ReadOptions{})
	if h.log == nil || h.replay.Unsupported != nil {
		return h, nil
	}
	if h.state, err = readRequired(ctx, src, s.layout().State()); err != nil {
		return nil, err
	}
	if h.project, err = readRequired(ctx, src, s.layout().Project()); err != nil {
		return nil, err
	}
	if h.tasks, err = src.list(ctx, s.layout().Tasks()); err != nil {
		return nil, err
	}
	return h, nil
}

// input is what validate judges of the head, with the task files of the
// tasks read, by id (docs/semantics.md §7 "Task files": the listing
// judges taskfile.missing; only the files read, taskfile.mismatch). The
// configuration is the default branch's, which the run parses once
// (trustedconfig.go).
func (h *headFiles) input(read map[string][]byte) checks.Input {
	in := checks.Input{Dir: h.dir, Scan: &h.parsed.Scan, Replay: h.replay, State: h.state, Project: h.project,
		TaskFiles: read, TaskListing: map[string]bool{}}
	if h.replay == nil || h.replay.Unsupported != nil {
		return in
	}
	for _, id := range h.replay.State.TaskOrder {
		if _, ok := h.tasks[pactfile.TaskFileName(id)]; ok {
			in.TaskListing[id] = true
		}
	}
	return in
}

// changedTaskFiles reads the head's files of the tasks whose file the
// head adds or changes against any of the merge bases that list bases
// (task file name to blob id): a file whose blob id differs from one of
// them, or that one of them lacks. The API's listing names the head's blob
// ids, so only those files are read; the workspace's does not, so each
// listed file is read there and its blob id computed as git does.
func (h *headFiles) changedTaskFiles(ctx context.Context, s settings, bases ...map[string]string) (map[string][]byte, error) {
	var ids, paths []string
	for _, id := range h.replay.State.TaskOrder {
		name := pactfile.TaskFileName(id)
		oid, listed := h.tasks[name]
		if !listed || oid != "" && !slices.ContainsFunc(bases, func(base map[string]string) bool { return oid != base[name] }) {
			continue
		}
		ids = append(ids, id)
		paths = append(paths, s.layout().Task(id))
	}
	out := make(map[string][]byte, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	files, err := h.src.readAll(ctx, paths)
	if err != nil {
		return nil, err
	}
	for i, id := range ids {
		name := pactfile.TaskFileName(id)
		unchanged := h.tasks[name] == "" && files[i] != nil && !slices.ContainsFunc(bases, func(base map[string]string) bool {
			was := base[name]
			return was == "" || gitBlobID(files[i], len(was)) != was
		})
		if unchanged {
			continue // the same in the workspace as at every merge base
		}
		out[id] = files[i]
	}
	return out, nil
}

// gitBlobID is the id git gives a file of content b: SHA-1 of the blob
// object (hex, 40 digits), or SHA-256 in a repository whose ids have 64.
func gitBlobID(b []byte, digits int) string {
	h := sha1.New() // git's object id, not a secret
	if digits == 2*sha256.Size {
		h = sha256.New()
	}
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}
