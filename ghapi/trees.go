package ghapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// What a path of a tree holds (Entry.Kind).
const (
	// KindFile is a regular file (mode 100644 or 100755): the only kind
	// whose bytes are read.
	KindFile      = "file"
	KindDir       = "directory"
	KindSymlink   = "symbolic link"
	KindSubmodule = "submodule"
)

// Entry is what a path holds at a commit.
type Entry struct {
	Kind string
	// Data is the content of a KindFile.
	Data []byte
}

// TreeRead names a commit — by id, or as the tip of a branch now — and
// the paths to read there.
type TreeRead struct {
	Commit string
	Branch string
	// Files are paths of files.
	Files []string
	// Dirs are paths of directories: each entry directly inside is read
	// (the files' bytes, the kind of everything else).
	Dirs []string
}

// Tree is what one TreeRead found.
type Tree struct {
	// Commit is the commit read (a branch's tip at the time of the read)
	// and RootTree its tree.
	Commit, RootTree string
	// Entries holds every path asked for that exists, and every entry
	// directly inside each directory asked for, by repository path. A
	// path that is not there is absent.
	Entries map[string]Entry
}

// Git file modes as GraphQL's TreeEntry.mode reports them (decimal).
const (
	modeFile       = 0o100644
	modeExecutable = 0o100755
	modeSymlink    = 0o120000
)

const (
	blobFields = `object { ... on Blob { byteSize isBinary isTruncated text } }`
	fileFields = `type mode oid ` + blobFields
	dirFields  = `type mode oid object { ... on Tree { entries { name type mode oid ` + blobFields + ` } } }`
)

// gqlEntry is a TreeEntry as the queries above select it.
type gqlEntry struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Mode   int    `json:"mode"`
	OID    string `json:"oid"`
	Object *struct {
		ByteSize    *int       `json:"byteSize"`
		IsBinary    *bool      `json:"isBinary"`
		IsTruncated *bool      `json:"isTruncated"`
		Text        *string    `json:"text"`
		Entries     []gqlEntry `json:"entries"`
	} `json:"object"`
}

func (e *gqlEntry) kind() string {
	switch {
	case e.Type == "tree":
		return KindDir
	case e.Type == "commit":
		return KindSubmodule
	case e.Type == "blob" && (e.Mode == modeFile || e.Mode == modeExecutable):
		return KindFile
	case e.Type == "blob" && e.Mode == modeSymlink:
		return KindSymlink
	}
	return fmt.Sprintf("%s of mode %o", e.Type, e.Mode)
}

// ReadTrees reads files and directories at commits and branch tips in one
// GraphQL request. A regular file's bytes come from Blob.text when GitHub
// gives it whole and byte for byte (checked against the blob's id); a
// binary file, one over GitHub's cut of Blob.text (about 512 KB) or one
// whose text is not the blob's bytes is read through the blobs API by its
// id (up to 100 MB), unless this client already read that blob. Symbolic
// links, submodules and directories are reported as such, never read as
// files. A branch or commit that does not exist wraps ErrNotFound.
func (c *Client) ReadTrees(ctx context.Context, reads ...TreeRead) ([]Tree, error) {
	op := "read " + describeReads(reads)
	if len(reads) == 0 {
		return nil, nil
	}
	vars := map[string]any{"owner": c.owner, "name": c.repo}
	var q strings.Builder
	q.WriteString("query($owner: String!, $name: String!")
	var body strings.Builder
	for i, r := range reads {
		rv := fmt.Sprintf("r%d", i)
		var sel strings.Builder
		sel.WriteString("... on Commit { oid tree { oid }")
		for j, p := range r.Files {
			clean, err := cleanPath(p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", op, err)
			}
			v := fmt.Sprintf("%sf%d", rv, j)
			vars[v] = clean
			fmt.Fprintf(&q, ", $%s: String!", v)
			fmt.Fprintf(&sel, " f%d: file(path: $%s) { %s }", j, v, fileFields)
		}
		for j, p := range r.Dirs {
			clean, err := cleanPath(p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", op, err)
			}
			v := fmt.Sprintf("%sd%d", rv, j)
			vars[v] = clean
			fmt.Fprintf(&q, ", $%s: String!", v)
			fmt.Fprintf(&sel, " d%d: file(path: $%s) { %s }", j, v, dirFields)
		}
		sel.WriteString(" }")
		switch {
		case r.Commit != "" && r.Branch == "":
			vars[rv] = r.Commit
			fmt.Fprintf(&q, ", $%s: GitObjectID!", rv)
			fmt.Fprintf(&body, " %s: object(oid: $%s) { %s }", rv, rv, sel.String())
		case r.Branch != "" && r.Commit == "":
			vars[rv] = "refs/heads/" + r.Branch
			fmt.Fprintf(&q, ", $%s: String!", rv)
			fmt.Fprintf(&body, " %s: ref(qualifiedName: $%s) { target { %s } }", rv, rv, sel.String())
		default:
			return nil, fmt.Errorf("%s: name a commit or a branch", op)
		}
	}
	fmt.Fprintf(&q, ") { repository(owner: $owner, name: $name) {%s } }", body.String())

	var answer struct {
		Repository map[string]json.RawMessage `json:"repository"`
	}
	if err := c.graphql(ctx, op, q.String(), vars, &answer); errors.Is(err, errNoGraphQL) {
		c.logger.WarnContext(ctx, "the GraphQL endpoint does not answer; reading through the REST API, one call per file", "url", c.graphqlURL, "err", err)
		return c.readTreesREST(ctx, op, reads)
	} else if err != nil {
		return nil, err
	}
	type commitAnswer struct {
		OID  string `json:"oid"`
		Tree struct {
			OID string `json:"oid"`
		} `json:"tree"`
	}
	out := make([]Tree, len(reads))
	for i, r := range reads {
		raw := answer.Repository[fmt.Sprintf("r%d", i)]
		if r.Branch != "" {
			var ref *struct {
				Target json.RawMessage `json:"target"`
			}
			if err := json.Unmarshal(raw, &ref); err != nil {
				return nil, fmt.Errorf("%s: decode the answer: %w", op, err)
			}
			if ref == nil {
				return nil, fmt.Errorf("%s: branch %s: %w", op, r.Branch, ErrNotFound)
			}
			raw = ref.Target
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, fmt.Errorf("%s: decode the answer: %w", op, err)
		}
		var cm commitAnswer
		if fields != nil {
			_ = json.Unmarshal(raw, &cm)
		}
		if cm.OID == "" {
			what := "commit " + r.Commit
			if r.Branch != "" {
				what = "the tip of " + r.Branch
			}
			return nil, fmt.Errorf("%s: %s is not a commit GitHub knows: %w", op, what, ErrNotFound)
		}
		t := Tree{Commit: cm.OID, RootTree: cm.Tree.OID, Entries: map[string]Entry{}}
		c.cache.putTree(t.Commit, t.RootTree)
		for j, p := range r.Files {
			clean, _ := cleanPath(p)
			if err := c.addEntry(ctx, &t, clean, fields[fmt.Sprintf("f%d", j)]); err != nil {
				return nil, fmt.Errorf("%s: %w", op, err)
			}
		}
		for j, p := range r.Dirs {
			clean, _ := cleanPath(p)
			raw := fields[fmt.Sprintf("d%d", j)]
			if err := c.addEntry(ctx, &t, clean, raw); err != nil {
				return nil, fmt.Errorf("%s: %w", op, err)
			}
			var dir *gqlEntry
			if err := json.Unmarshal(raw, &dir); err != nil {
				return nil, fmt.Errorf("%s: decode the answer: %w", op, err)
			}
			if dir == nil || dir.kind() != KindDir || dir.Object == nil {
				continue
			}
			for _, e := range dir.Object.Entries {
				e := e
				if err := c.addGQLEntry(ctx, &t, clean+"/"+e.Name, &e); err != nil {
					return nil, fmt.Errorf("%s: %w", op, err)
				}
			}
		}
		out[i] = t
	}
	return out, nil
}

// addEntry decodes one aliased file(path:) answer into t (null: absent).
func (c *Client) addEntry(ctx context.Context, t *Tree, path string, raw json.RawMessage) error {
	var e *gqlEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return fmt.Errorf("decode the answer: %w", err)
	}
	if e == nil {
		c.cache.putFile(t.Commit, path, nil, true)
		return nil
	}
	return c.addGQLEntry(ctx, t, path, e)
}

// addGQLEntry records what path holds, reading a regular file's bytes.
func (c *Client) addGQLEntry(ctx context.Context, t *Tree, path string, e *gqlEntry) error {
	kind := e.kind()
	if kind != KindFile {
		t.Entries[path] = Entry{Kind: kind}
		return nil
	}
	data, err := c.blobBytes(ctx, e)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	t.Entries[path] = Entry{Kind: KindFile, Data: data}
	c.cache.putFile(t.Commit, path, data, false)
	return nil
}

// blobBytes are a regular file's bytes: GraphQL's text when it is the
// whole blob byte for byte, else the blob read by its id.
func (c *Client) blobBytes(ctx context.Context, e *gqlEntry) ([]byte, error) {
	if o := e.Object; o != nil && o.Text != nil && (o.IsTruncated == nil || !*o.IsTruncated) && (o.IsBinary == nil || !*o.IsBinary) {
		data := []byte(*o.Text)
		if c.cache.putBlob(data, e.OID) == e.OID {
			return data, nil
		}
		// Not the blob's bytes (GitHub re-encodes text that is not valid
		// UTF-8): read the blob itself.
	}
	if !isObjectID(e.OID) {
		return nil, fmt.Errorf("GitHub named the blob %q, which is not an object id", e.OID)
	}
	return c.readBlob(ctx, e.OID)
}

func cleanPath(p string) (string, error) {
	clean := strings.Trim(p, "/")
	if clean == "" || strings.Contains("/"+clean+"/", "/../") || strings.Contains(clean, "//") {
		return "", fmt.Errorf("invalid path %q", p)
	}
	return clean, nil
}

func describeReads(reads []TreeRead) string {
	var parts []string
	for _, r := range reads {
		at := r.Branch
		if at == "" {
			at = r.Commit
			if len(at) > 12 {
				at = at[:12]
			}
		}
		paths := append([]string(nil), r.Files...)
		for _, d := range r.Dirs {
			paths = append(paths, strings.TrimRight(d, "/")+"/")
		}
		parts = append(parts, strings.Join(paths, ", ")+" at "+at)
	}
	return strings.Join(parts, " and ")
}
