package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// What git tells pactify about a merge in progress, and how pactify asks
// it: git runs as `git` with arguments, never through a shell. The facts,
// tried with git 2.39 (docs/pactify.md, "How git runs the merge driver"):
//
//   - a merge driver gets three temporary files and the path (%O %A %B
//     %P) and the conflict marker size (%L); git 2.44 and later also pass
//     the three versions' labels (%S %X %Y), which 2.39 leaves as they are
//     written ("%X");
//   - during `git merge` and the merge of `git pull`, the other commit is
//     in the environment as GITHEAD_<id>=<name as given> (the id itself
//     for a pull); MERGE_HEAD is written only after the drivers ran;
//   - during a rebase (the merge backend, `git pull --rebase` too) the
//     commit being picked is the last line of <gitdir>/rebase-merge/done,
//     HEAD is the side being rebased onto, and the ancestor is the picked
//     commit's parent; with `git rebase --apply` it is REBASE_HEAD, under
//     <gitdir>/rebase-apply;
//   - a cherry-pick of several commits lists the one being picked first
//     in <gitdir>/sequencer/todo; a cherry-pick of one commit leaves no
//     trace before it stops (CHERRY_PICK_HEAD is written after the
//     drivers), so only git 2.44's label names it;
//   - drivers run in path order (STATE.yml before log.jsonl), and git
//     calls none when only one side changed a file.

// environ is the process's environment: the merge driver looks for
// git's GITHEAD_<id>.
var environ = os.Environ

// gitOp is a merge git is making or has stopped in: what kind, and the
// commits of the other side and of the ancestor where git says them.
type gitOp struct {
	kind   string // "merge", "rebase", "cherry-pick", "revert", or "" when git does not say
	theirs string // the other side's commit ("" unknown)
	name   string // how git names the other side (a branch as given, or the commit)
	base   string // the ancestor's commit, "" when it is not one commit (a merge: merge-base)
}

// git runs git in dir and returns its standard output; the error holds
// what git said.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return out, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
		}
		return out, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, msg)
	}
	return out, nil
}

// gitLine is git's output up to its first line break.
func gitLine(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := git(ctx, dir, args...)
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line), err
}

// commitOf is the commit rev names, "" when it names none.
func commitOf(ctx context.Context, dir, rev string) string {
	id, err := gitLine(ctx, dir, "rev-parse", "--verify", "-q", rev+"^{commit}")
	if err != nil {
		return ""
	}
	return id
}

// readGitFile is the first line of a file git keeps in its directory, ""
// when it is absent.
func readGitFile(gitDir string, name ...string) string {
	b, err := os.ReadFile(filepath.Join(append([]string{gitDir}, name...)...))
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// pickCommit is the commit a sequencer line picks ("pick <id> subject",
// and reword, edit, squash, fixup with their one-letter forms and fixup's
// -C/-c), "" for any other line (exec, label, merge, …).
func pickCommit(line string) string {
	f := strings.Fields(line)
	if len(f) < 2 {
		return ""
	}
	switch f[0] {
	case "pick", "p", "reword", "r", "edit", "e", "squash", "s":
		return f[1]
	case "fixup", "f":
		if (f[1] == "-C" || f[1] == "-c") && len(f) > 2 {
			return f[2]
		}
		return f[1]
	}
	return ""
}

// lastLine is the last non-empty line of a file under gitDir that is not
// a comment, "" when there is none.
func lastLine(gitDir string, name ...string) string {
	b, err := os.ReadFile(filepath.Join(append([]string{gitDir}, name...)...))
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return ""
}

// driverOp is the merge git runs a merge driver in (the facts above),
// from the driver's environment, the git directory and the label git
// 2.44 passes for the other side (theirsLabel; as written, "%Y", by 2.39).
func driverOp(ctx context.Context, dir, gitDir, theirsLabel string) gitOp {
	var heads []string
	for _, kv := range environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "GITHEAD_") {
			heads = append(heads, k[len("GITHEAD_"):], v)
		}
	}
	if len(heads) == 2 {
		return gitOp{kind: "merge", theirs: heads[0], name: heads[1]}
	}
	if len(heads) > 2 {
		return gitOp{kind: "merge"} // an octopus: no one other side
	}
	if exists(filepath.Join(gitDir, "rebase-merge")) {
		return picked(ctx, dir, "rebase", pickCommit(lastLine(gitDir, "rebase-merge", "done")))
	}
	if exists(filepath.Join(gitDir, "rebase-apply")) {
		return picked(ctx, dir, "rebase", readGitFile(gitDir, "REBASE_HEAD"))
	}
	if todo := readGitFile(gitDir, "sequencer", "todo"); todo != "" {
		if f := strings.Fields(todo); len(f) > 1 && f[0] == "revert" {
			return reverted(ctx, dir, f[1])
		}
		return picked(ctx, dir, "cherry-pick", pickCommit(todo))
	}
	if theirsLabel != "" && !strings.Contains(theirsLabel, "%") {
		// git 2.44's label of a picked commit: "<abbreviated id> (<subject>)".
		if f := strings.Fields(theirsLabel); len(f) > 0 {
			if op := picked(ctx, dir, "cherry-pick", f[0]); op.theirs != "" {
				return op
			}
		}
	}
	return gitOp{}
}

// stoppedOp is the merge, rebase, cherry-pick or revert git has stopped
// in, from the files it leaves in its directory until it is finished;
// kind "" when there is none.
func stoppedOp(ctx context.Context, dir, gitDir string) gitOp {
	switch {
	case exists(filepath.Join(gitDir, "MERGE_HEAD")):
		id := readGitFile(gitDir, "MERGE_HEAD")
		return gitOp{kind: "merge", theirs: id, name: id}
	case exists(filepath.Join(gitDir, "rebase-merge")), exists(filepath.Join(gitDir, "rebase-apply")):
		return picked(ctx, dir, "rebase", readGitFile(gitDir, "REBASE_HEAD"))
	case exists(filepath.Join(gitDir, "CHERRY_PICK_HEAD")):
		return picked(ctx, dir, "cherry-pick", readGitFile(gitDir, "CHERRY_PICK_HEAD"))
	case exists(filepath.Join(gitDir, "REVERT_HEAD")):
		return reverted(ctx, dir, readGitFile(gitDir, "REVERT_HEAD"))
	}
	return gitOp{}
}

// mergeStopped says that git has a merge, rebase, cherry-pick or revert
// stopped in the pact's repository (false outside one).
func (c *cli) mergeStopped() bool {
	gitDir, err := gitDirOf(c.ctx, c.dir.Root)
	return err == nil && stoppedOp(c.ctx, c.dir.Root, gitDir).kind != ""
}

// picked is a rebase or cherry-pick applying commit rev: the ancestor is
// its parent.
func picked(ctx context.Context, dir, kind, rev string) gitOp {
	op := gitOp{kind: kind}
	if rev == "" {
		return op
	}
	if op.theirs = commitOf(ctx, dir, rev); op.theirs != "" {
		op.name = shortID(op.theirs)
		op.base = commitOf(ctx, dir, op.theirs+"^")
	}
	return op
}

// reverted is a revert of rev: the other side is its parent, the ancestor
// rev itself.
func reverted(ctx context.Context, dir, rev string) gitOp {
	op := gitOp{kind: "revert"}
	if id := commitOf(ctx, dir, rev); id != "" {
		op.base, op.theirs, op.name = id, commitOf(ctx, dir, id+"^"), "parent of "+shortID(id)
	}
	return op
}

func shortID(id string) string {
	if len(id) > 10 {
		return id[:10]
	}
	return id
}

// theirsFirst says the other side's log goes first in a merge
// (docs/semantics.md §8): only in a merge, and only when the other side
// is further on the base branch than HEAD is (onBase). In a rebase,
// cherry-pick or revert, HEAD is the side being applied onto, which goes
// first, and so does HEAD when git does not say what it is doing.
func theirsFirst(ctx context.Context, dir string, op gitOp, baseBranch string) bool {
	if op.kind != "merge" || op.theirs == "" {
		return false
	}
	refs := baseRefs(ctx, dir, baseBranch)
	return onBase(ctx, dir, op.theirs, refs) > onBase(ctx, dir, commitOf(ctx, dir, "HEAD"), refs)
}

// baseRefs ranks the refs of the base branch base that exist: 2 for a
// remote's branch of that name (what is already shared), 1 for the local
// branch. A remote's branch is refs/remotes/<remote>/<base> for a remote
// git is configured with, exactly: anyone who can push may name a branch
// evil/main, whose remote-tracking ref ends in /main too.
func baseRefs(ctx context.Context, dir, base string) map[string]int {
	if base == "" {
		return nil
	}
	remotes, err := git(ctx, dir, "remote")
	if err != nil {
		return nil
	}
	rank := map[string]int{"refs/heads/" + base: 1}
	for _, r := range strings.Fields(string(remotes)) {
		rank["refs/remotes/"+r+"/"+base] = 2
	}
	args := []string{"for-each-ref", "--format=%(refname)"}
	for ref := range rank {
		args = append(args, ref) // a pattern lists refs under it too: rank holds only these
	}
	out, err := git(ctx, dir, args...)
	if err != nil {
		return nil
	}
	refs := map[string]int{}
	for _, ref := range strings.Fields(string(out)) {
		if r, ok := rank[ref]; ok {
			refs[ref] = r
		}
	}
	return refs
}

// onBase is how far commit is on the base branch, whose refs are refs
// (baseRefs): the best rank of a ref that holds it, 0 when none does.
func onBase(ctx context.Context, dir, commit string, refs map[string]int) int {
	if commit == "" {
		return 0
	}
	best := 0
	for ref, r := range refs {
		if r > best && isAncestor(ctx, dir, commit, ref) {
			best = r
		}
	}
	return best
}

// singleMergeBase is the merge base of head and theirs when git finds
// exactly one (a criss-cross merge has several, and no one ancestor).
func singleMergeBase(ctx context.Context, dir, head, theirs string) (string, bool) {
	out, err := git(ctx, dir, "merge-base", "--all", head, theirs)
	if bases := strings.Fields(string(out)); err == nil && len(bases) == 1 {
		return bases[0], true
	}
	return "", false
}

func isAncestor(ctx context.Context, dir, commit, ref string) bool {
	_, err := git(ctx, dir, "merge-base", "--is-ancestor", commit, ref)
	return err == nil
}

// blobAt is the file path (slash-separated, from the top of the work tree)
// at commit, nil when the commit has none. What it reads that is the start
// of one of candidates is that start, not a copy (readPrefixOf).
func blobAt(ctx context.Context, dir, commit, path string, candidates ...[]byte) ([]byte, error) {
	id, err := gitLine(ctx, dir, "rev-parse", "--verify", "-q", commit+":"+path)
	if err != nil || id == "" {
		return nil, nil //nolint:nilerr // rev-parse says "no such file" by failing
	}
	return readBlob(ctx, dir, id, candidates...)
}

// readBlob is git's blob id. What it reads that is the start of one of
// candidates is that start, not a copy (readPrefixOf); anything else is
// read into a slice of the blob's size, asked of git first, so that a
// log of 256 MB costs 256 MB, not the twice as much a growing buffer
// takes while it is copied.
func readBlob(ctx context.Context, dir, id string, candidates ...[]byte) ([]byte, error) {
	size, err := gitLine(ctx, dir, "cat-file", "-s", id)
	if err != nil {
		return nil, err
	}
	n, err := strconv.ParseInt(size, 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("git cat-file -s %s: not a size: %q", id, size)
	}
	cmd := exec.CommandContext(ctx, "git", "cat-file", "blob", id)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file blob %s: %w", id, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file blob %s: %w", id, err)
	}
	var b []byte
	var readErr error
	if len(candidates) > 0 {
		b, readErr = readPrefixOf(io.LimitReader(out, n), candidates...)
	} else {
		b = make([]byte, n)
		_, readErr = io.ReadFull(out, b)
	}
	if readErr == nil {
		// The blob ends where git said: nothing more comes.
		var one [1]byte
		if k, _ := out.Read(one[:]); k > 0 {
			readErr = fmt.Errorf("longer than the %d bytes git said", n)
		}
	}
	if err := errors.Join(readErr, cmd.Wait()); err != nil {
		return nil, fmt.Errorf("git cat-file blob %s: %w: %s", id, err, strings.TrimSpace(stderr.String()))
	}
	return b, nil
}

// gitDirOf is the absolute git directory of the work tree at dir.
func gitDirOf(ctx context.Context, dir string) (string, error) {
	d, err := gitLine(ctx, dir, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("git directory %s: %w", d, errors.Join(err, fs.ErrNotExist))
	}
	return d, nil
}
