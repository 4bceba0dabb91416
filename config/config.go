// Package config owns the repository configuration .github/pact.yml: the
// seat map, which says which GitHub accounts may act for which seat of the
// pact, the provenance policy of pull-request mode (docs/semantics.md §5),
// and whom the check asks for the reviews the pact waits for.
//
// The file grants rights, so callers read it from the tip of the pull
// request's base branch, never from its head. This package only turns bytes
// into a checked Config: it is pure (no files, no network) and validates
// against schemas/pact-config.schema.json (validate.go), so unknown keys, a bad mode or a malformed login
// are errors rather than silently ignored.
package config

// Mode is the provenance policy: how provenance findings count.
type Mode string

// Provenance modes.
const (
	// ModeOff turns the provenance rules off.
	ModeOff Mode = "off"
	// ModeWarn reports provenance findings as warnings that change nothing
	// else (the default).
	ModeWarn Mode = "warn"
	// ModeRequire makes them errors, and a stale accept makes its task count
	// as not accepted for Rule 2.
	ModeRequire Mode = "require"
)

// Stale selects how the provenance rule judges whether an accept has gone
// stale (provenance.stale); package checks defines what each value means.
type Stale string

// Staleness policies.
const (
	StaleSticky Stale = "sticky"
	StaleTree   Stale = "tree"
	StalePush   Stale = "push"
	// StaleChange (the default) keeps an accept while the pull request's
	// change against the default branch is the one accepted, so that
	// bringing a branch up to date keeps its reviews (docs/semantics.md
	// §8); README.md's decisions say why it is the default.
	StaleChange Stale = "change"
)

// Unmapped is the policy for a pull request whose head branch no task
// names, so that it ships no feature (finding pr.unmapped_branch).
type Unmapped string

// Unmapped-branch policies.
const (
	UnmappedAllow Unmapped = "allow"
	UnmappedWarn  Unmapped = "warn" // the default
	UnmappedBlock Unmapped = "block"
)

// Requests is the review-requests switch: whether the check asks GitHub
// for the reviews the pact waits for.
type Requests string

// Review-request switches.
const (
	requestsOn  Requests = "on" // the default
	RequestsOff Requests = "off"
)

// Provenance is the provenance policy of pull-request mode.
type Provenance struct {
	Mode  Mode
	Stale Stale
}

// Config is a checked .github/pact.yml with defaults applied.
type Config struct {
	// Seats maps a seat id to the GitHub logins that may act for it, as
	// written in the file. Never nil after Parse or Default.
	Seats      map[string][]string
	Provenance Provenance
	// UnmappedBranches is the unmapped-branches policy.
	UnmappedBranches Unmapped
	// ReviewRequests is the review-requests switch.
	ReviewRequests Requests
	// ReviewTeams maps a seat to the teams (slugs of the repository
	// owner's organization) the check asks for its reviews instead of the
	// seat's accounts; nil when the file names none. A team grants
	// nothing: only the logins of Seats may act for a seat.
	ReviewTeams map[string][]string
}

// Default is the configuration of a repository without .github/pact.yml (or
// with an empty one): no seat mapped to any account, provenance warn/tree,
// unmapped branches warn, review requests on.
func Default() *Config {
	return &Config{
		Seats:            map[string][]string{},
		Provenance:       Provenance{Mode: ModeWarn, Stale: StaleChange},
		UnmappedBranches: UnmappedWarn,
		ReviewRequests:   requestsOn,
	}
}

// File is one reading of .github/pact.yml: where it was read and what it
// says, or why it cannot be used. Config and File are two types because
// they are two things: Config is what a usable file says, which every rule
// and the seat test weigh; File is the file as a run found it, which may
// be absent (the defaults) or broken (Err: the rules weigh the defaults,
// and checks.Config says why in a finding that names Branch). A run reads
// it once (action's run value) and hands the one File to every judgement
// and to the bot's decision.
type File struct {
	// Present says there is a file; Config is its configuration, or the
	// defaults when there is none or it cannot be used (Err). ParseFile
	// never leaves it nil.
	Present bool
	Config  *Config
	Err     error
	// Branch is the branch the file was read from, which every finding
	// and reply about it names: the repository's default branch for a
	// pull request (docs/semantics.md §5); Commit is that branch's tip
	// when it was read. Both are "" for a file on disk.
	Branch, Commit string
}

// ParseFile parses a .github/pact.yml (raw nil: there is none) read at
// commit, the tip of branch ("" both: a file on disk).
func ParseFile(raw []byte, branch, commit string) File {
	f := File{Present: raw != nil, Config: Default(), Branch: branch, Commit: commit}
	if raw == nil {
		return f
	}
	if c, err := Parse(raw); err != nil {
		f.Err = err
	} else {
		f.Config = c
	}
	return f
}
