package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pact-action/pact-action/internal/cmdline"
	"github.com/pact-action/pact-action/pactdir"
	"github.com/pact-action/pact-action/pactfile"
)

// pactify resolve (docs/pactify.md, "Merging the pact with git"): a
// merge, rebase, cherry-pick or revert stopped on the pact, finished from
// git's index stages with the one merge of logs (projection.MergeLogs).

// conflictStages are the blob ids of the stages (1 ancestor, 2 ours, 3
// theirs) of path in git's index; none when it is not in conflict.
func (c *cli) conflictStages(dir, p string) (map[int]string, error) {
	out, err := git(c.ctx, dir, "ls-files", "-u", "-z", "--", p)
	if err != nil {
		return nil, err
	}
	stages := map[int]string{}
	for _, entry := range strings.Split(string(out), "\x00") {
		meta, name, ok := strings.Cut(entry, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || name != p {
			continue
		}
		n := int(f[2][0] - '0')
		stages[n] = f[1]
	}
	return stages, nil
}

// cmdResolve finishes a merge, rebase or cherry-pick that stopped on
// conflicts in the pact: the merged log from git's index stages, or the
// log git merged, and STATE.yml rendered from it, written under the lock
// and staged. An interrupt (Ctrl-C) before its write stops it with
// nothing written, as it stops a writer, whatever it cut off (a git read
// it was waiting for); from its write on, it finishes (resolveStage).
func (c *cli) cmdResolve(cmdline.Args) error {
	writing := false
	err := c.resolve(&writing)
	if err != nil && !writing && c.ctx.Err() != nil {
		return errInterrupted
	}
	return err
}

// resolve is cmdResolve, setting *writing once it begins to write.
func (c *cli) resolve(writing *bool) error {
	if err := c.interrupted(); err != nil {
		return err
	}
	if !c.dir.Exists() {
		return &refusal{fmt.Sprintf("there is no pact here: %s does not exist", c.dir.Display(pactfile.LogFile)), "run pactify resolve in the repository whose pact is in conflict"}
	}
	dir := c.dir.Root
	gitDir, err := gitDirOf(c.ctx, dir)
	if err != nil {
		return &refusal{"pactify resolve finishes a git merge, and this is not a git work tree (" + err.Error() + ")", "run it in the repository whose merge stopped"}
	}
	op := stoppedOp(c.ctx, dir, gitDir)
	if op.kind == "" {
		return &refusal{"no merge, rebase, cherry-pick or revert is in progress, so there is nothing to resolve", "run pactify resolve when git stops on a conflict in the pact; `pactify log --replay` rewrites STATE.yml at any time"}
	}
	top, err := gitLine(c.ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	rel := func(name string) string {
		p, err := filepath.Rel(top, c.dir.Path(name))
		if err != nil {
			return c.dir.Display(name)
		}
		return filepath.ToSlash(p)
	}
	logPath, statePath := rel(pactfile.LogFile), rel(pactfile.StateFile)
	logStages, err := c.conflictStages(top, logPath)
	if err != nil {
		return err
	}
	stateStages, err := c.conflictStages(top, statePath)
	if err != nil {
		return err
	}
	prog := c.progress()
	defer prog.stop()
	unlock, err := c.lock(prog)
	if err != nil {
		return err
	}
	defer unlock()
	prog.stop()
	if len(logStages) > 0 {
		return c.resolveLog(top, op, logPath, statePath, logStages, writing)
	}
	if len(stateStages) == 0 {
		if line, err := c.dir.ConflictMarker(pactfile.StateFile); err != nil || line == 0 {
			return errors.Join(err, &refusal{fmt.Sprintf("git's %s and %s are in no conflict, so there is nothing to resolve", logPath, statePath),
				"finish the " + op.kind + " as git says (`git status`)"})
		}
	}
	// The log is merged (by the driver, or by hand and staged): STATE.yml
	// is its render.
	_, res, err := c.loadForRead(nil)
	if err != nil {
		return err
	}
	if line, err := c.dir.ConflictMarker(pactfile.LogFile); err != nil || line > 0 {
		return errors.Join(err, &refusal{fmt.Sprintf("%s holds git's conflict markers (line %d) though git's index has it merged", c.dir.Display(pactfile.LogFile), line),
			"take the log back from git's versions (`git checkout -m " + logPath + "`), then run pactify resolve again"})
	}
	if err := c.beforeResolveWrite(top, writing); err != nil {
		return err
	}
	if err := c.dir.WriteState(res.State); err != nil {
		return err
	}
	if err := c.resolveStage(top, "rendered "+statePath, statePath); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "rendered %s from %s, which git had merged, and staged it (git add); continue the %s as git says (`git status`)\n", statePath, logPath, op.kind)
	c.lateInterrupt(statePath + " was being written")
	return nil
}

// beforeResolveWrite is resolve's last look before it writes: an
// interrupt stops it there, and so does git's index locked by another git
// (index.lock: a git running in this work tree, or one that crashed),
// which would refuse the `git add` after the write, leaving the files
// written and not staged: every file is left as it was instead. A git
// that takes the lock between this look and the `git add` still gets
// resolveStage's message. Then *writing is set.
func (c *cli) beforeResolveWrite(top string, writing *bool) error {
	if err := c.interrupted(); err != nil {
		return err
	}
	lock, err := gitLine(c.ctx, top, "rev-parse", "--git-path", "index.lock")
	if err != nil {
		return err
	}
	if !filepath.IsAbs(lock) {
		lock = filepath.Join(top, lock)
	}
	if _, err := os.Lstat(lock); err == nil {
		shown := lock
		if rel, err := filepath.Rel(top, lock); err == nil && !strings.HasPrefix(rel, "..") {
			shown = filepath.ToSlash(rel)
		}
		return &refusal{fmt.Sprintf("git's index is locked (%s exists): another git is running in this repository, or one that crashed left its lock; nothing was written, as git could not stage it", shown),
			"let that git finish (or, if no git is running, remove " + shown + "), then run pactify resolve again"}
	}
	*writing = true
	return nil
}

// resolveStage stages paths, which resolve has written (done says what
// it did). It runs to its end whatever an interrupt says: a git killed
// while it writes the index leaves git's index.lock behind. When git
// refuses, the error says what is written and how to stage it.
func (c *cli) resolveStage(top, done string, paths ...string) error {
	c.log.Debug("staging what resolve wrote", "paths", paths)
	if _, err := git(context.WithoutCancel(c.ctx), top, append([]string{"add", "--"}, paths...)...); err != nil {
		return fmt.Errorf("%s, but staging failed, so git's index still holds the conflict (%w); run `git add %s` (or pactify resolve again) once git can", done, err, strings.Join(paths, " "))
	}
	return nil
}

// resolveLog merges the log from its index stages.
func (c *cli) resolveLog(top string, op gitOp, logPath, statePath string, stages map[int]string, writing *bool) error {
	if _, ok := stages[2]; !ok {
		return &refusal{fmt.Sprintf("%s was deleted on HEAD's side, so there is no log to merge into", logPath), "restore it (`git checkout --theirs -- " + logPath + "`) or finish the merge by hand"}
	}
	if _, ok := stages[3]; !ok {
		return &refusal{fmt.Sprintf("%s was deleted on the other side, so there is no log to merge", logPath), "restore it (`git checkout --ours -- " + logPath + "`) or finish the merge by hand"}
	}
	// The sides' logs, then the ancestor's, which is where both start:
	// held once (readBlob), as the driver holds it.
	var logs [3][]byte
	for _, i := range []int{2, 3, 1} {
		if id, ok := stages[i]; ok {
			var startOf [][]byte
			if i == 1 {
				startOf = logs[1:]
			}
			b, err := readBlob(c.ctx, top, id, startOf...)
			if err != nil {
				return err
			}
			logs[i-1] = b
		}
	}
	names := mergeNames{"the common ancestor", "HEAD", orElse(op.name, "the other side")}
	m, first, second, err := c.mergeLogs(top, op, logs, names, logPath)
	if err != nil {
		return err
	}
	if err := c.beforeResolveWrite(top, writing); err != nil {
		return err
	}
	if err := c.dir.ReplaceLog(func(w io.Writer) error { _, err := m.WriteTo(w); return err }, m.Result.State); err != nil {
		if errors.Is(err, pactdir.ErrStateStale) {
			return fmt.Errorf("%s is merged, but %w; run `pactify log --replay` and `git add %s`", logPath, err, statePath)
		}
		return err
	}
	if err := c.resolveStage(top, "merged "+logPath+" and rendered "+statePath, logPath, statePath); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "merged %s: %d line(s) of %s, then %d of %s; rendered %s from it and staged both (git add); continue the %s as git says (`git status`)\n",
		logPath, m.Upstream, first, m.Added, second, statePath, op.kind)
	c.lateInterrupt(logPath + " and " + statePath + " were being written")
	return nil
}
