package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/pactdir"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// Merging the pact as git merges code (docs/semantics.md §8): the merge
// driver git runs for the log and STATE.yml, `pactify resolve` for a merge
// that stopped without it, and `pactify install`, which tells git to run
// the driver. The merge itself is projection.MergeLogs; this file finds
// the three logs and which side goes first, and writes what it returns.

// mergeDriverCommand is the merge.pact.driver git runs through its shell
// (sh on every system; Git for Windows brings its own): pactify when it is
// on PATH, and when it is not, or it refuses (a real conflict), git's own
// text merge with the labels git 2.44 passes (2.39 leaves them as
// written, "%X", and the shell then names the sides ours, base and
// theirs) and the marker size (%L), so that a clone without pactify gets
// git's usual conflict, never a broken merge.
const mergeDriverCommand = `command -v pactify >/dev/null 2>&1 && pactify merge-driver %O %A %B %P --marker-size %L --base-label %S --ours-label %X --theirs-label %Y || ` +
	`{ o=%X b=%S t=%Y; case "$o$b$t" in *%*) o=ours b=base t=theirs ;; esac; git merge-file --marker-size=%L -L "$o" -L "$b" -L "$t" %A %O %B; }`

// mergeDriverConfig is the git configuration of the driver: its
// description, its command and, for the ancestor git makes of several
// merge bases, git's binary merge, which takes the older ancestor as it is
// (its log is the one both sides start with).
var mergeDriverConfig = [][2]string{
	{"merge." + pactfile.MergeDriver + ".name", "pactify: the pact's log and STATE.yml (docs/semantics.md §8)"},
	{"merge." + pactfile.MergeDriver + ".driver", mergeDriverCommand},
	{"merge." + pactfile.MergeDriver + ".recursive", "binary"},
}

// installDriver writes the driver's configuration to git's configuration
// at scope (--global, --local). An interrupt (Ctrl-C) does not cut it
// off: git writes its configuration through a lock file (config.lock),
// which a git killed mid-write leaves behind, and every later `git
// config` of the repository then fails until someone removes it; the
// three settings take milliseconds, and init runs them once its pact is
// written, which it finishes whatever comes (docs/pactify.md, "When a
// write fails").
func (c *cli) installDriver(dir, scope string) error {
	ctx := context.WithoutCancel(c.ctx)
	for _, kv := range mergeDriverConfig {
		if _, err := git(ctx, dir, "config", scope, kv[0], kv[1]); err != nil {
			return fmt.Errorf("configure git's merge driver: %w", err)
		}
	}
	return nil
}

func (c *cli) cmdInstall(p cmdline.Args) error {
	scope, where := "--global", "your git configuration (every repository)"
	if p.Bools["local"] {
		scope, where = "--local", "this repository's git configuration"
	}
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("find the working directory: %w", err)
	}
	if err := c.installDriver(wd, scope); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "git's merge driver %q is set in %s; it merges each pact's log and STATE.yml whose .gitattributes names it (pactify init writes the lines)\n", pactfile.MergeDriver, where)
	return nil
}

// logOfState is the log beside a STATE.yml git names (slash-separated).
func logOfState(p string) string { return path.Join(path.Dir(p), pactfile.LogFile) }

// mergeNames are how a conflict names the three logs: git's labels when
// it passes them, else what pactify knows.
type mergeNames struct{ base, ours, theirs string }

func labelOr(label, fallback string) string {
	if label == "" || strings.Contains(label, "%") {
		return fallback
	}
	return label
}

// cmdMergeDriver is git's merge driver for the log and STATE.yml: it
// writes the merge into ours (%A) and exits 0, or leaves ours as it was
// and exits non-zero, which git takes as a conflict (the configured
// command then lets git merge-file write the markers).
func (c *cli) cmdMergeDriver(p cmdline.Args) error {
	base, ours, theirs, gitPath := p.Positional[0], p.Positional[1], p.Positional[2], filepath.ToSlash(p.Positional[3])
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("find the working directory: %w", err)
	}
	gitDir, err := gitDirOf(c.ctx, wd)
	if err != nil {
		return err
	}
	op := driverOp(c.ctx, wd, gitDir, p.Get("theirs-label"))
	names := mergeNames{labelOr(p.Get("base-label"), "the common ancestor"), labelOr(p.Get("ours-label"), "HEAD"),
		labelOr(p.Get("theirs-label"), orElse(op.name, "the other side"))}
	switch path.Base(gitPath) {
	case pactfile.LogFile:
		logs, err := readVersions(base, ours, theirs)
		if err != nil {
			return err
		}
		m, _, _, err := c.mergeLogs(wd, op, logs, names, gitPath)
		if err != nil {
			return err
		}
		if err := c.stateFollows(wd, op, gitPath, m.Result.State, names); err != nil {
			return err
		}
		return replaceFile(ours, gitPath, func(w io.Writer) error { _, err := m.WriteTo(w); return err })
	case pactfile.StateFile:
		m, err := c.mergeStateLogs(wd, op, gitPath, [3]string{base, ours, theirs}, names)
		if err != nil {
			return err
		}
		return replaceFile(ours, gitPath, func(w io.Writer) error { return projection.Render(w, m.Result.State) })
	}
	return &refusal{fmt.Sprintf("pactify merges a pact's %s and %s, not %s", pactfile.LogFile, pactfile.StateFile, gitPath),
		"give only those two files the merge=" + pactfile.MergeDriver + " attribute in .gitattributes"}
}

// stateFollows is the log's driver's look at the STATE.yml beside the
// log (docs/semantics.md §8: after a merge it is the render of the merged
// log, st). Git runs a driver only for a file both sides changed: when
// they both changed STATE.yml, its own driver renders it; when only one
// did (a seat joining again changes the log alone), git takes that side's
// STATE.yml as it is, which need not be the merged log's render (the
// other side's join moves a task the first side assigned to in
// progress). That merge is refused, the log left in conflict, so that
// git stops and `pactify resolve` writes both; so is one whose commits
// git does not name (a cherry-pick of one commit before git 2.44): it
// cannot be told. Cost: the blob ids of the three STATE.yml versions
// and, when git would take one, the id of the render (git hash-object).
func (c *cli) stateFollows(dir string, op gitOp, logPath string, st *projection.State, names mergeNames) error {
	statePath := path.Join(path.Dir(logPath), pactfile.StateFile)
	refuse := func(why string) error {
		return &refusal{fmt.Sprintf("pactify leaves %s in conflict: %s, so STATE.yml would not be the render of the merged log", logPath, why),
			"run `pactify resolve` once git stops: it writes the merged log and STATE.yml rendered from it, and stages both"}
	}
	head := commitOf(c.ctx, dir, "HEAD")
	base := op.base
	if op.kind == "merge" && op.theirs != "" && head != "" {
		if one, ok := singleMergeBase(c.ctx, dir, head, op.theirs); ok {
			base = one
		}
	}
	if head == "" || op.theirs == "" || base == "" {
		return refuse(fmt.Sprintf("git does not say which commits it merges, so which %s it takes cannot be told", statePath))
	}
	var ids [3]string // the ancestor's, ours, theirs; "" where there is none
	for i, commit := range []string{base, head, op.theirs} {
		ids[i], _ = gitLine(c.ctx, dir, "rev-parse", "--verify", "-q", commit+":"+statePath)
	}
	if ids[1] != ids[0] && ids[2] != ids[0] && ids[1] != ids[2] {
		return nil // both changed it: its own driver renders it
	}
	taken, side := ids[1], names.ours
	if ids[1] == ids[0] {
		taken, side = ids[2], names.theirs
	}
	rendered, err := renderedID(c.ctx, dir, st)
	if err != nil {
		return err
	}
	if rendered == taken {
		return nil
	}
	return refuse(fmt.Sprintf("only %s changed %s, so git takes it as it is", side, statePath))
}

// renderedID is git's blob id of st's render, which git hash-object
// reads as it is rendered.
func renderedID(ctx context.Context, dir string, st *projection.State) (string, error) {
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriterSize(pw, 256<<10)
		err := projection.Render(bw, st)
		if err == nil {
			err = bw.Flush()
		}
		pw.CloseWithError(err)
	}()
	cmd := exec.CommandContext(ctx, "git", "hash-object", "--stdin")
	cmd.Dir, cmd.Stdin = dir, pr
	out, err := cmd.Output()
	_ = pr.CloseWithError(io.ErrClosedPipe) // the render stops if git did
	if err != nil {
		return "", fmt.Errorf("git hash-object --stdin: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// readVersions reads the three versions of the log git hands a driver
// (base, ours, theirs). The ancestor's is where both sides start, so it is
// compared with their starts as it is read and, when it is one, not held a
// second time: each version is as large as the log.
func readVersions(base, ours, theirs string) ([3][]byte, error) {
	var out [3][]byte
	for i, n := range []string{ours, theirs} {
		b, err := os.ReadFile(n)
		if err != nil {
			return out, fmt.Errorf("read git's version of the log: %w", err)
		}
		out[i+1] = b
	}
	f, err := os.Open(base)
	if err != nil {
		return out, fmt.Errorf("read git's version of the log: %w", err)
	}
	defer f.Close()
	if out[0], err = readPrefixOf(f, out[1], out[2]); err != nil {
		return out, fmt.Errorf("read git's version of the log: %w", err)
	}
	return out, nil
}

// readPrefixOf reads r whole; while what it reads is the start of one of
// the candidates, it holds nothing, and when all of it is, it returns that
// candidate's start instead of a copy.
func readPrefixOf(r io.Reader, candidates ...[]byte) ([]byte, error) {
	buf := make([]byte, 256<<10)
	var n int // bytes read that still equal a candidate's start
	var held []byte
	for {
		k, err := r.Read(buf)
		chunk := buf[:k]
		if held == nil {
			var still [][]byte
			for _, c := range candidates {
				if n+k <= len(c) && bytes.Equal(c[n:n+k], chunk) {
					still = append(still, c)
				}
			}
			switch {
			case len(still) > 0:
				candidates, n = still, n+k
			case n == 0:
				held = append(make([]byte, 0, 2*k), chunk...)
			default:
				held = append(append(make([]byte, 0, 2*(n+k)), candidates[0][:n]...), chunk...)
			}
		} else {
			held = append(held, chunk...)
		}
		switch {
		case errors.Is(err, io.EOF) && held == nil && n == 0:
			return nil, nil
		case errors.Is(err, io.EOF) && held == nil:
			return candidates[0][:n:n], nil
		case errors.Is(err, io.EOF):
			return held, nil
		case err != nil:
			return nil, err
		}
	}
}

// replaceFile makes the file name (git's version of gitPath) hold what
// write writes, through a file beside it and a rename, so that a failure
// leaves it as it was. A failure is said of gitPath, in the sentences of
// every writer (a full disk, a file-size limit), not of the temporary
// files git and pactify name.
func replaceFile(name, gitPath string, write func(io.Writer) error) error {
	failed := func(err error) error {
		return pactdir.SystemError("write the merge of", gitPath, "git's version is as it was, so git reports a conflict", err)
	}
	removeKilledTemps(filepath.Dir(name))
	f, err := os.CreateTemp(filepath.Dir(name), mergeTempPrefix+"*")
	if err != nil {
		return failed(err)
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		_ = os.Remove(f.Name()) // the write's error is the one to report
		return failed(err)
	}
	return nil
}

// mergeTempPrefix begins the name of the file a driver writes its merge
// into (os.CreateTemp puts decimal digits after it) beside git's version,
// in the work tree's root.
const mergeTempPrefix = ".pactify-merge-"

// removeKilledTemps removes from dir the files a driver killed before its
// rename left (regular files named exactly mergeTempPrefix and digits),
// which git status would otherwise show for good. None is a live one:
// git runs one driver at a time, and no other merge runs in the work tree
// while git holds its index.lock. Best effort: one that stays does no harm
// but its place in git status.
func removeKilledTemps(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		digits, ok := strings.CutPrefix(e.Name(), mergeTempPrefix)
		if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
}

// mergeLogs merges the three logs of a merge (base, ours, theirs), the
// side already on the base branch first (theirsFirst), or says why not.
// The names it returns are the upstream side's and the other's.
func (c *cli) mergeLogs(dir string, op gitOp, logs [3][]byte, names mergeNames, logPath string) (m *projection.Merged, upName, otherName string, err error) {
	base, ours, theirs := logs[0], logs[1], logs[2]
	branch := projection.BaseBranch(ours)
	if branch == "" {
		branch = projection.BaseBranch(theirs)
	}
	upstream, other := ours, theirs
	upName, otherName = names.ours, names.theirs
	if theirsFirst(c.ctx, dir, op, branch) {
		upstream, other, upName, otherName = theirs, ours, names.theirs, names.ours
	}
	c.log.Debug("merging the log", "operation", op.kind, "upstream", upName, "base branch", branch)
	m, err = projection.MergeLogs(base, upstream, other)
	var mc *projection.MergeConflict
	if errors.As(err, &mc) {
		return nil, "", "", &refusal{fmt.Sprintf("%s does not merge: %s", logPath, mc.Explain(names.base, upName, otherName)),
			"a real conflict of the pact (docs/semantics.md §8): decide which event stands, keep the log append-only, then run `pactify resolve` or `pactify log --replay`"}
	}
	if err != nil {
		return nil, "", "", err
	}
	if m.Result.Unsupported != nil {
		return nil, "", "", unsupported(m.Result.Unsupported)
	}
	c.log.Debug("merged the log", "upstream lines", m.Upstream, "added", m.Added, "full replays", m.FullReplays)
	return m, upName, otherName, nil
}

// mergeStateLogs is the merge of the logs beside a STATE.yml git merges:
// it finds the commits git merges, holds them to the three STATE.yml
// versions git handed the driver (states), and merges their logs. When git
// does not say which commits (a cherry-pick of one commit before git
// 2.44, an ancestor made of several merge bases) it refuses rather than
// guess: git then leaves its conflict, which `pactify resolve` finishes.
func (c *cli) mergeStateLogs(dir string, op gitOp, statePath string, states [3]string, names mergeNames) (*projection.Merged, error) {
	cannot := func(why string) error {
		return &refusal{fmt.Sprintf("pactify cannot tell which logs git merges with %s (%s)", statePath, why),
			"git leaves its conflict in it: run `pactify resolve` once git stops"}
	}
	if op.theirs == "" {
		return nil, cannot("git names no other commit for this " + orElse(op.kind, "operation"))
	}
	head := commitOf(c.ctx, dir, "HEAD")
	if op.kind == "merge" {
		one, ok := singleMergeBase(c.ctx, dir, head, op.theirs)
		if !ok {
			return nil, cannot("not one merge base")
		}
		op.base = one
	}
	if op.base == "" || head == "" {
		return nil, cannot("no ancestor commit")
	}
	logPath := logOfState(statePath)
	var logs [3][]byte
	for i, commit := range []string{head, op.theirs, op.base} {
		state, err := blobAt(c.ctx, dir, commit, statePath)
		if err != nil {
			return nil, err
		}
		handed, err := os.ReadFile(states[(i+1)%3])
		if err != nil {
			return nil, fmt.Errorf("read git's version of %s: %w", statePath, err)
		}
		if !bytes.Equal(state, handed) {
			return nil, cannot(fmt.Sprintf("%s's %s is not the one git merges", shortID(commit), pactfile.StateFile))
		}
		// The ancestor's log, read last, is where both sides start: held
		// once (readPrefixOf).
		if logs[(i+1)%3], err = blobAt(c.ctx, dir, commit, logPath, logs[1], logs[2]); err != nil {
			return nil, err
		}
	}
	m, _, _, err := c.mergeLogs(dir, op, logs, names, logPath)
	return m, err
}

func orElse(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
