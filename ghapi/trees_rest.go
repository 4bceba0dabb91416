package ghapi

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-github/v60/github"
)

// readTreesREST is ReadTrees through the REST API, for a server whose
// GraphQL endpoint does not answer: the default branch's name when asked
// for (GET /repos/{owner}/{repo}, once), the commit (GET .../commits/{ref}), the
// trees down to each path (git/trees, cached per tree), and each file's
// blob. It reads the same entries, with the same kinds, as the GraphQL
// read, at the cost of a call per file.
func (c *Client) readTreesREST(ctx context.Context, op string, reads []TreeRead) ([]Tree, error) {
	trees := map[string]*github.Tree{}
	getTree := func(sha string) (*github.Tree, error) {
		if t, ok := trees[sha]; ok {
			return t, nil
		}
		t, err := c.gitTree(ctx, sha)
		if err != nil {
			return nil, err
		}
		trees[sha] = t
		return t, nil
	}
	// lookup finds the entry at path below the root tree (nil: absent).
	lookup := func(root, path string) (*github.TreeEntry, error) {
		parts := strings.Split(path, "/")
		sha := root
		for i, name := range parts {
			t, err := getTree(sha)
			if err != nil {
				return nil, err
			}
			e := findEntry(t, name)
			if e == nil {
				return nil, nil
			}
			if i == len(parts)-1 {
				return e, nil
			}
			if e.GetType() != "tree" {
				return nil, nil
			}
			sha = e.GetSHA()
		}
		return nil, nil
	}
	// find cleans a requested path and finds its entry (nil: absent).
	find := func(root, p string) (string, *github.TreeEntry, error) {
		clean, err := cleanPath(p)
		if err != nil {
			return "", nil, err
		}
		e, err := lookup(root, clean)
		return clean, e, err
	}
	// add records what path holds, reading a file's bytes when read is
	// set, once take agreed to its size.
	add := func(t *Tree, path string, e *github.TreeEntry, read bool, take func(string, int64) error) error {
		en := Entry{Kind: restKind(e), OID: e.GetSHA()}
		if en.Kind == KindFile {
			en.Size = int64(e.GetSize())
		}
		if en.Kind == KindFile && read {
			if take != nil {
				if err := take(path, en.Size); err != nil {
					return err
				}
			}
			data, err := c.readBlob(ctx, e.GetSHA(), en.Size)
			if err != nil {
				return err
			}
			if data == nil {
				data = []byte{}
			}
			en.Data = data
		}
		t.Entries[path] = en
		return nil
	}
	var defaultBranch string
	out := make([]Tree, len(reads))
	for i, r := range reads {
		ref, branch := r.Commit, r.Branch
		if r.DefaultBranch && defaultBranch == "" {
			repo, err := c.Repository(ctx)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", op, err)
			}
			if defaultBranch = repo.DefaultBranch; defaultBranch == "" {
				return nil, fmt.Errorf("%s: GitHub named no default branch", op)
			}
		}
		if r.DefaultBranch {
			branch = defaultBranch
		}
		if branch != "" {
			ref = "heads/" + branch // the documented form: never a tag of that name
		}
		rc, _, err := c.gh.Repositories.GetCommit(ctx, c.owner, c.repo, ref, &github.ListOptions{PerPage: 1})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, wrapErr("get commit "+ref, err))
		}
		t := Tree{Commit: rc.GetSHA(), RootTree: rc.GetCommit().GetTree().GetSHA(), Branch: branch, Entries: map[string]Entry{}}
		c.cache.putTree(t.Commit, t.RootTree)
		if r.Runs != nil {
			c.listRunsREST(ctx, &t, *r.Runs)
		}
		for _, p := range r.Files {
			clean, e, err := find(t.RootTree, p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", op, err)
			}
			if e != nil {
				if err := add(&t, clean, e, true, r.Take); err != nil {
					return nil, fmt.Errorf("%s: %w", op, err)
				}
			}
		}
		for _, p := range r.Dirs {
			clean, e, err := find(t.RootTree, p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", op, err)
			}
			if e == nil {
				continue
			}
			t.Entries[clean] = Entry{Kind: restKind(e), OID: e.GetSHA()}
			if e.GetType() != "tree" {
				continue
			}
			dir, err := getTree(e.GetSHA())
			if err != nil {
				return nil, fmt.Errorf("%s: %w", op, err)
			}
			for _, child := range dir.Entries {
				if err := add(&t, clean+"/"+child.GetPath(), child, false, nil); err != nil {
					return nil, fmt.Errorf("%s: %w", op, err)
				}
			}
		}
		out[i] = t
	}
	return out, nil
}

// listRunsREST lists q's check runs on t's commit through the REST API,
// in one call (GET .../commits/{ref}/check-runs, the first 100); a listing
// GitHub does not answer leaves t.RunsListed false, as over GraphQL. It
// is one attempt, never retried nor waited for: it is made while a
// judgement reads its head, and the runs it finds are completed only after
// the verdict is posted (docs/check.md, "Where it runs"), so a GitHub
// that fails it must not hold the verdict up (five attempts of a hung
// listing would take minutes); the next run on the commit lists again.
func (c *Client) listRunsREST(ctx context.Context, t *Tree, q RunsQuery) {
	ctx = context.WithValue(ctx, oneAttemptKey{}, true)
	list, _, err := c.gh.Checks.ListCheckRunsForRef(ctx, c.owner, c.repo, t.Commit, &github.ListCheckRunsOptions{
		CheckName: github.String(q.Name), Status: github.String("in_progress"), AppID: github.Int64(q.App),
		Filter: github.String("all"), ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		c.logger.WarnContext(ctx, "GitHub did not list the check runs in progress; going on without them", "commit", t.Commit, "err", wrapErr("list check runs", err))
		return
	}
	for _, run := range list.CheckRuns {
		if run.GetName() == q.Name && run.GetStatus() == "in_progress" && run.GetApp().GetID() == q.App && run.GetID() > 0 {
			t.Runs = append(t.Runs, ListedRun{ID: run.GetID(), ExternalID: run.GetExternalID()})
		}
	}
	slices.SortFunc(t.Runs, func(a, b ListedRun) int { return cmp.Compare(a.ID, b.ID) })
	t.RunsListed = true
}

// gitTree lists the entries directly in tree sha (GET
// .../git/trees/{sha}, or a ref for the tree of its commit). GitHub may cut
// the list short and say so (truncated); a cut list is refused, never
// read: an entry it leaves out would be absent, whatever it holds.
func (c *Client) gitTree(ctx context.Context, sha string) (*github.Tree, error) {
	t, _, err := c.gh.Git.GetTree(ctx, c.owner, c.repo, sha, false)
	if err != nil {
		return nil, wrapErr("get tree "+sha, err)
	}
	if t.GetTruncated() {
		return nil, fmt.Errorf("get tree %s: GitHub listed only %d of its entries (truncated)", sha, len(t.Entries))
	}
	if t.Entries == nil {
		// No list at all, not an empty one: an answer GitHub did not
		// finish, which must not read as an empty tree (entriesOf).
		return nil, fmt.Errorf("get tree %s: GitHub's answer lists no entries (not even an empty list); re-run the job", sha)
	}
	return t, nil
}

// restKind is what a git/trees entry holds, as Entry.Kind says it.
func restKind(e *github.TreeEntry) string {
	switch {
	case e.GetType() == "tree":
		return KindDir
	case e.GetType() == "commit":
		return KindSubmodule
	case e.GetType() == "blob" && (e.GetMode() == "100644" || e.GetMode() == "100755"):
		return KindFile
	case e.GetType() == "blob" && e.GetMode() == "120000":
		return KindSymlink
	}
	return fmt.Sprintf("%s of mode %s", e.GetType(), e.GetMode())
}
