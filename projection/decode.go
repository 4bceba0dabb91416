package projection

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/pact-action/pact-action/projection/internal/compact"
	"github.com/pact-action/pact-action/projection/internal/jsonscan"
	"github.com/pact-action/pact-action/projection/internal/lean"
)

// This file (with envelope.go, timestamp.go and the interner of
// internal/compact) is the hot path of every read of the log: one pass
// over each line with the scanner of internal/jsonscan, which validates
// the whole line exactly as encoding/json does (the same grammar, the same
// nesting bound) and records where the envelope fields and the payload
// fields of interest are; then only those values are decoded. Its results are byte-for-byte those of the reference
// decoder built on encoding/json (decode_reference_test.go keeps it, and
// FuzzDecodeDifferential holds the two to each other):
//
//   - a line that names a member twice in one object, at any depth, is not
//     an event (CodeDuplicateKey): readers that keep the first value and
//     readers that keep the last must never disagree about who acted
//     (docs/semantics.md §7);
//   - keys and strings are unescaped like encoding/json, invalid UTF-8 and
//     lone surrogates becoming U+FFFD;
//   - the message for a line that is not JSON is encoding/json's own, asked
//     of it only for such lines.
//
// payload.github keeps encoding/json's struct semantics (case-insensitive
// keys, null leaves a field alone, any type error drops the whole object).

// decodeLine turns one non-blank line into an Event. It reports a malformed
// message when the line is not a JSON object, skip when the line has a
// string event_type outside v1 (ignored entirely, docs/semantics.md, pact v1 §2.2), and a
// VersionClaim when it is an init asking for a newer protocol major.
func decodeLine(line []byte) (ev Event, claim *VersionClaim, skip bool, malformed string) {
	var d decoder
	claim, skip, malformed = d.decode(line, &ev)
	return ev, claim, skip, malformed
}

// span is where a value sits in the line (jsonscan.Span).
type span = jsonscan.Span

var absent = jsonscan.Absent

// noTop and noPay are field tables with every field absent: a decoder
// resets to them before each line (filled by a loop, so a field added to
// the tables cannot be left present by accident).
var noTop, noPay = func() (top [nTop]span, pay [nPay]span) {
	for i := range top {
		top[i] = absent
	}
	for i := range pay {
		pay[i] = absent
	}
	return top, pay
}()

// duplicateKeyMessage is the message of a line that names the member name
// twice in one object (the first such name in the line).
func duplicateKeyMessage(name []byte) string {
	return fmt.Sprintf("line names the member %s twice in one object; no reader may choose which value counts", strconv.Quote(string(name)))
}

const nanMessage = "line is not valid JSON (NaN and Infinity are not JSON numbers)"

func hasNaN(line []byte) bool {
	return bytes.Contains(line, []byte("NaN")) || bytes.Contains(line, []byte("Infinity"))
}

// Top-level fields the decoder looks at.
const (
	fEventID = iota
	fTS
	fAgentID
	fRole
	fEventType
	fTaskID
	fFeature
	fPayload
	nTop
)

// Payload fields the decoder looks at, whatever the event type.
const (
	pProject = iota
	pProtocolVersion
	pSeats
	pBaseBranch
	pOwner
	pReviewer
	pBranch
	pSpec
	pRoles
	pEvidence
	pReason
	pCommit
	pGitHub
	nPay
)

// decoder decodes lines one at a time. It is not safe for concurrent use;
// parallel parsing gives every goroutine its own.
type decoder struct {
	sc   jsonscan.Scanner
	line []byte
	top  [nTop]span
	pay  [nPay]span
	// payObj says the (last) payload value is an object, so pay is valid.
	payObj bool
	// checkUTF8 says the line may hold invalid UTF-8 (see validUTF8).
	checkUTF8 bool
	// onTop and onPayload are topKey and payloadKey bound to the decoder,
	// made by its first decode: a decoder in use is never copied.
	onTop, onPayload jsonscan.Field

	// lean skips what a replay never reads: it leaves EventID empty when it
	// has a compact form (compact.ParseID: Marks.ID and IDForm hold it
	// instead), does not keep TSRaw of a valid ts, nor evidence, join
	// roles and provenance (payload.commit included).
	lean bool
	// Marks is what a line leaves besides its Event: the code of a
	// malformed one (BadCode: CodeMalformedJSON or CodeDuplicateKey), the
	// compact form of its event_id, and the symbols of its names, which
	// Names interns (the strings that repeat across lines: seat ids, task
	// ids, features, branches). A lean decoder's names are all kept, so
	// that their symbols stay valid; otherwise the table is only an
	// economy.
	lean.Marks
}

// leanDecoder is a decoder of the lean reading's workers (lean.Read),
// whose names are numbered from symBase and all kept.
func leanDecoder(symBase uint32) lean.Decoder {
	return &decoder{lean: true, Marks: lean.Marks{Names: compact.Interner{Base: symBase, KeepAll: true}}}
}

// Lean is where the decoder leaves what it read of a line besides the
// Event (lean.Decoder).
func (d *decoder) Lean() *lean.Marks { return &d.Marks }

// intern returns the string b holds, interned, and keeps its symbol as
// the field's (lean.SymAgent …).
func (d *decoder) intern(b []byte, field int) string {
	s, sym := d.Names.Intern(b)
	d.Syms[field] = sym
	return s
}

// interned decodes the string at s through the intern table.
func (d *decoder) interned(s span, field int) (string, bool) {
	b, ok := d.sc.Content(s)
	if !ok {
		return "", false
	}
	return d.intern(b, field), true
}

// validUTF8 reports whether the line last decoded is valid UTF-8, which
// Log.add checks before anything else. A line that is JSON and has no byte
// above 0x7F in a string has none at all, so only other lines are checked.
func (d *decoder) validUTF8() bool {
	return !d.checkUTF8 || utf8.Valid(d.line)
}

// ReadLine takes one line of the log (its CR and any BOM already off) the
// way both readings of a log do (parse.go and internal/lean): a blank
// line is nothing; a line that is not valid UTF-8, or not an event, is
// malformed (why); any other may claim a newer protocol version, and keep
// says ev (zeroed and filled) is an event to apply.
func (d *decoder) ReadLine(line []byte, ev *Event) (claim *VersionClaim, keep bool, malformed string) {
	if isBlank(line) {
		return nil, false, ""
	}
	claim, skip, msg := d.decode(line, ev)
	switch {
	case !d.validUTF8():
		d.BadCode = CodeMalformedJSON
		return nil, false, "line is not valid UTF-8"
	case msg != "":
		return nil, false, msg
	}
	return claim, !skip, ""
}

// decode fills ev (which it zeroes first) from one line.
func (d *decoder) decode(line []byte, ev *Event) (claim *VersionClaim, skip bool, malformed string) {
	*ev = Event{}
	d.BadCode = CodeMalformedJSON
	if d.onTop == nil {
		d.onTop, d.onPayload = d.topKey, d.payloadKey
	}
	d.line = line
	d.sc.Reset(line)
	d.top = noTop
	d.pay = noPay
	d.payObj, d.IDForm = false, compact.IDOther
	first, ok := d.sc.Document(d.onTop)
	d.checkUTF8 = !ok || d.sc.High()
	if !ok {
		if hasNaN(line) {
			return nil, false, nanMessage
		}
		return nil, false, "line is not a JSON object: " + jsonscan.SyntaxError(line)
	}
	switch first {
	case '{':
	case 'n':
		return nil, false, "line is not a JSON object: it is null"
	default:
		if hasNaN(line) {
			return nil, false, nanMessage
		}
		kind := "number"
		switch first {
		case '"':
			kind = "string"
		case '[':
			kind = "array"
		case 't', 'f':
			kind = "bool"
		}
		return nil, false, "line is not a JSON object: it is a JSON " + kind
	}
	if name, dup := d.sc.Duplicate(); dup {
		d.BadCode = CodeDuplicateKey
		return nil, false, duplicateKeyMessage(name)
	}

	typSpan := d.top[fEventType]
	hasType := typSpan.Present()
	typ, typeIsString := d.eventType(typSpan)
	if hasType && typeIsString && !isKnownType(typ) {
		return nil, true, ""
	}
	ev.Type = typ
	if typ == TypeInit {
		claim = d.versionClaim()
	}
	ev.Problem = d.envelope(ev, hasType, typeIsString)
	if ev.Problem == nil {
		ev.Problem = d.payload(ev)
	}
	return claim, false, ""
}
