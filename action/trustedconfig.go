package action

import (
	"context"
	"fmt"

	"github.com/pact-action/pact-action/checks"
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

// repoConfig is the configuration that grants rights, as a run read it.
type repoConfig struct {
	// Branch is the default branch, and Commit its tip when read.
	Branch, Commit string
	// File is .github/pact.yml there, parsed once (the defaults when
	// there is none; Err when it cannot be used).
	File checks.ConfigFile
}

// where names the file and the branch it was read from, for messages.
func (c *repoConfig) where() string {
	return pactfile.ConfigPath + " on " + c.Branch
}

// configOnce holds the configuration one run read, so that every
// judgement of the run and the bot's decision weigh the same file, read
// once. A run judges its heads one after another, so it needs no lock.
type configOnce struct{ c *repoConfig }

// perRun gives s a place for the run's configuration and its facts
// (facts.go), unless it has them already (a caller that shares them across
// several judgements).
func (s Settings) perRun() Settings {
	if s.config == nil {
		s.config = &configOnce{}
	}
	if s.facts == nil {
		s.facts = newFacts()
	}
	return s
}

// configRead is the read that fetches the configuration, folded into a
// ReadTrees request a judgement makes anyway: the default branch is
// resolved by GitHub in the same request (Repository.defaultBranchRef).
func configRead() ghapi.TreeRead {
	return ghapi.TreeRead{DefaultBranch: true, Files: []string{pactfile.ConfigPath}}
}

// keep parses the configuration from the tree configRead read, and
// keeps it for the rest of the run.
func (o *configOnce) keep(ctx context.Context, tree ghapi.Tree) (*repoConfig, error) {
	raw, err := readRequired(ctx, treeSource{tree: tree}, pactfile.ConfigPath)
	if err != nil {
		return nil, fmt.Errorf("the default branch %s: %w", tree.Branch, err)
	}
	c := &repoConfig{Branch: tree.Branch, Commit: tree.Commit, File: checks.ParseConfig(raw)}
	c.File.Branch = tree.Branch
	o.c = c
	return c, nil
}

// config is the run's configuration: the one already read, or read now in
// one request.
func (o *configOnce) config(ctx context.Context, gh Reader) (*repoConfig, error) {
	if o.c != nil {
		return o.c, nil
	}
	trees, err := gh.ReadTrees(ctx, configRead())
	if err != nil {
		return nil, fmt.Errorf("read %s on the default branch: %w", pactfile.ConfigPath, err)
	}
	return o.keep(ctx, trees[0])
}

// describe names the configuration for the job log.
func (c *repoConfig) describe() string {
	return c.where() + " at " + prose.ShortSHA(c.Commit)
}

// stalePolicy is the configuration's stale policy (the default's when the
// file cannot be used: the check fails on it anyway).
func stalePolicy(c *repoConfig) config.Stale {
	if c.File.Config == nil {
		return config.Default().Provenance.Stale
	}
	return c.File.Config.Provenance.Stale
}
