package projection_test

// The schema/fast-path agreement test: every event line the project knows of
// goes through both the JSON Schema (schemas.Event) and the hand-written
// decoder of this package (ParseBytes), and the two must agree on whether the
// line is schema-valid and, when it is not, on which finding it is
// (schema.envelope or schema.payload). Disagreements are either listed in
// the one block of documented exceptions below or are defects: of the schema
// (fix schemas/*.json) or of the fast path (fix decode.go, envelope.go).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pact-action/pact-action/internal/testkit/jsonref"
	"io"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/pact-action/pact-action/internal/testkit/schematest"
	"github.com/pact-action/pact-action/projection"
	"github.com/pact-action/pact-action/schemas"
)

// ---------------------------------------------------------------------------
// Documented exceptions: the only places where the two may differ.
//
//  1. Integral numbers written with a fraction or an exponent. JSON Schema's
//     "integer" is any number with a zero fractional part, so an init event
//     whose payload.protocol_version is a number token containing '.', 'e'
//     or 'E' with an integral value of at least 1 (1.0, 1e0, 10e-1, 2.0) is
//     valid against event.schema.json, while docs/semantics.md §7 makes it
//     schema.payload and the fast path reports exactly that. The schema
//     cannot express the lexical rule (schemas package documentation,
//     schemas.TestIntegralFractionIsInteger). Asserted in that exact form:
//     schema valid, fast path schema.payload.
//
//  2. An empty or missing event_id is not a schema matter. It is not a
//     disagreement either: the schema accepts it and the fast path produces
//     the event with Problem == nil; the replay reports event_id.missing.
//     Asserted: Problem == nil and MissingEventID() is true.
//
//  3. Lines whose event_type is a string outside the seven v1 types: readers
//     ignore them entirely (docs/semantics.md §1), so the fast path skips them
//     without a verdict, while the schema still checks their envelope. For
//     those the envelope verdict is asserted separately: the schema's
//     failures must all be envelope ones, and the schema must agree with the
//     fast path's verdict on the same line turned into an accept (the one v1
//     type whose only extra rule is a non-empty task_id and whose payload has
//     no required field).
//
//  4. A line whose objects name a member twice (at any depth). The validator
//     reads such a line as encoding/json does, the last value winning, and
//     judges that; docs/semantics.md §7 makes the line log.duplicate_key and
//     the fast path applies none of it, since other readers keep the first
//     value. Asserted: the fast path reports log.duplicate_key, whatever
//     the schema says.
//
// Reading rules that come before any schema (docs/semantics.md §7) are not
// exceptions but preconditions: a line that is not valid UTF-8 (which
// encoding/json, and so the validator, would silently repair with U+FFFD) or
// is longer than MaxLineBytes is log.malformed_json and never reaches a
// schema; blank lines and the file's BOM are the reader's business. The test
// asserts the fast path reports such lines as malformed.
// ---------------------------------------------------------------------------

// documentedException returns, for a line the schema accepts, the Problem
// code the fast path must report instead (exception 1), or "".
func documentedException(doc *jv) (projection.Code, string) {
	if s, ok := doc.str("event_type"); !ok || s != projection.TypeInit {
		return "", ""
	}
	payload := doc.get("payload")
	if payload == nil || payload.k != jObj {
		return "", ""
	}
	pv := payload.get("protocol_version")
	if pv == nil || pv.k != jNum || schemas.IsJSONInteger(json.Number(pv.s)) {
		return "", ""
	}
	r, ok := new(big.Rat).SetString(pv.s)
	if !ok || !r.IsInt() || r.Cmp(big.NewRat(1, 1)) < 0 {
		return "", ""
	}
	return projection.CodeSchemaPayload, "protocol_version " + pv.s + " is integral but not written as a JSON integer"
}

// ---------------------------------------------------------------------------
// The two verdicts.

type schemaVerdict struct {
	notJSON   bool // the bytes are not one JSON value
	notObject bool // JSON, but not an object
	valid     bool
	code      projection.Code // of an invalid object: envelope or payload
	leaves    []leafError
}

type leafError struct {
	loc     string // instance location, "" for the root
	url     string // schema location of the failing keyword
	payload bool   // inside $defs/payload-* or seat.schema.json
	kind    jsonschema.ErrorKind
}

func (v schemaVerdict) String() string {
	switch {
	case v.notJSON:
		return "not JSON"
	case v.notObject:
		return "not an object"
	case v.valid:
		return "valid"
	}
	var parts []string
	for _, l := range v.leaves {
		parts = append(parts, fmt.Sprintf("%s at %q (%s)", l.kind, l.loc, l.url))
	}
	return fmt.Sprintf("%s: %s", v.code, strings.Join(parts, "; "))
}

// payloadSchema reports whether a schema location belongs to the payload
// part of the contract: event.schema.json#/$defs/payload-* or the seat
// schema (except its shared $defs/slug, which agent_id uses).
func payloadSchema(url string) bool {
	if strings.Contains(url, schemas.BaseURL+schemas.EventFile+"#/$defs/payload-") {
		return true
	}
	return strings.HasPrefix(url, schemas.BaseURL+schemas.SeatFile+"#") && !strings.Contains(url, "/$defs/slug")
}

func judgeSchema(line []byte) schemaVerdict {
	err := schematest.ValidateJSON(schematest.Event(), line)
	if err == nil {
		return schemaVerdict{valid: true}
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return schemaVerdict{notJSON: true}
	}
	v := schemaVerdict{code: projection.CodeSchemaPayload}
	var walk func(e *jsonschema.ValidationError, inPayload bool)
	walk = func(e *jsonschema.ValidationError, inPayload bool) {
		url := e.SchemaURL
		if ref, ok := e.ErrorKind.(*kind.Reference); ok {
			url = ref.URL
		}
		inPayload = inPayload || payloadSchema(e.SchemaURL) || payloadSchema(url)
		if len(e.Causes) == 0 {
			l := leafError{loc: strings.Join(e.InstanceLocation, "/"), url: url, payload: inPayload, kind: e.ErrorKind}
			if _, ok := e.ErrorKind.(*kind.Type); ok && len(e.InstanceLocation) == 0 {
				v.notObject = true
			}
			if !inPayload {
				v.code = projection.CodeSchemaEnvelope
			}
			v.leaves = append(v.leaves, l)
		}
		for _, c := range e.Causes {
			walk(c, inPayload)
		}
	}
	walk(ve, false)
	return v
}

type fastVerdict struct {
	malformed string          // the reader's message when the line is malformed
	code      projection.Code // and its code
	skipped   bool            // no event and no malformed entry: an unknown event type
	ev        *projection.Event
}

func (f fastVerdict) String() string {
	switch {
	case f.malformed != "":
		return "malformed: " + f.malformed
	case f.skipped:
		return "skipped"
	case f.ev.Problem == nil:
		return "valid"
	}
	return fmt.Sprintf("%s: %s", f.ev.Problem.Code, f.ev.Problem.Message)
}

func runFast(t *testing.T, line []byte) fastVerdict {
	t.Helper()
	log := projection.ParseBytes(line) // every event kept, whatever its findings
	n := len(log.Malformed) + len(log.Events)
	if n > 1 {
		t.Fatalf("fast path made %d entries of one line %q", n, line)
	}
	switch {
	case len(log.Malformed) == 1:
		return fastVerdict{malformed: log.Malformed[0].Message, code: log.Malformed[0].Code}
	case len(log.Events) == 1:
		return fastVerdict{ev: &log.Events[0]}
	}
	return fastVerdict{skipped: true}
}

// ---------------------------------------------------------------------------
// The agreement itself.

type agreement struct {
	t      *testing.T
	seen   map[string]bool
	errors int
	// tallies, so the test cannot pass vacuously
	lines, valid, envelope, payload, notObject, skipped, skippedInvalid, missingID, readerRule int
	excepted                                                                                   map[string]int
}

func newAgreement(t *testing.T) *agreement {
	return &agreement{t: t, seen: map[string]bool{}, excepted: map[string]int{}}
}

func (a *agreement) fail(origin string, line []byte, format string, args ...any) {
	a.t.Helper()
	a.errors++
	if a.errors > 40 {
		a.t.Fatalf("more than 40 disagreements; stopping")
	}
	shown := line
	if len(shown) > 600 {
		shown = append(append([]byte{}, shown[:600]...), "…"...)
	}
	a.t.Errorf("%s: %s\n  line: %s", origin, fmt.Sprintf(format, args...), shown)
}

// check runs one line through both and asserts they agree.
func (a *agreement) check(origin string, line []byte) {
	a.t.Helper()
	if a.seen[string(line)] {
		return
	}
	a.seen[string(line)] = true
	a.lines++
	fp := runFast(a.t, line)
	if !utf8.Valid(line) || len(line) > projection.MaxLineBytes {
		a.readerRule++
		if fp.malformed == "" {
			a.fail(origin, line, "reader rule: invalid UTF-8 or an over-long line must be log.malformed_json, fast path says %s", fp)
		}
		return
	}
	sv := judgeSchema(line)
	if name, dup := jsonref.DuplicateKey(line); dup && !sv.notJSON && !sv.notObject {
		a.excepted["4: a member named twice"]++
		if fp.code != projection.CodeDuplicateKey || !strings.Contains(fp.malformed, strconv.Quote(name)) {
			a.fail(origin, line, "documented exception 4 (%q named twice): want fast path log.duplicate_key, got %s", name, fp)
		}
		return
	}
	for _, l := range sv.leaves {
		if l.payload && l.loc != "payload" && !strings.HasPrefix(l.loc, "payload/") {
			a.fail(origin, line, "schema failure classified payload outside /payload: %s at %q", l.kind, l.loc)
		}
	}
	if sv.notJSON || sv.notObject {
		a.notObject++
		if fp.malformed == "" {
			a.fail(origin, line, "schema: %s; fast path: %s (want malformed)", sv, fp)
		}
		return
	}
	if fp.malformed != "" {
		a.fail(origin, line, "fast path: %s; schema sees an object: %s", fp, sv)
		return
	}
	doc, err := parseJV(line)
	if err != nil {
		a.fail(origin, line, "test decoder: %v", err)
		return
	}
	if et, ok := doc.str("event_type"); ok && !projection.IsKnownType(et) {
		a.checkUnknown(origin, line, doc, sv, fp)
		return
	}
	if fp.skipped {
		a.fail(origin, line, "fast path skipped a line whose event_type is not a string outside the seven; schema: %s", sv)
		return
	}
	if sv.valid {
		if code, why := documentedException(doc); code != "" {
			a.excepted["1: integral protocol_version not written as an integer"]++
			if fp.ev.Problem == nil || fp.ev.Problem.Code != code {
				a.fail(origin, line, "documented exception (%s): want fast path %s, got %s", why, code, fp)
			}
			return
		}
	}
	switch {
	case sv.valid && fp.ev.Problem == nil:
		a.valid++
		if _, ok := doc.str("event_id"); !ok || fp.ev.EventID == "" {
			a.missingID++
			if !fp.ev.MissingEventID() {
				a.fail(origin, line, "event_id missing or empty but MissingEventID() is false")
			}
		}
	case sv.valid:
		a.fail(origin, line, "schema: valid; fast path: %s", fp)
	case fp.ev.Problem == nil:
		a.fail(origin, line, "schema: %s; fast path: valid", sv)
	case fp.ev.Problem.Code != sv.code:
		a.fail(origin, line, "code: schema %s; fast path %s", sv, fp)
	case sv.code == projection.CodeSchemaEnvelope:
		a.envelope++
	default:
		a.payload++
	}
}

// checkUnknown handles a line with a string event_type outside the seven
// (exception 3).
func (a *agreement) checkUnknown(origin string, line []byte, doc *jv, sv schemaVerdict, fp fastVerdict) {
	a.t.Helper()
	a.skipped++
	if !fp.skipped {
		a.fail(origin, line, "unknown event_type: fast path must skip the line, got %s", fp)
		return
	}
	if !sv.valid {
		a.skippedInvalid++
		if sv.code != projection.CodeSchemaEnvelope {
			a.fail(origin, line, "unknown event_type: the schema must check the envelope only, got %s", sv)
		}
		for _, l := range sv.leaves {
			if l.payload {
				a.fail(origin, line, "unknown event_type: payload keyword failed: %s at %q", l.kind, l.loc)
			}
		}
	}
	probe := doc.clone()
	for i := range probe.obj {
		m := &probe.obj[i]
		switch {
		case m.key == "event_type":
			m.val = &jv{k: jStr, s: projection.TypeAccept}
		case m.key == "task_id" && m.val.k == jStr && m.val.s == "":
			m.val = &jv{k: jStr, s: "T-probe"}
		}
	}
	pline := probe.encode(style{})
	pfp := runFast(a.t, pline)
	switch {
	case pfp.ev == nil:
		a.fail(origin, line, "envelope probe %s: fast path gave no event: %s", pline, pfp)
	case sv.valid != (pfp.ev.Problem == nil):
		a.fail(origin, line, "unknown event_type: schema envelope verdict %s, fast path on the probe %s: %s", sv, pline, pfp)
	case !sv.valid && pfp.ev.Problem.Code != projection.CodeSchemaEnvelope:
		a.fail(origin, line, "unknown event_type: the probe %s must fail its envelope, got %s", pline, pfp)
	}
}

// ---------------------------------------------------------------------------
// Inputs.

const (
	corpusPath   = "../schemas/testdata/corpus.jsonl"
	corpusReadme = "../schemas/testdata/README.md"
)

// logLines reads a log file the way the reader does: BOM dropped, lines
// split on LF with a CR before it removed, blank lines skipped. It returns
// 1-based line numbers with the lines.
func logLines(t *testing.T, path string) (nums []int, lines [][]byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
	for i, l := range bytes.Split(b, []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\r"))
		if len(bytes.Trim(l, " \t\r")) == 0 {
			continue
		}
		nums = append(nums, i+1)
		lines = append(lines, l)
	}
	return nums, lines
}

// testdataLogs lists the .jsonl files under projection/testdata and
// checks/testdata, when those exist.
func testdataLogs(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, root := range []string{"testdata", "../checks/testdata"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return fs.SkipAll
				}
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(out)
	return out
}

// shape identifies a valid event's structure, so the mutations of large
// test logs run once per kind of event rather than once per line.
func shape(doc *jv) string {
	var b strings.Builder
	et, _ := doc.str("event_type")
	b.WriteString(et)
	var walk func(v *jv, prefix string)
	walk = func(v *jv, prefix string) {
		switch v.k {
		case jObj:
			keys := make([]string, 0, len(v.obj))
			for _, m := range v.obj {
				keys = append(keys, m.key)
			}
			sort.Strings(keys)
			for _, k := range keys {
				b.WriteString(" " + prefix + k)
				walk(v.get(k), prefix+k+"/")
			}
		case jArr:
			fmt.Fprintf(&b, " %s[%d]", prefix, min(len(v.arr), 2))
			if len(v.arr) > 0 {
				walk(v.arr[0], prefix+"0/")
			}
		}
	}
	walk(doc, "")
	return b.String()
}

func TestSchemaAgreement(t *testing.T) {
	a := newAgreement(t)
	var bases []*jv
	shapes := map[string]bool{}
	addBase := func(line []byte) {
		if schematest.ValidateJSON(schematest.Event(), line) != nil {
			return
		}
		doc, err := parseJV(line)
		if err != nil || doc.k != jObj {
			return
		}
		if et, ok := doc.str("event_type"); !ok || !projection.IsKnownType(et) {
			return
		}
		if s := shape(doc); !shapes[s] {
			shapes[s] = true
			bases = append(bases, doc)
		}
	}

	nums, lines := logLines(t, corpusPath)
	for i, l := range lines {
		a.check(fmt.Sprintf("corpus line %d", nums[i]), l)
		addBase(l)
	}
	logs := testdataLogs(t)
	for _, p := range logs {
		nums, lines := logLines(t, p)
		for i, l := range lines {
			a.check(fmt.Sprintf("%s:%d", p, nums[i]), l)
			addBase(l)
		}
	}
	// The same mutations with an unknown event_type, so the envelope-only
	// reading of exception 3 meets every broken field too.
	for _, b := range bases[:len(bases):len(bases)] {
		bases = append(bases, b.replace([]int{b.index("event_type")}, strJV("handoff")))
	}
	for i, base := range bases {
		for _, m := range mutations(base) {
			a.check(fmt.Sprintf("mutation %d/%s", i, m.label), m.line)
		}
	}
	for _, m := range readerRuleLines(bases[0]) {
		a.check("reader rule/"+m.label, m.line)
	}

	t.Logf("%d distinct lines (%d bases from the corpus and %d test logs): %d valid, %d schema.envelope, %d schema.payload, %d not an object, %d unknown event_type (%d with a bad envelope), %d without event_id, %d reader-rule, exceptions %v",
		a.lines, len(bases), len(logs), a.valid, a.envelope, a.payload, a.notObject, a.skipped, a.skippedInvalid, a.missingID, a.readerRule, a.excepted)
	for name, n := range map[string]int{
		"valid": a.valid, "schema.envelope": a.envelope, "schema.payload": a.payload, "not an object": a.notObject,
		"unknown event_type": a.skipped, "unknown event_type with a bad envelope": a.skippedInvalid,
		"missing event_id": a.missingID, "reader rule": a.readerRule, "exception 1": a.excepted["1: integral protocol_version not written as an integer"],
		"exception 4": a.excepted["4: a member named twice"],
	} {
		if n == 0 {
			t.Errorf("no line exercised %s: the test has lost coverage", name)
		}
	}
	if a.lines < 2000 {
		t.Errorf("only %d distinct lines; the mutations are not running", a.lines)
	}
}

// TestSchemaAgreementCorpusNotes holds the fast path to the human-written
// notes of schemas/testdata/README.md: invalid lines whose case starts with
// "payload" are schema.payload, other invalid objects schema.envelope, lines
// that are not objects log.malformed_json, valid lines no problem (save the
// documented exception and unknown event types, which are skipped).
func TestSchemaAgreementCorpusNotes(t *testing.T) {
	notes := readCorpusNotes(t)
	_, lines := logLines(t, corpusPath)
	if len(notes) != len(lines) {
		t.Fatalf("README lists %d corpus lines, corpus.jsonl has %d", len(notes), len(lines))
	}
	for i, line := range lines {
		n := notes[i]
		fp := runFast(t, line)
		doc, _ := parseJV(line)
		var want string
		switch {
		case n.verdict == "invalid" && strings.HasPrefix(n.note, "payload"):
			want = string(projection.CodeSchemaPayload)
		case n.verdict == "invalid" && doc != nil && doc.k == jObj:
			want = string(projection.CodeSchemaEnvelope)
		case n.verdict == "invalid":
			want = "malformed"
		case strings.HasPrefix(n.note, "unknown event_type"):
			want = "skipped"
		case strings.HasPrefix(n.note, "KNOWN GAP"):
			want = string(projection.CodeSchemaPayload)
		default:
			want = "valid"
		}
		var got string
		switch {
		case fp.malformed != "":
			got = "malformed"
		case fp.skipped:
			got = "skipped"
		case fp.ev.Problem == nil:
			got = "valid"
		default:
			got = string(fp.ev.Problem.Code)
		}
		if got != want {
			t.Errorf("corpus line %d (%s %s): fast path %s, want %s", n.line, n.verdict, n.note, fp, want)
		}
	}
}

type corpusNote struct {
	line          int
	verdict, note string
}

func readCorpusNotes(t *testing.T) []corpusNote {
	t.Helper()
	f, err := os.Open(corpusReadme)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusNote
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) != 5 {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(cells[1]))
		if err != nil {
			continue
		}
		out = append(out, corpusNote{line: n, verdict: strings.TrimSpace(cells[2]), note: strings.TrimSpace(cells[3])})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for i, n := range out {
		if n.line != i+1 {
			t.Fatalf("README corpus table is not in line order at row %d", i+1)
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// Mutations of a valid event.

type mutated struct {
	label string
	line  []byte
}

func mustJV(s string) *jv {
	v, err := parseJV([]byte(s))
	if err != nil {
		panic(fmt.Sprintf("mustJV(%s): %v", s, err))
	}
	return v
}

func strJV(s string) *jv { return &jv{k: jStr, s: s} }

// Values of every JSON type, put in place of each field in turn.
var typeSamples = []string{`null`, `true`, `false`, `0`, `7`, `-1`, `1.5`, `""`, `"x"`, `"T1"`, `[]`, `["x"]`, `[1]`, `[null]`, `{}`, `{"x":1}`}

var tsSamples = []string{
	"2026-06-09T10:00:00Z", "2026-06-09T10:00:00.5Z", "2026-06-09T10:00:00.123456789Z",
	"2026-06-09T10:00:00.1234567890123Z", "2028-02-29T23:59:59Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z",
	"2026-06-09t10:00:00Z", "2026-06-09T10:00:00z", "2026-06-09T10:00:00+00:00", "2026-06-09T10:00:00-00:00",
	"2026-06-09T10:00:00", "2026-02-30T10:00:00Z", "2026-02-29T10:00:00Z", "2026-13-01T10:00:00Z", "2026-00-01T10:00:00Z",
	"2026-06-00T10:00:00Z", "2026-06-31T10:00:00Z", "2026-06-09T10:00Z", "2026-06-09 10:00:00Z", "2026-06-09T24:00:00Z",
	"2026-06-09T10:60:00Z", "2026-06-30T23:59:60Z", "2026-06-09T10:00:00.Z", "2026-06-09T10:00:00,5Z",
	"2026-6-09T10:00:00Z", "2026-06-09", " 2026-06-09T10:00:00Z", "2026-06-09T10:00:00Z ", "2026-06-09T10:00:00Z\n",
	"", "Z", "20260609T100000Z", "+2026-06-09T10:00:00Z", "12026-06-09T10:00:00Z", "2026-06-09T10:00:00.5.5Z",
	"2026-06-09T10:00:00ZZ", "2026-06-09T10:00:00.-5Z", "2026-06-09T1a:00:00Z", "２０２６-06-09T10:00:00Z",
	"2026-06-09T10:00:00.５Z", "2026-06-09T10:00:00\u00a0Z",
}

var agentSamples = []string{"lead", "0", "0-gpt-4", "a-", "a--b", "", "Lead", "-a", "a_b", "a b", "a\n", "ä", "ａ", "a.b", "lead\u0000", strings.Repeat("a", 300)}

var roleSamples = []string{"orchestrator", "worker", "reviewer", "Worker", "admin", "", " worker", "worker\u0000"}

var eventTypeSamples = []string{
	projection.TypeInit, projection.TypeAssign, projection.TypeJoin, projection.TypeCheckpoint,
	projection.TypeAccept, projection.TypeChangesRequested, projection.TypeMerge,
	"handoff", "Init", "", "init ", "accept\u0000", "ACCEPT",
}

var versionSamples = []string{
	`1`, `2`, `0`, `-1`, `-0`, `1.0`, `1.00`, `1e0`, `1E0`, `1e+0`, `10e-1`, `0.1e1`, `2.0`, `1.5e1`,
	`1.5`, `0.5`, `1e-1`, `0.0`, `-1.0`, `"1"`, `true`, `null`, `[]`, `{}`, `[1]`,
	`1073741824`, `1073741825`, `2147483648`, `9223372036854775808`, `99999999999999999999999999`,
}

// mutations derives single-step variants of a valid event: each field
// dropped, each field given every JSON type, bad ts, agent_id, role and
// event_type values, scope violations, protocol_version tokens, and
// encodings that must not change a verdict (escapes, whitespace, duplicate
// keys, key case).
func mutations(base *jv) []mutated {
	var out []mutated
	add := func(label string, v *jv, st style) {
		out = append(out, mutated{label, v.encode(st)})
	}
	samples := make([]*jv, len(typeSamples))
	for i, s := range typeSamples {
		samples[i] = mustJV(s)
	}
	base.walk(nil, "", 5, func(path []int, label string, _ *jv) {
		if len(path) == 0 {
			return
		}
		add("drop "+label, base.replace(path, nil), style{})
		for i, s := range samples {
			add(fmt.Sprintf("%s = %s", label, typeSamples[i]), base.replace(path, s), style{})
		}
	})
	field := func(name string, values []string) {
		i := base.index(name)
		if i < 0 {
			return
		}
		for _, s := range values {
			add(fmt.Sprintf("%s = %q", name, s), base.replace([]int{i}, strJV(s)), style{})
		}
	}
	field("ts", tsSamples)
	field("agent_id", agentSamples)
	field("role", roleSamples)
	field("event_type", eventTypeSamples)
	field("event_id", []string{"", "x", " "})

	// Scope: every combination of empty and non-empty task_id and feature.
	ti, fi := base.index("task_id"), base.index("feature")
	if ti >= 0 && fi >= 0 {
		for _, task := range []string{"", "T1", "T/../x"} {
			for _, feat := range []string{"", "F"} {
				v := base.replace([]int{ti}, strJV(task)).replace([]int{fi}, strJV(feat))
				add(fmt.Sprintf("scope task_id=%q feature=%q", task, feat), v, style{})
			}
		}
	}
	if pi := base.index("payload"); pi >= 0 && base.obj[pi].val.k == jObj {
		if vi := base.obj[pi].val.index("protocol_version"); vi >= 0 {
			for _, tok := range versionSamples {
				add("protocol_version "+tok, base.replace([]int{pi, vi}, mustJV(tok)), style{})
			}
		}
		add("extra payload field", base.replace([]int{pi, len(base.obj[pi].val.obj)}, mustJV(`{"nested":[1,null]}`)), style{})
	}
	add("extra top-level field", base.replace([]int{len(base.obj)}, mustJV(`"abc"`)), style{})

	// Encodings that must not change anything.
	add("every string and key \\u-escaped", base, style{escape: true})
	add("whitespace between every token", base, style{space: " \t "})
	add("escaped and spaced", base, style{escape: true, space: " "})
	for i, m := range base.obj {
		// A duplicate key: the last occurrence wins in encoding/json and in
		// the validator alike.
		before := base.clone()
		before.obj = append([]member{{m.key, mustJV(`null`)}}, before.obj...)
		add("duplicate "+m.key+", broken first", before, style{})
		after := base.clone()
		after.obj = append(after.obj, member{m.key, mustJV(`null`)})
		add("duplicate "+m.key+", broken last", after, style{})
		// Keys are case-sensitive: TS is an unknown field and ts is missing.
		upper := base.clone()
		upper.obj[i].key = strings.ToUpper(m.key)
		add("key "+m.key+" upper-cased", upper, style{})
	}
	return out
}

// readerRuleLines makes lines the reader must refuse before any schema:
// invalid UTF-8 and a line over the length bound.
func readerRuleLines(base *jv) []mutated {
	valid := base.encode(style{})
	i := bytes.IndexByte(valid, '"')
	bad := append(append(append([]byte{}, valid[:i+1]...), 0xff), valid[i+1:]...)
	long := base.replace([]int{len(base.obj)}, strJV(strings.Repeat("x", projection.MaxLineBytes)))
	return []mutated{{"invalid UTF-8", bad}, {"over MaxLineBytes", long.encode(style{})}}
}

// ---------------------------------------------------------------------------
// A JSON value model that keeps member order, duplicate keys and number
// literals exactly as written, so mutations change one thing only.

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNum
	jStr
	jArr
	jObj
)

type jv struct {
	k   jkind
	b   bool
	s   string // a string's value, or a number's literal
	arr []*jv
	obj []member
}

type member struct {
	key string
	val *jv
}

func parseJV(b []byte) (*jv, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := readJV(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the value")
	}
	return v, nil
}

func readJV(dec *json.Decoder) (*jv, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		v := &jv{k: jArr}
		if t == '{' {
			v.k = jObj
		}
		for dec.More() {
			if v.k == jObj {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				val, err := readJV(dec)
				if err != nil {
					return nil, err
				}
				v.obj = append(v.obj, member{kt.(string), val})
				continue
			}
			e, err := readJV(dec)
			if err != nil {
				return nil, err
			}
			v.arr = append(v.arr, e)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return v, nil
	case string:
		return &jv{k: jStr, s: t}, nil
	case json.Number:
		return &jv{k: jNum, s: string(t)}, nil
	case bool:
		return &jv{k: jBool, b: t}, nil
	case nil:
		return &jv{k: jNull}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// index is the position of the last member named key (the one decoders
// keep), or -1.
func (v *jv) index(key string) int {
	for i := len(v.obj) - 1; i >= 0; i-- {
		if v.obj[i].key == key {
			return i
		}
	}
	return -1
}

func (v *jv) get(key string) *jv {
	if v == nil || v.k != jObj {
		return nil
	}
	if i := v.index(key); i >= 0 {
		return v.obj[i].val
	}
	return nil
}

func (v *jv) str(key string) (string, bool) {
	if f := v.get(key); f != nil && f.k == jStr {
		return f.s, true
	}
	return "", false
}

func (v *jv) clone() *jv {
	c := *v
	c.arr = nil
	c.obj = nil
	for _, e := range v.arr {
		c.arr = append(c.arr, e.clone())
	}
	for _, m := range v.obj {
		c.obj = append(c.obj, member{m.key, m.val.clone()})
	}
	return &c
}

// replace returns a copy with the value at path (member or element
// positions) set to nv, removed when nv is nil, or, for a position one past
// the end of an object, added as the member "x-extra".
func (v *jv) replace(path []int, nv *jv) *jv {
	c := v.clone()
	cur := c
	for _, i := range path[:len(path)-1] {
		if cur.k == jObj {
			cur = cur.obj[i].val
		} else {
			cur = cur.arr[i]
		}
	}
	i := path[len(path)-1]
	switch {
	case cur.k == jObj && i == len(cur.obj):
		cur.obj = append(cur.obj, member{"x-extra", nv})
	case cur.k == jObj && nv == nil:
		cur.obj = append(cur.obj[:i:i], cur.obj[i+1:]...)
	case cur.k == jObj:
		cur.obj[i].val = nv.clone()
	case nv == nil:
		cur.arr = append(cur.arr[:i:i], cur.arr[i+1:]...)
	default:
		cur.arr[i] = nv.clone()
	}
	return c
}

// walk calls fn for v and every value inside it down to depth levels.
func (v *jv) walk(path []int, label string, depth int, fn func(path []int, label string, v *jv)) {
	fn(path, label, v)
	if depth == 0 {
		return
	}
	sub := func(i int) []int { return append(append([]int{}, path...), i) }
	for i, m := range v.obj {
		m.val.walk(sub(i), label+"/"+m.key, depth-1, fn)
	}
	for i, e := range v.arr {
		e.walk(sub(i), fmt.Sprintf("%s/%d", label, i), depth-1, fn)
	}
}

type style struct {
	escape bool   // write every character of strings and keys as \uXXXX
	space  string // put between every pair of tokens
}

func (v *jv) encode(st style) []byte {
	var b bytes.Buffer
	v.enc(&b, st)
	return b.Bytes()
}

func (v *jv) enc(b *bytes.Buffer, st style) {
	switch v.k {
	case jNull:
		b.WriteString("null")
	case jBool:
		b.WriteString(strconv.FormatBool(v.b))
	case jNum:
		b.WriteString(v.s)
	case jStr:
		encString(b, v.s, st.escape)
	case jArr:
		b.WriteString("[" + st.space)
		for i, e := range v.arr {
			if i > 0 {
				b.WriteString(st.space + "," + st.space)
			}
			e.enc(b, st)
		}
		b.WriteString(st.space + "]")
	case jObj:
		b.WriteString("{" + st.space)
		for i, m := range v.obj {
			if i > 0 {
				b.WriteString(st.space + "," + st.space)
			}
			encString(b, m.key, st.escape)
			b.WriteString(st.space + ":" + st.space)
			m.val.enc(b, st)
		}
		b.WriteString(st.space + "}")
	}
}

func encString(b *bytes.Buffer, s string, escape bool) {
	if !escape {
		enc := json.NewEncoder(b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s) // a string always encodes
		b.Truncate(b.Len() - 1)
		return
	}
	b.WriteByte('"')
	for _, r := range s {
		if r > 0xFFFF {
			r -= 0x10000
			fmt.Fprintf(b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			continue
		}
		fmt.Fprintf(b, `\u%04x`, r)
	}
	b.WriteByte('"')
}
