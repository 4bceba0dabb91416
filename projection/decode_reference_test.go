package projection

// The decoder this package used before the hand-written one of decode.go,
// kept verbatim (renamed) as the reference the differential tests and
// FuzzDecodeDifferential hold the scanner to, and as the baseline of the
// benchmarks. It is built on encoding/json into map[string]json.RawMessage.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pact-action/pact-action/internal/testkit/jsonref"
	"hash/maphash"
	"io"
	"time"
	"unicode/utf8"

	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection/internal/event"
)

// parseReference is parse as it was: bufio lines and decodeLineReference.
func parseReference(r io.Reader) (*EventLog, error) {
	log := &EventLog{}
	err := refScanLines(r, func(n int, line []byte, tooLong bool) {
		log.Lines = n
		log.addReference(n, line, tooLong)
	})
	return log, err
}

// refScanLines calls fn for every line of r with its 1-based number, the line
// without its terminator (LF or CRLF) and, for a line over MaxLineBytes, only
// tooLong set. A leading UTF-8 BOM is dropped. The slice is only valid during
// the call.
func refScanLines(r io.Reader, fn func(n int, line []byte, tooLong bool)) error {
	br := bufio.NewReaderSize(r, 256<<10)
	n := 0
	first := true
	for {
		line, tooLong, err := refReadLine(br)
		if len(line) == 0 && !tooLong && errors.Is(err, io.EOF) {
			return nil
		}
		n++
		if first {
			line = bytes.TrimPrefix(line, []byte(pactfile.BOM))
			first = false
		}
		fn(n, line, tooLong)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine returns one line without its terminator. A line longer than
// MaxLineBytes is consumed but not kept.
func refReadLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !tooLong {
				long = append(long, chunk...)
				if len(long) > MaxLineBytes {
					tooLong, long = true, nil
				}
			}
			continue
		}
		if tooLong {
			return nil, true, err
		}
		if long != nil {
			chunk = append(long, chunk...)
		}
		chunk = bytes.TrimSuffix(chunk, []byte("\n"))
		chunk = bytes.TrimSuffix(chunk, []byte("\r"))
		if len(chunk) > MaxLineBytes {
			return nil, true, err
		}
		return chunk, false, err
	}
}

func (l *EventLog) addReference(n int, line []byte, tooLong bool) {
	if tooLong {
		l.Malformed = append(l.Malformed, Malformed{Line: n, Code: CodeMalformedJSON, Message: fmt.Sprintf("line is longer than the %d-byte bound", MaxLineBytes)})
		return
	}
	if isBlank(line) {
		return
	}
	if !utf8.Valid(line) {
		l.Malformed = append(l.Malformed, Malformed{Line: n, Code: CodeMalformedJSON, Message: "line is not valid UTF-8"})
		return
	}
	ev, claim, skip, msg := decodeLineReference(line)
	if msg != "" {
		code := CodeMalformedJSON
		if name, dup := jsonref.DuplicateKey(line); dup && msg == duplicateKeyMessage([]byte(name)) {
			code = CodeDuplicateKey
		}
		l.Malformed = append(l.Malformed, Malformed{Line: n, Code: code, Message: msg})
		return
	}
	if claim != nil {
		claim.Line = n
		l.Claims = append(l.Claims, *claim)
	}
	if skip {
		return
	}
	ev.Line = n
	l.Events = append(l.Events, ev)
	l.hashes = append(l.hashes, maphash.Bytes(lineSeed, line))
}

// decodeLine turns one non-blank, valid UTF-8 line into an Event. It reports
// a malformed message when the line is not a JSON object, skip when the line
// has a string event_type outside v1 (ignored entirely, docs/semantics.md, pact v1 §2.2), and a
// VersionClaim when it is an init asking for a newer protocol major.
func decodeLineReference(line []byte) (ev Event, claim *VersionClaim, skip bool, malformed string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		if bytes.Contains(line, []byte("NaN")) || bytes.Contains(line, []byte("Infinity")) {
			return ev, nil, false, "line is not valid JSON (NaN and Infinity are not JSON numbers)"
		}
		return ev, nil, false, "line is not a JSON object: " + refJSONErrorText(err)
	}
	if fields == nil { // the literal null
		return ev, nil, false, "line is not a JSON object: it is null"
	}
	if name, dup := jsonref.DuplicateKey(line); dup {
		return ev, nil, false, duplicateKeyMessage([]byte(name))
	}

	rawType, hasType := fields["event_type"]
	typ, typeIsString := refJSONString(rawType)
	if hasType && typeIsString && !isKnownType(typ) {
		return ev, nil, true, ""
	}
	ev.Type = typ
	if typ == TypeInit {
		claim = refVersionClaim(fields)
	}
	ev.Problem = refDecodeEnvelope(&ev, fields, hasType, typeIsString)
	if ev.Problem == nil {
		ev.Problem = refDecodePayload(&ev, fields["payload"])
	}
	return ev, claim, false, ""
}

func refJSONErrorText(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return "it is a JSON " + typeErr.Value
	}
	return err.Error()
}

// jsonString decodes raw when it is a JSON string.
func refJSONString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func refJSONKind(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "missing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// versionClaim returns a claim when payload.protocol_version is a JSON integer
// above the supported major.
func refVersionClaim(fields map[string]json.RawMessage) *VersionClaim {
	var payload map[string]json.RawMessage
	if json.Unmarshal(fields["payload"], &payload) != nil {
		return nil
	}
	raw := bytes.TrimSpace(payload["protocol_version"])
	if !refIsJSONInteger(raw) || bytes.HasPrefix(raw, []byte("-")) {
		return nil
	}
	digits := bytes.TrimLeft(raw, "0")
	if len(digits) == 0 || (len(digits) == 1 && digits[0] <= '0'+SupportedProtocolVersion) {
		return nil
	}
	c := &VersionClaim{Version: string(raw)}
	if s, ok := refJSONString(fields["ts"]); ok {
		c.TS, c.TSValid = refParseTS(s)
	}
	return c
}

// isJSONInteger reports whether raw is a JSON number written without a
// fraction or exponent: docs/semantics.md §7 makes 1.0 a payload error.
func refIsJSONInteger(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	i := 0
	if raw[0] == '-' {
		i = 1
	}
	if i == len(raw) {
		return false
	}
	for ; i < len(raw); i++ {
		if raw[i] < '0' || raw[i] > '9' {
			return false
		}
	}
	return true
}

// parseTS accepts exactly YYYY-MM-DDTHH:MM:SS[.fraction]Z naming a real
// instant (docs/semantics.md §7).
func refParseTS(s string) (time.Time, bool) {
	if len(s) < 20 || s[len(s)-1] != 'Z' {
		return time.Time{}, false
	}
	for i := 0; i < 19; i++ {
		c := s[i]
		switch i {
		case 4, 7:
			if c != '-' {
				return time.Time{}, false
			}
		case 10:
			if c != 'T' {
				return time.Time{}, false
			}
		case 13, 16:
			if c != ':' {
				return time.Time{}, false
			}
		default:
			if c < '0' || c > '9' {
				return time.Time{}, false
			}
		}
	}
	rest := s[19 : len(s)-1]
	if rest != "" {
		if len(rest) < 2 || rest[0] != '.' {
			return time.Time{}, false
		}
		for i := 1; i < len(rest); i++ {
			if rest[i] < '0' || rest[i] > '9' {
				return time.Time{}, false
			}
		}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// decodeEnvelope fills the envelope fields and returns the first defect, in
// the field order of docs/semantics.md, pact v1 §2.1.
func refDecodeEnvelope(ev *Event, f map[string]json.RawMessage, hasType, typeIsString bool) *Problem {
	if raw, ok := f["event_id"]; ok {
		id, isString := refJSONString(raw)
		if !isString {
			event.MarkIDNotString(ev)
			return envelopeProblem("event_id must be a string, got %s", refJSONKind(raw))
		}
		ev.EventID = id
	}
	ts, ok := refJSONString(f["ts"])
	if !ok {
		return envelopeProblem("ts must be a UTC timestamp string, got %s", refJSONKind(f["ts"]))
	}
	ev.TSRaw = ts
	if ev.TS, ok = refParseTS(ts); !ok {
		return envelopeProblem("ts %q is not a UTC instant of the form YYYY-MM-DDTHH:MM:SS[.fraction]Z", ts)
	}
	agent, ok := refJSONString(f["agent_id"])
	if !ok {
		return envelopeProblem("agent_id must be a string, got %s", refJSONKind(f["agent_id"]))
	}
	ev.AgentID = agent
	if !IsSlug(agent) {
		return envelopeProblem("agent_id %q does not match ^[a-z0-9][a-z0-9-]*$", agent)
	}
	role, ok := refJSONString(f["role"])
	if !ok {
		return envelopeProblem("role must be a string, got %s", refJSONKind(f["role"]))
	}
	ev.Role = role
	if role != RoleOrchestrator && role != RoleWorker && role != RoleReviewer {
		return envelopeProblem("role %q is not one of orchestrator, worker, reviewer", role)
	}
	if !hasType || !typeIsString {
		return envelopeProblem("event_type must be a string, got %s", refJSONKind(f["event_type"]))
	}
	if ev.TaskID, ok = refJSONString(f["task_id"]); !ok {
		return envelopeProblem("task_id must be a string, got %s", refJSONKind(f["task_id"]))
	}
	if ev.Feature, ok = refJSONString(f["feature"]); !ok {
		return envelopeProblem("feature must be a string, got %s", refJSONKind(f["feature"]))
	}
	if p := f["payload"]; len(p) == 0 || p[0] != '{' {
		return envelopeProblem("payload must be an object, got %s", refJSONKind(p))
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

func refDecodePayload(ev *Event, raw json.RawMessage) *Problem {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(raw, &f); err != nil {
		return payloadProblem("payload is not an object")
	}
	p := &ev.Payload
	str := func(name string, dst *string) *Problem {
		s, ok := refJSONString(f[name])
		if !ok {
			return payloadProblem("payload.%s must be a string on a %s event, got %s", name, ev.Type, refJSONKind(f[name]))
		}
		*dst = s
		return nil
	}
	switch ev.Type {
	case TypeInit:
		if pr := str("project", &p.Project); pr != nil {
			return pr
		}
		v := bytes.TrimSpace(f["protocol_version"])
		if !refIsJSONInteger(v) {
			return payloadProblem("payload.protocol_version must be a JSON integer, got %s", refDescribeRaw(v))
		}
		n, err := refParseSmallInt(v)
		if err != nil || n < 1 {
			return payloadProblem("payload.protocol_version must be an integer of at least 1, got %s", v)
		}
		p.ProtocolVersion = n
		seatsRaw := f["seats"]
		if len(seatsRaw) == 0 || seatsRaw[0] != '[' {
			return payloadProblem("payload.seats must be an array of seat objects, got %s", refJSONKind(seatsRaw))
		}
		var seats []json.RawMessage
		if err := json.Unmarshal(seatsRaw, &seats); err != nil {
			return payloadProblem("payload.seats must be an array of seat objects")
		}
		for i, s := range seats {
			seat, pr := refDecodeSeat(s)
			if pr != nil {
				return payloadProblem("payload.seats[%d] %s", i, pr.Message)
			}
			p.Seats = append(p.Seats, seat)
		}
		return str("base_branch", &p.BaseBranch)
	case TypeAssign:
		for _, fld := range []struct {
			name string
			dst  *string
		}{{"owner", &p.Owner}, {"reviewer", &p.Reviewer}, {"branch", &p.Branch}, {"spec", &p.Spec}} {
			if pr := str(fld.name, fld.dst); pr != nil {
				return pr
			}
		}
	case TypeJoin:
		roles, ok := refStringArray(f["roles"])
		if !ok {
			return payloadProblem("payload.roles must be an array of strings on a join event, got %s", refJSONKind(f["roles"]))
		}
		p.Roles = roles
	case TypeCheckpoint:
		return str("evidence", &p.Evidence)
	case TypeChangesRequested:
		if pr := str("reason", &p.Reason); pr != nil {
			return pr
		}
		refDecodeProvenance(p, f)
	case TypeAccept:
		refDecodeProvenance(p, f)
	}
	return nil
}

// decodeProvenance reads the optional fields our tools add; a wrong type is
// treated as absent because v1 gives these fields no required shape.
func refDecodeProvenance(p *Payload, f map[string]json.RawMessage) {
	if c, ok := refJSONString(f["commit"]); ok {
		p.Commit = c
	}
	if raw := f["github"]; len(raw) > 0 && raw[0] == '{' {
		var g GitHubRef
		if json.Unmarshal(raw, &g) == nil {
			p.GitHub = &g
		}
	}
}

func refDescribeRaw(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	if len(v) > 40 {
		return string(v[:40]) + "…"
	}
	return string(v)
}

func refParseSmallInt(v []byte) (int, error) {
	// Any positive JSON integer is a valid protocol_version (one above the
	// supported major fails the log closed); a huge one saturates instead of
	// overflowing.
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("not a non-negative integer")
		}
		if n < 1<<30 {
			n = n*10 + int(c-'0')
		}
	}
	return min(n, 1<<30), nil
}

func refStringArray(raw json.RawMessage) ([]string, bool) {
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, false
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := refJSONString(it)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func refDecodeSeat(raw json.RawMessage) (Seat, *Problem) {
	if len(raw) == 0 || raw[0] != '{' {
		return Seat{}, payloadProblem("must be a seat object {id, roles, entry}, got %s", refJSONKind(raw))
	}
	var f map[string]json.RawMessage
	if json.Unmarshal(raw, &f) != nil {
		return Seat{}, payloadProblem("must be a seat object")
	}
	var s Seat
	var ok bool
	if s.ID, ok = refJSONString(f["id"]); !ok {
		return s, payloadProblem("id must be a string, got %s", refJSONKind(f["id"]))
	}
	if s.Roles, ok = refStringArray(f["roles"]); !ok {
		return s, payloadProblem("roles must be an array of strings, got %s", refJSONKind(f["roles"]))
	}
	if s.Entry, ok = refJSONString(f["entry"]); !ok {
		return s, payloadProblem("entry must be a string, got %s", refJSONKind(f["entry"]))
	}
	return s, nil
}
