package ghapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/google/go-github/v60/github"
)

// Code identity: whether two commits hold the same files outside one
// directory (the pact's), told from git's own object ids rather than a
// diff. GitHub's comparison lists at most 300 files and compares from the
// merge base (three dots), so two commits on diverged histories can look
// alike there while their trees differ; tree entries cannot.

// maxCodeIDsPerQuery bounds the commits asked about in one GraphQL request.
const maxCodeIDsPerQuery = 50

// codeEntry is one tree entry as the code identity reads it.
type codeEntry struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Mode int    `json:"mode"`
	OID  string `json:"oid"`
}

// entriesOf is the entries of a tree as GitHub's answer lists them: a
// list, empty for the empty tree. Null, or the field absent, is an answer
// GitHub did not finish; read as an empty tree it would make two commits
// hold the same code (both "nothing") and two changes the same (both
// "everything deleted"), so that an accept covered code nobody reviewed.
// It fails the question instead.
func entriesOf(op, tree string, entries []codeEntry) ([]codeEntry, error) {
	if entries == nil {
		return nil, fmt.Errorf("%s: GitHub's answer lists no entries for tree %s (not even an empty list); re-run the job", op, tree)
	}
	return entries, nil
}

// CodeIDs returns, for each commit GitHub knows, a digest of every file
// outside dir (a repository path such as ".pact" or "meta/pact"): two
// commits have the same digest exactly when their trees agree on every
// path outside dir, file modes included. A commit GitHub does not know is
// absent from the map; a commit that is not a commit id is never sent.
// It costs one GraphQL request per 50 commits (through the REST API where
// GraphQL does not answer: a commit and a tree per level of dir, per commit).
func (c *Client) CodeIDs(ctx context.Context, dir string, commits ...string) (map[string]string, error) {
	comps := dirComponents(dir)
	out := map[string]string{}
	var want []string
	for _, sha := range commits {
		if isObjectID(sha) && !contains(want, sha) {
			want = append(want, sha)
		}
	}
	err := inBatches(want, maxCodeIDsPerQuery, func(batch []string) error {
		err := c.codeIDsGraphQL(ctx, comps, batch, out)
		if errors.Is(err, errNoGraphQL) {
			c.logger.WarnContext(ctx, "the GraphQL endpoint does not answer; comparing code through the REST API", "url", c.graphqlURL, "err", err)
			err = c.codeIDsREST(ctx, comps, batch, out)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// dirComponents splits a repository directory into its path components
// (none for the repository root).
func dirComponents(dir string) []string {
	clean := strings.Trim(strings.TrimPrefix(dir, "./"), "/")
	if clean == "" || clean == "." {
		return nil
	}
	return strings.Split(clean, "/")
}

func (c *Client) codeIDsGraphQL(ctx context.Context, comps []string, commits []string, out map[string]string) error {
	op := fmt.Sprintf("compare the code of %d commit(s)", len(commits))
	const entries = `entries { name type mode oid }`
	vars := map[string]any{"owner": c.owner, "name": c.repo}
	var q, body strings.Builder
	q.WriteString("query($owner: String!, $name: String!")
	// The directories on the way to dir: each level's entries, the
	// component leading down excepted, belong to the code.
	var levels strings.Builder
	for i := 1; i < len(comps); i++ {
		v := fmt.Sprintf("p%d", i)
		vars[v] = strings.Join(comps[:i], "/")
		fmt.Fprintf(&q, ", $%s: String!", v)
		fmt.Fprintf(&levels, " l%d: file(path: $%s) { type mode oid object { ... on Tree { %s } } }", i, v, entries)
	}
	for i, sha := range commits {
		v := fmt.Sprintf("c%d", i)
		vars[v] = sha
		fmt.Fprintf(&q, ", $%s: GitObjectID!", v)
		fmt.Fprintf(&body, " %s: object(oid: $%s) { ... on Commit { oid tree { %s }%s } }", v, v, entries, levels.String())
	}
	fmt.Fprintf(&q, ") { repository(owner: $owner, name: $name) {%s } }", body.String())
	var raw struct {
		Repository map[string]json.RawMessage `json:"repository"`
	}
	if err := c.graphql(ctx, op, q.String(), vars, &raw); err != nil {
		return err
	}
	for i, sha := range commits {
		var commit struct {
			OID  string `json:"oid"`
			Tree *struct {
				Entries []codeEntry `json:"entries"`
			} `json:"tree"`
		}
		data := raw.Repository[fmt.Sprintf("c%d", i)]
		if err := json.Unmarshal(data, &commit); err != nil {
			return fmt.Errorf("%s: decode the answer: %w", op, err)
		}
		if commit.OID == "" || commit.Tree == nil {
			continue // not a commit GitHub knows
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(data, &fields); err != nil {
			return fmt.Errorf("%s: decode the answer: %w", op, err)
		}
		root, err := entriesOf(op, "of commit "+sha, commit.Tree.Entries)
		if err != nil {
			return err
		}
		levels := [][]codeEntry{root}
		for l := 1; l < len(comps); l++ {
			var e *struct {
				Type   string `json:"type"`
				OID    string `json:"oid"`
				Object *struct {
					Entries []codeEntry `json:"entries"`
				} `json:"object"`
			}
			if err := json.Unmarshal(fields[fmt.Sprintf("l%d", l)], &e); err != nil {
				return fmt.Errorf("%s: decode the answer: %w", op, err)
			}
			if e == nil || e.Type != "tree" || e.Object == nil {
				break // the way down ends here; what stands in its place is in the level above
			}
			level, err := entriesOf(op, e.OID, e.Object.Entries)
			if err != nil {
				return err
			}
			levels = append(levels, level)
		}
		out[sha] = codeDigest(comps, levels)
	}
	return nil
}

func (c *Client) codeIDsREST(ctx context.Context, comps []string, commits []string, out map[string]string) error {
	for _, sha := range commits {
		rc, _, err := c.gh.Repositories.GetCommit(ctx, c.owner, c.repo, sha, &github.ListOptions{PerPage: 1})
		if err != nil {
			if werr := wrapErr("get commit "+sha, err); errors.Is(werr, ErrNotFound) {
				continue
			} else {
				return werr
			}
		}
		tree := rc.GetCommit().GetTree().GetSHA()
		var levels [][]codeEntry
		for l := 0; tree != ""; l++ {
			t, err := c.gitTree(ctx, tree)
			if err != nil {
				return err
			}
			level := restEntries(t)
			tree = ""
			for _, e := range level {
				if l+1 < len(comps) && e.Name == comps[l] && e.Type == "tree" {
					tree = e.OID // the next level down
				}
			}
			levels = append(levels, level)
		}
		out[sha] = codeDigest(comps, levels)
	}
	return nil
}

// codeDigest hashes the entries of each level on the way down to the
// directory comps names, leaving out the entry that leads further down
// (and, at the last level, the directory itself). levels[i] lists the
// entries of comps[:i]; fewer levels than components means the way down
// ended (a missing directory, or a file in its place), and the entry where
// it ended is then hashed like any other. Only a directory is left out: a
// file, link or submodule where the pact directory would be is no pact
// directory, and its bytes or target are code like any other.
func codeDigest(comps []string, levels [][]codeEntry) string {
	h := sha256.New()
	for i, entries := range levels {
		sorted := append([]codeEntry(nil), entries...)
		sort.Slice(sorted, func(a, b int) bool { return sorted[a].Name < sorted[b].Name })
		prefix := strings.Join(comps[:i], "/")
		for _, e := range sorted {
			if i < len(comps) && e.Name == comps[i] && e.Type == "tree" && (i == len(comps)-1 || i+1 < len(levels)) {
				continue
			}
			fmt.Fprintf(h, "%s/%s\x00%s\x00%o\x00%s\n", prefix, e.Name, e.Type, e.Mode, e.OID)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// restEntries is the entries of a tree the REST API listed (gitTree), as
// the GraphQL reads give them.
func restEntries(t *github.Tree) []codeEntry {
	var level []codeEntry
	for _, e := range t.Entries {
		var mode int
		_, _ = fmt.Sscanf(e.GetMode(), "%o", &mode)
		level = append(level, codeEntry{Name: e.GetPath(), Type: e.GetType(), Mode: mode, OID: e.GetSHA()})
	}
	return level
}
