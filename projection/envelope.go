package projection

import (
	"bytes"
	"fmt"

	"github.com/pact-action/pact-action/projection/internal/compact"
	"github.com/pact-action/pact-action/projection/internal/event"
	"github.com/pact-action/pact-action/projection/internal/jsonscan"
	"github.com/pact-action/pact-action/projection/internal/lean"
)

// The pact meaning of a decoded line: which keys are envelope and payload
// fields, and the checks and conversions of docs/semantics.md, pact v1 §2.1 and §2.4 (docs/semantics.md
// §7) that turn the recorded values into an Event or a Problem.

func topField(k []byte) int {
	switch string(k) {
	case "event_id":
		return fEventID
	case "ts":
		return fTS
	case "agent_id":
		return fAgentID
	case "role":
		return fRole
	case "event_type":
		return fEventType
	case "task_id":
		return fTaskID
	case "feature":
		return fFeature
	case "payload":
		return fPayload
	}
	return -1
}

func payloadField(k []byte) int {
	switch string(k) {
	case "project":
		return pProject
	case "protocol_version":
		return pProtocolVersion
	case "seats":
		return pSeats
	case "base_branch":
		return pBaseBranch
	case "owner":
		return pOwner
	case "reviewer":
		return pReviewer
	case "branch":
		return pBranch
	case "spec":
		return pSpec
	case "roles":
		return pRoles
	case "evidence":
		return pEvidence
	case "reason":
		return pReason
	case "commit":
		return pCommit
	case "github":
		return pGitHub
	}
	return -1
}

func (d *decoder) topKey(key []byte, i, depth int) int {
	f := topField(key)
	if f == fPayload {
		d.pay = noPay
		d.payObj = false
	}
	var end int
	plain := false
	switch {
	case i >= len(d.line):
		return -1
	case d.line[i] == '"':
		end, plain = d.sc.StringEnd(i)
	case f == fPayload && d.line[i] == '{':
		end = d.sc.Object(i, depth, d.onPayload)
		d.payObj = end >= 0
	default:
		end = d.sc.Value(i, depth)
	}
	if f >= 0 && end >= 0 {
		d.top[f] = span{Lo: int32(i), Hi: int32(end), Plain: plain}
	}
	return end
}

func (d *decoder) payloadKey(key []byte, i, depth int) int {
	f := payloadField(key) // before the value, whose keys may reuse the scanner's buffer
	var end int
	plain := false
	if i < len(d.line) && d.line[i] == '"' {
		end, plain = d.sc.StringEnd(i)
	} else {
		end = d.sc.Value(i, depth)
	}
	if f >= 0 && end >= 0 {
		d.pay[f] = span{Lo: int32(i), Hi: int32(end), Plain: plain}
	}
	return end
}

func (d *decoder) eventType(s span) (string, bool) {
	b, ok := d.sc.Content(s)
	if !ok {
		return "", false
	}
	switch string(b) {
	case TypeInit:
		return TypeInit, true
	case TypeAssign:
		return TypeAssign, true
	case TypeJoin:
		return TypeJoin, true
	case TypeCheckpoint:
		return TypeCheckpoint, true
	case TypeAccept:
		return TypeAccept, true
	case TypeChangesRequested:
		return TypeChangesRequested, true
	case TypeMerge:
		return TypeMerge, true
	}
	return string(b), true
}

// kind names the JSON type of the value at s for messages.
func (d *decoder) kind(s span) string { return jsonscan.Kind(d.sc.Raw(s)) }

// plain decodes the string at s into a new string.
func (d *decoder) plain(s span) (string, bool) {
	b, ok := d.sc.Content(s)
	if !ok {
		return "", false
	}
	return string(b), true
}

// stringArray decodes an array of strings, interned; like encoding/json
// into []string it gives an empty, non-nil slice for [].
func (d *decoder) stringArray(s span) ([]string, bool) {
	if !d.sc.IsStringArray(s) {
		return nil, false
	}
	out := make([]string, 0, 4)
	d.sc.Elements(s, func(el span) bool {
		b, _ := d.sc.Content(el)
		out = append(out, d.intern(b, lean.SymOther))
		return true
	})
	return out, true
}

func describeRaw(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	if len(v) > 40 {
		return string(v[:40]) + "…"
	}
	return string(v)
}

func parseSmallInt(v []byte) (int, error) {
	// Any positive JSON integer is a valid protocol_version (one above the
	// supported major fails the log closed); a huge one saturates instead of
	// overflowing.
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("not a non-negative integer")
		}
		if n > 1<<30/10 {
			n = 1 << 30 // n*10 could overflow a 32-bit int
		} else {
			n = n*10 + int(c-'0')
		}
	}
	return min(n, 1<<30), nil
}

// versionClaim returns a claim when payload.protocol_version is a JSON integer
// above the supported major.
func (d *decoder) versionClaim() *VersionClaim {
	if !d.payObj {
		return nil
	}
	raw := d.sc.Raw(d.pay[pProtocolVersion])
	if n, err := parseSmallInt(raw); err != nil || n <= SupportedProtocolVersion {
		return nil // absent, not a non-negative integer, or supported
	}
	c := &VersionClaim{Version: string(raw)}
	if b, ok := d.sc.Content(d.top[fTS]); ok {
		c.TS, c.TSValid = parseTSBytes(b)
	}
	return c
}

// IsSlug reports whether s matches ^[a-z0-9][a-z0-9-]*$.
func IsSlug(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c == '-' && i > 0) {
			continue
		}
		return false
	}
	return true
}

func envelopeProblem(format string, args ...any) *Problem {
	return &Problem{Code: CodeSchemaEnvelope, Message: fmt.Sprintf(format, args...)}
}

func payloadProblem(format string, args ...any) *Problem {
	return &Problem{Code: CodeSchemaPayload, Message: fmt.Sprintf(format, args...)}
}

// envelope fills the envelope fields and returns the first defect, in the
// field order of docs/semantics.md, pact v1 §2.1.
func (d *decoder) envelope(ev *Event, hasType, typeIsString bool) *Problem {
	if s := d.top[fEventID]; s.Present() {
		b, ok := d.sc.Content(s)
		if !ok {
			event.MarkIDNotString(ev)
			return envelopeProblem("event_id must be a string, got %s", d.kind(s))
		}
		if d.lean {
			d.IDForm = compact.ParseID(&d.ID, b)
		}
		if d.IDForm == compact.IDOther {
			ev.EventID = string(b)
		}
	}
	ts, ok := d.sc.Content(d.top[fTS])
	if !ok {
		return envelopeProblem("ts must be a UTC timestamp string, got %s", d.kind(d.top[fTS]))
	}
	ev.TS, ok = parseTSBytes(ts)
	if !d.lean || !ok {
		ev.TSRaw = string(ts)
	}
	if !ok {
		return envelopeProblem("ts %q is not a UTC instant of the form YYYY-MM-DDTHH:MM:SS[.fraction]Z", ev.TSRaw)
	}
	if ev.AgentID, ok = d.interned(d.top[fAgentID], lean.SymAgent); !ok {
		return envelopeProblem("agent_id must be a string, got %s", d.kind(d.top[fAgentID]))
	}
	if !IsSlug(ev.AgentID) {
		return envelopeProblem("agent_id %q does not match ^[a-z0-9][a-z0-9-]*$", ev.AgentID)
	}
	role, ok := d.sc.Content(d.top[fRole])
	if !ok {
		return envelopeProblem("role must be a string, got %s", d.kind(d.top[fRole]))
	}
	switch string(role) {
	case RoleOrchestrator:
		ev.Role = RoleOrchestrator
	case RoleWorker:
		ev.Role = RoleWorker
	case RoleReviewer:
		ev.Role = RoleReviewer
	default:
		ev.Role = string(role)
		return envelopeProblem("role %q is not one of orchestrator, worker, reviewer", ev.Role)
	}
	if !hasType || !typeIsString {
		return envelopeProblem("event_type must be a string, got %s", d.kind(d.top[fEventType]))
	}
	if ev.TaskID, ok = d.interned(d.top[fTaskID], lean.SymTask); !ok {
		return envelopeProblem("task_id must be a string, got %s", d.kind(d.top[fTaskID]))
	}
	if ev.Feature, ok = d.interned(d.top[fFeature], lean.SymFeature); !ok {
		return envelopeProblem("feature must be a string, got %s", d.kind(d.top[fFeature]))
	}
	if !d.payObj {
		return envelopeProblem("payload must be an object, got %s", d.kind(d.top[fPayload]))
	}
	switch ev.Type {
	case TypeInit, TypeJoin, TypeMerge:
		if ev.TaskID != "" {
			return envelopeProblem("task_id must be \"\" on a %s event, got %q", ev.Type, ev.TaskID)
		}
	default:
		if ev.TaskID == "" {
			return envelopeProblem("task_id must not be empty on a %s event", ev.Type)
		}
	}
	switch ev.Type {
	case TypeInit, TypeJoin:
		if ev.Feature != "" {
			return envelopeProblem("feature must be \"\" on a %s event, got %q", ev.Type, ev.Feature)
		}
	case TypeAssign, TypeMerge:
		if ev.Feature == "" {
			return envelopeProblem("feature must not be empty on a %s event", ev.Type)
		}
	}
	return nil
}

func (d *decoder) str1(name string, ev *Event, field int, dst *string) *Problem {
	s := d.pay[field]
	b, ok := d.sc.Content(s)
	if !ok {
		return payloadProblem("payload.%s must be a string on a %s event, got %s", name, ev.Type, d.kind(s))
	}
	*dst = string(b)
	return nil
}

func (d *decoder) strInterned(name string, ev *Event, field, sym int, dst *string) *Problem {
	s := d.pay[field]
	v, ok := d.interned(s, sym)
	if !ok {
		return payloadProblem("payload.%s must be a string on a %s event, got %s", name, ev.Type, d.kind(s))
	}
	*dst = v
	return nil
}

func (d *decoder) payload(ev *Event) *Problem {
	p := &ev.Payload
	switch ev.Type {
	case TypeInit:
		if pr := d.str1("project", ev, pProject, &p.Project); pr != nil {
			return pr
		}
		v := d.sc.Raw(d.pay[pProtocolVersion])
		if !jsonscan.IsInteger(v) {
			return payloadProblem("payload.protocol_version must be a JSON integer, got %s", describeRaw(v))
		}
		n, err := parseSmallInt(v)
		if err != nil || n < 1 {
			return payloadProblem("payload.protocol_version must be an integer of at least 1, got %s", v)
		}
		p.ProtocolVersion = n
		seats := d.pay[pSeats]
		if !seats.Present() || d.line[seats.Lo] != '[' {
			return payloadProblem("payload.seats must be an array of seat objects, got %s", d.kind(seats))
		}
		var pr *Problem
		i := 0
		d.sc.Elements(seats, func(el span) bool {
			seat, bad := d.seat(el)
			if bad != nil {
				pr = payloadProblem("payload.seats[%d] %s", i, bad.Message)
				return false
			}
			p.Seats = append(p.Seats, seat)
			i++
			return true
		})
		if pr != nil {
			return pr
		}
		return d.str1("base_branch", ev, pBaseBranch, &p.BaseBranch)
	case TypeAssign:
		if pr := d.strInterned("owner", ev, pOwner, lean.SymOwner, &p.Owner); pr != nil {
			return pr
		}
		if pr := d.strInterned("reviewer", ev, pReviewer, lean.SymReviewer, &p.Reviewer); pr != nil {
			return pr
		}
		if pr := d.strInterned("branch", ev, pBranch, lean.SymBranch, &p.Branch); pr != nil {
			return pr
		}
		return d.str1("spec", ev, pSpec, &p.Spec)
	case TypeJoin:
		s := d.pay[pRoles]
		if d.lean {
			if !d.sc.IsStringArray(s) {
				return payloadProblem("payload.roles must be an array of strings on a join event, got %s", d.kind(s))
			}
			return nil
		}
		roles, ok := d.stringArray(s)
		if !ok {
			return payloadProblem("payload.roles must be an array of strings on a join event, got %s", d.kind(s))
		}
		p.Roles = roles
	case TypeCheckpoint:
		if d.lean {
			if s := d.pay[pEvidence]; !d.sc.IsString(s) {
				return payloadProblem("payload.evidence must be a string on a checkpoint event, got %s", d.kind(s))
			}
			return nil
		}
		return d.str1("evidence", ev, pEvidence, &p.Evidence)
	case TypeChangesRequested:
		if pr := d.str1("reason", ev, pReason, &p.Reason); pr != nil {
			return pr
		}
		d.provenance(p)
	case TypeAccept:
		d.provenance(p)
	}
	return nil
}

// provenance reads the optional fields our tools add; a wrong type is
// treated as absent because v1 gives these fields no required shape.
func (d *decoder) provenance(p *Payload) {
	if d.lean {
		return // nothing a replay judges or keeps (a Task keeps no commit)
	}
	if c, ok := d.plain(d.pay[pCommit]); ok {
		p.Commit = c
	}
	if s := d.pay[pGitHub]; s.Present() && d.line[s.Lo] == '{' {
		p.GitHub = d.gitHub(s)
	}
}

// gitHub decodes payload.github with encoding/json's rules for a struct:
// keys match field names case-insensitively, null leaves a field as it is,
// and a value of the wrong type (a non-integer review_id included) makes the
// whole object unusable.
func (d *decoder) gitHub(obj span) *GitHubRef {
	var g GitHubRef
	bad := false
	d.sc.Members(obj, func(key []byte, v span) bool {
		var intDst *int64
		var strDst *string
		switch {
		case bytes.EqualFold(key, []byte("review_id")):
			intDst = &g.ReviewID
		case bytes.EqualFold(key, []byte("comment_id")):
			intDst = &g.CommentID
		case bytes.EqualFold(key, []byte("url")):
			strDst = &g.URL
		case bytes.EqualFold(key, []byte("login")):
			strDst = &g.Login
		case bytes.EqualFold(key, []byte("head_sha")):
			strDst = &g.HeadSHA
		default:
			return true
		}
		raw := d.sc.Raw(v)
		if raw[0] == 'n' {
			return true
		}
		if strDst != nil {
			s, ok := d.plain(v)
			if !ok {
				bad = true
				return false
			}
			*strDst = s
			return true
		}
		n, ok := jsonscan.ParseInt64(raw)
		if !ok {
			bad = true
			return false
		}
		*intDst = n
		return true
	})
	if bad {
		return nil
	}
	return &g
}

func (d *decoder) seat(s span) (Seat, *Problem) {
	if d.line[s.Lo] != '{' {
		return Seat{}, payloadProblem("must be a seat object {id, roles, entry}, got %s", jsonscan.Kind(d.sc.Raw(s)))
	}
	id, roles, entry := absent, absent, absent
	d.sc.Members(s, func(key []byte, v span) bool {
		switch string(key) {
		case "id":
			id = v
		case "roles":
			roles = v
		case "entry":
			entry = v
		}
		return true
	})
	var seat Seat
	var ok bool
	if seat.ID, ok = d.interned(id, lean.SymOther); !ok {
		return seat, payloadProblem("id must be a string, got %s", d.kind(id))
	}
	if seat.Roles, ok = d.stringArray(roles); !ok {
		return seat, payloadProblem("roles must be an array of strings, got %s", d.kind(roles))
	}
	if seat.Entry, ok = d.interned(entry, lean.SymOther); !ok {
		return seat, payloadProblem("entry must be a string, got %s", d.kind(entry))
	}
	return seat, nil
}
