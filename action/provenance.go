package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// Provenance gathering (docs/semantics.md §5): the facts checks.PullRequest
// weighs about the events a pull request adds. This file drives it; the
// questions it asks GitHub live in attribution.go, backing.go and
// coverage.go.

// provenanceInput is what the provenance gathering of a pull request reads:
// the pull request (its head is the commit judged), the logs at the merge
// base and the head, and the run it is part of.
type provenanceInput struct {
	PR ghfacts.PullRequest
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
	// Run is the event's run: the action's settings (the pact directory,
	// and the bot-login input: an extra account the bot commits as) and
	// its one source of reviews and comments (facts.go).
	Run *eventRun
}

// logPath is the log's path in the repository.
func (in provenanceInput) logPath() string { return in.Run.layout().Log() }

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
	// maxAnchors bounds the distinct commits accepts are judged given on
	// (coverage.go): each costs a code identity and, where its code is not
	// the head's, a comparison (stale: tree), or a comparison (push), so
	// thousands of accepts, each naming a commit of its own, would spend
	// the token's hourly budget in one check.
	// An accept is given on a commit of the pull request, which GitHub
	// lists 250 of, or on the merge base.
	maxAnchors = 250
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
func gatherProvenance(ctx context.Context, gh reader, in provenanceInput) (*checks.ProvenanceInput, error) {
	cfg := in.Config
	if in.PR.Number == 0 || in.HeadLog == nil || in.Replay == nil || in.Replay.Unsupported != nil || cfg.Provenance.Mode == config.ModeOff {
		return nil, nil
	}
	head := indexLines(in.HeadLog)
	added := addedEvents(in, head)
	shipped := shippedBaseAccepts(in, added, head)
	if len(added) == 0 && len(shipped) == 0 {
		return nil, nil
	}
	bots := botLogins(in.Run.BotLogin)
	g, err := newGatherer(ctx, gh, in, added, shipped)
	if err != nil {
		return nil, err
	}
	pin := checks.ProvenanceInput{
		ConfigBranch: in.ConfigBranch, BotLogins: bots, PRNumber: in.PR.Number,
		Reviews: map[int64]ghfacts.Review{}, Comments: map[int64]ghfacts.Comment{}, Stale: map[int]checks.StaleFacts{},
		CommentCommands: map[int64][]checks.CommentCommand{}, CommentHeads: map[int64]ghfacts.HeadAt{},
		Unchanged: map[checks.Span]bool{}, HeadCode: map[string]bool{}, Now: in.Run.now(),
		// The tasks awaiting review at the commits read (backing.go), as
		// the gathering finds them.
		Awaiting: g.awaiting,
	}
	// One pass over the added events, in file order: the commit that added
	// each (attribution.go), the backing of those the bot wrote, and what
	// coverage needs of the accepts the replay applied. Nothing of an
	// event is kept but that (docs/semantics.md §7).
	var accepts []addedAccept
	err = eachAdded(in.HeadLog, added, func(a *addedLine, ev *projection.Event) error {
		sha, why, err := g.introducer(g.head, a.key, int(a.occurrence))
		if err != nil {
			return err
		}
		if sha == "" {
			a.by = g.unattributed(why)
		} else {
			a.by = g.attributed(sha)
			m := g.meta[sha]
			if gref := ev.Payload.GitHub; gref != nil && checks.IsBotLogin(m.AuthorLogin, bots) {
				if err := g.fetchBacking(gref, g.facts[a.by].FirstParent(), &pin); err != nil {
					return err
				}
			}
		}
		if t := in.Replay.State.Tasks[ev.TaskID]; ev.Type == projection.TypeAccept && t != nil && t.Status == projection.StatusAccepted && t.AcceptLine == ev.Line {
			accepts = append(accepts, addedAccept{line: ev.Line, intro: sha, commit: ev.Payload.Commit, github: ev.Payload.GitHub})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := g.coverage(accepts, shipped, &pin); err != nil {
		return nil, err
	}
	pin.Events = func(yield func(checks.AddedEvent) bool) {
		_ = eachAdded(in.HeadLog, added, func(a *addedLine, ev *projection.Event) error {
			ae := checks.AddedEvent{Event: ev}
			if a.by >= 0 {
				ae.Commit = &g.facts[a.by]
			} else {
				ae.Unattributed = g.whys[^a.by]
			}
			if !yield(ae) {
				return errStop
			}
			return nil
		})
	}
	slog.Info("provenance gathered", "pr", in.PR.Number, "events", len(added), "shipped_accepts", len(shipped),
		"commits_listed", len(g.order), "log_reads", g.reads, "commit_lookups", g.fetches, "compares", g.compares)
	return &pin, nil
}

// errStop ends a walk of the added events early.
var errStop = errors.New("stop")

// shippedBaseAccepts lists the accept lines of the merge base's log that
// the pull request ships (checks.ShippedAccepts): they must cover its head
// too. None under stale: sticky, where every accept covers.
func shippedBaseAccepts(in provenanceInput, added []addedLine, head lineIndex) []shippedAccept {
	if in.Config.Provenance.Stale == config.StaleSticky {
		return nil
	}
	isAdded := map[int]bool{}
	for _, a := range added {
		isAdded[a.line] = true
	}
	branches := []string{in.PR.HeadRef}
	shipped := checks.ShippedAccepts(in.Replay.State, branches, in.ShippedAtBase)
	// The payload.commit of each accept line that is an event, by line.
	wanted := map[int]bool{}
	for _, t := range shipped {
		if !isAdded[t.AcceptLine] && t.AcceptLine <= len(head.keys) {
			wanted[t.AcceptLine] = true
		}
	}
	commits := map[int]string{}
	if len(wanted) > 0 {
		projection.EachEvent(in.HeadLog, func(ev *projection.Event) {
			if wanted[ev.Line] {
				commits[ev.Line] = ev.Payload.Commit
			}
		})
	}
	var out []shippedAccept
	for _, t := range shipped {
		if commit, ok := commits[t.AcceptLine]; ok {
			out = append(out, shippedAccept{addedLine: head.line(t.AcceptLine), commit: commit})
		}
	}
	return out
}

// addedLine is one event line the pull request adds, or one accept of the
// merge base's log it ships: its line, what stands for its bytes (lineKey),
// and how many identical lines the head's log holds up to and including
// it: the commit that added it is the first whose log holds that many.
// A pull request may add hundreds of thousands of lines; this is all that
// is kept of each (docs/semantics.md §7), which is why it is not the event
// (projection.Event) nor checks.AddedEvent, the event with its commit that
// the attribution's second pass hands checks one at a time.
type addedLine struct {
	line       int
	key        uint64
	occurrence int32
	// by is the commit that added the line, an index into
	// gatherer.facts, or when it could not be found ^ the index of why in
	// gatherer.whys.
	by int32
}

// shippedAccept is an accept of the merge base's log the pull request
// ships, with its payload.commit.
type shippedAccept struct {
	addedLine
	commit string
}

// addedAccept is an accept the pull request adds that its replay applied,
// as coverage judges it: its line, the commit that added it ("" when it
// cannot be told) and what its payload says it was given on.
type addedAccept struct {
	line   int
	intro  string
	commit string
	github *projection.GitHubRef
}

// lineIndex is, for each line of a log (line n at n-1), its key and how
// many lines up to and including it are identical to it.
type lineIndex struct {
	keys       []uint64
	occurrence []int32
}

func indexLines(log []byte) lineIndex {
	var x lineIndex
	seen := map[uint64]int32{}
	for _, l := range pactfile.Lines(log) {
		k := lineKey(l)
		seen[k]++
		x.keys = append(x.keys, k)
		x.occurrence = append(x.occurrence, seen[k])
	}
	return x
}

// line is what attribution needs of line n.
func (x lineIndex) line(n int) addedLine {
	return addedLine{line: n, key: x.keys[n-1], occurrence: x.occurrence[n-1]}
}

// addedEvents lists the events after the merge-base prefix: the lines that
// are an exact prefix of both logs are the base's, everything after it the
// pull request's (where the prefix does not hold, log.rewritten fails the
// check, and every line from the first difference on is judged). Byte-
// identical repeats of an earlier line with an event_id are skipped: replay
// leaves them out, so they can prove nothing.
func addedEvents(in provenanceInput, head lineIndex) []addedLine {
	base := pactfile.SplitLines(in.BaseLog)
	prefix := 0
	for n, l := range pactfile.Lines(in.HeadLog) {
		if n > len(base) || !bytes.Equal(base[n-1], l) {
			break
		}
		prefix = n
	}
	var out []addedLine
	projection.EachEvent(in.HeadLog, func(e *projection.Event) {
		if e.Line <= prefix || e.Line > len(head.keys) || e.Problem != nil {
			return
		}
		a := head.line(e.Line)
		if a.occurrence > 1 && e.EventID != "" {
			return
		}
		out = append(out, a)
	})
	return out
}

// eachAdded calls fn with each added line and its event, in file order,
// decoding the log again rather than keeping the events; the event is only
// valid during the call. The first error fn returns ends the walk.
func eachAdded(log []byte, added []addedLine, fn func(a *addedLine, ev *projection.Event) error) error {
	i := 0
	var err error
	projection.EachEvent(log, func(ev *projection.Event) {
		if err != nil || i >= len(added) || added[i].line != ev.Line {
			return
		}
		err = fn(&added[i], ev)
		i++
	})
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// gatherer fetches and caches, for one judgement, the GitHub facts
// provenance is judged on.
type gatherer struct {
	ctx  context.Context
	gh   reader
	in   provenanceInput
	head string
	// meta holds the commits known: the pull request's listing, then those
	// looked up one by one; order is the listing order (oldest first) with
	// looked-up pull request commits after it.
	meta   map[string]ghfacts.Commit
	listed map[string]bool
	order  []string
	absent map[string]bool // looked up and not found
	// interesting are the keys of the lines attributed, sorted; counts
	// holds, for each commit whose log was read, the keys of its
	// interesting lines, sorted (attribution.go).
	interesting []uint64
	counts      map[string][]uint64
	// facts are the commits that added lines, one per commit; whys the reasons a line's commit could not be found
	// (addedLine.by points into them).
	facts  []ghfacts.Commit
	factOf map[string]int32
	whys   []string
	whyOf  map[string]int32
	// chains are introducer's first-parent chains by starting commit,
	// while meta holds chainsOf commits.
	chains   map[string]chain
	chainsOf int
	compared map[string]comparison
	awaiting map[string][]string
	// code answers "same code?" (samecode.go).
	code *codeIdentity

	reads, fetches, compares int
}

func newGatherer(ctx context.Context, gh reader, in provenanceInput, added []addedLine, shipped []shippedAccept) (*gatherer, error) {
	g := &gatherer{
		ctx: ctx, gh: gh, in: in, head: in.PR.HeadSHA,
		meta: map[string]ghfacts.Commit{}, listed: map[string]bool{}, absent: map[string]bool{},
		counts: map[string][]uint64{}, factOf: map[string]int32{}, whyOf: map[string]int32{},
		chains: map[string]chain{}, compared: map[string]comparison{}, awaiting: map[string][]string{},
		code: newSameness(gh, in.Run.settings, in.Config.Provenance.Stale, in.DefaultTip),
	}
	g.code.knowMergeBase(g.head, in.HeadMeets)
	for _, a := range added {
		g.interesting = append(g.interesting, a.key)
	}
	for _, a := range shipped {
		g.interesting = append(g.interesting, a.key)
	}
	slices.Sort(g.interesting)
	g.interesting = slices.Compact(g.interesting)
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

// attributed is the index in facts of commit sha, which added a line.
func (g *gatherer) attributed(sha string) int32 {
	if i, ok := g.factOf[sha]; ok {
		return i
	}
	c := g.meta[sha]
	c.SHA = sha
	g.facts = append(g.facts, c)
	g.factOf[sha] = int32(len(g.facts) - 1)
	return g.factOf[sha]
}

// unattributed is ^ the index in whys of why a line's commit cannot be
// found.
func (g *gatherer) unattributed(why string) int32 {
	i, ok := g.whyOf[why]
	if !ok {
		g.whys = append(g.whys, why)
		i = int32(len(g.whys) - 1)
		g.whyOf[why] = i
	}
	return ^i
}
