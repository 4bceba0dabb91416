package ghapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// What a commit changes (docs/semantics.md §8 "The same change"): every
// path outside one directory (the pact's) whose entry differs between two
// commits, told from git's tree entries rather than GitHub's comparison,
// which lists at most 300 files, names no file mode and compares from a
// merge base of its own choosing. Trees are read level by level and only
// where their ids differ, so a diff costs one GraphQL request per level of
// its deepest path, whatever the size of the repository.

// DiffPair names two commits to diff: From (the older, a merge base) and
// To.
type DiffPair struct{ From, To string }

// PathChange is one path whose entry differs between a pair's commits,
// with its entry at each: a file, link or submodule, never a directory
// (whose files are listed instead); the zero GitEntry where a side has none
// there.
type PathChange struct {
	Path          string
	Before, After GitEntry
}

// GitEntry is a tree entry as git writes it: Type "blob" (files and links)
// or "commit" (submodules), Mode the git file mode (0100644, 0100755,
// 0120000, 0160000), OID the object id.
type GitEntry struct {
	Type string
	Mode int
	OID  string
}

// Absent reports whether e is no entry.
func (e GitEntry) Absent() bool { return e == GitEntry{} }

// Limits of one Diff, so that a tree built to be expensive fails closed
// instead of costing the run: ErrDiffTooLarge past them.
const (
	// maxDiffPaths bounds the paths one pair may change.
	maxDiffPaths = 20_000
	// maxDiffDepth bounds the levels of directories read.
	maxDiffDepth = 64
	// maxTreesPerQuery bounds the trees read in one GraphQL request.
	maxTreesPerQuery = 100
	// maxDiffTrees bounds the trees one Diff reads in all.
	maxDiffTrees = 5_000
)

// ErrDiffTooLarge is a diff past the limits above: more paths changed,
// deeper directories or more trees than one judgement reads.
var ErrDiffTooLarge = errors.New("the change is too large to compare")

// Diff lists, for each pair whose commits GitHub knows, the paths outside
// dir whose entries differ from From to To, sorted by path. A pair with a
// commit GitHub does not know (or a string that is no commit id) is absent
// from the map. Only a directory at dir is left out: a file, link or
// submodule standing there is code like any other (as in CodeIDs). It costs
// one GraphQL request for the commits' root trees and one per further
// level of directories that differ (through the REST API where GraphQL
// does not answer: a commit and a tree per directory read).
func (c *Client) Diff(ctx context.Context, dir string, pairs ...DiffPair) (map[DiffPair][]PathChange, error) {
	d := &differ{c: c, comps: dirComponents(dir), entries: map[string][]codeEntry{}, roots: map[string]string{}}
	var commits []string
	for _, p := range pairs {
		for _, sha := range []string{p.From, p.To} {
			if isObjectID(sha) && !contains(commits, sha) {
				commits = append(commits, sha)
			}
		}
	}
	if err := d.readRoots(ctx, commits); err != nil {
		return nil, err
	}
	out := map[DiffPair][]PathChange{}
	var walks []*walk
	for _, p := range pairs {
		from, fok := d.roots[p.From]
		to, tok := d.roots[p.To]
		if !fok || !tok {
			continue
		}
		if _, done := out[p]; done {
			continue
		}
		out[p] = nil
		walks = append(walks, &walk{pair: p, todo: []dirPair{{from: from, to: to}}})
	}
	for depth := 0; ; depth++ {
		// The trees this level needs, each once: a wide change names
		// thousands, so they are deduplicated by a set, not a scan.
		var want []string
		wanted := map[string]bool{}
		for _, w := range walks {
			for _, dp := range w.todo {
				for _, oid := range []string{dp.from, dp.to} {
					if _, have := d.entries[oid]; oid != "" && !have && !wanted[oid] {
						wanted[oid] = true
						want = append(want, oid)
					}
				}
			}
		}
		if len(want) > 0 {
			if depth > maxDiffDepth || d.read+len(want) > maxDiffTrees {
				return nil, fmt.Errorf("diff %d commit pair(s): %w (directories deeper than %d levels, or more than %d to read)", len(pairs), ErrDiffTooLarge, maxDiffDepth, maxDiffTrees)
			}
			if err := d.readTrees(ctx, want); err != nil {
				return nil, err
			}
		}
		busy := false
		for _, w := range walks {
			todo := w.todo
			w.todo = nil
			for _, dp := range todo {
				if err := d.step(w, dp); err != nil {
					return nil, err
				}
			}
			busy = busy || len(w.todo) > 0
		}
		if !busy {
			break
		}
	}
	for _, w := range walks {
		sort.Slice(w.changes, func(i, j int) bool { return w.changes[i].Path < w.changes[j].Path })
		out[w.pair] = w.changes
	}
	return out, nil
}

// differ reads the trees of one Diff, each once.
type differ struct {
	c     *Client
	comps []string
	// entries are the trees read, by id; roots the root tree of each
	// commit GitHub knows.
	entries map[string][]codeEntry
	roots   map[string]string
	read    int
}

// dirPair is one directory to diff: its path ("" for the root) and its
// tree at each side ("" where the side has no directory there).
type dirPair struct{ path, from, to string }

// walk is the diff of one pair under way.
type walk struct {
	pair    DiffPair
	todo    []dirPair
	changes []PathChange
}

// step diffs one directory whose trees are read, recording the paths that
// differ and queueing the subdirectories to descend into.
func (d *differ) step(w *walk, dp dirPair) error {
	from, to := index(d.entries[dp.from]), index(d.entries[dp.to])
	names := make([]string, 0, len(from)+len(to))
	for n := range from {
		names = append(names, n)
	}
	for n := range to {
		if _, ok := from[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		path := name
		if dp.path != "" {
			path = dp.path + "/" + name
		}
		f, fok := from[name]
		t, tok := to[name]
		if d.isPactDir(path, f, fok) {
			fok = false
		}
		if d.isPactDir(path, t, tok) {
			tok = false
		}
		if fok && tok && f == t {
			continue
		}
		// Directories are descended into (a side without one there
		// descends into nothing); what stands at path itself on either side
		// otherwise is one change.
		sub := dirPair{path: path}
		var before, after GitEntry
		if fok && f.Type == "tree" {
			sub.from = f.OID
		} else if fok {
			before = GitEntry{Type: f.Type, Mode: f.Mode, OID: f.OID}
		}
		if tok && t.Type == "tree" {
			sub.to = t.OID
		} else if tok {
			after = GitEntry{Type: t.Type, Mode: t.Mode, OID: t.OID}
		}
		if !before.Absent() || !after.Absent() {
			w.changes = append(w.changes, PathChange{Path: path, Before: before, After: after})
		}
		if sub.from != "" || sub.to != "" {
			w.todo = append(w.todo, sub)
		}
		if len(w.changes) > maxDiffPaths {
			return fmt.Errorf("diff %s..%s: %w (more than %d paths changed)", w.pair.From, w.pair.To, ErrDiffTooLarge, maxDiffPaths)
		}
	}
	return nil
}

// isPactDir reports whether e, at path, is the pact directory: only a
// directory there is.
func (d *differ) isPactDir(path string, e codeEntry, ok bool) bool {
	return ok && e.Type == "tree" && len(d.comps) > 0 && path == strings.Join(d.comps, "/")
}

// index maps a tree's entries by name.
func index(entries []codeEntry) map[string]codeEntry {
	m := make(map[string]codeEntry, len(entries))
	for _, e := range entries {
		m[e.Name] = e
	}
	return m
}

// readRoots reads the root tree of each commit, with its entries.
func (d *differ) readRoots(ctx context.Context, commits []string) error {
	return inBatches(commits, maxTreesPerQuery, func(batch []string) error {
		err := d.rootsGraphQL(ctx, batch)
		if errors.Is(err, errNoGraphQL) {
			d.c.logger.WarnContext(ctx, "the GraphQL endpoint does not answer; reading trees through the REST API", "url", d.c.graphqlURL, "err", err)
			err = d.rootsREST(ctx, batch)
		}
		return err
	})
}

// inBatches calls read with ids, size at a time.
func inBatches(ids []string, size int, read func(batch []string) error) error {
	for len(ids) > 0 {
		n := min(len(ids), size)
		if err := read(ids[:n]); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// objectsQuery is one GraphQL query that reads the objects ids, each under
// the alias prefix<i>, with selection (a fragment on the object's type).
func (d *differ) objectsQuery(prefix string, ids []string, selection string) (string, map[string]any) {
	vars := map[string]any{"owner": d.c.owner, "name": d.c.repo}
	var q, body strings.Builder
	q.WriteString("query($owner: String!, $name: String!")
	for i, id := range ids {
		v := fmt.Sprintf("%s%d", prefix, i)
		vars[v] = id
		fmt.Fprintf(&q, ", $%s: GitObjectID!", v)
		fmt.Fprintf(&body, " %s: object(oid: $%s) { %s }", v, v, selection)
	}
	fmt.Fprintf(&q, ") { repository(owner: $owner, name: $name) {%s } }", body.String())
	return q.String(), vars
}

func (d *differ) rootsGraphQL(ctx context.Context, commits []string) error {
	op := fmt.Sprintf("read the trees of %d commit(s)", len(commits))
	query, vars := d.objectsQuery("c", commits, "... on Commit { oid tree { oid entries { name type mode oid } } }")
	var raw struct {
		Repository map[string]*struct {
			OID  string `json:"oid"`
			Tree *struct {
				OID     string      `json:"oid"`
				Entries []codeEntry `json:"entries"`
			} `json:"tree"`
		} `json:"repository"`
	}
	if err := d.c.graphql(ctx, op, query, vars, &raw); err != nil {
		return err
	}
	for i, sha := range commits {
		c := raw.Repository[fmt.Sprintf("c%d", i)]
		if c == nil || c.OID == "" || c.Tree == nil {
			continue // not a commit GitHub knows
		}
		entries, err := entriesOf(op, c.Tree.OID, c.Tree.Entries)
		if err != nil {
			return err
		}
		d.roots[sha] = c.Tree.OID
		d.entries[c.Tree.OID] = entries
	}
	return nil
}

func (d *differ) rootsREST(ctx context.Context, commits []string) error {
	for _, sha := range commits {
		gc, _, err := d.c.gh.Git.GetCommit(ctx, d.c.owner, d.c.repo, sha)
		if err != nil {
			if werr := wrapErr("get commit "+sha, err); errors.Is(werr, ErrNotFound) {
				continue
			} else {
				return werr
			}
		}
		d.roots[sha] = gc.GetTree().GetSHA()
	}
	return nil
}

// readTrees reads the entries of trees by id.
func (d *differ) readTrees(ctx context.Context, oids []string) error {
	d.read += len(oids)
	return inBatches(oids, maxTreesPerQuery, func(batch []string) error {
		err := d.treesGraphQL(ctx, batch)
		if errors.Is(err, errNoGraphQL) {
			err = d.treesREST(ctx, batch)
		}
		return err
	})
}

func (d *differ) treesGraphQL(ctx context.Context, oids []string) error {
	op := fmt.Sprintf("read %d tree(s)", len(oids))
	query, vars := d.objectsQuery("t", oids, "... on Tree { oid entries { name type mode oid } }")
	var raw struct {
		Repository map[string]json.RawMessage `json:"repository"`
	}
	if err := d.c.graphql(ctx, op, query, vars, &raw); err != nil {
		return err
	}
	for i, oid := range oids {
		var t *struct {
			OID     string      `json:"oid"`
			Entries []codeEntry `json:"entries"`
		}
		if err := json.Unmarshal(raw.Repository[fmt.Sprintf("t%d", i)], &t); err != nil {
			return fmt.Errorf("%s: decode the answer: %w", op, err)
		}
		if t == nil || t.OID != oid {
			// A tree named by a tree GitHub knows is one it knows: its
			// absence is an answer this diff cannot be built on.
			return fmt.Errorf("%s: GitHub did not return tree %s", op, oid)
		}
		entries, err := entriesOf(op, oid, t.Entries)
		if err != nil {
			return err
		}
		d.entries[oid] = entries
	}
	return nil
}

func (d *differ) treesREST(ctx context.Context, oids []string) error {
	for _, oid := range oids {
		t, err := d.c.gitTree(ctx, oid) // refuses a tree cut short
		if err != nil {
			return err
		}
		d.entries[oid] = restEntries(t)
	}
	return nil
}
