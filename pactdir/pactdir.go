// Package pactdir owns the files of a .pact/ directory on local disk, and
// knows no verdict: where the pact is (this file, find.go), reading what
// validate judges (load.go, which asks checks' pre-judgements through
// LoadOptions.Prejudge and builds no finding), the locked, durable append
// (append.go) and the replacement of STATE.yml and the task files
// (replace.go) that every writing verb of pactify goes through, composed
// into one change per event (write.go), and what init and assign write
// besides the log (init.go: the directory, the managed blocks of
// PROJECT.md and of the seats' entry files, the .gitattributes line, task
// files), and the
// writers' snapshot of the replay, kept in the repository's git directory
// (snapshot.go). The bytes of each file are pactfile's (the snapshot's,
// projection's); what a line means, and whether it may be appended,
// projection's.
//
// Every file is opened here, and through os.Root, on every platform: never
// outside the repository, never through a link inside the pact directory,
// only regular files, each read bounded (regular.go; ReadRegular is the
// action's reader of a checkout). Writers serialise on the operating
// system's lock of the log (lock.go), and files are replaced whole through
// a rename that is retried where Windows refuses it for a while (replace.go).
package pactdir

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/pact-action/pact-action/pactfile"
)

// ErrNoPact means the directory holds no pact yet.
var ErrNoPact = errors.New("no pact here")

// errOutside is a pact directory that is not inside the repository.
var errOutside = errors.New("the pact directory must be inside the repository")

// Dir is a .pact directory. Root is the repository root (entry files are
// relative to it); Name is the directory relative to Root, e.g. ".pact",
// with either separator (pactfile.Layout). At makes one from what a user
// typed.
type Dir struct {
	Root string
	Name string
}

// At is the pact directory name in the repository at root: name may use
// either separator and may be absolute, but must lie inside root and not be
// root itself (errOutside). The command lines call it with --pact-dir,
// PACT_DIR or the action's pact-dir input.
func At(root, name string) (Dir, error) {
	if filepath.IsAbs(name) {
		rel, err := filepath.Rel(root, name)
		if err != nil {
			return Dir{}, fmt.Errorf("%w: %s cannot be reached from %s", errOutside, name, root)
		}
		name = rel
	}
	d := Dir{Root: root, Name: pactfile.Layout(name).Dir()}
	if !d.inside() {
		return Dir{}, fmt.Errorf("%w, and %s is not (it is relative to %s)", errOutside, name, root)
	}
	return d, nil
}

// layout names the directory's files as findings show them.
func (d Dir) layout() pactfile.Layout { return pactfile.Layout(d.Name) }

// inside reports whether the directory lies inside the repository.
func (d Dir) inside() bool {
	rel := d.layout().Dir()
	return rel != "." && filepath.IsLocal(filepath.FromSlash(rel)) && !path.IsAbs(rel)
}

// Path joins elements under the .pact directory, as an OS path.
func (d Dir) Path(elem ...string) string {
	return filepath.Join(append([]string{d.Root, filepath.FromSlash(d.layout().Dir())}, elem...)...)
}

// Display is a path under .pact as findings show it (slash-separated,
// relative to the repository root).
func (d Dir) Display(elem ...string) string {
	return path.Join(append([]string{d.layout().Dir()}, elem...)...)
}

// Exists reports whether the log exists (as anything: what is there is
// judged when it is opened).
func (d Dir) Exists() bool {
	_, err := os.Lstat(d.Path(pactfile.LogFile))
	return err == nil
}

// openRepo opens the repository root; every file pactify reads or writes
// is opened through it (os.Root), so none lies outside.
func (d Dir) openRepo() (*os.Root, error) {
	r, err := os.OpenRoot(d.Root)
	if err != nil {
		return nil, fmt.Errorf("open the repository %s: %w", d.Root, err)
	}
	return r, nil
}

// openPact opens the pact directory without following a link at any of
// its elements (openDir); with create, it and its tasks/ are made when
// absent. A missing directory is fs.ErrNotExist (wrapped).
func (d Dir) openPact(create bool) (*os.Root, error) {
	if !d.inside() {
		return nil, fmt.Errorf("%w, and %s is not", errOutside, d.Name)
	}
	repo, err := d.openRepo()
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	pact, err := openDir(repo, d.layout().Dir(), "", create)
	if err != nil || !create {
		return pact, err
	}
	tasks, err := openDir(pact, pactfile.TasksDir, d.Display(), true)
	if err != nil {
		pact.Close()
		return nil, err
	}
	tasks.Close()
	return pact, nil
}
