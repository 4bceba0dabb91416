package action

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// Provenance gathering (docs/semantics.md §5): the facts checks.PullRequest
// weighs about the events a pull request adds. This file drives it; the
// questions it asks GitHub live in attribution.go, backing.go and
// coverage.go.

// provenanceInput is what the provenance gathering of a pull request reads:
// the pull request (its head is the commit judged), the logs at the merge
// base and the head, and the action's settings (the pact directory, and
// the bot-login input: an extra account the bot commits as).
type provenanceInput struct {
	PR checks.PRFact
	// MergeBase is where the head meets the default branch, and BaseLog
	// the log there: the lines taken as judged already.
	MergeBase string
	BaseLog   []byte
	HeadLog   []byte
	Replay    *projection.Result
	// ShippedAtBase are the features on the branch that count as shipped
	// before the pull request (checks.PullRequestFacts.ShippedAtBase).
	ShippedAtBase map[string]bool
	// Config is .github/pact.yml at the default branch's tip (the default
	// when absent), and ConfigBranch that branch (trustedconfig.go).
	Config       *config.Config
	ConfigBranch string
	// DefaultTip is the default branch's tip read with the configuration:
	// what stale: change measures a change against; HeadMeets the head's
	// merge base with it, when the judgement read it ("" otherwise).
	DefaultTip, HeadMeets string
	Settings   Settings
}

// logPath is the log's path in the repository.
func (in provenanceInput) logPath() string { return in.Settings.layout().Log() }

// botLogins are the accounts the bot commits as: github-actions[bot], and
// the bot-login input (e.g. a GitHub App's "name[bot]") when set.
func botLogins(botLogin string) []string {
	bots := []string{checks.DefaultBotLogin}
	if b := strings.TrimSpace(botLogin); b != "" && !checks.IsBotLogin(b, bots) {
		bots = append(bots, b)
	}
	return bots
}

// Bounds on the API calls of one judgement (see gatherer).
const (
	// maxLogReads bounds the versions of the log read to attribute lines.
	// GitHub lists at most 250 commits of a pull request, so this is never
	// the binding bound for a listed history.
	maxLogReads = 300
	// maxCommitFetches bounds the commits looked up one by one because the
	// pull request's listing lacks them (beyond its 250, or a head GitHub
	// has not listed yet).
	maxCommitFetches = 20
	// maxHops bounds the descents into merged branches per line.
	maxHops = 64
	// maxStaleCompares bounds the per-commit comparisons that name the
	// commits which made accepts stale.
	maxStaleCompares = 10
	// compareFileLimit is the most files GitHub lists for a comparison.
	compareFileLimit = 300
)

// commitSHA is what a commit id recorded in an event must look like before
// it is put in an API path (SHA-1 or SHA-256 object names).
var commitSHA = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)

// errBudget stops attribution when a bound on API calls is reached.
var errBudget = errors.New("budget exhausted")

// gatherProvenance gathers, from GitHub, what proves who wrote each event
// the pull request adds and whether the code changed after each accept it
// adds (docs/semantics.md §5); checks.PullRequest weighs it. It returns nil when
// there is nothing to gather (the policy is off, or the PR adds nothing).
//
// API calls, all reads that the workflow token may make: the pull request's
// commits listed once; the log read at a few commits to find the commit
// that added each line (a binary search along first-parent chains, cached
// per commit, at most maxLogReads); for lines the bot wrote, the pull
// request's reviews listed once, at most two calls per distinct comment id
// plus one look into the branch's push history, one read of the log at
// each reviewed or commented-on commit, and one code-identity request when
// a comment's line was recorded on a later commit; under stale: tree, one
// code-identity request for the head and the accepted commits, one
// comparison per accepted commit whose code differs (to name the files),
// plus at most maxStaleCompares to name the
// commits that made accepts stale; and at most maxCommitFetches lookups of
// commits the listing lacks.
func gatherProvenance(ctx context.Context, gh Reader, in provenanceInput) (*checks.ProvenanceInput, error) {
	cfg := in.Config
	if in.PR.Number == 0 || in.HeadLog == nil || in.Replay == nil || in.Replay.Unsupported != nil || cfg.Provenance.Mode == config.ModeOff {
		return nil, nil
	}
	added := addedEvents(in)
	shipped := shippedBaseAccepts(in, added)
	if len(added) == 0 && len(shipped) == 0 {
		return nil, nil
	}
	bots := botLogins(in.Settings.BotLogin)
	g, err := newGatherer(ctx, gh, in, append(append([]addedLine(nil), added...), shipped...))
	if err != nil {
		return nil, err
	}
	pin := checks.ProvenanceInput{
		ConfigBranch: in.ConfigBranch, BotLogins: bots, PRNumber: in.PR.Number,
		Reviews: map[int64]checks.ReviewFact{}, Comments: map[int64]checks.CommentFact{}, Stale: map[int]checks.StaleFacts{},
		Unchanged: map[checks.Span]bool{}, HeadCode: map[string]bool{}, Now: in.Settings.now(),
	}
	intro := map[int]string{}
	for _, a := range added {
		ae := checks.AddedEvent{Event: a.ev}
		sha, why, err := g.introducer(g.head, a.content, a.occurrence)
		if err != nil {
			return nil, err
		}
		if sha == "" {
			ae.Unattributed = why
		} else {
			m := g.meta[sha]
			c := commitFact(m)
			c.SHA, ae.Commit = sha, &c
			intro[a.ev.Line] = sha
			if gref := a.ev.Payload.GitHub; gref != nil && checks.IsBotLogin(m.AuthorLogin, bots) {
				if err := g.fetchBacking(gref, ae.Commit.FirstParent(), &pin); err != nil {
					return nil, err
				}
			}
		}
		pin.Events = append(pin.Events, ae)
	}
	if err := g.coverage(added, shipped, intro, &pin); err != nil {
		return nil, err
	}
	slog.Info("provenance gathered", "pr", in.PR.Number, "events", len(added), "shipped_accepts", len(shipped),
		"commits_listed", len(g.order), "log_reads", g.reads, "commit_lookups", g.fetches, "compares", g.compares)
	return &pin, nil
}

// shippedBaseAccepts lists the accept lines of the merge base's log that
// the pull request ships (checks.ShippedAccepts): they must cover its head
// too. None under stale: sticky, where every accept covers.
func shippedBaseAccepts(in provenanceInput, added []addedLine) []addedLine {
	if in.Config.Provenance.Stale == config.StaleSticky {
		return nil
	}
	isAdded := map[int]bool{}
	for _, a := range added {
		isAdded[a.ev.Line] = true
	}
	head := pactfile.SplitLines(in.HeadLog)
	var out []addedLine
	branches := []string{in.PR.HeadRef}
	shipped := checks.ShippedAccepts(in.Replay.State, branches, in.ShippedAtBase)
	byLine := map[int]*projection.Event{}
	for _, t := range shipped {
		byLine[t.AcceptLine] = nil
	}
	if len(byLine) > 0 {
		projection.EachEvent(in.HeadLog, func(ev *projection.Event) {
			if _, ok := byLine[ev.Line]; ok {
				keep := *ev
				byLine[ev.Line] = &keep
			}
		})
	}
	for _, t := range shipped {
		ev := byLine[t.AcceptLine]
		if isAdded[t.AcceptLine] || ev == nil || t.AcceptLine > len(head) {
			continue
		}
		content := string(head[t.AcceptLine-1])
		occ := 0
		for _, l := range head[:t.AcceptLine] {
			if string(l) == content {
				occ++
			}
		}
		out = append(out, addedLine{ev: ev, content: content, occurrence: occ})
	}
	return out
}

// addedLine is one event line the pull request adds.
type addedLine struct {
	ev      *projection.Event
	content string
	// occurrence counts the identical lines of the head log up to and
	// including this one: the commit that added it is the first whose log
	// holds that many.
	occurrence int
}

// addedEvents lists the events after the merge-base prefix: the lines that
// are an exact prefix of both logs are the base's, everything after it the
// pull request's (where the prefix does not hold, log.rewritten fails the
// check, and every line from the first difference on is judged). Byte-
// identical repeats of an earlier line with an event_id are skipped: replay
// leaves them out, so they can prove nothing.
func addedEvents(in provenanceInput) []addedLine {
	base, head := pactfile.SplitLines(in.BaseLog), pactfile.SplitLines(in.HeadLog)
	prefix := 0
	for prefix < len(base) && prefix < len(head) && string(base[prefix]) == string(head[prefix]) {
		prefix++
	}
	occ := make([]int, len(head))
	seen := map[string]int{}
	for i, l := range head {
		seen[string(l)]++
		occ[i] = seen[string(l)]
	}
	var out []addedLine
	projection.EachEvent(in.HeadLog, func(e *projection.Event) {
		idx := e.Line - 1
		if e.Line <= prefix || idx >= len(head) || e.Problem != nil {
			return
		}
		if occ[idx] > 1 && e.EventID != "" {
			return
		}
		ev := *e
		out = append(out, addedLine{ev: &ev, content: string(head[idx]), occurrence: occ[idx]})
	})
	return out
}

// gatherer fetches and caches, for one judgement, the GitHub facts
// provenance is judged on.
type gatherer struct {
	ctx  context.Context
	gh   Reader
	in   provenanceInput
	head string
	// meta holds the commits known: the pull request's listing, then those
	// looked up one by one; order is the listing order (oldest first) with
	// looked-up pull request commits after it.
	meta   map[string]ghapi.Commit
	listed map[string]bool
	order  []string
	absent map[string]bool // looked up and not found
	// interesting are the added lines; logs are counted for those only.
	interesting map[string]bool
	counts      map[string]map[string]int
	compared    map[string]comparison
	awaiting    map[string][]string
	// code answers "same code?" (samecode.go).
	code *codeIdentity

	reads, fetches, compares int
}

func newGatherer(ctx context.Context, gh Reader, in provenanceInput, added []addedLine) (*gatherer, error) {
	g := &gatherer{
		ctx: ctx, gh: gh, in: in, head: in.PR.HeadSHA,
		meta: map[string]ghapi.Commit{}, listed: map[string]bool{}, absent: map[string]bool{},
		interesting: map[string]bool{}, counts: map[string]map[string]int{}, compared: map[string]comparison{}, awaiting: map[string][]string{},
		code: newSameness(gh, in.Settings, in.Config.Provenance.Stale, in.DefaultTip),
	}
	g.code.knowMergeBase(g.head, in.HeadMeets)
	for _, a := range added {
		g.interesting[a.content] = true
	}
	// The two logs already read need no call.
	g.counts[g.head] = g.count(in.HeadLog)
	if in.MergeBase != "" {
		g.counts[in.MergeBase] = g.count(in.BaseLog)
	}
	commits, err := gh.PullCommits(ctx, in.PR.Number)
	if err != nil {
		return nil, fmt.Errorf("list the commits of pull request #%d: %w", in.PR.Number, err)
	}
	for _, c := range commits {
		if _, dup := g.meta[c.SHA]; dup {
			continue
		}
		g.meta[c.SHA], g.listed[c.SHA] = c, true
		g.order = append(g.order, c.SHA)
	}
	return g, nil
}
