package ghapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
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
	// OID is the object's id; Size is a KindFile's size in bytes.
	OID  string
	Size int64
	// Data is the content of a KindFile that was read (a path of Files;
	// never nil then). An entry only listed (inside one of Dirs) has none:
	// ReadBlobs reads it by OID.
	Data []byte
}

// TreeRead names a commit — by id, as the tip of a branch now, or as the
// tip of the repository's default branch now (whichever branch GitHub says
// that is) — and the paths to read there.
type TreeRead struct {
	Commit string
	Branch string
	// DefaultBranch reads the tip of the repository's default branch, as
	// GitHub names it at the time of the read; Tree.Branch says which.
	DefaultBranch bool
	// Files are paths of files: read.
	Files []string
	// Dirs are paths of directories: each entry directly inside is listed
	// by name, kind, id and size, never read, so that what a directory
	// holds costs nothing until someone asks for a file of it by id.
	Dirs []string
	// Take, when set, is told each file's path and size before its bytes
	// are kept or fetched; an error from it stops the read, and ReadTrees
	// returns it (wrapped). A caller bounds what it reads with it.
	Take func(path string, size int64) error
	// Runs, with a Commit, also lists the commit's check runs it names
	// (Tree.Runs), in the same request.
	Runs *RunsQuery
}

// RunsQuery names the check runs a TreeRead lists: those named Name that
// the GitHub App App created on the commit and that are still in progress.
type RunsQuery struct {
	Name string
	App  int64
}

// ListedRun is a check run a RunsQuery found.
type ListedRun struct {
	ID         int64
	ExternalID string
}

// Tree is what one TreeRead found.
type Tree struct {
	// Commit is the commit read (a branch's tip at the time of the read)
	// and RootTree its tree.
	Commit, RootTree string
	// Branch is the branch read: TreeRead.Branch, or the name of the
	// default branch for a TreeRead.DefaultBranch ("" for a commit).
	Branch string
	// Entries holds every path asked for that exists, and every entry
	// directly inside each directory asked for, by repository path. A
	// path that is not there is absent.
	Entries map[string]Entry
	// Runs are the check runs TreeRead.Runs names, oldest first (at most
	// runsPerSuite in each of runsSuites suites), when RunsListed: GitHub
	// may fail to answer that part alone, and the files read stand
	// without it.
	Runs       []ListedRun
	RunsListed bool
}

// The listing of a RunsQuery stops at runsSuites check suites of the app
// on the commit (a workflow run of GitHub Actions is one) and runsPerSuite
// runs of each: in-progress runs of one name are few, and whoever posts
// thousands of them must not make a read of the pact heavy.
const (
	runsSuites   = 50
	runsPerSuite = 50
)

// runsFields select a RunsQuery's runs on a commit: by the app's suites,
// the runs of the name in progress, each with what a caller checks again
// (the filters are GitHub's) and its id. CheckRun.databaseId is a 32-bit
// Int, which check run ids have outgrown on github.com, so the id is read
// from the run's path (resourcePath, …/runs/{check_run_id}).
const runsFields = `app { databaseId } checkRuns(first: %d, filterBy: {checkName: $%s, status: IN_PROGRESS}) { nodes { name status externalId resourcePath } }`

// gqlSuites is a RunsQuery's answer.
type gqlSuites struct {
	Nodes []struct {
		App *struct {
			DatabaseID int64 `json:"databaseId"`
		} `json:"app"`
		CheckRuns struct {
			Nodes []struct {
				Name         string `json:"name"`
				Status       string `json:"status"`
				ExternalID   string `json:"externalId"`
				ResourcePath string `json:"resourcePath"`
			} `json:"nodes"`
		} `json:"checkRuns"`
	} `json:"nodes"`
}

// runs is what the answer lists of q's runs, verified against q, oldest
// first.
func (g *gqlSuites) runs(q RunsQuery) []ListedRun {
	var out []ListedRun
	for _, suite := range g.Nodes {
		if suite.App == nil || suite.App.DatabaseID != q.App {
			continue
		}
		for _, r := range suite.CheckRuns.Nodes {
			id, ok := runIDFromPath(r.ResourcePath)
			if ok && r.Name == q.Name && r.Status == "IN_PROGRESS" {
				out = append(out, ListedRun{ID: id, ExternalID: r.ExternalID})
			}
		}
	}
	slices.SortFunc(out, func(a, b ListedRun) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// runIDFromPath is the id in a check run's path, /{owner}/{repo}/runs/{id}.
func runIDFromPath(p string) (int64, bool) {
	rest, id, ok := strings.Cut(strings.TrimSuffix(p, "/"), "/runs/")
	if !ok || rest == "" || strings.Contains(id, "/") {
		return 0, false
	}
	n, err := strconv.ParseInt(id, 10, 64)
	return n, err == nil && n > 0
}

// Git file modes as GraphQL's TreeEntry.mode reports them (decimal).
const (
	modeFile       = 0o100644
	modeExecutable = 0o100755
	modeSymlink    = 0o120000
)

const (
	blobFields = `object { ... on Blob { ` + blobObjectFields + ` } }`
	fileFields = `type mode oid ` + blobFields
	dirFields  = `type mode oid object { ... on Tree { entries { name type mode oid size } } }`
)

// gqlEntry is a TreeEntry as the queries above select it.
type gqlEntry struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Mode   int    `json:"mode"`
	OID    string `json:"oid"`
	Size   int64  `json:"size"`
	Object *struct {
		ByteSize    *int64     `json:"byteSize"`
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

// ReadTrees reads files and lists directories at commits and branch tips
// in one GraphQL request. A regular file's bytes come from Blob.text when
// GitHub gives it whole and byte for byte (checked against the blob's id);
// a binary file, one over GitHub's cut of Blob.text (about 512 KB) or one
// whose text is not the blob's bytes is read through the blobs API by its
// id (up to 100 MB), unless this client already read that blob — each
// only once TreeRead.Take agreed to its size. A directory's entries are
// listed, never read. Symbolic links, submodules and directories are
// reported as such, never read as files. A branch or commit that does not
// exist wraps ErrNotFound.
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
		if rq := r.Runs; rq != nil {
			if r.Commit == "" || rq.Name == "" || rq.App <= 0 || rq.App > math.MaxInt32 {
				return nil, fmt.Errorf("%s: list check runs of a commit, by a name and an app (GraphQL's Int)", op)
			}
			av, nv := rv+"app", rv+"run"
			vars[av], vars[nv] = rq.App, rq.Name
			fmt.Fprintf(&q, ", $%s: Int!, $%s: String!", av, nv)
			fmt.Fprintf(&sel, " runs: checkSuites(first: %d, filterBy: {appId: $%s}) { nodes { "+runsFields+" } }", runsSuites, av, runsPerSuite, nv)
		}
		sel.WriteString(" }")
		switch {
		case r.DefaultBranch && r.Commit == "" && r.Branch == "":
			fmt.Fprintf(&body, " %s: defaultBranchRef { name target { %s } }", rv, sel.String())
		case r.Commit != "" && r.Branch == "" && !r.DefaultBranch:
			vars[rv] = r.Commit
			fmt.Fprintf(&q, ", $%s: GitObjectID!", rv)
			fmt.Fprintf(&body, " %s: object(oid: $%s) { %s }", rv, rv, sel.String())
		case r.Branch != "" && r.Commit == "" && !r.DefaultBranch:
			vars[rv] = "refs/heads/" + r.Branch
			fmt.Fprintf(&q, ", $%s: String!", rv)
			fmt.Fprintf(&body, " %s: ref(qualifiedName: $%s) { target { %s } }", rv, rv, sel.String())
		default:
			return nil, fmt.Errorf("%s: name one commit, branch or the default branch", op)
		}
	}
	fmt.Fprintf(&q, ") { repository(owner: $owner, name: $name) {%s } }", body.String())

	var answer struct {
		Repository map[string]json.RawMessage `json:"repository"`
	}
	// A listing of check runs GitHub does not answer (a token that may not
	// read checks, say) fails alone: the files stand.
	runsOnly := func(path []any) bool {
		if len(path) < 3 || path[0] != "repository" || path[2] != "runs" {
			return false
		}
		alias, _ := path[1].(string)
		i, err := strconv.Atoi(strings.TrimPrefix(alias, "r"))
		return err == nil && strings.HasPrefix(alias, "r") && i < len(reads) && reads[i].Runs != nil
	}
	if err := c.graphqlPartial(ctx, op, q.String(), vars, &answer, runsOnly); errors.Is(err, errNoGraphQL) {
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
		branch := r.Branch
		if r.Branch != "" || r.DefaultBranch {
			var ref *struct {
				Name   string          `json:"name"`
				Target json.RawMessage `json:"target"`
			}
			if err := json.Unmarshal(raw, &ref); err != nil {
				return nil, fmt.Errorf("%s: decode the answer: %w", op, err)
			}
			if ref == nil && r.DefaultBranch {
				return nil, fmt.Errorf("%s: the repository has no default branch: %w", op, ErrNotFound)
			}
			if ref == nil {
				return nil, fmt.Errorf("%s: branch %s: %w", op, r.Branch, ErrNotFound)
			}
			if r.DefaultBranch {
				if branch = ref.Name; branch == "" {
					return nil, fmt.Errorf("%s: GitHub named no default branch", op)
				}
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
			if branch != "" {
				what = "the tip of " + branch
			}
			return nil, fmt.Errorf("%s: %s is not a commit GitHub knows: %w", op, what, ErrNotFound)
		}
		t := Tree{Commit: cm.OID, RootTree: cm.Tree.OID, Branch: branch, Entries: map[string]Entry{}}
		c.cache.putTree(t.Commit, t.RootTree)
		if r.Runs != nil {
			var suites *gqlSuites // null: GitHub did not answer it
			if raw := fields["runs"]; raw != nil {
				if err := json.Unmarshal(raw, &suites); err != nil {
					return nil, fmt.Errorf("%s: decode the answer: %w", op, err)
				}
			}
			if suites != nil {
				t.Runs, t.RunsListed = suites.runs(*r.Runs), true
			}
		}
		for j, p := range r.Files {
			clean, _ := cleanPath(p)
			if err := c.addEntry(ctx, &t, clean, fields[fmt.Sprintf("f%d", j)], r.Take); err != nil {
				return nil, fmt.Errorf("%s: %w", op, err)
			}
		}
		for j, p := range r.Dirs {
			clean, _ := cleanPath(p)
			var dir *gqlEntry
			if err := json.Unmarshal(fields[fmt.Sprintf("d%d", j)], &dir); err != nil {
				return nil, fmt.Errorf("%s: decode the answer: %w", op, err)
			}
			if dir == nil {
				c.cache.putFile(t.Commit, clean, nil, true)
				continue
			}
			t.Entries[clean] = Entry{Kind: dir.kind(), OID: dir.OID}
			if dir.kind() != KindDir || dir.Object == nil {
				continue
			}
			for _, e := range dir.Object.Entries {
				t.Entries[clean+"/"+e.Name] = e.listed()
			}
		}
		out[i] = t
	}
	return out, nil
}

// listed is what a directory's entry says of itself: its kind, id and
// size, no bytes.
func (e *gqlEntry) listed() Entry {
	en := Entry{Kind: e.kind(), OID: e.OID}
	if en.Kind == KindFile {
		en.Size = e.Size
	}
	return en
}

// addEntry decodes one aliased file(path:) answer into t (null: absent),
// reading a regular file's bytes once take agreed to its size.
func (c *Client) addEntry(ctx context.Context, t *Tree, path string, raw json.RawMessage, take func(string, int64) error) error {
	var e *gqlEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return fmt.Errorf("decode the answer: %w", err)
	}
	if e == nil {
		c.cache.putFile(t.Commit, path, nil, true)
		return nil
	}
	en := Entry{Kind: e.kind(), OID: e.OID}
	if en.Kind != KindFile {
		t.Entries[path] = en
		return nil
	}
	if e.Object != nil && e.Object.ByteSize != nil {
		en.Size = *e.Object.ByteSize
	}
	if take != nil {
		if err := take(path, en.Size); err != nil {
			return err
		}
	}
	data, err := c.blobBytes(ctx, e)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if data == nil {
		data = []byte{}
	}
	en.Data = data
	t.Entries[path] = en
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
	size := int64(-1)
	if o := e.Object; o != nil && o.ByteSize != nil {
		size = *o.ByteSize
	}
	return c.readBlob(ctx, e.OID, size)
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
		if r.DefaultBranch {
			at = "the default branch"
		}
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
		if len(paths) == 0 {
			// A read of a commit alone (a base branch's tip).
			parts = append(parts, "the commit at "+at)
			continue
		}
		parts = append(parts, strings.Join(paths, ", ")+" at "+at)
	}
	return strings.Join(parts, " and ")
}
