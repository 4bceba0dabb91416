package projection

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// decodeLine turns one non-blank, valid UTF-8 line into an Event. It reports
// a malformed message when the line is not a JSON object, skip when the line
// has a string event_type outside v1 (ignored entirely, spec §2.2), and a
// VersionClaim when it is an init asking for a newer protocol major.
func decodeLine(line []byte) (ev Event, claim *VersionClaim, skip bool, malformed string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		if bytes.Contains(line, []byte("NaN")) || bytes.Contains(line, []byte("Infinity")) {
			return ev, nil, false, "line is not valid JSON (NaN and Infinity are not JSON numbers)"
		}
		return ev, nil, false, "line is not a JSON object: " + jsonErrorText(err)
	}
	if fields == nil { // the literal null
		return ev, nil, false, "line is not a JSON object: it is null"
	}

	rawType, hasType := fields["event_type"]
	typ, typeIsString := jsonString(rawType)
	if hasType && typeIsString && !IsKnownType(typ) {
		return ev, nil, true, ""
	}
	ev.Type = typ
	if typ == TypeInit {
		claim = versionClaim(fields)
	}
	ev.Problem = decodeEnvelope(&ev, fields, hasType, typeIsString)
	if ev.Problem == nil {
		ev.Problem = decodePayload(&ev, fields["payload"])
	}
	return ev, claim, false, ""
}

func jsonErrorText(err error) string {
	var typeErr *json.UnmarshalTypeError
	if ok := asTypeError(err, &typeErr); ok {
		return "it is a JSON " + typeErr.Value
	}
	return err.Error()
}

func asTypeError(err error, target **json.UnmarshalTypeError) bool {
	te, ok := err.(*json.UnmarshalTypeError)
	if ok {
		*target = te
	}
	return ok
}

// jsonString decodes raw when it is a JSON string.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func jsonKind(raw json.RawMessage) string {
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
func versionClaim(fields map[string]json.RawMessage) *VersionClaim {
	var payload map[string]json.RawMessage
	if json.Unmarshal(fields["payload"], &payload) != nil {
		return nil
	}
	raw := bytes.TrimSpace(payload["protocol_version"])
	if !isJSONInteger(raw) || bytes.HasPrefix(raw, []byte("-")) {
		return nil
	}
	digits := bytes.TrimLeft(raw, "0")
	if len(digits) == 0 || (len(digits) == 1 && digits[0] <= '0'+SupportedProtocolVersion) {
		return nil
	}
	c := &VersionClaim{Version: string(raw)}
	if s, ok := jsonString(fields["ts"]); ok {
		c.TS, c.TSValid = parseTS(s)
	}
	return c
}

// isJSONInteger reports whether raw is a JSON number written without a
// fraction or exponent: SEMANTICS §7 makes 1.0 a payload error.
func isJSONInteger(raw []byte) bool {
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
// instant (SEMANTICS §7).
func parseTS(s string) (time.Time, bool) {
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

// decodeEnvelope fills the envelope fields and returns the first defect, in
// the field order of spec §2.1.
func decodeEnvelope(ev *Event, f map[string]json.RawMessage, hasType, typeIsString bool) *Problem {
	if raw, ok := f["event_id"]; ok {
		id, isString := jsonString(raw)
		if !isString {
			return envelopeProblem("event_id must be a string, got %s", jsonKind(raw))
		}
		ev.EventID = id
	}
	ts, ok := jsonString(f["ts"])
	if !ok {
		return envelopeProblem("ts must be a UTC timestamp string, got %s", jsonKind(f["ts"]))
	}
	ev.TSRaw = ts
	if ev.TS, ok = parseTS(ts); !ok {
		return envelopeProblem("ts %q is not a UTC instant of the form YYYY-MM-DDTHH:MM:SS[.fraction]Z", ts)
	}
	agent, ok := jsonString(f["agent_id"])
	if !ok {
		return envelopeProblem("agent_id must be a string, got %s", jsonKind(f["agent_id"]))
	}
	ev.AgentID = agent
	if !IsSlug(agent) {
		return envelopeProblem("agent_id %q does not match ^[a-z0-9][a-z0-9-]*$", agent)
	}
	role, ok := jsonString(f["role"])
	if !ok {
		return envelopeProblem("role must be a string, got %s", jsonKind(f["role"]))
	}
	ev.Role = role
	if role != RoleOrchestrator && role != RoleWorker && role != RoleReviewer {
		return envelopeProblem("role %q is not one of orchestrator, worker, reviewer", role)
	}
	if !hasType || !typeIsString {
		return envelopeProblem("event_type must be a string, got %s", jsonKind(f["event_type"]))
	}
	if ev.TaskID, ok = jsonString(f["task_id"]); !ok {
		return envelopeProblem("task_id must be a string, got %s", jsonKind(f["task_id"]))
	}
	if ev.Feature, ok = jsonString(f["feature"]); !ok {
		return envelopeProblem("feature must be a string, got %s", jsonKind(f["feature"]))
	}
	if p := f["payload"]; len(p) == 0 || p[0] != '{' {
		return envelopeProblem("payload must be an object, got %s", jsonKind(p))
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

func decodePayload(ev *Event, raw json.RawMessage) *Problem {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(raw, &f); err != nil {
		return payloadProblem("payload is not an object")
	}
	p := &ev.Payload
	str := func(name string, dst *string) *Problem {
		s, ok := jsonString(f[name])
		if !ok {
			return payloadProblem("payload.%s must be a string on a %s event, got %s", name, ev.Type, jsonKind(f[name]))
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
		if !isJSONInteger(v) {
			return payloadProblem("payload.protocol_version must be a JSON integer, got %s", describeRaw(v))
		}
		n, err := parseSmallInt(v)
		if err != nil || n < 1 {
			return payloadProblem("payload.protocol_version must be an integer of at least 1, got %s", v)
		}
		p.ProtocolVersion = n
		seatsRaw := f["seats"]
		if len(seatsRaw) == 0 || seatsRaw[0] != '[' {
			return payloadProblem("payload.seats must be an array of seat objects, got %s", jsonKind(seatsRaw))
		}
		var seats []json.RawMessage
		if err := json.Unmarshal(seatsRaw, &seats); err != nil {
			return payloadProblem("payload.seats must be an array of seat objects")
		}
		for i, s := range seats {
			seat, pr := decodeSeat(s)
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
		roles, ok := stringArray(f["roles"])
		if !ok {
			return payloadProblem("payload.roles must be an array of strings on a join event, got %s", jsonKind(f["roles"]))
		}
		p.Roles = roles
	case TypeCheckpoint:
		return str("evidence", &p.Evidence)
	case TypeChangesRequested:
		if pr := str("reason", &p.Reason); pr != nil {
			return pr
		}
		decodeProvenance(p, f)
	case TypeAccept:
		decodeProvenance(p, f)
	}
	return nil
}

// decodeProvenance reads the optional fields our tools add; a wrong type is
// treated as absent because v1 gives these fields no required shape.
func decodeProvenance(p *Payload, f map[string]json.RawMessage) {
	if c, ok := jsonString(f["commit"]); ok {
		p.Commit = c
	}
	if raw := f["github"]; len(raw) > 0 && raw[0] == '{' {
		var g GitHubRef
		if json.Unmarshal(raw, &g) == nil {
			p.GitHub = &g
		}
	}
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
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("not a non-negative integer")
		}
		n = n*10 + int(c-'0')
		if n > 1<<30 {
			return 0, fmt.Errorf("integer too large")
		}
	}
	return n, nil
}

func stringArray(raw json.RawMessage) ([]string, bool) {
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, false
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := jsonString(it)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func decodeSeat(raw json.RawMessage) (Seat, *Problem) {
	if len(raw) == 0 || raw[0] != '{' {
		return Seat{}, payloadProblem("must be a seat object {id, roles, entry}, got %s", jsonKind(raw))
	}
	var f map[string]json.RawMessage
	if json.Unmarshal(raw, &f) != nil {
		return Seat{}, payloadProblem("must be a seat object")
	}
	var s Seat
	var ok bool
	if s.ID, ok = jsonString(f["id"]); !ok {
		return s, payloadProblem("id must be a string, got %s", jsonKind(f["id"]))
	}
	if s.Roles, ok = stringArray(f["roles"]); !ok {
		return s, payloadProblem("roles must be an array of strings, got %s", jsonKind(f["roles"]))
	}
	if s.Entry, ok = jsonString(f["entry"]); !ok {
		return s, payloadProblem("entry must be a string, got %s", jsonKind(f["entry"]))
	}
	return s, nil
}
