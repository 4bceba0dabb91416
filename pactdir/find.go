package pactdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Find is the pact the working directory wd belongs to, found as git finds
// its repository: the nearest of wd and its parents that holds name (the
// default .pact), looking no higher than the repository's root, the
// nearest directory holding .git (a directory, or a file in a worktree or
// submodule). Outside a git repository only wd itself is looked at, so a
// stray .pact in a home directory is never picked up. found is false when
// no directory holds one; the Dir is then name in wd, where init creates
// it. Paths stay relative to the Dir's Root, which is the directory found.
func Find(wd, name string) (d Dir, found bool, err error) {
	dirs, err := upToRepository(wd)
	if err != nil {
		return Dir{}, false, err
	}
	for _, dir := range dirs {
		switch _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name))); {
		case err == nil:
			d, err := At(dir, name)
			return d, err == nil, err
		case !errors.Is(err, fs.ErrNotExist):
			return Dir{}, false, fmt.Errorf("look for the pact in %s: %w", dir, err)
		}
	}
	d, err = At(wd, name)
	return d, false, err
}

// upToRepository is wd and its parents up to the repository's root,
// nearest first; wd alone when no parent holds .git.
func upToRepository(wd string) ([]string, error) {
	var dirs []string
	for dir := filepath.Clean(wd); ; {
		dirs = append(dirs, dir)
		switch _, err := os.Lstat(filepath.Join(dir, ".git")); {
		case err == nil:
			return dirs, nil
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("look for the repository's root at %s: %w", dir, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir { // a volume's root (/, C:\, \\host\share\)
			return dirs[:1], nil
		}
		dir = parent
	}
}
