package checks

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// History judges append-only against the merge base (docs/semantics.md §5): the
// merge-base log's lines must be an exact prefix of the head log's lines. It
// reports the first place the PR diverges, since everything after it is
// judged relative to a history that no longer holds.
func History(logPath string, base, head []byte) []Finding {
	return history(logPath, base, head, mergeBaseNames)
}

// mergeBaseNames name the logs History compares.
var mergeBaseNames = historyNames{log: "the merge-base log", short: "the merge base", head: "the PR's log"}

// GroupHistory judges a merge group's log append-only against its parent
// commit (the head of the group queued ahead of it, or the base branch's
// tip), as History does against the merge base: a pull request queued
// behind another must not rewrite what the one ahead adds, though the base
// branch's log alone cannot show it (docs/check.md, merge queues).
func GroupHistory(logPath, parent string, parentLog, head []byte) []Finding {
	short := prose.ShortSHA(parent)
	out := history(logPath, parentLog, head, historyNames{
		log: "the log of " + short + " (the commit this merge group is queued behind)", short: short, head: "the merge group's log"})
	for i := range out {
		out[i].Hint = "A pull request of this group rewrites lines that a pull request queued ahead of it adds: take it out of the queue and, once the one ahead has merged, merge the base branch into it with pactify's merge driver (`pactify install`), which keeps the base branch's lines first."
	}
	return out
}

// historyNames say which logs a history finding compares.
type historyNames struct {
	// log names the earlier log, short its commit; head the later log.
	log, short, head string
}

func history(logPath string, base, head []byte, n historyNames) []Finding {
	bl, hl := pactfile.SplitLines(base), pactfile.SplitLines(head)
	for i, b := range bl {
		if i < len(hl) && bytes.Equal(b, hl[i]) {
			continue
		}
		var msg string
		line := i + 1
		switch {
		case i >= len(hl):
			msg = fmt.Sprintf("%s has %d line(s) but %s has %d: line %d and every line after it were deleted", n.head, len(hl), n.log, len(bl), i+1)
			line = len(hl)
		case indexFrom(bl, hl[i], i+1) >= 0:
			msg = fmt.Sprintf("line %d of %s was deleted or moved (line %d now holds what %s has on line %d)", i+1, n.log, i+1, n.short, indexFrom(bl, hl[i], i+1)+1)
		case indexFrom(hl, b, i+1) >= 0:
			msg = fmt.Sprintf("a line was inserted before line %d of %s, which now sits on line %d; new events must go after the last line", i+1, n.log, indexFrom(hl, b, i+1)+1)
		default:
			from := diffStart(b, hl[i])
			msg = fmt.Sprintf("line %d of %s was changed: it was %s and is now %s", i+1, n.log, excerpt(b, from), excerpt(hl[i], from))
		}
		f := newFinding(CodeLogRewritten, logPath, line, msg)
		f.Hint = rewrittenHint
		return []Finding{f}
	}
	return nil
}

func indexFrom(lines [][]byte, want []byte, from int) int {
	for j := from; j < len(lines); j++ {
		if bytes.Equal(lines[j], want) {
			return j
		}
	}
	return -1
}

// diffStart is where an excerpt of two differing lines should start so that
// it shows the difference: a little before their first differing byte, on a
// UTF-8 character boundary of both.
func diffStart(a, b []byte) int {
	const context = 20
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	from := max(n-context, 0)
	for from > 0 && (!utf8.RuneStart(a[from]) || from < len(b) && !utf8.RuneStart(b[from])) {
		from--
	}
	return from
}

// excerpt quotes up to 80 bytes of b from the given offset, marking what it
// leaves out, and never cuts a UTF-8 character.
func excerpt(b []byte, from int) string {
	const max = 80
	s := string(b[from:])
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	if from > 0 {
		s = "…" + s
	}
	return fmt.Sprintf("%q", s)
}

// Waiting applies Rule 2 to a pull request's head branch (docs/semantics.md §3,
// §5): every feature with a task on the branch must have all its tasks
// accepted. Each task still open is a pending finding that says what it waits
// for and from whom. notAccepted names accepted tasks that must still count
// as open (a stale accept under a require policy), with the reason;
// shippedAtBase the features the merge base had shipped (ShippedAtBase),
// which the pull request does not ship.
//
// Each finding's hint names what ends the wait (waitingHint): the owner's
// join or checkpoint, or the reviewer's review by the accounts cfg maps to
// the reviewer's seat (cfg may be nil).
func Waiting(logPath string, st *projection.State, headBranch string, notAccepted map[string]string, shippedAtBase map[string]bool, cfg *config.Config) []Finding {
	var out []Finding
	for _, feature := range shipping(st, headBranch, shippedAtBase) {
		for _, id := range st.Features[feature].Tasks {
			t := st.Tasks[id]
			why := WaitingFor(t)
			if t.Status == projection.StatusAccepted {
				reason, stale := notAccepted[id]
				if !stale {
					continue
				}
				why = fmt.Sprintf("a fresh review by %s, because %s", t.Reviewer, reason)
			}
			f := newFinding(CodePRUnaccepted, logPath, t.AssignLine,
				fmt.Sprintf("waiting for %s (feature %s): %s", id, feature, why))
			f.TaskID, f.Feature = id, feature
			f.Hint = waitingHint(st, t, cfg.LoginsOf(t.Reviewer))
			out = append(out, f)
		}
	}
	return out
}

// WaitingFor says, in a few words, what an unaccepted task waits for and from
// whom.
func WaitingFor(t *projection.Task) string {
	switch t.Status {
	case projection.StatusAssigned:
		return fmt.Sprintf("assigned to %s, who has not joined yet", t.Owner)
	case projection.StatusInProgress:
		if t.Rounds > 0 {
			return fmt.Sprintf("in progress by %s after %s requested changes", t.Owner, t.Reviewer)
		}
		return fmt.Sprintf("in progress by %s, not yet checkpointed", t.Owner)
	case projection.StatusAwaitingReview:
		return fmt.Sprintf("awaiting review by %s", t.Reviewer)
	case projection.StatusAccepted:
		return fmt.Sprintf("accepted by %s", t.Reviewer)
	}
	return string(t.Status)
}

// PullRequestFacts is what a pull request adds to validate's input,
// gathered by the caller (from GitHub, or from git for the local preview).
type PullRequestFacts struct {
	// BaseLog is the merge base's log (nil: no base to judge against, or a
	// base without a log); HeadLog the head's.
	BaseLog, HeadLog []byte
	// Branches are the head branches whose features the PR ships.
	Branches []string
	// Config is .github/pact.yml at the default branch's tip
	// (docs/semantics.md §5), parsed once by the caller (config.ParseFile),
	// which needs its policy to know what to gather: PullRequest judges by
	// it and reports what is wrong with it, and does not read Input.Config.
	Config config.File
	// Provenance holds the facts about the events the PR adds (nil when
	// none were gathered: the policy is off, the file unusable, or no pull
	// request is at hand). PullRequest sets its LogPath, Config, State,
	// Branches and ShippedAtBase.
	Provenance *ProvenanceInput
	// ChangesOutsidePact says the pull request changes files outside the
	// pact directory; the caller asks only when unmapped-branches: block
	// would make it decide (see Unmapped).
	ChangesOutsidePact bool
	// MergeGroup judges a merge queue's commit: Rule 2 for every queued
	// branch; unmapped branches were judged on each pull request.
	MergeGroup bool
	// Default is where the head meets the default branch when the pull
	// request's base is another branch; nil when the base is the default
	// branch. The head then gets the worse of two verdicts, against its
	// own merge base and as a pull request into the default branch
	// (docs/semantics.md §5): a base its author created can never make a
	// head look better than it would look where it will merge in the end.
	Default *DefaultBase
}

// DefaultBase is where a pull request's head meets the default branch:
// what the head would be judged against in a pull request into it.
type DefaultBase struct {
	// Branch is the default branch's name, for messages.
	Branch string
	// Log is the log at the merge base of the head and the default
	// branch's tip (nil: none there).
	Log []byte
	// ChangesOutsidePact says the head changes files outside the pact
	// directory against that merge base (asked as ChangesOutsidePact is).
	ChangesOutsidePact bool
}

// prBase is one base a head is judged against: the pull request's own,
// or the default branch (PullRequestFacts.Default).
type prBase struct {
	log            []byte
	changesOutside bool
	names          historyNames
	// into is the default branch when this is the verdict into it, "" for
	// the pull request's own base.
	into string
	// shipped is shippedAtBase of the head's replay at this base, for the
	// pull request's branches (withShipped).
	shipped map[string]bool
}

// bases are the bases the head is judged against: its own, and the
// default branch when that is another (docs/semantics.md §5). This is the
// one place that decides which bases a verdict weighs.
func (pr PullRequestFacts) bases() []prBase {
	out := []prBase{{log: pr.BaseLog, changesOutside: pr.ChangesOutsidePact, names: mergeBaseNames}}
	if d := pr.Default; d != nil {
		out = append(out, prBase{log: d.Log, changesOutside: d.ChangesOutsidePact, into: d.Branch, names: historyNames{
			log:   "the log where this head meets " + d.Branch + " (the default branch, which a pull request into another base is judged against too)",
			short: "that merge base with " + d.Branch,
			head:  "the PR's log",
		}})
	}
	return out
}

// withShipped is bases with each one's shipped features for the head's
// replay state: each base's log replayed once, and only when the head has
// shipped a feature on the pull request's branches (shippedAtBase).
func (pr PullRequestFacts) withShipped(bases []prBase, state *projection.State) []prBase {
	for i := range bases {
		bases[i].shipped = shippedAtBase(state, bases[i].log, pr.Branches)
	}
	return bases
}

// shippedAtEvery is what is shipped at every one of bases (withShipped),
// a map of its own: the bases' stay as they are.
func shippedAtEvery(bases []prBase) map[string]bool {
	shipped := maps.Clone(bases[0].shipped)
	for _, b := range bases[1:] {
		for f := range shipped {
			if !b.shipped[f] {
				delete(shipped, f)
			}
		}
	}
	return shipped
}

// ShippedAtBase lists the features on the pull request's branches that
// count as shipped before it (checks.ShippedAtBase): those shipped at every
// base it is judged against, so that a base which claims a feature
// shipped spares none of its tasks the judgement the default branch would
// give them. state is the head's replay.
func (pr PullRequestFacts) ShippedAtBase(state *projection.State) map[string]bool {
	return shippedAtEvery(pr.withShipped(pr.bases(), state))
}

// PullRequest judges a pull request's head the way the check does, in
// one call: everything Run judges, append-only history against the merge
// base, provenance (which can leave accepted tasks counted as open), Rule 2
// for the head branches (every accept covering the head), and the
// unmapped-branches policy. A log that fails closed on a newer protocol
// major gets only that finding.
func PullRequest(in Input, pr PullRequestFacts) []Finding {
	return inPactDir(Cap(JudgePullRequest(in, pr).Findings), in.layout())
}

// PullRequestVerdict is PullRequest's judgement with what the bot tells a
// reviewer: the accepted tasks whose coverage a fresh review renewed. Its
// findings are not capped beyond what Run caps (every waiting task is
// there, for PlanReviewRequests): Cap them before they are shown.
type PullRequestVerdict struct {
	Findings []Finding
	// Renewed maps a task to the review whose approval renewed its
	// accept's coverage of the head.
	Renewed map[string]int64
}

// JudgePullRequest is PullRequest, with the fresh reviews it counted.
func JudgePullRequest(in Input, pr PullRequestFacts) PullRequestVerdict {
	out := run(in, pr.Config)
	if in.Replay.Unsupported != nil {
		return PullRequestVerdict{Findings: out}
	}
	bases := pr.withShipped(pr.bases(), in.Replay.State)
	for _, b := range bases {
		out = appendNew(out, history(in.LogPath(), b.log, pr.HeadLog, b.names))
	}
	cfg := pr.Config.Config
	var notAccepted map[string]string
	var renewed map[string]int64
	shippedAtBase := shippedAtEvery(bases)
	if p := pr.Provenance; p != nil && pr.Config.Err == nil { // Provenance judges nothing under mode off
		facts := *p
		facts.LogPath, facts.Config, facts.State, facts.Branches, facts.ShippedAtBase = in.LogPath(), cfg, in.Replay.State, pr.Branches, shippedAtBase
		res := judgeProvenance(facts)
		out = append(out, res.Findings...)
		notAccepted, renewed = res.NotAccepted, res.Renewed
	}
	for _, b := range pr.Branches {
		out = append(out, Waiting(in.LogPath(), in.Replay.State, b, notAccepted, shippedAtBase, cfg)...)
		if !pr.MergeGroup {
			out = append(out, unmappedWorst(in.LogPath(), in.Replay.State, bases, b, cfg.UnmappedBranches)...)
		}
	}
	Sort(out)
	return PullRequestVerdict{Findings: inPactDir(out, in.layout()), Renewed: renewed}
}

// unmappedWorst applies the unmapped-branches policy against every base
// the head is judged against and keeps the worst answer: an error into the
// default branch stands though the pull request's own base would only
// warn.
func unmappedWorst(logPath string, head *projection.State, bases []prBase, branch string, policy config.Unmapped) []Finding {
	var worst []Finding
	for _, b := range bases {
		fs := unmapped(logPath, head, b.shipped, branch, policy, b.changesOutside)
		// Unmapped answers a warning or an error: an error is worse.
		if len(fs) == 0 || len(worst) > 0 && (worst[0].Severity == SeverityError || fs[0].Severity != SeverityError) {
			continue
		}
		if b.into != "" {
			fs[0].Message = fmt.Sprintf("as a pull request into the default branch %s: %s", b.into, fs[0].Message)
		}
		worst = fs
	}
	return worst
}

// appendNew appends the findings of add that out does not hold yet.
func appendNew(out, add []Finding) []Finding {
	for _, f := range add {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// Unmapped applies the unmapped-branches policy (docs/semantics.md §5) to a
// pull request's head branch: a branch that ships no feature is one no task
// names, or whose tasks all belong to features the merge base had already
// shipped (a new pull request from an old feature's branch ships nothing
// either). Under warn that is a warning; under block an error when the pull
// request changes files outside the pact directory, else a warning; under
// allow nothing. A log without an init has its own findings.
func Unmapped(logPath string, head *projection.State, baseLog []byte, branch string, policy config.Unmapped, changesOutside bool) []Finding {
	if policy == config.UnmappedAllow || head == nil || !head.Initialized {
		return nil
	}
	return unmapped(logPath, head, shippedAtBase(head, baseLog, []string{branch}), branch, policy, changesOutside)
}

// unmapped is Unmapped with what the base had shipped of the features on
// branch (shippedAtBase; its answers for features on other branches are
// not looked at).
func unmapped(logPath string, head *projection.State, shippedAtBase map[string]bool, branch string, policy config.Unmapped, changesOutside bool) []Finding {
	if policy == config.UnmappedAllow || head == nil || !head.Initialized {
		return nil
	}
	features := head.FeaturesOnBranch(branch)
	if len(shipping(head, branch, shippedAtBase)) > 0 {
		return nil
	}
	msg := fmt.Sprintf("no task names branch %s (the assign events' branch), so this pull request ships no feature and Rule 2 holds nothing back", branch)
	if len(features) > 0 {
		msg = fmt.Sprintf("branch %s only names tasks of %s, which the base branch already shipped, so this pull request ships no feature and Rule 2 holds nothing back", branch, strings.Join(features, ", "))
	}
	f := newFinding(CodePRUnmappedBranch, logPath, 0, msg)
	f.Hint = unmappedHint(head, branch)
	if policy == config.UnmappedBlock {
		if changesOutside {
			f.Severity = SeverityError
			f.Message += fmt.Sprintf(", yet it changes files outside %s (unmapped-branches: block)", pactDirOf(logPath))
		} else {
			f.Message += fmt.Sprintf("; it only changes %s, which unmapped-branches: block allows", pactDirOf(logPath))
		}
	}
	return []Finding{f}
}
