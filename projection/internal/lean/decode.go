package lean

import (
	"hash/maphash"
	"strings"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection/internal/compact"
	"github.com/pact-action/pact-action/projection/internal/event"
)

// lineSeed hashes the lines of the log, to tell byte-identical duplicate
// event ids from others.
var lineSeed = maphash.MakeSeed()

// decodeChunk decodes the lines of one chunk (a worker's part), cut as
// pactfile cuts a log's lines, with the rules of projection's EventLog.add.
func decodeChunk(d Decoder, m *Marks, in *chunkIn, out *chunkOut) {
	out.in = in
	defer func() { out.names = m.Names.Names() }()
	if in.tooLong {
		event.AddMalformed(&out.malformed, event.Malformed{Code: event.CodeMalformedJSON, Line: in.first, Message: event.TooLongMessage})
		out.lastLine = in.first
		return
	}
	var ev event.Event
	n := in.first - 1
	for line, data, ok := pactfile.CutLine(in.data); ok; line, data, ok = pactfile.CutLine(data) {
		n++
		out.lastLine = n
		if len(line) > event.MaxLineBytes {
			event.AddMalformed(&out.malformed, event.Malformed{Code: event.CodeMalformedJSON, Line: n, Message: event.TooLongMessage})
			continue
		}
		if n == 1 {
			line = pactfile.TrimBOM(line)
		}
		claim, keep, msg := d.ReadLine(line, &ev)
		if msg != "" {
			event.AddUnreadable(&out.malformed, n, line, event.Malformed{Code: m.BadCode, Line: n, Message: msg})
			continue
		}
		if claim != nil {
			claim.Line = n
			out.claims = append(out.claims, *claim)
		}
		if !keep {
			continue
		}
		ev.Line = n
		out.add(m, &ev, maphash.Bytes(lineSeed, line))
	}
}

// add keeps one decoded event.
func (out *chunkOut) add(m *Marks, ev *event.Event, hash uint64) {
	if ev.TS.After(out.latest) {
		out.latest = ev.TS
	}
	r := rec{line: uint32(ev.Line), typ: typeCode(ev.Type), role: roleCode(ev.Role), form: m.IDForm, aux: noAux}
	if m.IDForm != compact.IDOther {
		r.id = m.ID
	} else if ev.MissingEventID() {
		r.flags |= recMissingID
	}
	if ev.Problem != nil && ev.Problem.Code != event.CodeSchemaPayload {
		out.addReported(m, ev, r, hash)
		return
	}
	if ev.Type == event.TypeInit || !inNanos(ev.TS) {
		if m.IDForm != compact.IDOther {
			ev.EventID = compact.FormatID(m.IDForm, &m.ID)
		}
		r.flags |= recFat
		r.aux = uint32(len(out.fat))
		out.fat = append(out.fat, *ev)
		out.keep(&r, hash)
		return
	}
	r.ts = ev.TS.UnixNano()
	if m.IDForm == compact.IDOther && ev.EventID != "" {
		setTextID(&r, uint32(len(out.texts)))
		out.texts = append(out.texts, ev.EventID)
	}
	r.agent, r.task, r.feature = m.Syms[SymAgent], m.Syms[SymTask], m.Syms[SymFeature]
	if ev.Problem != nil {
		// Judge reads only the envelope of an event with a payload problem.
		r.flags |= recProblem
		r.aux = uint32(len(out.problems))
		out.problems = append(out.problems, *ev.Problem)
		out.keep(&r, hash)
		return
	}
	switch ev.Type {
	case event.TypeAssign:
		r.aux = uint32(len(out.assigns))
		a, dirForm := assignOf(m, ev)
		if !dirForm {
			r.flags |= recSpecText
			if ev.Payload.Spec != "" {
				a.spec = uint32(len(out.texts))
				out.texts = append(out.texts, ev.Payload.Spec)
			}
		}
		out.assigns = append(out.assigns, a)
	case event.TypeChangesRequested:
		r.aux = uint32(len(out.texts))
		out.texts = append(out.texts, ev.Payload.Reason)
	}
	out.keep(&r, hash)
}

// assignOf is the assignX of ev, an assign just decoded, and whether its
// spec is <dir>/<task_id>.md (when not, a.spec is noAux: the caller keeps
// the spec).
func assignOf(m *Marks, ev *event.Event) (a assignX, dirForm bool) {
	a = assignX{owner: m.Syms[SymOwner], reviewer: m.Syms[SymReviewer], branch: m.Syms[SymBranch], spec: noAux}
	if dir, ok := strings.CutSuffix(ev.Payload.Spec, ev.TaskID+".md"); ok && ev.TaskID != "" {
		_, a.spec = m.Names.Intern([]byte(dir))
		return a, true
	}
	return a, false
}

// keep appends r, the rec of a line of the given hash.
func (out *chunkOut) keep(r *rec, hash uint64) {
	out.recs = append(out.recs, *r)
	out.hashes = append(out.hashes, hash)
}

// addReported keeps what an event reported before ordering needs. Without
// an event_id it can neither be a duplicate nor have one, so its
// rejections are final: they go to early, which keeps only the first
// MaxListed of each code. With one, take decides whether it is a
// duplicate; its rec then only holds the id.
func (out *chunkOut) addReported(m *Marks, ev *event.Event, r rec, hash uint64) {
	if m.IDForm != compact.IDOther {
		ev.EventID = compact.FormatID(m.IDForm, &m.ID)
	}
	x := reportedX{problem: *event.Reject(ev, ev.Problem.Code, ev.Problem.Message)}
	if ev.MissingEventID() {
		x.missing, x.hasMissing = *event.MissingID(ev), true
	}
	if ev.EventID == "" {
		if out.early == nil {
			out.early = event.NewListing(event.MaxListed)
		}
		if x.hasMissing {
			out.early.Add(x.missing)
		}
		out.early.Add(x.problem)
		return
	}
	r.flags |= recReported
	if m.IDForm == compact.IDOther {
		setTextID(&r, uint32(len(out.texts)))
		out.texts = append(out.texts, ev.EventID)
	}
	r.aux = uint32(len(out.reported))
	out.reported = append(out.reported, x)
	out.keep(&r, hash)
}
