package projection

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/internal/testkit/loggen"
	"github.com/pact-action/pact-action/projection/internal/compact"
	"github.com/pact-action/pact-action/projection/internal/jsonscan"
)

// The decoder of decode.go must agree with decodeLineReference (the
// encoding/json decoder it replaced) on every input: same Event, same
// Problem text, same claim, same skip, same malformed message.

// diffDecode reports how decodeLine and decodeLineReference disagree on
// line, and checks that lean decoding keeps every verdict.
func diffDecode(line []byte) string {
	ev, claim, skip, bad := decodeLine(line)
	rev, rclaim, rskip, rbad := decodeLineReference(line)
	if bad != rbad {
		return fmt.Sprintf("malformed:\n got %q\nwant %q", bad, rbad)
	}
	if skip != rskip {
		return fmt.Sprintf("skip: got %v, want %v", skip, rskip)
	}
	if !reflect.DeepEqual(claim, rclaim) {
		return fmt.Sprintf("claim:\n got %+v\nwant %+v", claim, rclaim)
	}
	if !reflect.DeepEqual(ev, rev) {
		if !reflect.DeepEqual(ev.Problem, rev.Problem) {
			return fmt.Sprintf("problem:\n got %+v\nwant %+v", ev.Problem, rev.Problem)
		}
		return fmt.Sprintf("event:\n got %#v\nwant %#v", ev, rev)
	}
	// Lean decoding: the same verdicts, the fields a replay reads.
	d := decoder{lean: true}
	var lev Event
	lclaim, lskip, lbad := d.decode(line, &lev)
	if lbad != bad || lskip != skip || !reflect.DeepEqual(lclaim, claim) || !reflect.DeepEqual(lev.Problem, ev.Problem) {
		return fmt.Sprintf("lean verdict differs: %q %v %+v %+v", lbad, lskip, lclaim, lev.Problem)
	}
	if bad != "" || skip {
		return ""
	}
	id := lev.EventID
	if d.IDForm != compact.IDOther {
		if id != "" {
			return "lean decoding kept a compact event_id as a string"
		}
		id = compact.FormatID(d.IDForm, &d.ID)
	}
	if id != ev.EventID || lev.Type != ev.Type || lev.AgentID != ev.AgentID || lev.Role != ev.Role ||
		lev.TaskID != ev.TaskID || lev.Feature != ev.Feature || !lev.TS.Equal(ev.TS) {
		return fmt.Sprintf("lean envelope differs:\n got %#v (id %q)\nwant %#v", lev, id, ev)
	}
	if ev.Problem == nil {
		// Not the provenance (payload.commit, payload.github): lean
		// decoding leaves it out, as a replay reads none of it.
		lp, p := lev.Payload, ev.Payload
		if lp.Commit != "" || lp.GitHub != nil {
			return fmt.Sprintf("lean decoding kept the provenance %q %+v", lp.Commit, lp.GitHub)
		}
		if lp.Owner != p.Owner || lp.Reviewer != p.Reviewer || lp.Branch != p.Branch || lp.Spec != p.Spec ||
			lp.Reason != p.Reason || lp.Project != p.Project || lp.BaseBranch != p.BaseBranch ||
			lp.ProtocolVersion != p.ProtocolVersion || !reflect.DeepEqual(lp.Seats, p.Seats) {
			return fmt.Sprintf("lean payload differs:\n got %#v\nwant %#v", lp, p)
		}
	}
	return ""
}

// diffParse compares parseBytes with the reference parser on a whole file.
func diffParse(file []byte) string {
	got := parseBytes(file)
	want, _ := parseReference(bytes.NewReader(file))
	if got.Lines != want.Lines {
		return fmt.Sprintf("lines: got %d, want %d", got.Lines, want.Lines)
	}
	if !reflect.DeepEqual(got.Malformed, want.Malformed) {
		return fmt.Sprintf("malformed:\n got %+v\nwant %+v", got.Malformed, want.Malformed)
	}
	if !reflect.DeepEqual(got.Claims, want.Claims) {
		return fmt.Sprintf("claims:\n got %+v\nwant %+v", got.Claims, want.Claims)
	}
	if len(got.Events) != len(want.Events) {
		return fmt.Sprintf("events: got %d, want %d", len(got.Events), len(want.Events))
	}
	for i := range got.Events {
		if !reflect.DeepEqual(got.Events[i], want.Events[i]) {
			return fmt.Sprintf("event %d:\n got %#v\nwant %#v", i, got.Events[i], want.Events[i])
		}
	}
	return ""
}

const okInit = `{"event_id":"i1","ts":"2026-06-09T10:00:00Z","agent_id":"lead","role":"orchestrator","event_type":"init","task_id":"","feature":"","payload":{"project":"demo","protocol_version":1,"seats":[{"id":"lead","roles":["orchestrator"],"entry":"AGENTS.md"},{"id":"w","roles":["worker","reviewer"],"entry":"CLAUDE.md"}],"base_branch":"main"}}`

// envelopeWith builds a line of type typ with the given payload text.
func envelopeWith(typ, taskID, feature, payload string) string {
	return fmt.Sprintf(`{"event_id":"0123456789abcdef0123456789abcdef","ts":"2026-06-09T10:00:01.5Z","agent_id":"w","role":%q,"event_type":%q,"task_id":%q,"feature":%q,"payload":%s}`,
		RoleFor(typ), typ, taskID, feature, payload)
}

// trickyLines are the inputs the brief of the scanner names, and more.
func trickyLines() []string {
	lines := []string{
		okInit,
		envelopeWith(TypeAssign, "T1", "F", `{"owner":"w","reviewer":"lead","branch":"feat/x","spec":".pact/tasks/T1.md"}`),
		envelopeWith(TypeJoin, "", "", `{"roles":["worker"]}`),
		envelopeWith(TypeJoin, "", "", `{"roles":[]}`),
		envelopeWith(TypeJoin, "", "", `{"roles":["worker",1]}`),
		envelopeWith(TypeJoin, "", "", `{"roles":"worker"}`),
		envelopeWith(TypeJoin, "", "", `{"roles":null}`),
		envelopeWith(TypeCheckpoint, "T1", "F", `{"evidence":"go test ./... passes\nsee PR #4 \u2014 \"quoted\" \\ back\/slash \ud83d\ude00 naïve"}`),
		envelopeWith(TypeCheckpoint, "T1", "F", `{"evidence":"lone \ud800 high, lone \udc00 low, pair reversed \udc00\ud800, half \ud83d\u0041"}`),
		envelopeWith(TypeCheckpoint, "T1", "F", `{"evidence":"raw invalid `+"\xff\xfe\xc3("+` bytes and surrogate `+"\xed\xa0\x80"+`"}`),
		envelopeWith(TypeCheckpoint, "T1", "F", `{"evidence":42}`),
		envelopeWith(TypeCheckpoint, "T1", "F", `{}`),
		envelopeWith(TypeAccept, "T1", "F", `{}`),
		envelopeWith(TypeAccept, "T1", "", `{"commit":"abc","github":{"review_id":2087654321,"url":"https://x/y","login":"octocat","head_sha":"abc"}}`),
		envelopeWith(TypeAccept, "T1", "F", `{"commit":7,"github":{"review_id":"1"}}`),
		envelopeWith(TypeAccept, "T1", "F", `{"github":{"REVIEW_ID":5,"Url":"u","LOGIN":null,"head_ſha":"k","comment_id":-0}}`),
		envelopeWith(TypeAccept, "T1", "F", `{"github":{"review_id":5,"review_id":null,"url":"a","url":"b"}}`),
		envelopeWith(TypeAccept, "T1", "F", `{"github":{"review_id":1.0}}`),
		envelopeWith(TypeAccept, "T1", "F", `{"github":{"review_id":1e0}}`),
		envelopeWith(TypeAccept, "T1", "F", `{"github":{"review_id":9223372036854775807,"comment_id":-9223372036854775808}}`),
		envelopeWith(TypeAccept, "T1", "F", `{"github":{"review_id":9223372036854775808}}`),
		envelopeWith(TypeAccept, "T1", "F", `{"github":{"comment_id":-9223372036854775809}}`),
		envelopeWith(TypeAccept, "T1", "F", `{"github":{"url":["a"],"login":{}}}`),
		envelopeWith(TypeAccept, "T1", "F", `{"github":{"url":true}}`),
		envelopeWith(TypeAccept, "T1", "F", `{"github":{"unknown":[1,{"a":[]}],"k\u0065y":1}}`),
		envelopeWith(TypeAccept, "T1", "F", `{"github":[]}`),
		envelopeWith(TypeAccept, "T1", "F", `{"github":null}`),
		envelopeWith(TypeChangesRequested, "T1", "F", `{"reason":"missing tests","commit":"c0ffee"}`),
		envelopeWith(TypeChangesRequested, "T1", "F", `{"reason":null}`),
		envelopeWith(TypeMerge, "", "F", `{}`),
		envelopeWith(TypeMerge, "", "F", `{"nested":{"deep":[[[[{"x":[1,2,{"y":null}]}]]]]}}`),
		envelopeWith(TypeMerge, "", "", `{}`),
		envelopeWith(TypeMerge, "T1", "F", `{}`),
		envelopeWith(TypeJoin, "", "F", `{"roles":[]}`),
		envelopeWith(TypeCheckpoint, "", "F", `{"evidence":"e"}`),
		envelopeWith(TypeAssign, "T1", "", `{}`),
		envelopeWith(TypeAssign, "T1", "F", `{"owner":"w","reviewer":1}`),
		envelopeWith(TypeAssign, "T1", "F", `[]`),
		envelopeWith(TypeAssign, "T1", "F", `null`),
		envelopeWith(TypeAssign, "T1", "F", `"x"`),
		envelopeWith("heartbeat", "", "", `{}`),
		// Members named twice (docs/semantics.md §7): at the top, in the
		// payload, in a seat, in provenance, spelled with escapes, on a
		// line of an unknown type, and inside a line that is no object.
		strings.Replace(envelopeWith(TypeAccept, "T1", "F", `{}`), `"agent_id":"w"`, `"agent_id":"w","agent_id":"lead"`, 1),
		strings.Replace(envelopeWith(TypeAccept, "T1", "F", `{}`), `"agent_id":"w"`, `"agent_id":"w","agent_\u0069d":"lead"`, 1),
		envelopeWith(TypeAssign, "T1", "F", `{"owner":"w","reviewer":"lead","owner":"lead","branch":"b","spec":"s"}`),
		strings.Replace(okInit, `"roles":["orchestrator"],`, `"roles":["orchestrator"],"id":"w",`, 1),
		envelopeWith(TypeAccept, "T1", "F", `{"github":{"login":"a","x":[{"login":"b"}],"login":"c"}}`),
		envelopeWith(TypeMerge, "", "F", `{"deep":[[{"k":1,"k":1}]]}`),
		envelopeWith("heartbeat", "", "", `{"a":1,"a":2}`),
		`[{"a":1,"a":2}]`,
		`{"event_type":"init","payload":{"protocol_version":2,"protocol_version":1}}`,
		envelopeWith("", "", "", `{}`),
		// protocol_version and claims.
		strings.Replace(okInit, `"protocol_version":1`, `"protocol_version":1.0`, 1),
		strings.Replace(okInit, `"protocol_version":1`, `"protocol_version":1e0`, 1),
		strings.Replace(okInit, `"protocol_version":1`, `"protocol_version":-0`, 1),
		strings.Replace(okInit, `"protocol_version":1`, `"protocol_version":0`, 1),
		strings.Replace(okInit, `"protocol_version":1`, `"protocol_version":-1`, 1),
		strings.Replace(okInit, `"protocol_version":1`, `"protocol_version":2`, 1),
		strings.Replace(okInit, `"protocol_version":1`, `"protocol_version":10`, 1),
		strings.Replace(okInit, `"protocol_version":1`, `"protocol_version":123456789012345678901234567890123456789012345678901234567890`, 1),
		strings.Replace(okInit, `"protocol_version":1`, `"protocol_version":"1"`, 1),
		strings.Replace(okInit, `"protocol_version":1`, `"protocol_version":"a very long string value that goes past forty bytes, with ünïcödé"`, 1),
		strings.Replace(okInit, `"protocol_version":1`, `"protocol_version":true`, 1),
		strings.Replace(okInit, `"protocol_version":1`, `"protocol_version":null`, 1),
		strings.Replace(okInit, `"protocol_version":1,`, ``, 1),
		strings.Replace(okInit, `"protocol_version":1`, `"protocol_version":1,"protocol_version":3`, 1),
		strings.Replace(strings.Replace(okInit, `"protocol_version":1`, `"protocol_version":2`, 1), `"ts":"2026-06-09T10:00:00Z"`, `"ts":"bad"`, 1),
		strings.Replace(strings.Replace(okInit, `"protocol_version":1`, `"protocol_version":2`, 1), `"agent_id":"lead"`, `"agent_id":7`, 1),
		strings.Replace(okInit, `"payload":{`, `"payload":{"protocol_version":5},"payload":{`, 1),
		strings.Replace(okInit, `"base_branch":"main"}}`, `"base_branch":"main"},"payload":null}`, 1),
		strings.Replace(okInit, `{"id":"w","roles":["worker","reviewer"],"entry":"CLAUDE.md"}`, `"w"`, 1),
		strings.Replace(okInit, `{"id":"w","roles":["worker","reviewer"],"entry":"CLAUDE.md"}`, `{"id":"w","roles":"worker","entry":"x"}`, 1),
		strings.Replace(okInit, `{"id":"w","roles":["worker","reviewer"],"entry":"CLAUDE.md"}`, `{"id":1}`, 1),
		strings.Replace(okInit, `{"id":"w","roles":["worker","reviewer"],"entry":"CLAUDE.md"}`, `{"id":"w","roles":[],"entry":null,"id":"v"}`, 1),
		strings.Replace(okInit, `"seats":[`, `"seats":[],"x":[`, 1),
		strings.Replace(okInit, `"seats":[`, `"seats":{},"x":[`, 1),
		strings.Replace(okInit, `"project":"demo"`, `"project":["demo"]`, 1),
		// Envelope variants.
		`{"event_id":null,"ts":"2026-06-09T10:00:00Z"}`,
		`{"event_id":"","ts":"2026-06-09T10:00:00Z","agent_id":"w","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":[]}}`,
		`{"event_id":"a","event_id":"b","ts":"2026-06-09T10:00:00Z","ts":"2026-06-09T10:00:00.123456789123Z","agent_id":"w","role":"worker","event_type":"checkpoint","event_type":"join","task_id":"","feature":"","payload":{"roles":[]}}`,
		`{"event\u005fid":"esc","\u0074s":"2026-06-09T10:00:00Z","agent_id":"w","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"rol\u0065s":["w\u006frker"]}}`,
		`{"event_id":"ABCDEF0123456789ABCDEF0123456789","ts":"2026-06-09T10:00:00Z","agent_id":"w","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":[]}}`,
		`{"event_id":"123e4567-e89b-12d3-a456-426614174000","ts":"2026-06-09T10:00:00Z","agent_id":"w","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":[]}}`,
		`{"event_id":"0123456789abcdef0123456789abcdeg","ts":"2026-06-09T10:00:00Z","agent_id":"w","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":[]}}`,
		`{"event_id":"0123456789abcdef0123456789abcde\u0066","ts":"2026-06-09T10:00:00Z","agent_id":"w","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":[]}}`,
		`{"event_id":"e","ts":"2026-06-09T10:00:00Z","agent_id":"W","role":"worker","event_type":"join","task_id":"","feature":"","payload":{}}`,
		`{"event_id":"e","ts":"2026-06-09T10:00:00Z","agent_id":"-w","role":"worker","event_type":"join","task_id":"","feature":"","payload":{}}`,
		`{"event_id":"e","ts":"2026-06-09T10:00:00Z","agent_id":"w","role":"admin","event_type":"join","task_id":"","feature":"","payload":{}}`,
		`{"event_id":"e","ts":"2026-06-09T10:00:00Z","agent_id":"w","role":"reviewer","event_type":"join","task_id":"","feature":"","payload":{"roles":[]}}`,
		`{"event_id":"e","ts":"2026-06-09T10:00:00Z","agent_id":"w","role":"worker","event_type":7,"task_id":"","feature":"","payload":{}}`,
		`{"event_id":"e","ts":"2026-06-09T10:00:00Z","agent_id":"w","role":"worker","task_id":"","feature":"","payload":{}}`,
		`{"event_id":"e","ts":"2026-06-09T10:00:00Z","agent_id":"w","role":"worker","event_type":"join","feature":"","payload":{}}`,
		`{"event_id":"e","ts":"2026-06-09T10:00:00Z","agent_id":"w","role":"worker","event_type":"join","task_id":null,"feature":"","payload":{}}`,
		`{"event_id":"e","ts":"2026-06-09T10:00:00Z","agent_id":"w","role":"worker","event_type":"join","task_id":"","payload":{}}`,
		`{"event_id":"e","ts":"2026-06-09T10:00:00Z","agent_id":"w","role":"worker","event_type":"join","task_id":"","feature":""}`,
		`{"event_id":"e","ts":"2026-06-09T10:00:00Z","agent_id":"w","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":[]},"extra":{"a":[true,false,null,-1.5e-3,0]}}`,
		`{"event_type":"init","payload":{"protocol_version":7}}`,
		`{"event_type":"init","payload":{"protocol_version":7},"ts":"2026-06-09T10:00:00.1Z"}`,
		`{"event_type":"\u0069nit","payload":{"protocol_version":7},"ts":"2026-06-09T10:00:00.1Z"}`,
		`{"event_type":"bogus","payload":{"protocol_version":7}}`,
		`{"event_type":"heartbeat","ts":NaN}`,
		`{}`, ` { } `, "\t{\"a\":1}\r", `{"":""}`,
		// Not objects, not JSON.
		`null`, ` null `, `[]`, `[1,2]`, `"str"`, `"NaN"`, `123`, `-0`, `1.5e10`, `true`, `false`,
		`NaN`, `{"a":NaN}`, `{"a":Infinity}`, `{"a":-Infinity}`, `[Infinity]`, `{"a":"NaN"}x`,
		``, ` `, `{`, `}`, `{"a"`, `{"a":`, `{"a":}`, `{"a" 1}`, `{,}`, `{"a":1,}`, `[1,]`, `{"a":1}{}`, `{} x`, `{"a":1}]`,
		`{"a":"unterminated`, `{"a":"ctrl` + "\x01" + `"}`, `{"a":"tab` + "\t" + `"}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12G4"}`, `{"a":"\`,
		`{"a":tru}`, `{"a":nul}`, `{"a":fals}`, `{"a":tru`, `{"a":t`, `{"a":nulll}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":1e+}`, `{"a":.5}`, `{"a":+1}`, `{"a":1.5e+10}`, `{"a":-0.0E-0}`,
		`{"a":1`, `{"a":1.`, `{"a":-`, `{"a":1e`, `{"a":"x`, `{"a":"\u00`, `{"a":[1,2`, "{\"a\":1}\x00", "\xef\xbb\xbf{}", `{'a':1}`, `{a:1}`,
		`{"a":"` + "\xc3" + `"}`, "{\"\xff\":1}", "\xff", `{"a":1}` + "\xa0",
	}
	// Nesting at and past encoding/json's bound.
	deep := func(n int, open, close string) string {
		return `{"event_type":"merge","x":` + strings.Repeat(open, n) + strings.Repeat(close, n) + `}`
	}
	lines = append(lines, deep(jsonscan.MaxNesting-1, "[", "]"), deep(jsonscan.MaxNesting, "[", "]"), deep(jsonscan.MaxNesting-1, `{"a":`, "}"), deep(jsonscan.MaxNesting, `{"a":`, "}"),
		`{"a":`+strings.Repeat("[", jsonscan.MaxNesting+5))
	// Timestamps.
	for _, ts := range []string{
		"2026-06-09T10:00:00Z", "2024-02-29T23:59:59Z", "2026-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "1900-02-29T00:00:00Z",
		"2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z",
		"2026-01-01T23:60:00Z", "2026-01-01T23:59:60Z", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00.5Z", "2026-01-01T00:00:00.123456789Z",
		"2026-01-01T00:00:00.1234567891234Z", "2026-01-01t00:00:00Z", "2026-01-01T00:00:00z", "2026-01-01T00:00:00+00:00", "2026-01-01 00:00:00Z",
		"0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59.5Z", "2026-1-01T00:00:00Z",
		"2026-01-01T00:00:00.5.5Z", "2026-01-01T00:00:00,5Z", "２０２6-01-01T00:00:00Z", "2026-01-01T00:00:00Z ",
	} {
		lines = append(lines, fmt.Sprintf(`{"event_id":"e","ts":%q,"agent_id":"w","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":[]}}`, ts))
	}
	return lines
}

// corpusLines are lines from the logs kept in the repository.
func corpusLines(t testing.TB) [][]byte {
	var out [][]byte
	for _, pattern := range []string{"testdata/logs/*.jsonl", "../schemas/testdata/*.jsonl", "../checks/testdata/pacts/*/log.jsonl"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range bytes.Split(b, []byte("\n")) {
				out = append(out, bytes.TrimSuffix(l, []byte("\r")))
			}
		}
	}
	return out
}

func generatedLog(t testing.TB, lines int, seed uint64, defects float64) []byte {
	var buf bytes.Buffer
	if _, err := loggen.Write(&buf, loggen.Config{Lines: lines, Seed: seed, Defects: defects, Swaps: 0.02}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDecodeDifferential(t *testing.T) {
	t.Parallel()
	var inputs [][]byte
	for _, l := range trickyLines() {
		inputs = append(inputs, []byte(l))
	}
	inputs = append(inputs, corpusLines(t)...)
	inputs = append(inputs, bytes.Split(generatedLog(t, 3000, 7, 0.05), []byte("\n"))...)
	n := len(inputs)
	// Every line with each byte position cut, and a few bytes flipped.
	for _, l := range inputs[:n] {
		for _, cut := range []int{1, len(l) / 3, len(l) / 2, len(l) - 1} {
			if cut > 0 && cut < len(l) {
				inputs = append(inputs, l[:cut])
			}
		}
	}
	for _, in := range inputs {
		if msg := diffDecode(in); msg != "" {
			t.Errorf("%q\n%s", truncate(in), msg)
		}
	}
}

func truncate(b []byte) []byte {
	if len(b) > 300 {
		return append(b[:300:300], "…"...)
	}
	return b
}

func TestParseDifferential(t *testing.T) {
	t.Parallel()
	for name, file := range parseFiles(t) {
		if msg := diffParse(file); msg != "" {
			t.Errorf("%s: %s", name, msg)
		}
	}
}

// parseFiles are whole files with the line-level edge cases.
func parseFiles(t testing.TB) map[string][]byte {
	return map[string][]byte{
		"generated":      generatedLog(t, 5000, 3, 0.05),
		"empty":          nil,
		"bom":            []byte("\xef\xbb\xbf" + okInit + "\n"),
		"bom only":       []byte("\xef\xbb\xbf"),
		"crlf":           []byte(okInit + "\r\n\r\n" + okInit + "\r\n"),
		"final cr":       []byte(okInit + "\n\r"),
		"final crcr":     []byte(okInit + "\n\r\r"),
		"no final lf":    []byte(okInit + "\n" + okInit),
		"blank lines":    []byte("\n \t\r\n\n" + okInit + "\n   \n"),
		"invalid utf8":   []byte(okInit + "\n{\"a\":\"\xff\"}\n"),
		"tricky":         []byte(strings.Join(trickyLines(), "\n")),
		"tricky crlf":    []byte(strings.Join(trickyLines(), "\r\n") + "\r\n"),
		"bom second":     []byte(okInit + "\n\xef\xbb\xbf{}\n"),
		"long line":      []byte(okInit + "\n" + `{"a":"` + strings.Repeat("x", MaxLineBytes+10) + `"}` + "\n" + okInit + "\n"),
		"long final":     []byte(okInit + "\n" + strings.Repeat(" ", MaxLineBytes+1)),
		"at the bound":   []byte(`{"a":"` + strings.Repeat("x", MaxLineBytes-8) + `"}` + "\n"),
		"just past it":   []byte(`{"a":"` + strings.Repeat("x", MaxLineBytes-7) + `"}` + "\n"),
		"bound with bom": []byte("\xef\xbb\xbf" + `{"a":"` + strings.Repeat("x", MaxLineBytes-9) + `"}` + "\n"),
		"long crlf":      []byte(okInit + "\r\n" + strings.Repeat("y", MaxLineBytes) + "\r\n" + strings.Repeat("z", MaxLineBytes+1) + "\r\n\r"),
		"long first":     []byte(strings.Repeat("x", 3*MaxLineBytes) + "\n" + okInit),
	}
}

// FuzzDecodeDifferential holds the scanner to the encoding/json reference on
// arbitrary bytes: as one line, and as a whole file.
func FuzzDecodeDifferential(f *testing.F) {
	for _, l := range trickyLines() {
		if len(l) < 4096 {
			f.Add([]byte(l))
		}
	}
	for i, l := range corpusLines(f) {
		if i%3 == 0 {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if msg := diffDecode(in); msg != "" {
			t.Fatalf("%q\n%s", in, msg)
		}
		if msg := diffParse(in); msg != "" {
			t.Fatalf("as a file: %q\n%s", in, msg)
		}
		if msg := diffParseReplay(in, true); msg != "" {
			t.Fatalf("Read without events: %q\n%s", in, msg)
		}
	})
}

// diffParseReplay compares the parallel replay (Read) with the canonical
// one (ReadEvents), with the default sizes and, when
// small is set, with tiny chunks that put chunk ends everywhere.
func diffParseReplay(file []byte, small ...bool) string {
	want := parseBytes(file)
	wantRes := replay(want)
	sizes := []struct{ workers, chunk int }{{2, 0}} // 0: the default chunk
	if len(small) > 0 && small[0] {
		sizes = append(sizes, []struct{ workers, chunk int }{{1, 1}, {2, 7}, {3, 300}, {2, 4096}}...)
	}
	for i, size := range sizes {
		got, res, err := readParallel(bytes.NewReader(file), "", size.workers, size.chunk)
		if err != nil {
			return err.Error()
		}
		if msg := sameReplay(&got.Scan, res, &want.Scan, wantRes); msg != "" {
			return fmt.Sprintf("%+v: %s", size, msg)
		}
		if g, w := got.LatestTS(), want.LatestTS(); !g.Equal(w) {
			return fmt.Sprintf("%+v: LatestTS %v, want %v", size, g, w)
		}
		if i > 0 && i != len(sizes)-1 {
			continue // the reserved id is looked up once reading is done: two sizes suffice
		}
		if msg := diffReserved(file, want, size.workers, size.chunk); msg != "" {
			return fmt.Sprintf("%+v: %s", size, msg)
		}
	}
	return ""
}

// diffReserved holds Read with a reserved event_id to ReadEvents for what
// a writer asks: the line that first used an event_id (one of the log's,
// or a new one of each form), and what propose makes of a line with that
// id stamped at the log's latest ts.
func diffReserved(file []byte, want *EventLog, workers, chunk int) string {
	ids := []string{"fedcba9876543210fedcba9876543210", "123e4567-e89b-12d3-a456-4266141740ff", "not-a-hex-id"}
	if len(file) > 256<<10 {
		ids = ids[:1] // large files: one id is enough, the small ones take every form
	}
	for i := range want.Events {
		if id := want.Events[i].EventID; id != "" && len(ids) < 5 && (i == 0 || i == len(want.Events)/2) {
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		got, res, err := readParallel(bytes.NewReader(file), id, workers, chunk)
		if err != nil {
			return err.Error()
		}
		wantLine := 0
		for i := range want.Events {
			if want.Events[i].EventID == id {
				wantLine = want.Events[i].Line
				break
			}
		}
		if got.reserved[id] != wantLine || got.LineOf(id) != wantLine {
			return fmt.Sprintf("event_id %q: first used on line %d (LineOf %d), want %d", id, got.reserved[id], got.LineOf(id), wantLine)
		}
		full := parseBytes(file)
		fullRes := replay(full)
		ts := full.LatestTS()
		if ts.IsZero() {
			ts = time.Date(2026, 6, 9, 10, 0, 0, 0, time.UTC)
		}
		line := evLine(id, formatTS(ts), "opencode", "", TypeJoin, "", "", `{"roles":["worker"]}`)
		gotRej, gotErr := got.propose(res, []byte(line))
		wantRej, wantErr := full.propose(fullRes, []byte(line))
		if (gotErr != nil) != (wantErr != nil) || !reflect.DeepEqual(gotRej, wantRej) {
			return fmt.Sprintf("event_id %q: Propose gives %+v, %v; want %+v, %v", id, gotRej, gotErr, wantRej, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(res.State, fullRes.State) {
			return fmt.Sprintf("event_id %q: Propose leaves another state", id)
		}
	}
	return ""
}

func sameReplay(got *Scan, res *Result, want *Scan, wantRes *Result) string {
	if got.ConflictMarker != want.ConflictMarker {
		return fmt.Sprintf("conflict marker: got line %d, want %d", got.ConflictMarker, want.ConflictMarker)
	}
	if got.Lines != want.Lines || !reflect.DeepEqual(got.Malformed, want.Malformed) || !maps.Equal(got.MalformedOmitted, want.MalformedOmitted) || !reflect.DeepEqual(got.Claims, want.Claims) {
		return fmt.Sprintf("log: got %d lines %+v (+%v) %+v\nwant %d lines %+v (+%v) %+v", got.Lines, got.Malformed, got.MalformedOmitted, got.Claims, want.Lines, want.Malformed, want.MalformedOmitted, want.Claims)
	}
	if !reflect.DeepEqual(res.Omitted, wantRes.Omitted) {
		return fmt.Sprintf("omitted: got %+v, want %+v", res.Omitted, wantRes.Omitted)
	}
	if !reflect.DeepEqual(res.Unsupported, wantRes.Unsupported) {
		return fmt.Sprintf("unsupported: got %+v, want %+v", res.Unsupported, wantRes.Unsupported)
	}
	if len(res.Rejections) != len(wantRes.Rejections) {
		return fmt.Sprintf("%d rejections, want %d:\n got %+v\nwant %+v", len(res.Rejections), len(wantRes.Rejections), res.Rejections, wantRes.Rejections)
	}
	for i := range res.Rejections {
		if res.Rejections[i] != wantRes.Rejections[i] {
			return fmt.Sprintf("rejection %d:\n got %+v\nwant %+v", i, res.Rejections[i], wantRes.Rejections[i])
		}
	}
	if !reflect.DeepEqual(res.State, wantRes.State) {
		return fmt.Sprintf("state differs:\n got %s\nwant %s", RenderBytes(res.State), RenderBytes(wantRes.State))
	}
	return ""
}

func TestParseReplayEquivalence(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"tricky":    []byte(strings.Join(trickyLines(), "\n")),
		"empty":     nil,
		"init only": []byte(okInit + "\n"),
	}
	for _, seed := range []uint64{1, 2, 3} {
		files[fmt.Sprintf("generated %d", seed)] = generatedLog(t, 4000*int(seed), seed, 0.03*float64(seed))
	}
	files["generated, no defects"] = generatedLog(t, 20000, 9, 0)
	// Every kind of event_id, duplicated across forms and lines.
	var b strings.Builder
	b.WriteString(okInit + "\n")
	ids := []string{"0123456789abcdef0123456789abcdef", "0123456789ABCDEF0123456789ABCDEF", "123e4567-e89b-12d3-a456-426614174000",
		"0123456789abcdef0123456789abcdef0123", "x", "", "0123456789abcdef0123456789abcdef"}
	for i, id := range ids {
		fmt.Fprintf(&b, `{"event_id":%q,"ts":"2026-06-09T10:00:0%dZ","agent_id":"w","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":[]}}`+"\n", id, i+1)
		fmt.Fprintf(&b, `{"event_id":%q,"ts":"2026-06-09T10:00:0%dZ","agent_id":"w","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":[]}}`+"\n", id, i+1)
		fmt.Fprintf(&b, `{"event_id":%q,"ts":"2026-06-09T09:00:0%dZ","agent_id":"w","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":7}}`+"\n", id, i+1)
		fmt.Fprintf(&b, `{"event_id":%q,"ts":"bad","agent_id":"w","role":"worker","event_type":"join","task_id":"","feature":"","payload":{"roles":[]}}`+"\n", id)
	}
	files["ids"] = []byte(b.String())
	files["flood"] = floodLog(300)
	for _, shape := range loggen.Junk {
		// Each shape alone, then after an init, and with an earlier event
		// whose event_id the junk may repeat.
		junk := loggen.JunkLog(shape, 64<<10)
		files["junk: "+shape.Name] = junk
		files["junk after init: "+shape.Name] = append([]byte(okInit+"\n"+shape.Line(0)+"\n"), junk...)
	}
	for _, pattern := range []string{"testdata/logs/*.jsonl", "../checks/testdata/pacts/*/log.jsonl", "../schemas/testdata/*.jsonl"} {
		names, _ := filepath.Glob(pattern)
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			files[name] = data
		}
	}
	for name, file := range parseFiles(t) {
		files[name] = file
	}
	for name, file := range files {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if msg := diffParseReplay(file, len(file) < 3<<20); msg != "" {
				t.Error(msg)
			}
			// The canonical parse and replay, each of its own parse: the
			// comparisons below only read them.
			want, wantRes := parseBytes(file), replay(parseBytes(file))
			var each []Event
			EachEvent(file, func(ev *Event) { each = append(each, *ev) })
			if (len(each) > 0 || len(want.Events) > 0) && !reflect.DeepEqual(each, want.Events) {
				t.Errorf("EachEvent gives %d events, ReadEvents keeps %d, or they differ", len(each), len(want.Events))
			}
			// Both doors give the same replay, whatever they keep.
			for _, opts := range []ReadOptions{{}, {Reserve: []string{"x"}}, {Snapshot: true}} {
				log, got := ReadBytes(file, opts)
				if msg := sameReplay(&log.Scan, got, &want.Scan, wantRes); msg != "" {
					t.Errorf("ReadBytes(%+v) differs from the canonical replay: %s", opts, msg)
				}
			}
			events, got := ReadEvents(file)
			if msg := sameReplay(&events.Scan, got, &want.Scan, wantRes); msg != "" {
				t.Errorf("ReadEvents differs from the canonical replay: %s", msg)
			}
		})
	}
}

// TestBlocksLetGoAsApplied replays, as the canonical replay does, a log
// whose assigns and hex commits fill several blocks (finish lets each go
// once the last rec that reads it is applied), with events displaced in
// ts order from late blocks into early ones, both ways round: an assign
// applied before the recs of its block, an accept after its block's
// others.
func TestBlocksLetGoAsApplied(t *testing.T) {
	t.Parallel()
	n := 2*compact.BlockSize + 100
	var b bytes.Buffer
	b.WriteString(okInit + "\n")
	base := time.Date(2026, 6, 9, 11, 0, 0, 0, time.UTC)
	line := func(k int, typ, task, payload string) {
		ts := base.Add(time.Duration(k) * time.Millisecond)
		switch {
		case k%997 == 0:
			ts = ts.Add(-30 * time.Second) // into an earlier block
		case k%1009 == 0:
			ts = ts.Add(45 * time.Second) // into a later one
		}
		fmt.Fprintf(&b, `{"event_id":"%032x","ts":%q,"agent_id":"lead","role":%q,"event_type":%q,"task_id":%q,"feature":"F%d","payload":%s}`+"\n",
			k+1, ts.Format(time.RFC3339Nano), RoleFor(typ), typ, task, k%50, payload)
	}
	for i := range n {
		task := fmt.Sprintf("T%d", i)
		line(i, TypeAssign, task, fmt.Sprintf(`{"owner":"w","reviewer":"lead","branch":"feat/%d","spec":".pact/tasks/%s.md"}`, i%7, task))
	}
	for i := range n {
		line(n+i, TypeAccept, fmt.Sprintf("T%d", i), fmt.Sprintf(`{"commit":"%040x"}`, i))
	}
	if msg := diffParseReplay(b.Bytes()); msg != "" {
		t.Error(msg)
	}
}
