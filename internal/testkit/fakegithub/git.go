package fakegithub

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"
)

// The object store is shared by every repository of a Server, like a
// GitHub fork network: a commit pushed to a fork is visible from the base
// repository (as GitHub shows it for refs/pull/N/head). SHAs are real Git
// object ids computed over Git's object encodings.

type blobObject struct {
	data []byte
}

type treeEntry struct {
	name string
	mode string // "100644", "100755", "040000", "120000", "160000"
	typ  string // "blob", "tree", "commit"
	sha  string
}

type treeObject struct {
	entries []treeEntry // sorted in Git order
}

type commitObject struct {
	sha            string
	tree           string
	parents        []string
	message        string
	authorName     string
	authorEmail    string
	authorLogin    string // GitHub account, "" if none
	committerName  string
	committerEmail string
	committerLogin string
	date           time.Time
	verified       bool
	reason         string // verification reason
}

type objectStore struct {
	blobs   map[string]*blobObject
	trees   map[string]*treeObject
	commits map[string]*commitObject
}

func newObjectStore() *objectStore {
	s := &objectStore{
		blobs:   map[string]*blobObject{},
		trees:   map[string]*treeObject{},
		commits: map[string]*commitObject{},
	}
	s.putTree(nil) // the empty tree always exists
	return s
}

func hashObject(kind string, body []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(body))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

func (s *objectStore) putBlob(data []byte) string {
	sha := hashObject("blob", data)
	if _, ok := s.blobs[sha]; !ok {
		s.blobs[sha] = &blobObject{data: append([]byte(nil), data...)}
	}
	return sha
}

// gitTreeLess orders entries as Git does: trees compare as "name/".
func gitTreeLess(a, b treeEntry) bool {
	ka, kb := a.name, b.name
	if a.typ == "tree" {
		ka += "/"
	}
	if b.typ == "tree" {
		kb += "/"
	}
	return ka < kb
}

func (s *objectStore) putTree(entries []treeEntry) string {
	es := append([]treeEntry(nil), entries...)
	sort.Slice(es, func(i, j int) bool { return gitTreeLess(es[i], es[j]) })
	var body bytes.Buffer
	for _, e := range es {
		mode := strings.TrimPrefix(e.mode, "0") // Git writes "40000"
		raw, _ := hex.DecodeString(e.sha)
		fmt.Fprintf(&body, "%s %s\x00", mode, e.name)
		body.Write(raw)
	}
	sha := hashObject("tree", body.Bytes())
	if _, ok := s.trees[sha]; !ok {
		s.trees[sha] = &treeObject{entries: es}
	}
	return sha
}

func (s *objectStore) putCommit(c *commitObject) string {
	var body bytes.Buffer
	fmt.Fprintf(&body, "tree %s\n", c.tree)
	for _, p := range c.parents {
		fmt.Fprintf(&body, "parent %s\n", p)
	}
	ts := fmt.Sprintf("%d +0000", c.date.Unix())
	fmt.Fprintf(&body, "author %s <%s> %s\n", c.authorName, c.authorEmail, ts)
	fmt.Fprintf(&body, "committer %s <%s> %s\n", c.committerName, c.committerEmail, ts)
	fmt.Fprintf(&body, "\n%s", c.message)
	c.sha = hashObject("commit", body.Bytes())
	if _, ok := s.commits[c.sha]; !ok {
		s.commits[c.sha] = c
	}
	return c.sha
}

// fileEntry is a non-tree entry of a flattened tree.
type fileEntry struct {
	mode string
	typ  string
	sha  string
}

// flatten lists the non-tree entries of tree sha by full path.
func (s *objectStore) flatten(sha string) map[string]fileEntry {
	out := map[string]fileEntry{}
	var walk func(prefix, sha string)
	walk = func(prefix, sha string) {
		t := s.trees[sha]
		if t == nil {
			return
		}
		for _, e := range t.entries {
			p := path.Join(prefix, e.name)
			if e.typ == "tree" {
				walk(p, e.sha)
				continue
			}
			out[p] = fileEntry{mode: e.mode, typ: e.typ, sha: e.sha}
		}
	}
	walk("", sha)
	return out
}

// buildTree stores the trees for a flat path → entry map and returns the
// root tree sha.
func (s *objectStore) buildTree(files map[string]fileEntry) string {
	type dir struct {
		files map[string]fileEntry
		dirs  map[string]*dir
	}
	newDir := func() *dir { return &dir{files: map[string]fileEntry{}, dirs: map[string]*dir{}} }
	root := newDir()
	for p, fe := range files {
		parts := strings.Split(p, "/")
		d := root
		for _, part := range parts[:len(parts)-1] {
			sub := d.dirs[part]
			if sub == nil {
				sub = newDir()
				d.dirs[part] = sub
			}
			d = sub
		}
		d.files[parts[len(parts)-1]] = fe
	}
	var store func(d *dir) string
	store = func(d *dir) string {
		var es []treeEntry
		for name, fe := range d.files {
			es = append(es, treeEntry{name: name, mode: fe.mode, typ: fe.typ, sha: fe.sha})
		}
		for name, sub := range d.dirs {
			es = append(es, treeEntry{name: name, mode: "040000", typ: "tree", sha: store(sub)})
		}
		return s.putTree(es)
	}
	return store(root)
}

// lookupPath finds the entry at p in tree root; p == "" is the root itself.
func (s *objectStore) lookupPath(root, p string) (treeEntry, bool) {
	cur := treeEntry{name: "", mode: "040000", typ: "tree", sha: root}
	if p == "" {
		return cur, s.trees[root] != nil
	}
	for _, part := range strings.Split(p, "/") {
		if cur.typ != "tree" {
			return treeEntry{}, false
		}
		t := s.trees[cur.sha]
		if t == nil {
			return treeEntry{}, false
		}
		found := false
		for _, e := range t.entries {
			if e.name == part {
				cur, found = e, true
				break
			}
		}
		if !found {
			return treeEntry{}, false
		}
	}
	return cur, true
}

// ancestors returns sha and every commit reachable from it.
func (s *objectStore) ancestors(sha string) map[string]bool {
	seen := map[string]bool{}
	stack := []string{sha}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[c] {
			continue
		}
		seen[c] = true
		if co := s.commits[c]; co != nil {
			stack = append(stack, co.parents...)
		}
	}
	return seen
}

func (s *objectStore) isAncestor(anc, of string) bool {
	return s.ancestors(of)[anc]
}

// mergeBase returns the best common ancestor of a and b (a common
// ancestor no other common ancestor descends from), or "" if the histories
// are unrelated. Ties are broken by the latest commit date, then SHA.
func (s *objectStore) mergeBase(a, b string) string {
	ancA, ancB := s.ancestors(a), s.ancestors(b)
	var common []string
	for c := range ancA {
		if ancB[c] {
			common = append(common, c)
		}
	}
	// Every proper ancestor of a common ancestor is dominated; one shared
	// visited set keeps this linear.
	dominated := map[string]bool{}
	var stack []string
	for _, c := range common {
		if co := s.commits[c]; co != nil {
			stack = append(stack, co.parents...)
		}
	}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if dominated[c] {
			continue
		}
		dominated[c] = true
		if co := s.commits[c]; co != nil {
			stack = append(stack, co.parents...)
		}
	}
	var best []string
	for _, c := range common {
		if !dominated[c] {
			best = append(best, c)
		}
	}
	if len(best) == 0 {
		return ""
	}
	sort.Slice(best, func(i, j int) bool {
		di, dj := s.commits[best[i]].date, s.commits[best[j]].date
		if !di.Equal(dj) {
			return di.After(dj)
		}
		return best[i] < best[j]
	})
	return best[0]
}

// commitsBetween lists the commits reachable from head but not from base,
// parents before children (oldest first).
func (s *objectStore) commitsBetween(base, head string) []*commitObject {
	exclude := map[string]bool{}
	if base != "" {
		exclude = s.ancestors(base)
	}
	var out []*commitObject
	done := map[string]bool{}
	var visit func(sha string)
	visit = func(sha string) {
		if done[sha] || exclude[sha] {
			return
		}
		done[sha] = true
		c := s.commits[sha]
		if c == nil {
			return
		}
		for _, p := range c.parents {
			visit(p)
		}
		out = append(out, c)
	}
	visit(head)
	return out
}

// fileChange is one entry of a diff between two trees.
type fileChange struct {
	filename         string
	previousFilename string
	status           string // added, removed, modified, renamed
	sha              string // blob sha after the change, "" for removed
	additions        int
	deletions        int
}

// diffTrees compares two root trees. Exact renames (same blob removed and
// added) are reported as renames. Results are sorted by filename.
func (s *objectStore) diffTrees(from, to string) []fileChange {
	a, b := s.flatten(from), s.flatten(to)
	var added, removed []string
	var out []fileChange
	for p, fb := range b {
		fa, ok := a[p]
		switch {
		case !ok:
			added = append(added, p)
		case fa.sha != fb.sha || fa.mode != fb.mode:
			la, lb := s.lineCount(fa.sha), s.lineCount(fb.sha)
			out = append(out, fileChange{filename: p, status: "modified", sha: fb.sha, additions: lb, deletions: la})
		}
	}
	for p := range a {
		if _, ok := b[p]; !ok {
			removed = append(removed, p)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	renamedFrom := map[string]bool{}
	for _, p := range added {
		fb := b[p]
		fc := fileChange{filename: p, status: "added", sha: fb.sha, additions: s.lineCount(fb.sha)}
		for _, r := range removed {
			if !renamedFrom[r] && a[r].sha == fb.sha {
				renamedFrom[r] = true
				fc = fileChange{filename: p, previousFilename: r, status: "renamed", sha: fb.sha}
				break
			}
		}
		out = append(out, fc)
	}
	for _, p := range removed {
		if !renamedFrom[p] {
			out = append(out, fileChange{filename: p, status: "removed", deletions: s.lineCount(a[p].sha)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].filename < out[j].filename })
	return out
}

func (s *objectStore) lineCount(blobSHA string) int {
	b := s.blobs[blobSHA]
	if b == nil || len(b.data) == 0 {
		return 0
	}
	n := bytes.Count(b.data, []byte("\n"))
	if b.data[len(b.data)-1] != '\n' {
		n++
	}
	return n
}
