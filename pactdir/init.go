package pactdir

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// What init writes on disk besides the log's first line: the .pact
// directory, STATE.yml, the managed blocks of PROJECT.md and of the seats'
// entry files, and the task files assign writes later.

// ErrExists means another init created the log first.
var ErrExists = errors.New("the pact already exists")

// EntryError is a seat's entry file that init will not write: outside the
// repository, inside the pact's directory or not a regular file. The
// command line named it, so it is the user's to correct.
type EntryError struct{ Msg string }

func (e *EntryError) Error() string { return e.Msg }

func entryErrorf(format string, args ...any) error {
	return &EntryError{Msg: fmt.Sprintf(format, args...)}
}

// Charter is what init writes outside the log.
type Charter struct {
	Project, BaseBranch string
	Seats               []projection.Seat
	// Targets maps each seat's entry to the file written (EntryTargets).
	Targets map[string]string
}

// Create starts a pact with its init line: the directory and its tasks/,
// the log, STATE.yml, the managed blocks and the .gitattributes line
// (WriteBlocks), under the pact's lock, as one change as far as any
// failure can tell (Record's way): every file is first written beside the
// one it replaces and synced, then the line is appended, and only then
// are they renamed into place. When anything fails before the line is in
// the log, every file is as it was, and the directory, tasks/ and empty
// log the lock needed are removed again when this init made them. It is
// ErrExists when another init wrote the log's first line while this one
// was judging its own. A file init would replace that is not a regular
// file (a link) is refused before anything is made.
func (d Dir) Create(initLine []byte, st *projection.State, c Charter) (err error) {
	if err := d.checkCharter(pactfile.StateFile); err != nil {
		return err
	}
	made := d.absent()
	unlock, err := d.lock(true, osLock.lock)
	if err != nil {
		made.remove(d)
		return err
	}
	defer unlock()
	if d.Started() {
		return ErrExists
	}
	pact, err := d.openPact(false)
	if err != nil {
		return err
	}
	defer pact.Close()
	var b batch
	defer b.close()
	appended := false
	defer func() {
		if !appended {
			b.abort()
			made.remove(d)
		}
	}()
	state, err := prepare(pact, pactfile.StateFile, d.Display(pactfile.StateFile), func(w io.Writer) error { return projection.Render(w, st) })
	if err != nil {
		return noted(err, nothingRecorded)
	}
	b.add(state)
	if err := d.prepareBlocks(c, &b); err != nil {
		return noted(err, nothingRecorded)
	}
	if err := d.appendLine(initLine); err != nil {
		return err
	}
	appended = true
	if err := b.commit(); err != nil {
		return fmt.Errorf("the init line is recorded, but %w; run the same pactify init again to write the rest", err)
	}
	return nil
}

// created is what of a pact's directory, its tasks/ and its log a writer
// found absent before it locked the log (which makes all three).
type created struct{ dir, tasks, log bool }

// absent is what of the pact's directory, tasks/ and log is not there.
func (d Dir) absent() created {
	gone := func(p string) bool {
		_, err := os.Lstat(p)
		return errors.Is(err, fs.ErrNotExist)
	}
	return created{dir: gone(d.Path()), tasks: gone(d.Path(pactfile.TasksDir)), log: gone(d.Path(pactfile.LogFile))}
}

// remove removes again what a failed init made of what was absent: the log
// only while it is empty, the directories only while they are (os.Remove
// removes no directory with anything in it).
func (c created) remove(d Dir) {
	if c.log {
		if fi, err := os.Lstat(d.Path(pactfile.LogFile)); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
			_ = os.Remove(d.Path(pactfile.LogFile))
		}
	}
	if c.tasks {
		_ = os.Remove(d.Path(pactfile.TasksDir))
	}
	if c.dir {
		_ = os.Remove(d.Path())
	}
}

// batch is replacements prepared together and made together (commit) or
// given up together (abort); close releases the directories they are in.
type batch struct {
	pending []*pending
	roots   []*os.Root
}

func (b *batch) add(p *pending)  { b.pending = append(b.pending, p) }
func (b *batch) keep(r *os.Root) { b.roots = append(b.roots, r) }
func (b *batch) abort() {
	for _, p := range b.pending {
		p.abort()
	}
}
func (b *batch) close() {
	for _, r := range b.roots {
		_ = r.Close()
	}
}

// commit makes every replacement, in order, stopping at the first that
// fails (the files after it are as they were; their temporaries go).
func (b *batch) commit() error {
	for i, p := range b.pending {
		if err := p.commit(); err != nil {
			for _, rest := range b.pending[i+1:] {
				rest.abort()
			}
			return err
		}
	}
	return nil
}

// Started reports whether a pact was begun here: the log exists and holds
// a line as every command reads it (OpenLog). An empty log is what an init
// leaves that stopped between making the log (under the lock, lock.go) and
// writing its first line, and part of that line with its record is what
// one killed in its write leaves (torn.go), which readers read as empty:
// init starts over on either (its lock cuts the part back).
func (d Dir) Started() bool {
	fi, err := os.Lstat(d.Path(pactfile.LogFile))
	switch {
	case err != nil:
		return false
	case !fi.Mode().IsRegular():
		return true
	case fi.Size() == 0:
		return false
	}
	f, size, err := d.OpenLog()
	if err != nil {
		return true // there, if unreadable: init refuses it as it is
	}
	_ = f.Close() // only its size was wanted
	return size > 0
}

// checkCharter refuses, before init writes anything, a PROJECT.md,
// .gitattributes or other file of the pact (also) that is there but is not
// a regular file.
func (d Dir) checkCharter(also ...string) error {
	for _, name := range append(also, pactfile.ProjectFile, pactfile.GitIgnoreFile) {
		if err := d.checkWritable(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	repo, err := d.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	if fi, err := repo.Lstat(pactfile.GitAttributesFile); err == nil && !fi.Mode().IsRegular() {
		return notRegular("write", pactfile.GitAttributesFile, fi.Mode())
	}
	return nil
}

// WriteBlocks bakes PROJECT.md (pactfile.FormatCharter) and each seat's
// entry file, and puts the line that keeps git from converting the pact's
// line endings in .gitattributes (pactfile.WithGitAttributesLine: appended
// once, nothing else of the file touched), and the one that keeps
// pactify's temporary files out of git in the pact directory's .gitignore
// (pactfile.WithGitIgnoreLine, likewise). Only the text between the pact
// markers is ever rewritten. The caller holds the pact's lock: the
// temporary files an init killed before its renames left beside the entry
// files and .gitattributes are removed (removeTemporariesOf). Seats whose entries are the same file (also
// through a symlink) share one block. A PROJECT.md or .gitattributes that
// is not a regular file is refused before anything is written.
func (d Dir) WriteBlocks(c Charter) error {
	var b batch
	defer b.close()
	if err := d.prepareBlocks(c, &b); err != nil {
		return err
	}
	return b.commit()
}

// prepareBlocks prepares in b every file WriteBlocks writes; nothing is
// replaced until b's commit.
func (d Dir) prepareBlocks(c Charter, b *batch) error {
	if err := d.checkCharter(); err != nil {
		return err // before any of them is written
	}
	charter := pactfile.Charter{Project: c.Project, ProtocolVersion: projection.SupportedProtocolVersion, BaseBranch: c.BaseBranch,
		Log: d.Display(pactfile.LogFile), Seats: c.Seats}
	pact, err := d.openPact(false)
	if err != nil {
		return err
	}
	b.keep(pact)
	if err := b.prepare(prepareBlockFile(pact, pactfile.ProjectFile, d.Display(pactfile.ProjectFile), pactfile.FormatCharter(charter), pactfile.NewProjectTail)); err != nil {
		return err
	}
	if err := b.prepare(d.prepareGitIgnore(pact)); err != nil {
		return err
	}
	repo, err := d.openRepo()
	if err != nil {
		return err
	}
	b.keep(repo)
	byEntry := map[string][]projection.Seat{}
	var entries []string
	for _, s := range c.Seats {
		target := c.Targets[s.Entry]
		if byEntry[target] == nil {
			entries = append(entries, target)
		}
		byEntry[target] = append(byEntry[target], s)
	}
	if len(entries) > 0 {
		realRoot, err := realPath(d.Root)
		if err != nil {
			return err
		}
		for _, entry := range entries {
			if err := d.prepareEntry(b, repo, realRoot, entry, d.seatBlock(byEntry[entry], c.Seats)); err != nil {
				return err
			}
		}
	}
	return b.prepare(d.prepareGitAttributes(repo))
}

// prepare adds p to b, or gives up everything b holds on err.
func (b *batch) prepare(p *pending, err error) error {
	if err != nil {
		b.abort()
		return err
	}
	b.add(p)
	return nil
}

// prepareGitIgnore prepares the pact directory's .gitignore with the line
// that keeps pactify's temporary files out of git, unless a line of it
// already is that line (pactfile.WithGitIgnoreLine); nil when it is.
func (d Dir) prepareGitIgnore(pact *os.Root) (*pending, error) {
	name := pactfile.GitIgnoreFile
	old, err := readFile(context.Background(), pact, name, d.Display(name), false, maxFileBytes)
	if err != nil {
		return nil, err
	}
	text := pactfile.WithGitIgnoreLine(old)
	if old != nil && len(text) == len(old) {
		return nil, nil
	}
	return prepare(pact, name, d.Display(name), func(w io.Writer) error {
		_, err := w.Write(text)
		return err
	})
}

// prepareEntry prepares in b the entry file target (a real path inside
// the repository, EntryTargets) with block, through the repository's
// root.
func (d Dir) prepareEntry(b *batch, repo *os.Root, realRoot, target, block string) error {
	rel, err := filepath.Rel(realRoot, target)
	if err != nil || !filepath.IsLocal(rel) {
		b.abort()
		return entryErrorf("entry file %s is outside the repository; init writes only inside it", target)
	}
	rel = filepath.ToSlash(rel)
	dirName, name := path.Split(rel)
	dir, err := openDir(repo, strings.TrimSuffix(dirName, "/"), "", true)
	if err != nil {
		b.abort()
		return err
	}
	b.keep(dir)
	removeTemporariesOf(dir, name)
	return b.prepare(prepareBlockFile(dir, name, rel, block, ""))
}

// prepareGitAttributes prepares .gitattributes with the pact's line and
// the merge driver's lines (docs/semantics.md §8), each unless it is
// there already (nil when both are).
func (d Dir) prepareGitAttributes(repo *os.Root) (*pending, error) {
	name := pactfile.GitAttributesFile
	removeTemporariesOf(repo, name)
	old, err := readFile(context.Background(), repo, name, name, false, maxFileBytes)
	if err != nil {
		return nil, err
	}
	text := pactfile.WithMergeLines(pactfile.WithGitAttributesLine(old, d.layout()), d.layout())
	if old != nil && len(text) == len(old) {
		return nil, nil
	}
	return prepare(repo, name, name, func(w io.Writer) error {
		_, err := w.Write(text)
		return err
	})
}

// seatBlock is the managed block of an entry file: how each of its seats
// takes its seat, and the commands its roles allow, no others (join is a
// worker's event: a seat without the worker role that joins is refused,
// roster.role_not_held). Every command stands alone on a line of a sh
// fence under its seat's heading, with <…> placeholders, so that a
// program can pick them out and run them as that seat (the test that does
// is cmd/pactify's TestEntryFileCommandsRun). roster is every seat of the
// pact, for the names an orchestrator may assign to.
func (d Dir) seatBlock(seats, roster []projection.Seat) string {
	var e strings.Builder
	e.WriteString("## Pact seat\n\nThis repository coordinates agents with the Pact protocol v1. Take your seat below and run only its commands: pactify refuses a verb your seat's roles do not allow. Put your values in place of each `<…>`.\n")
	for _, s := range seats {
		fmt.Fprintf(&e, "\n### Seat %s (%s)\n\n```sh\nexport PACT_AGENT_ID=%s\n", s.ID, strings.Join(s.Roles, ", "), s.ID)
		if d.Name != pactfile.DefaultDir {
			// The seat's pactify must find the pact where init put it.
			fmt.Fprintf(&e, "export PACT_DIR=%s\n", d.Display())
		}
		e.WriteString("pactify status\n```\n")
		if slices.Contains(s.Roles, projection.RoleOrchestrator) {
			fmt.Fprintf(&e, "\nAs orchestrator: assign each task to a worker seat (%s) with a reviewer seat other than its owner (%s), and merge a feature once every task of it is accepted.\n\n```sh\n"+
				"pactify assign <task_id> --feature <feature_id> --branch <branch_name> --owner <worker_seat> --reviewer <reviewer_seat>\npactify merge <feature_id>\n```\n",
				holding(roster, projection.RoleWorker), holding(roster, projection.RoleReviewer))
		}
		if slices.Contains(s.Roles, projection.RoleWorker) {
			fmt.Fprintf(&e, "\nAs worker: join, which starts the tasks assigned to you (join again after a crash), and checkpoint each of your tasks when it is ready for review.\n\n```sh\n"+
				"pactify join %s --roles %s\npactify checkpoint <task_id> --evidence \"<evidence>\"\n```\n", s.ID, strings.Join(s.Roles, ","))
		}
		if slices.Contains(s.Roles, projection.RoleReviewer) {
			e.WriteString("\nAs reviewer: accept a task you review once it awaits review, or send it back saying what must change.\n\n```sh\n" +
				"pactify accept <task_id>\npactify changes <task_id> --reason \"<reason>\"\n```\n")
		}
	}
	fmt.Fprintf(&e, "\n`pactify status` prints `%s`: every task with its owner, reviewer and status. Never edit `%s` by hand.\n", d.Display(pactfile.StateFile), d.Display(pactfile.LogFile))
	return e.String()
}

// holding names the seats of roster that hold role, for a sentence.
func holding(roster []projection.Seat, role string) string {
	var ids []string
	for _, s := range roster {
		if slices.Contains(s.Roles, role) {
			ids = append(ids, s.ID)
		}
	}
	if len(ids) == 0 {
		return "none in this roster"
	}
	return strings.Join(ids, ", ")
}

// EntryTargets maps each seat's entry to the file init will write, before
// anything is written, so a bad entry is refused with the pact untouched
// (an *EntryError). A symlinked entry (CLAUDE.md -> AGENTS.md is common) is
// written through, not replaced, but only when its target stays inside the
// repository; no entry may be, or point into, the .pact directory.
func (d Dir) EntryTargets(seats []projection.Seat) (map[string]string, error) {
	root, err := realPath(d.Root)
	if err != nil {
		return nil, err
	}
	pact, err := realPath(d.Path())
	if err != nil {
		return nil, err
	}
	targets := map[string]string{}
	for _, s := range seats {
		target, err := realPath(filepath.Join(d.Root, filepath.FromSlash(s.Entry)))
		if err != nil {
			return nil, entryErrorf("entry file %s of seat %s cannot be used: %v", s.Entry, s.ID, err)
		}
		if !within(root, target) {
			return nil, entryErrorf("entry file %s of seat %s resolves to %s, outside the repository; init writes only inside it", s.Entry, s.ID, target)
		}
		if target == pact || within(pact, target) {
			return nil, entryErrorf("entry file %s of seat %s is inside %s, which holds the pact's own files; use a file such as CLAUDE.md or AGENTS.md", s.Entry, s.ID, d.Display())
		}
		if fi, err := os.Stat(target); err == nil && !fi.Mode().IsRegular() {
			return nil, entryErrorf("entry file %s of seat %s is not a regular file", s.Entry, s.ID)
		}
		targets[s.Entry] = target
	}
	return targets, nil
}

// realPath resolves the symlinks of p, which need not exist yet: the part
// that exists is resolved and the rest joined on. A dangling symlink is an
// error.
func realPath(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := []string{}
	cur := p
	for {
		if _, err := os.Lstat(cur); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			break
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
	real, err := filepath.EvalSymlinks(cur)
	if err != nil {
		return "", err
	}
	return filepath.Join(append([]string{real}, rest...)...), nil
}

// within reports whether p lies strictly inside dir (both real paths).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// prepareBlockFile prepares the file name of dir with block in its
// managed block (pactfile.ReplaceBlock); a new file gets newFileTail after
// it. A file with CRLF line ends (LineEnding) is written in CRLF
// throughout, so that it never mixes the two.
func prepareBlockFile(dir *os.Root, name, display, block, newFileTail string) (*pending, error) {
	old, err := readFile(context.Background(), dir, name, display, false, maxFileBytes)
	if err != nil {
		return nil, err
	}
	eol := pactfile.LineEnding(old)
	text := pactfile.ReplaceBlock(strings.ReplaceAll(string(old), "\r\n", "\n"), block)
	if old == nil {
		text += newFileTail
	}
	text = pactfile.WithLineEnding(text, eol)
	return prepare(dir, name, display, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	})
}

// ReadTaskFile reads tasks/<id>.md of task id as WriteTaskFile would find
// it (a regular file, bounded; no link): nil when it, or tasks/, is not
// there.
func (d Dir) ReadTaskFile(id string) ([]byte, error) {
	pact, err := d.openPact(false)
	if err != nil {
		return nil, err
	}
	defer pact.Close()
	tasks, err := openDir(pact, pactfile.TasksDir, d.Display(), false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer tasks.Close()
	name := pactfile.TaskFileName(id)
	return readFile(context.Background(), tasks, name, d.Display(pactfile.TasksDir, name), false, maxFileBytes)
}

// WriteTaskFile writes tasks/<id>.md of t with front matter mirroring its
// assign event (pactfile.TaskFile). An existing file keeps its body; only
// its front matter is replaced.
func (d Dir) WriteTaskFile(t *projection.Task) error {
	pact, err := d.openPact(true)
	if err != nil {
		return err
	}
	defer pact.Close()
	p, err := d.prepareTaskFile(pact, t)
	if err != nil {
		return err
	}
	defer p.close()
	return p.commit()
}

// preparedTask is a task file's replacement prepared in pact, with the
// tasks/ directory it goes to, which close releases.
type preparedTask struct {
	*pending
	tasks *os.Root
}

func (p preparedTask) close() { p.tasks.Close() }

// prepareTaskFile prepares tasks/<id>.md of t (WriteTaskFile) in the pact
// directory pact: nothing is replaced until commit.
func (d Dir) prepareTaskFile(pact *os.Root, t *projection.Task) (preparedTask, error) {
	tasks, err := openDir(pact, pactfile.TasksDir, d.Display(), true)
	if err != nil {
		return preparedTask{}, err
	}
	name := pactfile.TaskFileName(t.ID)
	display := d.Display(pactfile.TasksDir, name)
	old, err := readFile(context.Background(), tasks, name, display, false, maxFileBytes)
	if err != nil {
		tasks.Close()
		return preparedTask{}, err
	}
	text := pactfile.TaskFile(t.FrontMatter(), old)
	p, err := prepareIn(tasks, name, pact, filepath.Join(pactfile.TasksDir, name), display, func(w io.Writer) error {
		_, err := w.Write(text)
		return err
	})
	if err != nil {
		tasks.Close()
		return preparedTask{}, err
	}
	return preparedTask{p, tasks}, nil
}
