package projection

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"io"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection/internal/event"
	"github.com/pact-action/pact-action/projection/internal/lean"
)

// Merging logs (docs/semantics.md §8): git's merge driver, `pactify
// resolve` and the bot's branch update all merge three logs here, from
// their bytes, and write STATE.yml from the replay this returns.

// MergeSide names one of the three logs of a merge.
type MergeSide int

// The three logs of a merge: the common ancestor's, the side that goes
// first (the one already on the base branch; in a rebase or cherry-pick,
// the side being applied onto) and the other side.
const (
	MergeBase MergeSide = iota
	MergeUpstream
	MergeOther
)

// MergeConflictKind is why two logs do not merge.
type MergeConflictKind int

// The real conflicts of docs/semantics.md §8.
const (
	// ConflictUnterminated: a side's last line has no line break.
	ConflictUnterminated MergeConflictKind = iota + 1
	// ConflictRewritten: a side drops, edits or reorders a line of the
	// common ancestor's log.
	ConflictRewritten
	// ConflictEventID: two different lines under one event_id.
	ConflictEventID
	// ConflictFinding: the merged log has an error finding neither side
	// had (the same task id assigned on both sides, say).
	ConflictFinding
)

// MergeLine is a line of one of the logs of a merge, numbered in that log.
type MergeLine struct {
	Side MergeSide
	Line int // 0: the finding has no line (init.missing at the end)
}

// MergeConflict is a merge that must stop: nothing is chosen silently.
type MergeConflict struct {
	Kind MergeConflictKind
	// Lines are the lines it is about, first the one it is reported on:
	// the side's last line (ConflictUnterminated), the ancestor's line a
	// side lost (ConflictRewritten, with that side's own last line kept in
	// order after it), the line of the merged log's finding and, for
	// ConflictEventID, the line that used the event_id first.
	Lines []MergeLine
	// Code and Message are the merged log's finding (ConflictEventID,
	// ConflictFinding); its line numbers are the merged log's, whose first
	// lines are the upstream side's.
	Code    Code
	Message string
	// More counts the other findings of the merged log neither side had.
	More int
}

func (c *MergeConflict) Error() string {
	return c.Explain("the common ancestor", "the upstream side", "the other side")
}

// Explain says what the conflict is in one sentence, naming the three
// logs as the caller knows them (a branch, HEAD, a commit).
func (c *MergeConflict) Explain(base, upstream, other string) string {
	name := func(s MergeSide) string {
		switch s {
		case MergeBase:
			return base
		case MergeUpstream:
			return upstream
		}
		return other
	}
	at := func(l MergeLine) string {
		if l.Line == 0 {
			return name(l.Side) + "'s log"
		}
		return fmt.Sprintf("line %d of %s's log", l.Line, name(l.Side))
	}
	more := ""
	if c.More > 0 {
		more = fmt.Sprintf(" (and %d more finding(s) neither side has)", c.More)
	}
	switch c.Kind {
	case ConflictUnterminated:
		return fmt.Sprintf("the last line of %s's log has no line break, so it is not a whole event (line %d)", name(c.Lines[0].Side), c.Lines[0].Line)
	case ConflictRewritten:
		return fmt.Sprintf("%s's log drops, edits or reorders %s: a log only grows at its end", name(c.Lines[1].Side), at(c.Lines[0]))
	case ConflictEventID:
		return fmt.Sprintf("%s and %s are different events under one event_id (the merged log would say %s: %s)%s", at(c.Lines[0]), at(c.Lines[1]), c.Code, c.Message, more)
	}
	// The finding's message numbers lines as the merged log does, whose
	// first lines are the upstream side's: said so, beside a line number of
	// one side's own log.
	return fmt.Sprintf("merged, %s gets a finding neither side has (the merged log would say %s: %s)%s", at(c.Lines[0]), c.Code, c.Message, more)
}

// Merged is a merge of logs that went through. The merged log is the
// upstream side's lines as they are, then the other side's lines that are
// neither the ancestor's nor already kept, in their order, each line
// ending in LF: Bytes, or WriteTo, which writes it without making it (the
// upstream side's log is most of it, held once).
type Merged struct {
	// upstream is the upstream side's log with every line ending in LF
	// (the caller's bytes when they already do), added the other side's
	// lines after it.
	upstream []byte
	added    [][]byte
	// Result is the replay of Log, which STATE.yml is rendered from. When
	// it fails closed (Result.Unsupported), nothing else was judged.
	Result *Result
	// Upstream is the number of the upstream side's lines (the first lines
	// of Log); Added the number of the other side's lines after them.
	Upstream, Added int
	// FullReplays counts the logs replayed from their first line: 1 when
	// both sides only append to the ancestor's log lines that sort after
	// it (the ancestor's replay is continued with each side's lines), 3
	// otherwise (each side and the merged log).
	FullReplays int
}

// WriteTo writes the merged log to w.
func (m *Merged) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for _, part := range m.Parts() {
		n, err := w.Write(part)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Parts is the merged log in two parts written one after the other: the
// upstream side's log as it was read, then the other side's lines after
// it. A writer that takes a file in parts sends the upstream side's
// bytes, most of the log, without a second copy.
func (m *Merged) Parts() [][]byte {
	return [][]byte{m.upstream, pactfile.AppendLines(nil, nil, m.added...)}
}

// Bytes is the merged log.
func (m *Merged) Bytes() []byte { return bytes.Join(m.Parts(), nil) }

// MergeLogs merges the logs of two sides of a merge, upstream and other,
// whose common ancestor's log is base (docs/semantics.md §8), or returns
// the *MergeConflict that keeps them apart. Lines are compared byte for
// byte without their line terminators (CRLF and LF alike), and the first
// line without a byte order mark, as every reader of a log numbers them
// (pactfile.SplitLines). Its only other error is a log the replay cannot
// hold (Read).
func MergeLogs(base, upstream, other []byte) (*Merged, error) {
	for _, s := range []struct {
		side MergeSide
		b    []byte
	}{{MergeUpstream, upstream}, {MergeOther, other}} {
		if pactfile.Unterminated(s.b) {
			return nil, &MergeConflict{Kind: ConflictUnterminated, Lines: []MergeLine{{s.side, bytes.Count(s.b, []byte("\n")) + 1}}}
		}
	}
	if m, ok, err := mergeAppended(base, upstream, other); ok || err != nil {
		return m, err
	}
	return mergeWhole(base, upstream, other)
}

// sideLines is one side of a merge in the merged log's terms: how many of
// its first lines are the ancestor's (prefix; the rest are new), its new
// lines, and each new line's number in its own log.
type sideLines struct {
	prefix int
	lines  [][]byte
	number []int
}

// lineAt is the text of line n of the side's log, one of its new lines:
// every finding of a replay continued after the ancestor's lines is on a
// new line (or on none), and a whole replay has no ancestor's lines.
func (s *sideLines) lineAt(n int) []byte { return s.lines[n-s.prefix-1] }

// mergeAppended is the merge when the ancestor's log is where both sides
// start (its bytes, ending in a line break, begin both), which is how git
// hands a driver the logs of branches that only append: the ancestor's log
// is replayed once, and that replay is continued with each side's new
// lines and with the merged log's (replayOnto), provided they all sort
// after the ancestor's. ok is false when it cannot tell, and the whole
// merge is made instead.
func mergeAppended(base, upstream, other []byte) (m *Merged, ok bool, err error) {
	if (len(base) > 0 && base[len(base)-1] != '\n') || !bytes.HasPrefix(upstream, base) || !bytes.HasPrefix(other, base) {
		return nil, false, nil
	}
	prefix := bytes.Count(base, []byte("\n"))
	up := newLines(upstream[len(base):], prefix)
	ot := newLines(other[len(base):], prefix)
	added := addedLines(upstream, &ot)
	mLines := &sideLines{prefix: prefix, lines: append(append([][]byte(nil), up.lines...), added.lines...)}

	// The new lines of each log, read whole (they are few), and the
	// event_ids they use, which the ancestor's replay looks up.
	var minis [3]*EventLog
	var ids []string
	for i, s := range []*sideLines{&up, &ot, mLines} {
		minis[i], err = parseFrom(bytes.NewReader(lfLines(s.lines)), false, prefix+1)
		if err != nil {
			return nil, false, err
		}
		if len(minis[i].Claims) > 0 {
			return nil, false, nil // fails closed: the whole replay says where
		}
		if i < 2 {
			for j := range minis[i].Events {
				if id := minis[i].Events[j].EventID; id != "" {
					ids = append(ids, id)
				}
			}
		}
	}
	baseLog, err := lean.Read(bytes.NewReader(base), leanDecoder, lean.Options{Size: int64(len(base)), Lookup: ids})
	if err != nil {
		// More names than the parallel replay holds: the whole merge reads
		// them keeping events (ReadBytes does the same).
		return nil, false, nil //nolint:nilerr // not an error of the merge: the whole merge answers
	}
	baseRes := replayLean(baseLog)
	result := &Merged{upstream: lfLog(upstream, nil), added: added.lines, Upstream: prefix + len(up.lines), Added: len(added.lines), FullReplays: 1}
	if baseRes.Unsupported != nil {
		result.Result = baseRes
		return result, true, nil
	}
	hashes := lineHashes(base, baseLog.FirstLines)
	prior := func(id string) (int, uint64, bool) {
		line := baseLog.FirstLines[id]
		return line, hashes[line], line > 0
	}
	latest := &baseLog.Latest
	upRes, ok := replayOnto(minis[0], 0, baseRes.State.clone(), prior, latest)
	if !ok {
		return nil, false, nil
	}
	otRes, ok := replayOnto(minis[1], 0, baseRes.State.clone(), prior, latest)
	if !ok {
		return nil, false, nil
	}
	mRes, ok := replayOnto(minis[2], 0, baseRes.State, prior, latest)
	if !ok {
		return nil, false, nil
	}
	firstUse := func(id string) int {
		if line := baseLog.FirstLines[id]; line > 0 {
			return line
		}
		return minis[2].LineOf(id)
	}
	if c := newFindings(upRes, &up, otRes, &ot, mRes, mLines, &added, firstUse); c != nil {
		return nil, true, c
	}
	// The merged log's verdict: the ancestor's, less its lineless
	// init.missing (the end of the merged log decides that), and the new
	// lines', listed as a replay of the whole log lists them.
	rs := event.NewListing(MaxListed)
	for _, r := range baseRes.Rejections {
		if r.Line != 0 {
			rs.Add(r)
		}
	}
	rs.AddOmitted(baseRes.Omitted)
	rs.AddAll(mRes.Rejections)
	mRes.Rejections, mRes.Omitted = rs.Result()
	result.Result = mRes
	return result, true, nil
}

// side is the line of the merged log n (of a merge whose first lines are
// the upstream side's, then the other side's added ones) in its own
// side's numbering; a line of the ancestor's log is named as the
// ancestor's.
func (s *sideLines) side(n int, added *sideLines) MergeLine {
	switch upstream := s.prefix + len(s.lines) - len(added.lines); {
	case n == 0:
		return MergeLine{MergeUpstream, 0}
	case n <= s.prefix:
		return MergeLine{MergeBase, n}
	case n <= upstream:
		return MergeLine{MergeUpstream, n}
	default:
		return MergeLine{MergeOther, added.number[n-upstream-1]}
	}
}

// newLines splits the lines a side adds after the ancestor's prefix lines
// (tail: the bytes after them); a line 1 loses its byte order mark.
func newLines(tail []byte, prefix int) sideLines {
	s := sideLines{prefix: prefix}
	for line, rest, ok := pactfile.CutLine(tail); ok; line, rest, ok = pactfile.CutLine(rest) {
		if prefix == 0 && len(s.lines) == 0 {
			line = pactfile.TrimBOM(line)
		}
		s.lines = append(s.lines, line)
		s.number = append(s.number, prefix+len(s.lines))
	}
	return s
}

// addedLines is what of the other side's new lines the merged log adds
// after the upstream side's log: each line that is not already one of the
// upstream side's lines (nor one added before it), byte for byte, which
// is the same event that reached both sides (docs/semantics.md §8).
func addedLines(upstream []byte, other *sideLines) sideLines {
	pending := make(map[string]bool, len(other.lines))
	lengths := map[int]bool{}
	for _, l := range other.lines {
		pending[string(l)] = true
		lengths[len(l)] = true
	}
	for _, line := range pactfile.Lines(upstream) {
		if len(pending) == 0 {
			break
		}
		if lengths[len(line)] {
			delete(pending, string(line))
		}
	}
	var out sideLines
	for i, l := range other.lines {
		if pending[string(l)] {
			delete(pending, string(l))
			out.lines = append(out.lines, l)
			out.number = append(out.number, other.number[i])
		}
	}
	return out
}

// lfLog is a log with every line ending in LF: b itself when it does
// (its lines, when they are already split: lines), else its lines with
// LF, after its byte order mark.
func lfLog(b []byte, lines [][]byte) []byte {
	if !bytes.Contains(b, []byte("\r\n")) && !pactfile.Unterminated(b) {
		return b
	}
	if lines == nil {
		lines = pactfile.SplitLines(b)
	}
	var out []byte
	if bytes.HasPrefix(b, []byte(pactfile.BOM)) {
		out = append(out, pactfile.BOM...)
	}
	return append(out, lfLines(lines)...)
}

// lfLines is lines, each ending in LF, as a log's writers append them.
func lfLines(lines [][]byte) []byte { return pactfile.AppendLines(nil, nil, lines...) }

// lineHashes is the hash (Event.hash) of the lines of log that first
// lines names, by line number, in one pass.
func lineHashes(log []byte, first map[string]int) map[int]uint64 {
	want := map[int]uint64{}
	last := 0
	for _, n := range first {
		if n > 0 {
			want[n] = 0
			last = max(last, n)
		}
	}
	for n, line := range pactfile.Lines(log) {
		if n > last {
			break
		}
		if _, ok := want[n]; ok {
			want[n] = maphash.Bytes(lineSeed, line)
		}
	}
	return want
}

// findingKey is what an error finding of one log is compared by with the
// findings of another (docs/semantics.md §8): its code and the bytes of
// its line (hashed with a seed of this process, so no line can be made to
// collide with another), or that it has no line.
type findingKey struct {
	code     Code
	lineless bool
	size     int
	hash     uint64
}

func keyOf(r *Rejection, text []byte) findingKey {
	if r.Line == 0 {
		return findingKey{code: r.Code, lineless: true}
	}
	return findingKey{code: r.Code, size: len(text), hash: maphash.Bytes(lineSeed, text)}
}

// isError says a replay's finding is an error: all are but a byte-identical
// duplicate event_id, a warning (docs/semantics.md §7).
func isError(r *Rejection) bool { return !r.Identical }

// newFindings is the conflict of a merged log (mRes, its lines m, of
// which added are the other side's) that has an error finding neither
// side (upRes, otRes; lines up, ot) has, its lines named as the side that
// wrote them numbers them (sideLines.side); nil when there is none. The
// line that first used an event_id is asked of firstUse.
func newFindings(upRes *Result, up *sideLines, otRes *Result, ot *sideLines, mRes *Result, m, added *sideLines, firstUse func(string) int) *MergeConflict {
	had := map[findingKey]bool{}
	for _, s := range []struct {
		res   *Result
		lines *sideLines
	}{{upRes, up}, {otRes, ot}} {
		for i := range s.res.Rejections {
			if r := &s.res.Rejections[i]; isError(r) {
				had[keyOf(r, lineText(r.Line, s.lines))] = true
			}
		}
	}
	var c *MergeConflict
	for i := range mRes.Rejections {
		r := &mRes.Rejections[i]
		if !isError(r) || had[keyOf(r, lineText(r.Line, m))] {
			continue
		}
		if c != nil {
			c.More++
			continue
		}
		c = &MergeConflict{Kind: ConflictFinding, Lines: []MergeLine{{Line: r.Line}}, Code: r.Code, Message: r.Message}
		if r.Code == CodeEventIDDuplicate && r.EventID != "" {
			c.Kind = ConflictEventID
			c.Lines = append(c.Lines, MergeLine{Line: firstUse(r.EventID)})
		}
	}
	if c != nil {
		for i := range c.Lines {
			c.Lines[i] = m.side(c.Lines[i].Line, added)
		}
	}
	return c
}

// lineText is the text of line n of a log whose lines are s (nil for a
// finding without a line).
func lineText(n int, s *sideLines) []byte {
	if n == 0 {
		return nil
	}
	return s.lineAt(n)
}

// mergeWhole is the merge of any three logs: each side must hold the
// ancestor's lines in their order (anything else is ConflictRewritten),
// and each side and the merged log are replayed whole and their findings
// compared.
func mergeWhole(base, upstream, other []byte) (*Merged, error) {
	oL, uL, xL := pactfile.SplitLines(base), pactfile.SplitLines(upstream), pactfile.SplitLines(other)
	var sides [2]sideLines
	for i, s := range []struct {
		side  MergeSide
		lines [][]byte
	}{{MergeUpstream, uL}, {MergeOther, xL}} {
		var lost int
		sides[i], lost = unmatched(oL, s.lines)
		if lost > 0 {
			return nil, &MergeConflict{Kind: ConflictRewritten, Lines: []MergeLine{{MergeBase, lost}, {s.side, len(s.lines)}}}
		}
	}
	added := addedLines(upstream, &sides[1])
	result := &Merged{upstream: lfLog(upstream, uL), added: added.lines, Upstream: len(uL), Added: len(added.lines), FullReplays: 3}
	merged := result.Bytes()
	m := &sideLines{lines: append(append([][]byte(nil), uL...), added.lines...)}
	whole := func(lines [][]byte) *sideLines { return &sideLines{lines: lines} }
	up, ot := whole(uL), whole(xL)

	var logs [3]*EventLog
	var res [3]*Result
	for i, b := range [][]byte{upstream, other, merged} {
		var err error
		if logs[i], err = parse(bytes.NewReader(b), false); err != nil {
			return nil, err
		}
		res[i], _ = replayOnto(logs[i], 0, NewState(), nil, nil)
	}
	if res[2].Unsupported != nil {
		result.Result = res[2]
		return result, nil
	}
	if c := newFindings(res[0], up, res[1], ot, res[2], m, &added, logs[2].LineOf); c != nil {
		return nil, c
	}
	rs := event.NewListing(MaxListed)
	rs.AddAll(res[2].Rejections)
	res[2].Rejections, res[2].Omitted = rs.Result()
	result.Result = res[2]
	return result, nil
}

// unmatched finds the ancestor's lines old in a side's lines, in order
// (the first match of each: the fewest lines taken for the ancestor's),
// and returns the side's other lines, its new ones; lost is the first
// line of old it lacks (0: none).
func unmatched(old, lines [][]byte) (s sideLines, lost int) {
	i := 0
	for j, l := range lines {
		if i < len(old) && bytes.Equal(old[i], l) {
			i++
			continue
		}
		s.lines = append(s.lines, l)
		s.number = append(s.number, j+1)
	}
	if i < len(old) {
		return s, i + 1
	}
	return s, 0
}

// BaseBranch is the base_branch of a log's first valid init line in file
// order (docs/semantics.md §5: the branch pull requests merge into), "" when
// it has none: what tells a merge of logs which side is already on the base
// branch, before anything is replayed. An init is a log's first line, so
// this reads little of it.
func BaseBranch(log []byte) string {
	for _, line := range pactfile.Lines(log) {
		if ev, _, skip, malformed := decodeLine(line); !skip && malformed == "" && ev.Type == TypeInit && ev.Problem == nil {
			return ev.Payload.BaseBranch
		}
	}
	return ""
}
