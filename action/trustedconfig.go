package action

import (
	"context"
	"fmt"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/pactfile"
)

// Which configuration? (docs/semantics.md §5) The configuration that
// grants rights — the seat map, the provenance and stale policies,
// unmapped-branches, review requests — is .github/pact.yml at the tip of
// the repository's default branch, as GitHub names that branch when the
// run asks, whatever the pull request's base. Anyone who can push can
// create a branch, write a lenient file there and open a pull request into
// it; a check run belongs to a commit, so a verdict judged under that file
// would stand on the same head in a pull request into the default branch.
// This file is the one place that answers the question: every judgement,
// the bot's seat test and the review requests take the configuration from
// here, and nothing else reads .github/pact.yml. The webhook payload's
// repository.default_branch is never read: a re-run replays an old one.

// configRead is the read that fetches the configuration, folded into a
// ReadTrees request a judgement makes anyway: the default branch is
// resolved by GitHub in the same request (Repository.defaultBranchRef).
func configRead() ghapi.TreeRead {
	return ghapi.TreeRead{DefaultBranch: true, Files: []string{pactfile.ConfigPath}}
}

// keepConfig parses the configuration from the tree configRead read, and
// keeps it for the rest of the run.
func (r *eventRun) keepConfig(ctx context.Context, tree ghapi.Tree) (*config.File, error) {
	raw, err := readRequired(ctx, treeSource{tree: tree}, pactfile.ConfigPath)
	if err != nil {
		return nil, fmt.Errorf("the default branch %s: %w", tree.Branch, err)
	}
	f := config.ParseFile(raw, tree.Branch, tree.Commit)
	r.config = &f
	return r.config, nil
}

// trustedConfig is the run's configuration: the one already read, or read
// now in one request.
func (r *eventRun) trustedConfig(ctx context.Context, gh reader) (*config.File, error) {
	if r.config != nil {
		return r.config, nil
	}
	trees, err := gh.ReadTrees(ctx, configRead())
	if err != nil {
		return nil, fmt.Errorf("read %s on the default branch: %w", pactfile.ConfigPath, err)
	}
	return r.keepConfig(ctx, trees[0])
}

// describeConfig names the configuration for the job log: the file, the
// branch and the commit it was read from.
func describeConfig(f *config.File) string {
	return pactfile.ConfigPath + " on " + f.Branch + " at " + prose.ShortSHA(f.Commit)
}
