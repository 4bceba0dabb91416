package action

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/pact-action/pact-action/bot"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

// provenanceInput is what the provenance judgement of a pull request reads.
type provenanceInput struct {
	PR        ghapi.PR
	HeadSHA   string
	BaseRef   string
	LogPath   string
	MergeBase string
	BaseLog   []byte
	HeadLog   []byte
	Log       *projection.Log
	Replay    *projection.Result
	// Config is .github/pact.yml at the base branch's tip (the default
	// when absent).
	Config *config.Config
	// BotLogin is an extra account the bot commits as (the bot-login
	// input, e.g. a GitHub App's "name[bot]"); github-actions[bot] always
	// is one.
	BotLogin string
	Settings Settings
}

// provenanceResult is the judgement: findings, and the accepted tasks that
// must still count as open for Rule 2 (a stale accept under require).
type provenanceResult struct {
	Findings    []checks.Finding
	NotAccepted map[string]string
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

// judgeProvenance proves who wrote each event the pull request adds, and
// whether the code changed after each accept it adds (SEMANTICS.md §5).
//
// API calls, all reads that the workflow token may make: the pull request's
// commits listed once; the log read at a few commits to find the commit
// that added each line (a binary search along first-parent chains, cached
// per commit, at most maxLogReads); for lines the bot wrote, the pull
// request's reviews listed once, at most two calls per distinct comment id
// plus one look into the branch's push history, one read of the log at
// each reviewed or commented-on commit, and one comparison when a comment's
// line was recorded on a later commit; one comparison per distinct accepted
// commit under stale: tree, plus at most maxStaleCompares to name the
// commits that made accepts stale; and at most maxCommitFetches lookups of
// commits the listing lacks.
func judgeProvenance(ctx context.Context, gh Reader, in provenanceInput) (provenanceResult, error) {
	var out provenanceResult
	cfg := in.Config
	if in.PR.Number == 0 || in.Log == nil || in.Replay == nil || in.Replay.Unsupported != nil || cfg.Provenance.Mode == config.ModeOff {
		return out, nil
	}
	added := addedEvents(in)
	if len(added) == 0 {
		return out, nil
	}
	bots := []string{checks.DefaultBotLogin}
	if b := strings.TrimSpace(in.BotLogin); b != "" && !checks.IsBotLogin(b, bots) {
		bots = append(bots, b)
	}
	g, err := newGatherer(ctx, gh, in, added)
	if err != nil {
		return out, err
	}
	pin := checks.ProvenanceInput{
		LogPath: in.LogPath, BaseRef: in.BaseRef, Config: cfg, BotLogins: bots,
		Branches: []string{in.PR.HeadRef}, PRNumber: in.PR.Number, State: in.Replay.State,
		Reviews: map[int64]checks.ReviewFact{}, Comments: map[int64]checks.CommentFact{}, Stale: map[int]checks.StaleFacts{},
		Unchanged: map[checks.Span]bool{}, Now: in.Settings.now(),
	}
	intro := map[int]string{}
	for _, a := range added {
		ae := checks.AddedEvent{Event: a.ev}
		sha, why, err := g.introducer(a.content, a.occurrence)
		if err != nil {
			return out, err
		}
		if sha == "" {
			ae.Unattributed = why
		} else {
			m := g.meta[sha]
			ae.Commit = &checks.ProvenanceCommit{SHA: sha, Parents: m.Parents, Date: m.CommitterDate,
				AuthorLogin: m.AuthorLogin, CommitterLogin: m.CommitterLogin, Verified: m.Verified}
			intro[a.ev.Line] = sha
			if gref := a.ev.Payload.GitHub; gref != nil && checks.IsBotLogin(m.AuthorLogin, bots) {
				if err := g.fetchBacking(gref, ae.Commit.FirstParent(), &pin); err != nil {
					return out, err
				}
			}
		}
		pin.Events = append(pin.Events, ae)
	}
	if cfg.Provenance.Stale != config.StaleSticky {
		for _, a := range added {
			t := in.Replay.State.Tasks[a.ev.TaskID]
			if a.ev.Type != projection.TypeAccept || t == nil || t.Status != projection.StatusAccepted || t.AcceptLine != a.ev.Line {
				continue
			}
			parent := ""
			if m, ok := g.meta[intro[a.ev.Line]]; ok && len(m.Parents) > 0 {
				parent = m.Parents[0]
			}
			sf, err := g.staleFacts(cfg.Provenance.Stale, checks.AcceptAnchor(a.ev, pin.Reviews, parent), intro[a.ev.Line])
			if err != nil {
				return out, err
			}
			pin.Stale[a.ev.Line] = sf
		}
	}
	res := checks.Provenance(pin)
	for line, ev := range res.Evidence {
		slog.Debug("provenance verified", "line", line, "evidence", ev)
	}
	slog.Info("provenance judged", "pr", in.PR.Number, "events", len(added), "findings", len(res.Findings),
		"commits_listed", len(g.order), "log_reads", g.reads, "commit_lookups", g.fetches, "compares", g.compares)
	out.Findings, out.NotAccepted = res.Findings, res.NotAccepted
	return out, nil
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
	for i := range in.Log.Events {
		ev := &in.Log.Events[i]
		idx := ev.Line - 1
		if ev.Line <= prefix || idx >= len(head) || ev.Problem != nil {
			continue
		}
		if occ[idx] > 1 && ev.EventID != "" {
			continue
		}
		out = append(out, addedLine{ev: ev, content: string(head[idx]), occurrence: occ[idx]})
	}
	return out
}

// gatherer fetches and caches, for one judgement, the GitHub facts
// provenance is judged on.
type gatherer struct {
	ctx     context.Context
	gh      Reader
	in      provenanceInput
	pactDir string
	head    string
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
	reviewsRead bool
	comments    map[int64]bool

	reads, fetches, compares int
}

func newGatherer(ctx context.Context, gh Reader, in provenanceInput, added []addedLine) (*gatherer, error) {
	g := &gatherer{
		ctx: ctx, gh: gh, in: in, head: in.HeadSHA, pactDir: path.Dir(in.LogPath) + "/",
		meta: map[string]ghapi.Commit{}, listed: map[string]bool{}, absent: map[string]bool{},
		interesting: map[string]bool{}, counts: map[string]map[string]int{}, compared: map[string]comparison{}, awaiting: map[string][]string{},
		comments: map[int64]bool{},
	}
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

func (g *gatherer) count(log []byte) map[string]int {
	m := map[string]int{}
	for _, l := range pactfile.SplitLines(log) {
		if g.interesting[string(l)] {
			m[string(l)]++
		}
	}
	return m
}

// has reports whether the log at sha holds line at least occ times.
func (g *gatherer) has(sha, line string, occ int) (bool, error) {
	m, ok := g.counts[sha]
	if !ok {
		if g.reads >= maxLogReads {
			return false, errBudget
		}
		g.reads++
		b, err := readRequired(g.ctx, apiSource{gh: g.gh, ref: sha}, g.in.LogPath)
		if err != nil {
			return false, err
		}
		m = g.count(b)
		g.counts[sha] = m
	}
	return m[line] >= occ, nil
}

// lookup returns the metadata of sha, looking it up when the listing lacks
// it (bounded); nil when it cannot be had.
func (g *gatherer) lookup(sha string) (*ghapi.Commit, error) {
	if m, ok := g.meta[sha]; ok {
		return &m, nil
	}
	if g.absent[sha] || g.fetches >= maxCommitFetches {
		return nil, nil
	}
	g.fetches++
	c, err := g.gh.Commit(g.ctx, sha)
	if errors.Is(err, ghapi.ErrNotFound) {
		g.absent[sha] = true
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look up commit %s: %w", prose.ShortSHA(sha), err)
	}
	g.meta[sha] = *c
	g.order = append(g.order, sha)
	return c, nil
}

// introducer finds the commit that added the occ-th copy of line: a commit
// whose log holds it while none of its parents' logs do. It walks from the
// head, which holds it, along first-parent chains, binary-searching each
// chain (every adjacent pair where the line appears is a commit that
// added it, so the search needs no assumption about the order GitHub lists
// commits in, whose dates an author can forge), and descends into a merged
// parent when the line came from there. It returns "" and why when the
// commit cannot be found.
func (g *gatherer) introducer(line string, occ int) (string, string, error) {
	has := func(sha string) (bool, error) { return g.has(sha, line, occ) }
	cur := g.head
	for hop := 0; hop < maxHops; hop++ {
		m, err := g.lookup(cur)
		if err != nil {
			return "", "", err
		}
		if m == nil {
			return "", g.unreachable(cur), nil
		}
		// The chain: cur and its listed first-parent ancestors; sentinel is
		// the first parent beyond them ("" for a root commit).
		chain := []string{cur}
		inChain := map[string]bool{cur: true}
		sentinel := ""
		for {
			last := g.meta[chain[len(chain)-1]]
			if len(last.Parents) == 0 {
				break
			}
			p := last.Parents[0]
			if _, known := g.meta[p]; !known || inChain[p] {
				sentinel = p
				break
			}
			chain = append(chain, p)
			inChain[p] = true
		}
		if sentinel != "" {
			ok, err := has(sentinel)
			if errors.Is(err, errBudget) {
				return "", budgetWhy(), nil
			} else if err != nil {
				return "", "", err
			}
			if ok {
				cur = sentinel // older than every commit known: look it up
				continue
			}
		}
		lo, hi := 0, len(chain) // chain[lo] holds the line; chain[hi] (or the sentinel) does not
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			ok, err := has(chain[mid])
			if errors.Is(err, errBudget) {
				return "", budgetWhy(), nil
			} else if err != nil {
				return "", "", err
			}
			if ok {
				lo = mid
			} else {
				hi = mid
			}
		}
		added := chain[lo]
		next := ""
		for _, p := range g.meta[added].Parents[min(1, len(g.meta[added].Parents)):] {
			ok, err := has(p)
			if errors.Is(err, errBudget) {
				return "", budgetWhy(), nil
			} else if err != nil {
				return "", "", err
			}
			if ok {
				next = p
				break
			}
		}
		if next == "" {
			return added, "", nil
		}
		cur = next
	}
	return "", "the history that leads to it merges too many branches to follow", nil
}

func budgetWhy() string {
	return fmt.Sprintf("finding it would need more than %d reads of the log", maxLogReads)
}

func (g *gatherer) unreachable(sha string) string {
	switch {
	case g.fetches >= maxCommitFetches:
		return fmt.Sprintf("the pull request has more commits than GitHub lists (250) and looking up more than %d of the rest one by one was not attempted", maxCommitFetches)
	}
	return fmt.Sprintf("GitHub does not know commit %s", prose.ShortSHA(sha))
}

// fetchBacking gathers what the review or comment a bot-written event
// names is judged on: the pull request's reviews (once), or the comment
// (once per id) with the head of the branch when it was made, and whether
// the task awaited review there. parent is the commit the event's line was
// recorded on.
func (g *gatherer) fetchBacking(ref *projection.GitHubRef, parent string, pin *checks.ProvenanceInput) error {
	n := g.in.PR.Number
	switch {
	case ref.ReviewID != 0:
		if !g.reviewsRead {
			g.reviewsRead = true
			list, err := g.gh.Reviews(g.ctx, n)
			if err != nil {
				return fmt.Errorf("list the reviews of pull request #%d: %w", n, err)
			}
			for _, r := range list {
				pin.Reviews[r.ID] = checks.ReviewFact{Found: true, State: strings.ToUpper(r.State), AuthorLogin: r.AuthorLogin, CommitID: r.CommitID, SubmittedAt: r.SubmittedAt}
			}
		}
		rf, ok := pin.Reviews[ref.ReviewID]
		if !ok || rf.AwaitingKnown {
			return nil
		}
		var err error
		if rf.Awaiting, rf.AwaitingKnown, err = g.awaitingAt(rf.CommitID); err != nil {
			return err
		}
		pin.Reviews[ref.ReviewID] = rf
	case ref.CommentID != 0:
		if !g.comments[ref.CommentID] {
			g.comments[ref.CommentID] = true
			cf, err := g.comment(ref.CommentID)
			if err != nil {
				return err
			}
			pin.Comments[ref.CommentID] = cf
		}
		cf := pin.Comments[ref.CommentID]
		if h := cf.HeadAtComment; h != "" && parent != "" && h != parent {
			if _, asked := pin.Unchanged[checks.Span{From: h, To: parent}]; !asked {
				files, err := g.compare(h, parent)
				switch {
				case errors.Is(err, ghapi.ErrNotFound):
					pin.Unchanged[checks.Span{From: h, To: parent}] = false
				case err != nil:
					return err
				default:
					pin.Unchanged[checks.Span{From: h, To: parent}] = len(g.outsidePact(files)) == 0 && len(files) < compareFileLimit
				}
			}
		}
	}
	return nil
}

// comment gathers the facts of one comment: who wrote it and when, whether
// it was edited, its /pact commands as GitHub renders them, and the head of
// the branch when it was made with the tasks awaiting review there.
func (g *gatherer) comment(id int64) (checks.CommentFact, error) {
	// The event does not say which kind of comment it was; the two kinds
	// have separate ids, so try one, then the other.
	var c *ghapi.PRComment
	for _, kind := range []ghapi.CommentKind{ghapi.IssueComment, ghapi.ReviewComment} {
		got, err := g.gh.GetComment(g.ctx, kind, id)
		if errors.Is(err, ghapi.ErrNotFound) {
			continue
		}
		if err != nil {
			return checks.CommentFact{}, fmt.Errorf("read comment %d: %w", id, err)
		}
		c = got
		break
	}
	if c == nil {
		return checks.CommentFact{}, nil
	}
	cf := checks.CommentFact{Found: true, AuthorLogin: c.AuthorLogin, Number: c.Number, CreatedAt: c.CreatedAt, Edited: c.UpdatedAt.After(c.CreatedAt)}
	cf.Commands = commentCommands(c.Body)
	head, why, err := headAtComment(g.ctx, g.gh, g.in.PR, c.CreatedAt)
	if err != nil {
		return cf, err
	}
	cf.HeadAtComment, cf.HeadWhy = head, why
	if head != "" {
		if cf.Awaiting, cf.AwaitingKnown, err = g.awaitingAt(head); err != nil {
			return cf, err
		}
	}
	return cf, nil
}

// commentCommands are the event-recording /pact commands of a comment body,
// read with the bot's own parser.
func commentCommands(body string) []checks.CommentCommand {
	var out []checks.CommentCommand
	for _, cmd := range bot.ParseCommands(body) {
		switch cmd.Verb {
		case bot.VerbAccept:
			out = append(out, checks.CommentCommand{Type: projection.TypeAccept, Task: cmd.Task})
		case bot.VerbChanges:
			out = append(out, checks.CommentCommand{Type: projection.TypeChangesRequested, Task: cmd.Task})
		}
	}
	return out
}

// headAtComment is the commit the pull request's head branch pointed at
// when a comment was made, from GitHub's push history ("" and why when it
// cannot be told).
func headAtComment(ctx context.Context, gh Reader, pr ghapi.PR, at time.Time) (string, string, error) {
	if pr.Fork {
		return "", "the branch lives in a fork, whose push history this repository does not have", nil
	}
	sha, err := gh.BranchHeadAt(ctx, pr.HeadRef, at)
	switch {
	case errors.Is(err, ghapi.ErrNotFound):
		return "", "GitHub's push history of the branch does not reach back to the comment", nil
	case err != nil:
		return "", "", fmt.Errorf("read the push history of %s: %w", pr.HeadRef, err)
	}
	return sha, "", nil
}

// awaitingAt lists the tasks awaiting review in the log at sha (one read
// per commit, the two logs already read excepted); known is false when the
// read budget is spent or sha is not a commit id.
func (g *gatherer) awaitingAt(sha string) (tasks []string, known bool, err error) {
	if got, ok := g.awaiting[sha]; ok {
		return got, true, nil
	}
	var log []byte
	switch {
	case sha == g.head:
		log = g.in.HeadLog
	case sha == g.in.MergeBase:
		log = g.in.BaseLog
	case !commitSHA.MatchString(sha) || g.reads >= maxLogReads:
		return nil, false, nil
	default:
		g.reads++
		if log, err = readRequired(g.ctx, apiSource{gh: g.gh, ref: sha}, g.in.LogPath); err != nil {
			return nil, false, err
		}
	}
	st := projection.Replay(projection.ParseBytes(log)).State
	tasks = []string{}
	for _, id := range st.TaskOrder {
		if st.Tasks[id].Status == projection.StatusAwaitingReview {
			tasks = append(tasks, id)
		}
	}
	g.awaiting[sha] = tasks
	return tasks, true, nil
}

// staleFacts gathers what the staleness of an accept given on anchor and
// recorded by commit intro is judged on.
func (g *gatherer) staleFacts(policy config.Stale, anchor, intro string) (checks.StaleFacts, error) {
	sf := checks.StaleFacts{Anchor: anchor}
	if anchor == "" {
		return sf, nil
	}
	if !commitSHA.MatchString(anchor) {
		// Never put a string from the log into an API path unchecked.
		sf.Missing = true
		return sf, nil
	}
	known := anchor == g.in.MergeBase
	if _, ok := g.meta[anchor]; ok {
		known = true
	}
	if !known && policy == config.StalePush {
		m, err := g.lookup(anchor)
		if err != nil {
			return sf, err
		}
		if m == nil && g.absent[anchor] {
			sf.Missing = true
			return sf, nil
		}
	}
	before := g.ancestors(anchor)
	var candidates []string
	for _, sha := range g.order {
		if before[sha] || !g.prCommit(sha) {
			continue
		}
		if sha == intro {
			candidates = append(candidates, sha)
			continue
		}
		sf.After = append(sf.After, sha)
		candidates = append(candidates, sha)
	}
	if policy != config.StaleTree {
		return sf, nil
	}
	files, err := g.compare(anchor, g.head)
	if errors.Is(err, ghapi.ErrNotFound) {
		sf.Missing = true
		return sf, nil
	}
	if err != nil {
		return sf, err
	}
	sf.Changed = g.outsidePact(files)
	sf.Truncated = len(files) >= compareFileLimit
	if len(sf.Changed) == 0 && !sf.Truncated {
		return sf, nil
	}
	// Name the commits that changed code: ordinary commits first, merges
	// (whose diff against the first parent repeats the merged commits')
	// only when no ordinary commit did.
	var merges []string
	examine := func(sha string) (bool, error) {
		m := g.meta[sha]
		if len(m.Parents) == 0 {
			return false, nil
		}
		if _, done := g.compared[m.Parents[0]+"..."+sha]; !done && g.compares >= maxStaleCompares {
			sf.Unexamined++
			return false, nil
		}
		files, err := g.compare(m.Parents[0], sha)
		if errors.Is(err, ghapi.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return len(g.outsidePact(files)) > 0, nil
	}
	for _, sha := range candidates {
		if len(g.meta[sha].Parents) > 1 {
			merges = append(merges, sha)
			continue
		}
		touched, err := examine(sha)
		if err != nil {
			return sf, err
		}
		if touched {
			sf.Touching = append(sf.Touching, sha)
		}
	}
	for _, sha := range merges {
		if len(sf.Touching) > 0 {
			break
		}
		touched, err := examine(sha)
		if err != nil {
			return sf, err
		}
		if touched {
			sf.Touching = append(sf.Touching, sha)
		}
	}
	return sf, nil
}

// prCommit reports whether sha is one of the pull request's commits: listed,
// or looked up while walking back from its head.
func (g *gatherer) prCommit(sha string) bool {
	if g.listed[sha] {
		return true
	}
	_, ok := g.meta[sha]
	return ok && sha != g.in.MergeBase
}

// ancestors returns sha and its ancestors among the known commits.
func (g *gatherer) ancestors(sha string) map[string]bool {
	seen := map[string]bool{}
	stack := []string{sha}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[c] {
			continue
		}
		seen[c] = true
		stack = append(stack, g.meta[c].Parents...)
	}
	return seen
}

// comparison is a cached CompareFiles answer: the files, or the error of a
// commit GitHub does not know.
type comparison struct {
	files []string
	err   error
}

// compare returns the paths changed from base to head, cached per pair.
func (g *gatherer) compare(base, head string) ([]string, error) {
	key := base + "..." + head
	if c, ok := g.compared[key]; ok {
		return c.files, c.err
	}
	g.compares++
	files, err := g.gh.CompareFiles(g.ctx, base, head)
	if err != nil && !errors.Is(err, ghapi.ErrNotFound) {
		return nil, err
	}
	g.compared[key] = comparison{files: files, err: err}
	return files, err
}

func (g *gatherer) outsidePact(files []string) []string {
	var out []string
	for _, f := range files {
		if !strings.HasPrefix(f, g.pactDir) {
			out = append(out, f)
		}
	}
	return out
}
