package projection

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math/bits"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is the hot path of every parse: a hand-written, single-pass JSON
// scanner for one log line. It validates the whole line exactly as
// encoding/json does (the same grammar, the same nesting bound) and records
// where the envelope fields and the payload fields of interest are, then
// decodes only those values. Its results are byte-for-byte those of the
// reference decoder built on encoding/json (decode_reference_test.go keeps
// it, and FuzzDecodeDifferential holds the two to each other):
//
//   - the last of duplicate keys wins, as in a Go map;
//   - keys and strings are unescaped like encoding/json, invalid UTF-8 and
//     lone surrogates becoming U+FFFD;
//   - the message for a line that is not JSON is encoding/json's own, asked
//     of it only for such lines.
//
// payload.github keeps encoding/json's struct semantics (case-insensitive
// keys, null leaves a field alone, any type error drops the whole object).

// decodeLine turns one non-blank line into an Event. It reports a malformed
// message when the line is not a JSON object, skip when the line has a
// string event_type outside v1 (ignored entirely, spec §2.2), and a
// VersionClaim when it is an init asking for a newer protocol major.
func decodeLine(line []byte) (ev Event, claim *VersionClaim, skip bool, malformed string) {
	var d decoder
	claim, skip, malformed = d.decode(line, &ev)
	return ev, claim, skip, malformed
}

// maxNesting is encoding/json's bound on nested arrays and objects.
const maxNesting = 10000

// span is where a value sits in the line: line[lo:hi]; lo < 0 when absent.
// plain marks a string without escapes or bytes above 0x7F, whose content
// is its bytes.
type span struct {
	lo, hi int32
	plain  bool
}

var absent = span{-1, -1, false}

func (s span) present() bool { return s.lo >= 0 }

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

// decoder decodes lines one at a time. It is not safe for concurrent use;
// parallel parsing gives every goroutine its own.
type decoder struct {
	line []byte
	top  [nTop]span
	pay  [nPay]span
	// payObj says the (last) payload value is an object, so pay is valid.
	payObj bool
	// high says some string holds a byte >= 0x80; without one every string
	// is plain ASCII and needs no UTF-8 check.
	high bool
	// checkUTF8 says the line may hold invalid UTF-8 (see validUTF8).
	checkUTF8 bool
	// notObject holds the first byte of a valid top-level value that is not
	// an object.
	notObject byte
	keyBuf    []byte
	strBuf    []byte

	// Interning: strings that repeat across lines (seat ids, task ids,
	// features, branches) are allocated once. They are numbered (names), so
	// lean parsing can keep a uint32 where a string would take 16 bytes and
	// keeps them all; otherwise the table is only an economy and is emptied
	// past maxInterned names. slots is an open-addressing index of names:
	// hash<<32 | index+1; recent caches the names in use once it is big.
	slots    []uint64
	names    []string
	internAt maphash.Seed
	recent   *[recentSize]recentName
	// symBase is added to the numbers of names: parallel lean parsing gives
	// each goroutine its own range (symWorkerShift).
	symBase uint32
	// symOf holds the symbol of the last interned value of each field.
	symOf [nSymFields]uint32

	// lean skips what a replay never reads: it leaves EventID empty when it
	// is 32 lower-case hex digits or a lower-case UUID (idBytes and idForm
	// hold it instead), does not keep TSRaw of a valid ts, nor evidence,
	// join roles and provenance beyond payload.commit.
	lean    bool
	idForm  uint8
	idBytes [16]byte
}

// Fields whose symbols lean parsing keeps.
const (
	symAgent = iota
	symTask
	symFeature
	symOwner
	symReviewer
	symBranch
	symOther // seat ids, roles and entries: interned, symbol unused
	nSymFields
)

// Forms of an event_id that lean parsing stores in 16 bytes.
const (
	idOther = iota // kept as a string (or missing)
	idHex          // 32 lower-case hex digits
	idUUID         // 8-4-4-4-12 lower-case hex digits
)

// maxInterned bounds the intern table of a long-lived decoder.
const maxInterned = 1 << 18

func (d *decoder) intern(b []byte, field int) string {
	if len(d.slots) == 0 {
		d.internAt = maphash.MakeSeed()
		d.slots = make([]uint64, 64)
	}
	h := maphash.Bytes(d.internAt, b)
	if d.recent == nil {
		return d.internSlow(b, h, field)
	}
	// The names of the tasks in flight recur within a few lines: once the
	// table is big, a small direct-mapped cache keeps them off it.
	e := &d.recent[h%recentSize]
	if e.hash == h && e.s == string(b) {
		d.symOf[field] = e.sym
		return e.s
	}
	s := d.internSlow(b, h, field)
	*e = recentName{h, d.symOf[field], s}
	return s
}

// recentSize is the number of entries of the intern cache.
const recentSize = 1024

type recentName struct {
	hash uint64
	sym  uint32
	s    string
}

// internSlow finds or adds b (whose hash is h) in the table.
func (d *decoder) internSlow(b []byte, h uint64, field int) string {
	tag := h >> 32
	mask := uint64(len(d.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := d.slots[i]
		if sl == 0 {
			break
		}
		if sl>>32 == tag {
			if n := uint32(sl) - 1; d.names[n] == string(b) {
				d.symOf[field] = d.symBase | n
				return d.names[n]
			}
		}
	}
	if !d.lean && len(d.names) >= maxInterned {
		d.resetSyms()
	}
	if 2*(len(d.names)+1) > len(d.slots) {
		d.growSyms()
	}
	s := string(b)
	n := uint32(len(d.names))
	d.names = append(d.names, s)
	d.place(h, n)
	d.symOf[field] = d.symBase | n
	return s
}

func (d *decoder) place(h uint64, n uint32) {
	mask := uint64(len(d.slots) - 1)
	i := h & mask
	for d.slots[i] != 0 {
		i = (i + 1) & mask
	}
	d.slots[i] = h&^0xFFFFFFFF | uint64(n+1)
}

func (d *decoder) growSyms() {
	d.slots = make([]uint64, 2*len(d.slots))
	if len(d.slots) > 4*recentSize && d.recent == nil {
		d.recent = new([recentSize]recentName)
	}
	for n, s := range d.names {
		d.place(maphash.String(d.internAt, s), uint32(n))
	}
}

func (d *decoder) resetSyms() {
	clear(d.slots)
	clear(d.names)
	d.names = d.names[:0]
	if d.recent != nil {
		clear(d.recent[:])
	}
}

// validUTF8 reports whether the line last decoded is valid UTF-8, which
// Log.add checks before anything else. A line that is JSON and has no byte
// above 0x7F in a string has none at all, so only other lines are checked.
func (d *decoder) validUTF8() bool {
	return !d.checkUTF8 || utf8.Valid(d.line)
}

// decode fills ev (which it zeroes first) from one line.
func (d *decoder) decode(line []byte, ev *Event) (claim *VersionClaim, skip bool, malformed string) {
	*ev = Event{}
	d.line = line
	d.top = [nTop]span{absent, absent, absent, absent, absent, absent, absent, absent}
	d.pay = [nPay]span{absent, absent, absent, absent, absent, absent, absent, absent, absent, absent, absent, absent, absent}
	d.payObj, d.high, d.notObject, d.idForm = false, false, 0, idOther
	ok := d.scanLine()
	d.checkUTF8 = !ok || d.high
	if !ok {
		if hasNaN(line) {
			return nil, false, nanMessage
		}
		return nil, false, "line is not a JSON object: " + syntaxError(line)
	}
	switch d.notObject {
	case 0:
	case 'n':
		return nil, false, "line is not a JSON object: it is null"
	default:
		if hasNaN(line) {
			return nil, false, nanMessage
		}
		kind := "number"
		switch d.notObject {
		case '"':
			kind = "string"
		case '[':
			kind = "array"
		case 't', 'f':
			kind = "bool"
		}
		return nil, false, "line is not a JSON object: it is a JSON " + kind
	}

	typSpan := d.top[fEventType]
	hasType := typSpan.present()
	typ, typeIsString := d.eventType(typSpan)
	if hasType && typeIsString && !IsKnownType(typ) {
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

const nanMessage = "line is not valid JSON (NaN and Infinity are not JSON numbers)"

func hasNaN(line []byte) bool {
	return bytes.Contains(line, []byte("NaN")) || bytes.Contains(line, []byte("Infinity"))
}

// syntaxError is encoding/json's message for a line it rejects. Only lines
// that are not JSON get here, so asking encoding/json costs nothing on the
// hot path and the text is its own by construction.
func syntaxError(line []byte) string {
	var v json.RawMessage
	if err := json.Unmarshal(line, &v); err != nil {
		return err.Error()
	}
	return "it is not valid JSON" // unreachable while the scanner agrees with encoding/json
}

// ---- scanning ----

func (d *decoder) ws(i int) int {
	b := d.line
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanLine validates the line and records the fields of interest.
func (d *decoder) scanLine() bool {
	b := d.line
	i := d.ws(0)
	if i == len(b) {
		return false
	}
	if b[i] != '{' {
		j := d.value(i, 0)
		if j < 0 || d.ws(j) != len(b) {
			return false
		}
		d.notObject = b[i]
		return true
	}
	i = d.object(i, 0, (*decoder).topKey)
	return i >= 0 && d.ws(i) == len(b)
}

// object scans the object at line[i] (depth objects enclose it) and calls
// field for each key, which scans the value and returns where it ends.
func (d *decoder) object(i, depth int, field func(d *decoder, key []byte, i, depth int) int) int {
	depth++
	if depth > maxNesting {
		return -1
	}
	b := d.line
	i = d.ws(i + 1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		end, plain := d.str(i)
		if end < 0 {
			return -1
		}
		key := b[i+1 : end-1]
		if !plain {
			d.keyBuf = unquote(d.keyBuf[:0], key)
			key = d.keyBuf
		}
		i = d.ws(end)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		i = d.ws(i + 1)
		if i = field(d, key, i, depth); i < 0 {
			return -1
		}
		i = d.ws(i)
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = d.ws(i + 1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

func (d *decoder) topKey(key []byte, i, depth int) int {
	f := topField(key)
	if f == fPayload {
		d.pay = [nPay]span{absent, absent, absent, absent, absent, absent, absent, absent, absent, absent, absent, absent, absent}
		d.payObj = false
	}
	var end int
	plain := false
	switch {
	case i >= len(d.line):
		return -1
	case d.line[i] == '"':
		end, plain = d.str(i)
	case f == fPayload && d.line[i] == '{':
		end = d.object(i, depth, (*decoder).payloadKey)
		d.payObj = end >= 0
	default:
		end = d.value(i, depth)
	}
	if f >= 0 && end >= 0 {
		d.top[f] = span{int32(i), int32(end), plain}
	}
	return end
}

func (d *decoder) payloadKey(key []byte, i, depth int) int {
	f := payloadField(key) // before the value, whose keys may reuse keyBuf
	var end int
	plain := false
	if i < len(d.line) && d.line[i] == '"' {
		end, plain = d.str(i)
	} else {
		end = d.value(i, depth)
	}
	if f >= 0 && end >= 0 {
		d.pay[f] = span{int32(i), int32(end), plain}
	}
	return end
}

func skipKey(d *decoder, _ []byte, i, depth int) int { return d.value(i, depth) }

// value scans any JSON value at line[i] and returns where it ends, or -1.
func (d *decoder) value(i, depth int) int {
	b := d.line
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; c {
	case '"':
		end, _ := d.str(i)
		return end
	case '{':
		return d.object(i, depth, skipKey)
	case '[':
		return d.array(i, depth)
	case 't':
		return d.literal(i, "true")
	case 'f':
		return d.literal(i, "false")
	case 'n':
		return d.literal(i, "null")
	default:
		if c == '-' || ('0' <= c && c <= '9') {
			return d.number(i)
		}
	}
	return -1
}

func (d *decoder) array(i, depth int) int {
	depth++
	if depth > maxNesting {
		return -1
	}
	b := d.line
	i = d.ws(i + 1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for {
		if i = d.value(i, depth); i < 0 {
			return -1
		}
		i = d.ws(i)
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = d.ws(i + 1)
		case ']':
			return i + 1
		default:
			return -1
		}
	}
}

func (d *decoder) literal(i int, lit string) int {
	if len(d.line)-i < len(lit) || string(d.line[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (d *decoder) number(i int) int {
	b := d.line
	if b[i] == '-' {
		i++
		if i >= len(b) {
			return -1
		}
	}
	switch {
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	return i
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// str scans the string at line[i] (an opening quote) and returns the index
// after its closing quote, or -1, and whether it is plain: no escape and no
// byte above 0x7F. Such bytes are taken as they are, as encoding/json's
// scanner does.
func (d *decoder) str(i int) (end int, plain bool) {
	b := d.line
	i++
	high, esc := false, false
	for {
		// Eight bytes at a time while none is a quote, a backslash or a
		// control character.
		for i+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[i:])
			q := w ^ (ones * '"')
			s := w ^ (ones * '\\')
			special := (((q - ones) &^ q) | ((s - ones) &^ s) | ((w - ones*0x20) &^ w)) & highs
			if special != 0 {
				// The lowest flag marks the first special byte exactly (a
				// borrow can only raise flags above it); skip to it.
				skip := bits.TrailingZeros64(special) / 8
				if w&highs&(1<<(8*skip)-1) != 0 {
					high = true
				}
				i += skip
				break
			}
			if w&highs != 0 {
				high = true
			}
			i += 8
		}
		if i >= len(b) {
			return -1, false
		}
		c := b[i]
		switch {
		case c == '"':
			if high {
				d.high = true
			}
			return i + 1, !high && !esc
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return -1, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1, false
				}
				i += 6
			default:
				return -1, false
			}
		case c < 0x20:
			return -1, false
		default:
			if c >= utf8.RuneSelf {
				high = true
			}
			i++
		}
	}
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// unquote appends the decoded content of a validated JSON string (without
// its quotes) to dst exactly as encoding/json decodes it.
func unquote(dst, s []byte) []byte {
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			switch e := s[r+1]; e {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				rr := getu4(s[r:])
				r += 6
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != unicode.ReplacementChar {
						r += 6
						dst = utf8.AppendRune(dst, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				dst = utf8.AppendRune(dst, rr)
				continue
			default: // " \ /
				dst = append(dst, e)
			}
			r += 2
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			dst = utf8.AppendRune(dst, rr)
		}
	}
	return dst
}

func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// ---- decoding the recorded values ----

func (d *decoder) raw(s span) []byte {
	if !s.present() {
		return nil
	}
	return d.line[s.lo:s.hi]
}

// content returns the decoded bytes of the string at s, or ok false when
// the value is absent or not a string. The bytes are valid until the next
// call.
func (d *decoder) content(s span) (b []byte, ok bool) {
	if !s.present() || d.line[s.lo] != '"' {
		return nil, false
	}
	b = d.line[s.lo+1 : s.hi-1]
	if s.plain || (bytes.IndexByte(b, '\\') < 0 && (!d.high || utf8.Valid(b))) {
		return b, true
	}
	d.strBuf = unquote(d.strBuf[:0], b)
	return d.strBuf, true
}

// plain decodes the string at s into a new string.
func (d *decoder) plain(s span) (string, bool) {
	b, ok := d.content(s)
	if !ok {
		return "", false
	}
	return string(b), true
}

// interned decodes the string at s through the intern table.
func (d *decoder) interned(s span, field int) (string, bool) {
	b, ok := d.content(s)
	if !ok {
		return "", false
	}
	return d.intern(b, field), true
}

// isString reports whether the value at s is a string, without decoding it.
func (d *decoder) isString(s span) bool { return s.present() && d.line[s.lo] == '"' }

func (d *decoder) eventType(s span) (string, bool) {
	b, ok := d.content(s)
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
func (d *decoder) kind(s span) string {
	if !s.present() {
		return "missing"
	}
	return jsonKind(d.raw(s))
}

func jsonKind(raw []byte) string {
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
func (d *decoder) versionClaim() *VersionClaim {
	if !d.payObj {
		return nil
	}
	raw := d.raw(d.pay[pProtocolVersion])
	if !isJSONInteger(raw) || raw[0] == '-' {
		return nil
	}
	digits := bytes.TrimLeft(raw, "0")
	if len(digits) == 0 || (len(digits) == 1 && digits[0] <= '0'+SupportedProtocolVersion) {
		return nil
	}
	c := &VersionClaim{Version: string(raw)}
	if b, ok := d.content(d.top[fTS]); ok {
		c.TS, c.TSValid = parseTSBytes(b)
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

// parseTSBytes accepts exactly YYYY-MM-DDTHH:MM:SS[.fraction]Z naming a
// real instant (SEMANTICS §7). The fraction may have any number of digits;
// those past the ninth are dropped, as time.Parse drops them.
func parseTSBytes(b []byte) (time.Time, bool) {
	sec, nsec, ok := tsInstant(b)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(sec, int64(nsec)).UTC(), true
}

// tsInstant parses a ts into Unix seconds and nanoseconds.
func tsInstant(s []byte) (sec int64, nsec int32, ok bool) {
	n := len(s)
	if n < 20 || s[n-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return 0, 0, false
	}
	bad := false
	digit := func(c byte) int {
		d := c - '0'
		bad = bad || d > 9
		return int(d)
	}
	year := digit(s[0])*1000 + digit(s[1])*100 + digit(s[2])*10 + digit(s[3])
	month := digit(s[5])*10 + digit(s[6])
	day := digit(s[8])*10 + digit(s[9])
	hour := digit(s[11])*10 + digit(s[12])
	minute := digit(s[14])*10 + digit(s[15])
	second := digit(s[17])*10 + digit(s[18])
	if bad || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || second > 59 {
		return 0, 0, false
	}
	if n > 20 {
		if n < 22 || s[19] != '.' {
			return 0, 0, false
		}
		digits := 0
		for j := 20; j < n-1; j++ {
			c := s[j]
			if c < '0' || c > '9' {
				return 0, 0, false
			}
			if digits < 9 {
				nsec = nsec*10 + int32(c-'0')
				digits++
			}
		}
		for ; digits < 9; digits++ {
			nsec *= 10
		}
	}
	days := daysFromCivil(year, month, day)
	return days*86400 + int64(hour*3600+minute*60+second), nsec, true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil counts days from 1970-01-01 to a proleptic Gregorian date
// (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
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
// field order of spec §2.1.
func (d *decoder) envelope(ev *Event, hasType, typeIsString bool) *Problem {
	if s := d.top[fEventID]; s.present() {
		b, ok := d.content(s)
		if !ok {
			ev.idNotString = true
			return envelopeProblem("event_id must be a string, got %s", d.kind(s))
		}
		if !d.lean || !d.compactID(b) {
			ev.EventID = string(b)
		}
	}
	ts, ok := d.content(d.top[fTS])
	if !ok {
		return envelopeProblem("ts must be a UTC timestamp string, got %s", d.kind(d.top[fTS]))
	}
	sec, nsec, ok := tsInstant(ts)
	if !d.lean || !ok {
		ev.TSRaw = string(ts)
	}
	if !ok {
		return envelopeProblem("ts %q is not a UTC instant of the form YYYY-MM-DDTHH:MM:SS[.fraction]Z", ev.TSRaw)
	}
	ev.TS = time.Unix(sec, int64(nsec)).UTC()
	if ev.AgentID, ok = d.interned(d.top[fAgentID], symAgent); !ok {
		return envelopeProblem("agent_id must be a string, got %s", d.kind(d.top[fAgentID]))
	}
	if !IsSlug(ev.AgentID) {
		return envelopeProblem("agent_id %q does not match ^[a-z0-9][a-z0-9-]*$", ev.AgentID)
	}
	role, ok := d.content(d.top[fRole])
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
	if ev.TaskID, ok = d.interned(d.top[fTaskID], symTask); !ok {
		return envelopeProblem("task_id must be a string, got %s", d.kind(d.top[fTaskID]))
	}
	if ev.Feature, ok = d.interned(d.top[fFeature], symFeature); !ok {
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

// compactID stores an event id of a common form in idBytes.
func (d *decoder) compactID(b []byte) bool {
	switch len(b) {
	case 32:
		if hexBytes(d.idBytes[:], b) {
			d.idForm = idHex
			return true
		}
	case 36:
		if b[8] == '-' && b[13] == '-' && b[18] == '-' && b[23] == '-' &&
			hexBytes(d.idBytes[0:4], b[0:8]) && hexBytes(d.idBytes[4:6], b[9:13]) && hexBytes(d.idBytes[6:8], b[14:18]) &&
			hexBytes(d.idBytes[8:10], b[19:23]) && hexBytes(d.idBytes[10:16], b[24:36]) {
			d.idForm = idUUID
			return true
		}
	}
	return false
}

// hexBytes decodes lower-case hex only, so the text can be rebuilt exactly.
func hexBytes(dst, src []byte) bool {
	src = src[:2*len(dst)]
	var bad byte
	for i := range dst {
		hi, lo := lowerHexVal[src[2*i]], lowerHexVal[src[2*i+1]]
		bad |= hi | lo
		dst[i] = hi<<4 | lo&0xF
	}
	return bad&0xF0 == 0
}

// lowerHexVal maps '0'-'9' and 'a'-'f' to their values, anything else to
// 0xFF.
var lowerHexVal = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
	}
	return t
}()

// formatID rebuilds an event id stored by compactID.
func formatID(form uint8, id *[16]byte) string {
	const digits = "0123456789abcdef"
	var buf [36]byte
	n := 0
	for i, c := range id {
		if form == idUUID && (i == 4 || i == 6 || i == 8 || i == 10) {
			buf[n] = '-'
			n++
		}
		buf[n], buf[n+1] = digits[c>>4], digits[c&0xF]
		n += 2
	}
	return string(buf[:n])
}

func (d *decoder) str1(name string, ev *Event, field int, dst *string) *Problem {
	s := d.pay[field]
	b, ok := d.content(s)
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
		v := d.raw(d.pay[pProtocolVersion])
		if !isJSONInteger(v) {
			return payloadProblem("payload.protocol_version must be a JSON integer, got %s", describeRaw(v))
		}
		n, err := parseSmallInt(v)
		if err != nil || n < 1 {
			return payloadProblem("payload.protocol_version must be an integer of at least 1, got %s", v)
		}
		p.ProtocolVersion = n
		seats := d.pay[pSeats]
		if !seats.present() || d.line[seats.lo] != '[' {
			return payloadProblem("payload.seats must be an array of seat objects, got %s", d.kind(seats))
		}
		var pr *Problem
		i := 0
		d.elements(seats, func(el span) bool {
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
		if pr := d.strInterned("owner", ev, pOwner, symOwner, &p.Owner); pr != nil {
			return pr
		}
		if pr := d.strInterned("reviewer", ev, pReviewer, symReviewer, &p.Reviewer); pr != nil {
			return pr
		}
		if pr := d.strInterned("branch", ev, pBranch, symBranch, &p.Branch); pr != nil {
			return pr
		}
		return d.str1("spec", ev, pSpec, &p.Spec)
	case TypeJoin:
		s := d.pay[pRoles]
		if d.lean {
			if !d.isStringArray(s) {
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
			if s := d.pay[pEvidence]; !d.isString(s) {
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
	if c, ok := d.plain(d.pay[pCommit]); ok {
		p.Commit = c
	}
	if d.lean {
		return
	}
	if s := d.pay[pGitHub]; s.present() && d.line[s.lo] == '{' {
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
	d.members(obj, func(key []byte, v span) bool {
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
		raw := d.raw(v)
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
		n, ok := parseInt64(raw)
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

// parseInt64 is strconv.ParseInt(s, 10, 64) on a JSON number.
func parseInt64(raw []byte) (int64, bool) {
	if !isJSONInteger(raw) {
		return 0, false
	}
	neg := raw[0] == '-'
	if neg {
		raw = raw[1:]
	}
	var n uint64
	for _, c := range raw {
		if n > (1<<63)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
		if n > 1<<63 {
			return 0, false
		}
	}
	if neg {
		return -int64(n), true // -(1<<63) wraps to itself, which is right
	}
	if n > 1<<63-1 {
		return 0, false
	}
	return int64(n), true
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
		if n < 1<<30 {
			n = n*10 + int(c-'0')
		}
	}
	return min(n, 1<<30), nil
}

// elements calls fn for each element of the (validated) array at s until fn
// returns false.
func (d *decoder) elements(s span, fn func(el span) bool) {
	b := d.line
	i := d.ws(int(s.lo) + 1)
	if b[i] == ']' {
		return
	}
	for {
		end := d.value(i, 0)
		if !fn(span{int32(i), int32(end), false}) {
			return
		}
		i = d.ws(end)
		if b[i] == ']' {
			return
		}
		i = d.ws(i + 1)
	}
}

// members calls fn for each member of the (validated) object at s, with the
// decoded key, until fn returns false. The key is valid during the call.
func (d *decoder) members(s span, fn func(key []byte, v span) bool) {
	b := d.line
	i := d.ws(int(s.lo) + 1)
	if b[i] == '}' {
		return
	}
	var key []byte
	for {
		end, plain := d.str(i)
		key = append(key[:0], b[i+1:end-1]...)
		if !plain {
			key = unquote(key[:0], b[i+1:end-1])
		}
		i = d.ws(d.ws(end) + 1)
		vend := d.value(i, 0)
		if !fn(key, span{int32(i), int32(vend), false}) {
			return
		}
		i = d.ws(vend)
		if b[i] == '}' {
			return
		}
		i = d.ws(i + 1)
	}
}

func (d *decoder) isStringArray(s span) bool {
	if !s.present() || d.line[s.lo] != '[' {
		return false
	}
	ok := true
	d.elements(s, func(el span) bool {
		ok = d.line[el.lo] == '"'
		return ok
	})
	return ok
}

// stringArray decodes an array of strings; like encoding/json into
// []string it gives an empty, non-nil slice for [].
func (d *decoder) stringArray(s span) ([]string, bool) {
	if !d.isStringArray(s) {
		return nil, false
	}
	out := make([]string, 0, 4)
	d.elements(s, func(el span) bool {
		b, _ := d.content(el)
		out = append(out, d.intern(b, symOther))
		return true
	})
	return out, true
}

func (d *decoder) seat(s span) (Seat, *Problem) {
	if d.line[s.lo] != '{' {
		return Seat{}, payloadProblem("must be a seat object {id, roles, entry}, got %s", jsonKind(d.raw(s)))
	}
	id, roles, entry := absent, absent, absent
	d.members(s, func(key []byte, v span) bool {
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
	if seat.ID, ok = d.interned(id, symOther); !ok {
		return seat, payloadProblem("id must be a string, got %s", d.kind(id))
	}
	if seat.Roles, ok = d.stringArray(roles); !ok {
		return seat, payloadProblem("roles must be an array of strings, got %s", d.kind(roles))
	}
	if seat.Entry, ok = d.interned(entry, symOther); !ok {
		return seat, payloadProblem("entry must be a string, got %s", d.kind(entry))
	}
	return seat, nil
}
