// Package loggen writes large, realistic, deterministic Pact v1 logs for
// benchmarks and load tests.
//
// A log is a pure function of its Config: the same seed and sizes give the
// same bytes on every machine and Go version (the generator uses its own PCG
// stream and formats every line by hand). It opens with an init declaring
// several seats, then keeps a dozen features in flight, each with a few
// tasks going assign → join → checkpoint → (changes_requested → checkpoint)*
// → accept, and merges every feature once all its tasks are accepted. Lines
// average about 240 bytes, like a real log with its evidence text.
//
// Optionally a fraction of lines are defects a validator must report (each
// one rejected and not applied, so the rest of the log stays valid), and a
// fraction of neighbouring lines are swapped in the file while keeping their
// timestamps, the way merges of branches interleave lines; replay order is
// unaffected because every timestamp is distinct.
package loggen

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"
	"unicode/utf8"
)

// Version changes whenever the generator's output for a given Config does;
// caches of generated logs should be keyed by it.
const Version = 1

// Config says what to generate.
type Config struct {
	// Lines is the number of lines to write, defects included.
	Lines int
	// Seed selects the log; the same seed gives the same bytes.
	Seed uint64
	// Defects is the fraction of lines (0 to 0.5) that are defects: malformed
	// JSON, duplicated event ids, unknown event types, bad timestamps, role
	// mismatches, reviews by the wrong seat, premature merges, missing
	// event ids.
	Defects float64
	// NoMalformed leaves out the one defect that is not JSON (a truncated
	// line), so JSON tools such as jq read the whole log.
	NoMalformed bool
	// Swaps is the fraction of lines (0 to 0.5) swapped with the next line in
	// the file, keeping their timestamps.
	Swaps float64
	// Start is the ts of the init event; zero means 2026-01-05T09:00:00Z.
	Start time.Time
}

// Stats describes a generated log.
type Stats struct {
	Lines    int   // lines written
	Bytes    int64 // bytes written
	Tasks    int   // tasks assigned
	Features int   // features started
	Merged   int   // features merged
	Defects  int   // defect lines (each one yields a finding, except unknown types)
	Swapped  int   // pairs of lines swapped
}

// Seat ids of the generated roster and what they hold.
var roster = []struct {
	id, entry string
	roles     []string
}{
	{"lead", "AGENTS.md", []string{"orchestrator"}},
	{"opencode", "AGENTS.md", []string{"worker"}},
	{"claude-opus", "CLAUDE.md", []string{"reviewer", "worker"}},
	{"codex", "AGENTS.md", []string{"worker", "reviewer"}},
	{"gemini-pro", "GEMINI.md", []string{"reviewer"}},
	{"aider", "CONVENTIONS.md", []string{"worker"}},
	{"qwen-coder", "AGENTS.md", []string{"worker", "reviewer"}},
	{"deepseek-r1", "AGENTS.md", []string{"reviewer", "worker"}},
}

func seatsWith(role string) []string {
	var out []string
	for _, s := range roster {
		for _, r := range s.roles {
			if r == role {
				out = append(out, s.id)
			}
		}
	}
	return out
}

var (
	workers   = seatsWith("worker")
	reviewers = seatsWith("reviewer")
)

func rolesOf(id string) []string {
	for _, s := range roster {
		if s.id == id {
			return s.roles
		}
	}
	return nil
}

type taskStatus uint8

const (
	assigned taskStatus = iota
	inProgress
	awaitingReview
	accepted
)

type task struct {
	id, owner, reviewer string
	feature             *feature
	status              taskStatus
	rounds              int
}

type feature struct {
	id, branch string
	tasks      []*task
	accepted   int
	merged     bool
}

type gen struct {
	cfg  Config
	rng  *rand.Rand
	w    *bufio.Writer
	line []byte
	now  time.Time
	st   Stats

	active []*feature
	nextF  int
	nextT  int
	// open holds the tasks of active features that are not yet accepted.
	open []*task
	// held is a line kept back to be written after the next one (a swap).
	held    []byte
	hasHeld bool
	lastID  string // event id of the last normal line
	lastRaw []byte // the last normal line, for duplicate defects
	// pendingID is the event id of the line being built; noID makes the next
	// line go without one.
	pendingID string
	noID      bool
}

// Write generates the log cfg describes into w.
func Write(w io.Writer, cfg Config) (Stats, error) {
	if cfg.Start.IsZero() {
		cfg.Start = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	}
	g := &gen{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15)), w: bufio.NewWriterSize(w, 1<<20), now: cfg.Start.UTC()}
	g.run()
	if g.hasHeld {
		g.flushLine(g.held)
		g.hasHeld = false
	}
	return g.st, g.w.Flush()
}

const featuresInFlight = 12

func (g *gen) run() {
	if g.cfg.Lines <= 0 {
		return
	}
	g.emitInit()
	for g.st.Lines < g.cfg.Lines {
		if g.cfg.Defects > 0 && g.st.Lines > 1 && g.rng.Float64() < g.cfg.Defects {
			g.emitDefect()
			continue
		}
		g.step()
	}
}

// step emits one valid event that moves the project on.
func (g *gen) step() {
	// Ship a feature whose tasks are all accepted.
	for i, f := range g.active {
		if f.accepted == len(f.tasks) {
			g.emitMerge(f)
			g.active = append(g.active[:i], g.active[i+1:]...)
			return
		}
	}
	if g.rng.IntN(10) == 0 {
		// A seat starting a session: joining again changes nothing.
		g.emitJoin(workers[g.rng.IntN(len(workers))])
		return
	}
	if len(g.active) < featuresInFlight || len(g.open) == 0 {
		g.startFeature()
		return
	}
	t := g.open[g.rng.IntN(len(g.open))]
	switch t.status {
	case assigned:
		g.emitJoin(t.owner)
	case inProgress:
		g.emitCheckpoint(t)
	case awaitingReview:
		if t.rounds < 3 && g.rng.IntN(100) < 30 {
			g.emitChanges(t)
		} else {
			g.emitAccept(t)
		}
	}
}

var areas = []string{"auth", "billing", "cli", "sync", "search", "export", "import", "notify", "audit", "cache", "quota", "webhooks", "sso", "reports", "editor", "storage"}

func (g *gen) startFeature() {
	g.nextF++
	g.st.Features++
	area := areas[g.rng.IntN(len(areas))]
	f := &feature{id: fmt.Sprintf("%s-%04d", upper(area), g.nextF)}
	f.branch = fmt.Sprintf("feat/%s-%d", area, g.nextF)
	g.active = append(g.active, f)
	n := 2 + g.rng.IntN(5)
	for i := 0; i < n && g.st.Lines < g.cfg.Lines; i++ {
		g.nextT++
		g.st.Tasks++
		owner := workers[g.rng.IntN(len(workers))]
		reviewer := reviewers[g.rng.IntN(len(reviewers))]
		for reviewer == owner {
			reviewer = reviewers[g.rng.IntN(len(reviewers))]
		}
		t := &task{id: "T" + strconv.Itoa(g.nextT), owner: owner, reviewer: reviewer, feature: f}
		f.tasks = append(f.tasks, t)
		g.open = append(g.open, t)
		b := g.begin(g.newID(), "lead", "assign", t.id, f.id)
		b = appendKV(b, "owner", owner, true)
		b = appendKV(b, "reviewer", reviewer, false)
		b = appendKV(b, "branch", f.branch, false)
		b = appendKV(b, "spec", ".pact/tasks/"+t.id+".md", false)
		g.end(b)
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func (g *gen) emitInit() {
	b := g.begin(g.newID(), "lead", "init", "", "")
	b = appendKV(b, "project", "acme-widgets", true)
	b = append(b, `,"protocol_version":1,"seats":[`...)
	for i, s := range roster {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = appendKV(b, "id", s.id, true)
		b = append(b, `,"roles":`...)
		b = appendStrings(b, s.roles)
		b = appendKV(b, "entry", s.entry, false)
		b = append(b, '}')
	}
	b = append(b, ']')
	b = appendKV(b, "base_branch", "main", false)
	g.end(b)
}

func (g *gen) emitJoin(seat string) {
	b := g.begin(g.newID(), seat, "join", "", "")
	b = append(b, `"roles":`...)
	b = appendStrings(b, rolesOf(seat))
	if g.rng.IntN(4) == 0 {
		b = appendKV(b, "session", fmt.Sprintf("sess-%08x", g.rng.Uint32()), false)
	}
	g.end(b)
	for _, t := range g.open {
		if t.owner == seat && t.status == assigned {
			t.status = inProgress
		}
	}
}

func (g *gen) emitCheckpoint(t *task) {
	b := g.begin(g.newID(), t.owner, "checkpoint", t.id, g.featureField(t))
	b = appendKV(b, "evidence", g.evidence(t), true)
	if g.rng.IntN(3) == 0 {
		b = append(b, `,"files_changed":`...)
		b = strconv.AppendInt(b, int64(1+g.rng.IntN(30)), 10)
	}
	g.end(b)
	t.status = awaitingReview
}

// featureField is the task's feature, or now and then "" (allowed on task
// events, docs/semantics.md §1).
func (g *gen) featureField(t *task) string {
	if g.rng.IntN(20) == 0 {
		return ""
	}
	return t.feature.id
}

func (g *gen) emitChanges(t *task) {
	b := g.begin(g.newID(), t.reviewer, "changes_requested", t.id, g.featureField(t))
	b = appendKV(b, "reason", g.reason(t), true)
	if g.rng.IntN(2) == 0 {
		b = appendKV(b, "commit", g.sha(), false)
	}
	g.end(b)
	t.status = inProgress
	t.rounds++
}

func (g *gen) emitAccept(t *task) {
	b := g.begin(g.newID(), t.reviewer, "accept", t.id, g.featureField(t))
	switch r := g.rng.IntN(20); {
	case r < 8:
	case r < 10:
		b = append(b, `"note":`...)
		b = appendString(b, pick(g.rng, acceptNotes))
	case r < 17:
		b = appendKV(b, "commit", g.sha(), true)
	default:
		sha := g.sha()
		pr := 100 + g.rng.IntN(9000)
		review := 2_000_000_000 + g.rng.Int64N(100_000_000)
		b = appendKV(b, "commit", sha, true)
		b = append(b, `,"github":{"review_id":`...)
		b = strconv.AppendInt(b, review, 10)
		b = appendKV(b, "url", fmt.Sprintf("https://github.com/acme/widgets/pull/%d#pullrequestreview-%d", pr, review), false)
		b = appendKV(b, "login", pick(g.rng, logins), false)
		b = append(b, '}')
	}
	g.end(b)
	t.status = accepted
	t.feature.accepted++
	g.removeOpen(t)
}

func (g *gen) emitMerge(f *feature) {
	b := g.begin(g.newID(), "lead", "merge", "", f.id)
	if g.rng.IntN(2) == 0 {
		b = append(b, `"pr":`...)
		b = strconv.AppendInt(b, int64(100+g.rng.IntN(9000)), 10)
		b = appendKV(b, "merge_commit", g.sha(), false)
	}
	g.end(b)
	f.merged = true
	g.st.Merged++
}

func (g *gen) removeOpen(t *task) {
	for i, o := range g.open {
		if o == t {
			g.open[i] = g.open[len(g.open)-1]
			g.open = g.open[:len(g.open)-1]
			return
		}
	}
}

// emitDefect writes one line that a validator must reject without applying
// it (or ignore, for an unknown type), so the log stays otherwise valid.
func (g *gen) emitDefect() {
	g.st.Defects++
	kind := g.rng.IntN(9)
	if kind == 0 && g.cfg.NoMalformed {
		kind = 1
	}
	if (kind == 1 || kind == 2) && g.lastID == "" {
		kind = 4 // the last line has no event_id to duplicate
	}
	switch kind {
	case 0: // truncated line
		raw := g.lastRaw
		cut := len(raw) / 2
		for cut > 0 && !utf8.RuneStart(raw[cut]) {
			cut--
		}
		g.writeDefect(append([]byte(nil), raw[:cut]...))
	case 1: // a byte-identical copy (event_id.duplicate, warning)
		g.writeDefect(append([]byte(nil), g.lastRaw...))
	case 2: // another event reusing the last event_id (event_id.duplicate)
		b := g.begin(g.lastID, "lead", "merge", "", "NOPE-0000")
		g.endDefect(b)
	case 3: // unknown event type: ignored, no finding
		g.st.Defects--
		b := g.begin(g.newID(), pick(g.rng, workers), "heartbeat", "", "")
		b = appendKV(b, "load", "0.42", true)
		g.endDefect(b)
	case 4: // ts that is not a real instant (schema.envelope)
		b := g.beginTS(g.newID(), g.now.Format("2006-01-02T15:04:05")+"+01:00", "lead", "merge", "", "NOPE-0000")
		g.endDefect(b)
	case 5: // join with the wrong self-reported role (role.mismatch)
		b := g.beginRole(g.newID(), pick(g.rng, workers), "reviewer", "join", "", "")
		b = append(b, `"roles":["worker"]`...)
		g.endDefect(b)
	case 6: // a review by a seat that is not the task's reviewer
		if len(g.open) == 0 {
			g.step()
			g.st.Defects--
			return
		}
		t := g.open[g.rng.IntN(len(g.open))]
		who := t.owner // owner: rule1.self_accept or roster.role_not_held
		if g.rng.IntN(2) == 0 {
			who = pick(g.rng, reviewers)
			if who == t.reviewer {
				who = "lead" // roster.role_not_held
			}
		}
		b := g.begin(g.newID(), who, "accept", t.id, t.feature.id)
		g.endDefect(b)
	case 7: // merge before every task is accepted (rule2.unaccepted_tasks)
		for _, f := range g.active {
			if f.accepted < len(f.tasks) {
				b := g.begin(g.newID(), "lead", "merge", "", f.id)
				g.endDefect(b)
				return
			}
		}
		b := g.begin(g.newID(), "lead", "merge", "", "NOPE-0000") // feature.unknown
		g.endDefect(b)
	case 8: // a valid event without an event_id: reported, yet applied
		g.noID = true
		g.step()
	}
}

// begin starts a line: the envelope up to the opening brace of the payload.
// It advances the clock, so every event has its own instant.
func (g *gen) begin(id, agent, typ, taskID, feat string) []byte {
	return g.beginRole(id, agent, roleFor(typ), typ, taskID, feat)
}

func (g *gen) beginRole(id, agent, role, typ, taskID, feat string) []byte {
	g.tick()
	ts := g.now.Format("2006-01-02T15:04:05")
	if ms := g.now.Nanosecond() / 1e6; ms != 0 {
		ts += "." + strconv.Itoa(1000 + ms)[1:] + "Z"
	} else {
		ts += "Z"
	}
	return g.envelope(id, ts, agent, role, typ, taskID, feat)
}

func (g *gen) beginTS(id, ts, agent, typ, taskID, feat string) []byte {
	g.tick()
	return g.envelope(id, ts, agent, roleFor(typ), typ, taskID, feat)
}

func (g *gen) envelope(id, ts, agent, role, typ, taskID, feat string) []byte {
	if g.noID {
		id, g.noID = "", false
	}
	b := g.line[:0]
	b = append(b, `{"event_id":`...)
	b = appendString(b, id)
	b = append(b, `,"ts":"`...)
	b = append(b, ts...)
	b = append(b, `","agent_id":`...)
	b = appendString(b, agent)
	b = append(b, `,"role":"`...)
	b = append(b, role...)
	b = append(b, `","event_type":"`...)
	b = append(b, typ...)
	b = append(b, `","task_id":`...)
	b = appendString(b, taskID)
	b = append(b, `,"feature":`...)
	b = appendString(b, feat)
	b = append(b, `,"payload":{`...)
	g.pendingID = id
	return b
}

// tick advances the clock by 1 ms to 90 s; half the instants are whole
// seconds.
func (g *gen) tick() {
	d := time.Duration(1+g.rng.IntN(90_000)) * time.Millisecond
	if g.rng.IntN(2) == 0 {
		d = d.Truncate(time.Second) + time.Second
	}
	g.now = g.now.Add(d)
	if g.rng.IntN(2) == 0 {
		g.now = g.now.Truncate(time.Second).Add(time.Second)
	}
}

func (g *gen) end(b []byte) {
	b = append(b, "}}"...)
	g.line = b
	g.lastRaw = append(g.lastRaw[:0], b...)
	g.lastID = g.pendingID
	g.emit(b, g.cfg.Swaps > 0 && g.rng.Float64() < g.cfg.Swaps, false)
}

func (g *gen) endDefect(b []byte) {
	b = append(b, "}}"...)
	g.line = b
	g.writeDefect(b)
}

// writeDefect writes a defect line; defect lines are never swapped, so a
// duplicate always follows its original.
func (g *gen) writeDefect(b []byte) {
	g.emit(b, false, true)
}

// emit writes a line, or holds it back to write it after the next normal
// line. A defect never overtakes the line it may duplicate.
func (g *gen) emit(b []byte, swap, defect bool) {
	g.st.Lines++
	if g.hasHeld {
		g.hasHeld = false
		if defect {
			g.flushLine(g.held)
			g.flushLine(b)
			return
		}
		// Never chain swaps: this line goes before the held one.
		g.flushLine(b)
		g.flushLine(g.held)
		g.st.Swapped++
		return
	}
	if swap {
		g.held = append(g.held[:0], b...)
		g.hasHeld = true
		return
	}
	g.flushLine(b)
}

func (g *gen) flushLine(b []byte) {
	g.w.Write(b)
	g.w.WriteByte('\n')
	g.st.Bytes += int64(len(b) + 1)
}

func (g *gen) newID() string {
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := g.rng.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return hex.EncodeToString(b[:])
}

func (g *gen) sha() string {
	var b [20]byte
	for i := range b {
		b[i] = byte(g.rng.Uint32())
	}
	return hex.EncodeToString(b[:])
}

func roleFor(typ string) string {
	switch typ {
	case "init", "assign", "merge":
		return "orchestrator"
	case "join", "checkpoint":
		return "worker"
	case "accept", "changes_requested":
		return "reviewer"
	}
	return "worker"
}

func pick(rng *rand.Rand, list []string) string { return list[rng.IntN(len(list))] }

var (
	logins      = []string{"octocat", "hubot", "mona", "jdoe-acme", "r-lindqvist", "asha-k"}
	acceptNotes = []string{"LGTM", "looks good; nice tests", "ship it ✓", "approved after re-running CI", "good catch on the retry path"}
	verbs       = []string{"implemented", "refactored", "fixed", "added", "hardened", "documented", "optimised"}
	things      = []string{"token refresh", "list pagination", "CSV export", "naïve retry → jittered backoff", "webhook signatures", ".env loading", "the “dry run” flag", "cache eviction", "audit writer", "org quotas"}
	pkgs        = []string{"internal/auth", "internal/billing", "cmd/widgets", "pkg/sync", "internal/search/index", "internal/export", "pkg/notify", "internal/cache"}
	asks        = []string{"add a test for empty input", "error should name the file", "split handleRequest up", "race under -race in %s", "document the new flag", "breaks the \"--json\" contract", "needs a benchmark", "handle 429 Retry-After"}
)

func (g *gen) evidence(t *task) string {
	r := g.rng
	switch r.IntN(4) {
	case 0:
		return fmt.Sprintf("%s %s\ngo test ./... ok (%d tests)", pick(r, verbs), pick(r, things), 20+r.IntN(400))
	case 1:
		return fmt.Sprintf("%s %s, PR #%d", pick(r, verbs), pick(r, things), 100+r.IntN(9000))
	case 2:
		return fmt.Sprintf("%s: %d ns/op → %d ns/op", pick(r, things), 900+r.IntN(9000), 100+r.IntN(800))
	}
	return fmt.Sprintf("round %d: %s in %s\n\t- lint clean", t.rounds, pick(r, verbs), pick(r, pkgs))
}

func (g *gen) reason(t *task) string {
	ask := pick(g.rng, asks)
	if ask == "race detected under -race in %s" {
		ask = fmt.Sprintf(ask, pick(g.rng, pkgs))
	}
	return ask
}

// appendKV appends "key":"value", with a leading comma unless first.
func appendKV(b []byte, key, value string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	b = append(b, `":`...)
	return appendString(b, value)
}

func appendStrings(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendString appends s as a JSON string the way encoding/json does with
// HTML escaping off.
func appendString(b []byte, s string) []byte {
	const hexd = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			b = append(b, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&0xF])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\u2028' || r == '\u2029' {
			b = append(b, '\\', 'u', '2', '0', '2', hexd[r&0xF])
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
