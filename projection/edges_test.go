package projection

import (
	"strings"
	"testing"
)

// docs/semantics.md §7, one test per binding decision.

func initLine(id, when string) string {
	return evLine(id, when, "lead", "", TypeInit, "", "", initPayload(rosterJSON))
}

// replayText parses text (lines joined by the caller) and replays it.
func replayText(text string) (*EventLog, *Result) {
	log := parseBytes([]byte(text))
	return log, replay(log)
}

func TestBOMIsDroppedAndLinesKeepTheirNumbers(t *testing.T) {
	t.Parallel()
	l := review()
	text := "\xEF\xBB\xBF" + string(l.bytes()) + "not json\n"
	log, res := replayText(text)
	assertRejs(t, allFindings(&log.Scan, res), []rej{{5, CodeMalformedJSON, "", ""}})
	if got := statuses(res.State); got != "T1=awaiting_review F=awaiting_review" {
		t.Errorf("statuses %q", got)
	}
	if res.State.InitLine != 1 {
		t.Errorf("init line %d, want 1", res.State.InitLine)
	}

	t.Run("a BOM-only first line is blank", func(t *testing.T) {
		t.Parallel()
		log, res := replayText("\xEF\xBB\xBF\n" + string(l.bytes()))
		assertRejs(t, allFindings(&log.Scan, res), nil)
		if res.State.InitLine != 2 {
			t.Errorf("init line %d, want 2", res.State.InitLine)
		}
	})
	t.Run("a BOM on a later line is malformed", func(t *testing.T) {
		t.Parallel()
		log, res := replayText(l.lines[0] + "\n\xEF\xBB\xBF" + l.lines[1] + "\n")
		assertRejs(t, allFindings(&log.Scan, res), []rej{{2, CodeMalformedJSON, "", ""}})
	})
}

func TestBlankLines(t *testing.T) {
	t.Parallel()
	l := review()
	text := "   \n" + l.lines[0] + "\n\t\n\r\n" + l.lines[1] + "\r\n \t\r \n" + l.lines[2] + "\n\n" + l.lines[3] + "\n" + "\r\r\n" + "x\n"
	log, res := replayText(text)
	// Lines: 1 blank, 2 init, 3-4 blank, 5 assign, 6 blank, 7 join, 8 blank,
	// 9 checkpoint, 10 blank, 11 x.
	assertRejs(t, allFindings(&log.Scan, res), []rej{{11, CodeMalformedJSON, "", ""}})
	if got := statuses(res.State); got != "T1=awaiting_review F=awaiting_review" {
		t.Errorf("statuses %q", got)
	}
	if task := res.State.Tasks["T1"]; task == nil || task.AssignLine != 5 {
		t.Errorf("T1 assign line: %+v", task)
	}
	if log.Lines != 11 {
		t.Errorf("Lines = %d, want 11", log.Lines)
	}
	t.Run("other control whitespace is not blank", func(t *testing.T) {
		t.Parallel()
		log, res := replayText(l.lines[0] + "\n\f\n\v\n")
		assertRejs(t, allFindings(&log.Scan, res), []rej{{2, CodeMalformedJSON, "", ""}, {3, CodeMalformedJSON, "", ""}})
	})
}

func TestMalformedLines(t *testing.T) {
	t.Parallel()
	good := evLine("e4", at(4), "opencode", "", TypeCheckpoint, "T1", "F", `{"evidence":"ok"}`)
	badUTF8 := strings.Replace(good, "ok", "o\xffk", 1)
	cases := []struct {
		name, line, msg string
	}{
		{"invalid UTF-8", badUTF8, "not valid UTF-8"},
		{"overlong UTF-8 encoding", strings.Replace(badUTF8, "\xff", "\xc0\xaf", 1), "not valid UTF-8"},
		{"UTF-16 surrogate half", strings.Replace(badUTF8, "\xff", "\xed\xa0\x80", 1), "not valid UTF-8"},
		{"NaN", strings.Replace(good, `"ok"`, `NaN`, 1), "NaN"},
		{"Infinity", strings.Replace(good, `"ok"`, `Infinity`, 1), "Infinity"},
		{"-Infinity", strings.Replace(good, `"ok"`, `-Infinity`, 1), "Infinity"},
		{"array", `["init"]`, "not a JSON object"},
		{"null", `null`, "not a JSON object"},
		{"string", `"init"`, "not a JSON object"},
		{"number", `42`, "not a JSON object"},
		{"boolean", `true`, "not a JSON object"},
		{"truncated object", `{"event_id":"e4","ts":`, "not a JSON object"},
		{"trailing garbage", evLine("e4", at(4), "opencode", "", TypeCheckpoint, "T1", "F", `{"evidence":"ok"}`) + " x", "not a JSON object"},
		{"two objects", `{}{}`, "not a JSON object"},
		{"single quotes", `{'event_type':'init'}`, "not a JSON object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := started().add(tc.line).accept("claude-opus", "T1", "F")
			log := parseBytes(l.bytes())
			res := replay(log)
			// The malformed checkpoint is skipped, so the accept finds T1
			// still in progress.
			assertRejs(t, allFindings(&log.Scan, res), []rej{{4, CodeMalformedJSON, "", ""}, {5, CodeInvalidTransition, "T1", "F"}})
			if len(log.Malformed) == 1 && !strings.Contains(log.Malformed[0].Message, tc.msg) {
				t.Errorf("message %q does not say %q", log.Malformed[0].Message, tc.msg)
			}
		})
	}
}

// padded returns a checkpoint line of exactly n bytes, padded with an
// unknown payload field.
func padded(t *testing.T, n int) string {
	t.Helper()
	base := evLine("e4", at(4), "opencode", "", TypeCheckpoint, "T1", "F", `{"evidence":"ok","pad":""}`)
	if n < len(base) {
		t.Fatalf("n %d too small", n)
	}
	s := strings.Replace(base, `"pad":""`, `"pad":"`+strings.Repeat("x", n-len(base))+`"`, 1)
	if len(s) != n {
		t.Fatalf("padded line has %d bytes, want %d", len(s), n)
	}
	return s
}

func TestLineLengthBound(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		n      int
		term   string
		want   []rej
		status string
	}{
		{"exactly the bound", MaxLineBytes, "\n", []rej{}, "T1=awaiting_review F=awaiting_review"},
		{"exactly the bound with CRLF", MaxLineBytes, "\r\n", []rej{}, "T1=awaiting_review F=awaiting_review"},
		{"exactly the bound as the last line without terminator", MaxLineBytes, "", []rej{}, "T1=awaiting_review F=awaiting_review"},
		{"one byte over", MaxLineBytes + 1, "\n", []rej{{4, CodeMalformedJSON, "", ""}}, "T1=in_progress F=in_progress"},
		{"one byte over with CRLF", MaxLineBytes + 1, "\r\n", []rej{{4, CodeMalformedJSON, "", ""}}, "T1=in_progress F=in_progress"},
		{"far over", 3*MaxLineBytes + 17, "\n", []rej{{4, CodeMalformedJSON, "", ""}}, "T1=in_progress F=in_progress"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			text := string(started().bytes()) + padded(t, tc.n) + tc.term
			log, res := replayText(text)
			assertRejs(t, allFindings(&log.Scan, res), tc.want)
			if got := statuses(res.State); got != tc.status {
				t.Errorf("statuses %q, want %q", got, tc.status)
			}
			if len(tc.want) > 0 && !strings.Contains(log.Malformed[0].Message, "longer than") {
				t.Errorf("message %q does not say the line is too long", log.Malformed[0].Message)
			}
		})
	}
	t.Run("lines after an over-long line keep their numbers", func(t *testing.T) {
		t.Parallel()
		text := string(started().bytes()) + padded(t, MaxLineBytes+5) + "\n" + "junk\n" +
			evLine("e6", at(6), "opencode", "", TypeCheckpoint, "T1", "F", `{"evidence":"x"}`) + "\n"
		log, res := replayText(text)
		assertRejs(t, allFindings(&log.Scan, res), []rej{{4, CodeMalformedJSON, "", ""}, {5, CodeMalformedJSON, "", ""}})
		if got := statuses(res.State); got != "T1=awaiting_review F=awaiting_review" {
			t.Errorf("statuses %q", got)
		}
		if log.Lines != 6 {
			t.Errorf("Lines = %d", log.Lines)
		}
	})
}

func TestUnknownEventTypeIsIgnoredEntirely(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		line string
	}{
		{"future type with a full envelope", evLine("e4", at(4), "opencode", "worker", "handoff", "T1", "F", `{}`)},
		{"future type and nothing else", `{"event_type":"future"}`},
		{"future type with a broken envelope", `{"event_type":"future","ts":12,"agent_id":"NOT A SLUG","role":"god","payload":[]}`},
		{"case matters: Init is unknown", `{"event_type":"Init","ts":"x"}`},
		{"future type reusing the next event's id", evLine("e5", at(5), "opencode", "worker", "handoff", "", "", `{}`)},
		{"future type before init in time", evLine("u", at(0), "nobody", "worker", "handoff", "", "", `{}`)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := started().add(tc.line).checkpoint("opencode", "T1", "F")
			log, res := replayText(string(l.bytes()))
			assertRejs(t, allFindings(&log.Scan, res), nil)
			if got := statuses(res.State); got != "T1=awaiting_review F=awaiting_review" {
				t.Errorf("statuses %q", got)
			}
			if len(log.Events) != 4 {
				t.Errorf("%d events parsed, want 4 (the unknown one is not an event)", len(log.Events))
			}
		})
	}
	t.Run("a log of only unknown types has only the final init.missing", func(t *testing.T) {
		t.Parallel()
		log, res := replayText(`{"event_type":"future"}` + "\n" + `{"event_type":"later"}` + "\n")
		assertRejs(t, allFindings(&log.Scan, res), []rej{noInit})
	})
}

func TestEventTypeAndRoleShapes(t *testing.T) {
	t.Parallel()
	cp := evLine("e4", at(4), "opencode", "", TypeCheckpoint, "T1", "F", `{"evidence":"x"}`)
	cases := []struct {
		name, from, to string
		code           Code
	}{
		{"missing event_type", `"event_type":"checkpoint",`, ``, CodeSchemaEnvelope},
		{"numeric event_type", `"event_type":"checkpoint"`, `"event_type":3`, CodeSchemaEnvelope},
		{"null event_type", `"event_type":"checkpoint"`, `"event_type":null`, CodeSchemaEnvelope},
		{"array event_type", `"event_type":"checkpoint"`, `"event_type":["checkpoint"]`, CodeSchemaEnvelope},
		{"missing role", `"role":"worker",`, ``, CodeSchemaEnvelope},
		{"role outside the enum", `"role":"worker"`, `"role":"admin"`, CodeSchemaEnvelope},
		{"role in another case", `"role":"worker"`, `"role":"Worker"`, CodeSchemaEnvelope},
		{"role null", `"role":"worker"`, `"role":null`, CodeSchemaEnvelope},
		{"valid role contradicting the type", `"role":"worker"`, `"role":"orchestrator"`, CodeRoleMismatch},
		{"missing ts", `"ts":"` + at(4) + `",`, ``, CodeSchemaEnvelope},
		{"missing agent_id", `"agent_id":"opencode",`, ``, CodeSchemaEnvelope},
		{"agent_id not a slug", `"agent_id":"opencode"`, `"agent_id":"OpenCode"`, CodeSchemaEnvelope},
		{"missing task_id", `"task_id":"T1",`, ``, CodeSchemaEnvelope},
		{"missing feature", `"feature":"F",`, ``, CodeSchemaEnvelope},
		{"feature null", `"feature":"F"`, `"feature":null`, CodeSchemaEnvelope},
		{"missing payload", `,"payload":{"evidence":"x"}`, ``, CodeSchemaEnvelope},
		{"payload array", `"payload":{"evidence":"x"}`, `"payload":["x"]`, CodeSchemaEnvelope},
		{"unknown top-level field is ignored", `"payload":`, `"x-extra":[1],"payload":`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			line := strings.Replace(cp, tc.from, tc.to, 1)
			if line == cp {
				t.Fatalf("replacement of %s did not apply", tc.from)
			}
			log, res := replayText(string(started().add(line).bytes()))
			// Only line and code: an envelope defect stops decoding, so the
			// task and feature of such a finding depend on the field order.
			var want []rej
			wantStatus := "T1=awaiting_review F=awaiting_review"
			if tc.code != "" {
				want = []rej{{Line: 4, Code: tc.code}}
				wantStatus = "T1=in_progress F=in_progress"
			}
			got := []rej{}
			for _, r := range allFindings(&log.Scan, res) {
				got = append(got, rej{Line: r.Line, Code: r.Code})
			}
			assertRejs(t, got, want)
			if got := statuses(res.State); got != wantStatus {
				t.Errorf("statuses %q, want %q", got, wantStatus)
			}
		})
	}
}

func TestTimestampForms(t *testing.T) {
	t.Parallel()
	valid := []string{
		"2026-06-09T10:00:00Z",
		"2026-06-09T10:00:00.5Z",
		"2026-06-09T10:00:00.123456789Z",
		"2024-02-29T23:59:59Z",
		"1999-12-31T00:00:00.000Z",
	}
	invalid := []string{
		"2026-06-09t10:00:00Z",
		"2026-06-09T10:00:00z",
		"2026-06-09T10:00:00+00:00",
		"2026-06-09T10:00:00.5+01:00",
		"2026-06-09T10:00Z",
		"2026-06-09 10:00:00Z",
		"2026-06-09T10:00:00",
		"2026-02-30T10:00:00Z",
		"2025-02-29T10:00:00Z",
		"2026-13-01T00:00:00Z",
		"2026-06-09T24:00:00Z",
		"2026-06-09T23:59:60Z",
		"2026-06-09T10:60:00Z",
		"2026-06-09T10:00:00.Z",
		"2026-06-09T10:00:00,5Z",
		"2026-6-9T10:00:00Z",
		" 2026-06-09T10:00:00Z",
		"2026-06-09T10:00:00Z ",
		"2026-06-09T10:00:00ZZ",
		"20260609T100000Z",
		"２026-06-09T10:00:00Z",
		"",
	}
	for _, s := range valid {
		t.Run("valid "+s, func(t *testing.T) {
			t.Parallel()
			log, res := replayText(initLine("i", s) + "\n")
			assertRejs(t, allFindings(&log.Scan, res), nil)
			if !res.State.Initialized {
				t.Error("init not applied")
			}
		})
	}
	for _, s := range invalid {
		t.Run("invalid "+s, func(t *testing.T) {
			t.Parallel()
			log, res := replayText(initLine("i", s) + "\n")
			assertRejs(t, allFindings(&log.Scan, res), []rej{{1, CodeSchemaEnvelope, "", ""}, noInit})
		})
	}
	for _, raw := range []string{`1717926000`, `null`, `["2026-06-09T10:00:00Z"]`} {
		t.Run("ts as "+raw, func(t *testing.T) {
			t.Parallel()
			line := strings.Replace(initLine("i", "X"), `"X"`, raw, 1)
			log, res := replayText(line + "\n")
			assertRejs(t, allFindings(&log.Scan, res), []rej{{1, CodeSchemaEnvelope, "", ""}, noInit})
		})
	}
}

func TestOrderingIsByInstant(t *testing.T) {
	t.Parallel()
	ev := func(id, when, agent, typ, task, payload string) string {
		return evLine(id, when, agent, "", typ, task, taskFeature(typ, task), payload)
	}
	asg := func(when string) string {
		return ev("a", when, "lead", TypeAssign, "T1", assignPayload("opencode", "claude-opus"))
	}
	join := func(when string) string { return ev("j", when, "opencode", TypeJoin, "", `{"roles":["worker"]}`) }
	cp := func(when string) string { return ev("c", when, "opencode", TypeCheckpoint, "T1", `{"evidence":"x"}`) }
	acc := func(when string) string { return ev("ac", when, "claude-opus", TypeAccept, "T1", "") }
	head := initLine("i", "2026-06-09T09:00:00Z")
	cases := []struct {
		name   string
		lines  []string
		want   []rej
		status string
	}{
		{"one nanosecond earlier replays first although written later",
			[]string{head, asg("2026-06-09T10:00:05.000000002Z"), join("2026-06-09T10:00:05.000000001Z")},
			nil, "T1=assigned F=planned"},
		{"one nanosecond later replays later although written first",
			[]string{head, join("2026-06-09T10:00:05.000000002Z"), asg("2026-06-09T10:00:05.000000001Z")},
			nil, "T1=in_progress F=in_progress"},
		{"fractional seconds sort as instants, not strings",
			// As strings "…05.5Z" < "…05Z"; as instants 05 comes first.
			[]string{head, asg("2026-06-09T10:00:05.5Z"), join("2026-06-09T10:00:05Z")},
			nil, "T1=assigned F=planned"},
		{"a whole second after nine nines",
			[]string{head, asg("2026-06-09T10:00:06Z"), join("2026-06-09T10:00:05.999999999Z")},
			nil, "T1=assigned F=planned"},
		{"across days, months and years",
			[]string{head, asg("2026-06-10T00:00:00Z"), join("2026-06-09T23:59:59.9Z")},
			nil, "T1=assigned F=planned"},
		{"equal ts keep file order",
			[]string{head, asg("2026-06-09T10:00:05Z"), join("2026-06-09T10:00:05Z"), cp("2026-06-09T10:00:05Z"), acc("2026-06-09T10:00:05Z")},
			nil, "T1=accepted F=accepted"},
		{"equal ts keep file order when the file order is wrong",
			[]string{head, asg("2026-06-09T10:00:05Z"), join("2026-06-09T10:00:05Z"), acc("2026-06-09T10:00:05Z"), cp("2026-06-09T10:00:05Z")},
			[]rej{{4, CodeInvalidTransition, "T1", "F"}}, "T1=awaiting_review F=awaiting_review"},
		{"the same instant written with different precision is a tie",
			[]string{head, asg("2026-06-09T10:00:05Z"), join("2026-06-09T10:00:05.000Z"), acc("2026-06-09T10:00:05.50Z"), cp("2026-06-09T10:00:05.5Z")},
			[]rej{{4, CodeInvalidTransition, "T1", "F"}}, "T1=awaiting_review F=awaiting_review"},
		{"an event with a bad ts takes no part",
			[]string{head, asg("2026-06-09T10:00:05Z"), join("2026-06-09T10:00:06+00:00"), cp("2026-06-09T10:00:07Z")},
			[]rej{{3, CodeSchemaEnvelope, "", ""}, {4, CodeInvalidTransition, "T1", "F"}}, "T1=assigned F=planned"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log, res := replayText(strings.Join(tc.lines, "\n") + "\n")
			assertRejs(t, allFindings(&log.Scan, res), tc.want)
			if got := statuses(res.State); got != tc.status {
				t.Errorf("statuses %q, want %q", got, tc.status)
			}
		})
	}
}

// taskFeature gives task events of T1 the feature F, and merges F.
func taskFeature(typ, task string) string {
	if task != "" || typ == TypeMerge {
		return "F"
	}
	return ""
}

func TestProtocolVersionShapes(t *testing.T) {
	t.Parallel()
	for _, v := range []string{`1.0`, `true`, `"1"`, `0`, `-1`, `null`, `1e0`, `[1]`, `0.5`} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			p := strings.Replace(initPayload(rosterJSON), `"protocol_version":1`, `"protocol_version":`+v, 1)
			l := new(logb).ev("lead", TypeInit, "", "", p).assign("T1", "F", "opencode", "claude-opus")
			res := l.replay()
			assertRejs(t, rejs(res), []rej{{1, CodeSchemaPayload, "", ""}, {2, CodeInitMissing, "T1", "F"}, noInit})
			if res.Unsupported != nil {
				t.Errorf("%s must not fail closed", v)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		t.Parallel()
		p := strings.Replace(initPayload(rosterJSON), `"protocol_version":1,`, ``, 1)
		res := new(logb).ev("lead", TypeInit, "", "", p).replay()
		assertRejs(t, rejs(res), []rej{{1, CodeSchemaPayload, "", ""}, noInit})
	})
	t.Run("1 is applied", func(t *testing.T) {
		t.Parallel()
		res := new(logb).init().replay()
		assertRejs(t, rejs(res), nil)
		if res.State.ProtocolVersion != 1 {
			t.Errorf("ProtocolVersion %d", res.State.ProtocolVersion)
		}
	})
}

func TestSeatShapes(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"seats is an object":         `{"lead":{"roles":["orchestrator"]}}`,
		"seats is missing":           ``,
		"seat is a string":           `["lead:orchestrator:AGENTS.md"]`,
		"seat id is a number":        `[{"id":1,"roles":["orchestrator"],"entry":"A.md"}]`,
		"seat without id":            `[{"roles":["orchestrator"],"entry":"A.md"}]`,
		"roles is a string":          `[{"id":"lead","roles":"orchestrator","entry":"A.md"}]`,
		"roles holds a number":       `[{"id":"lead","roles":["orchestrator",1],"entry":"A.md"}]`,
		"roles is null":              `[{"id":"lead","roles":null,"entry":"A.md"}]`,
		"entry missing":              `[{"id":"lead","roles":["orchestrator"]}]`,
		"entry is null":              `[{"id":"lead","roles":["orchestrator"],"entry":null}]`,
		"a good seat then a bad one": `[{"id":"lead","roles":["orchestrator"],"entry":"A.md"},null]`,
	}
	for name, seats := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := initPayload(seats)
			if seats == "" {
				p = `{"project":"demo","protocol_version":1,"base_branch":"main"}`
			}
			res := new(logb).ev("lead", TypeInit, "", "", p).replay()
			assertRejs(t, rejs(res), []rej{{1, CodeSchemaPayload, "", ""}, noInit})
		})
	}
	t.Run("extra seat fields are ignored", func(t *testing.T) {
		t.Parallel()
		res := new(logb).ev("lead", TypeInit, "", "", initPayload(`[{"id":"lead","roles":["orchestrator"],"entry":"A.md","vendor":"x"}]`)).replay()
		assertRejs(t, rejs(res), nil)
	})
}

func TestEventIDPresence(t *testing.T) {
	t.Parallel()
	cp := evLine("e4", at(4), "opencode", "", TypeCheckpoint, "T1", "F", `{"evidence":"x"}`)
	cases := []struct {
		name, from, to string
		want           []rej
		status         string
	}{
		{"missing: reported and applied", `"event_id":"e4",`, ``,
			[]rej{{4, CodeEventIDMissing, "T1", "F"}}, "T1=awaiting_review F=awaiting_review"},
		{"empty: reported and applied", `"event_id":"e4"`, `"event_id":""`,
			[]rej{{4, CodeEventIDMissing, "T1", "F"}}, "T1=awaiting_review F=awaiting_review"},
		{"missing with a role mismatch: both, not applied", `"event_id":"e4","ts":"2026-06-09T10:00:04Z","agent_id":"opencode","role":"worker"`,
			`"ts":"2026-06-09T10:00:04Z","agent_id":"opencode","role":"reviewer"`,
			[]rej{{4, CodeEventIDMissing, "T1", "F"}, {4, CodeRoleMismatch, "T1", "F"}}, "T1=in_progress F=in_progress"},
		{"missing with a bad ts: both, not applied", `"event_id":"e4","ts":"2026-06-09T10:00:04Z"`, `"ts":"yesterday"`,
			// decoding stops at the bad ts, so task and feature are not known
			[]rej{{4, CodeEventIDMissing, "", ""}, {4, CodeSchemaEnvelope, "", ""}}, "T1=in_progress F=in_progress"},
		{"missing with a payload defect: both, not applied", `"event_id":"e4",`, ``,
			nil, ""}, // filled below
		{"missing with a transition defect: both, not applied", `"event_id":"e4",`, ``,
			nil, ""}, // filled below
	}
	for i := range cases {
		tc := &cases[i]
		switch i {
		case 4:
			cp2 := strings.Replace(cp, `{"evidence":"x"}`, `{}`, 1)
			tc.from, tc.to = cp2, strings.Replace(cp2, `"event_id":"e4",`, ``, 1)
			tc.want = []rej{{4, CodeEventIDMissing, "T1", "F"}, {4, CodeSchemaPayload, "T1", "F"}}
			tc.status = "T1=in_progress F=in_progress"
		case 5:
			acc := evLine("e4", at(4), "claude-opus", "", TypeAccept, "T1", "F", "")
			tc.from, tc.to = acc, strings.Replace(acc, `"event_id":"e4",`, ``, 1)
			tc.want = []rej{{4, CodeEventIDMissing, "T1", "F"}, {4, CodeInvalidTransition, "T1", "F"}}
			tc.status = "T1=in_progress F=in_progress"
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := cp
			if strings.HasPrefix(tc.from, "{") {
				base = tc.from
			}
			line := strings.Replace(base, tc.from, tc.to, 1)
			if line == base {
				t.Fatal("replacement did not apply")
			}
			log, res := replayText(string(started().add(line).bytes()))
			assertRejs(t, allFindings(&log.Scan, res), tc.want)
			if got := statuses(res.State); got != tc.status {
				t.Errorf("statuses %q, want %q", got, tc.status)
			}
		})
	}
	t.Run("init without event_id is applied", func(t *testing.T) {
		t.Parallel()
		l := new(logb).add(strings.Replace(initLine("x", at(1)), `"event_id":"x",`, "", 1)).assign("T1", "F", "opencode", "claude-opus")
		res := l.replay()
		assertRejs(t, rejs(res), []rej{{1, CodeEventIDMissing, "", ""}})
		if !res.State.Initialized {
			t.Error("init not applied")
		}
	})
	t.Run("two events without event_id are not duplicates", func(t *testing.T) {
		t.Parallel()
		l := started()
		for i := range l.lines {
			l.lines[i] = strings.Replace(l.lines[i], `"event_id":"e`+itoa(i+1)+`"`, `"event_id":""`, 1)
		}
		res := l.replay()
		assertRejs(t, rejs(res), []rej{{1, CodeEventIDMissing, "", ""}, {2, CodeEventIDMissing, "T1", "F"}, {3, CodeEventIDMissing, "", ""}})
		if got := statuses(res.State); got != "T1=in_progress F=in_progress" {
			t.Errorf("statuses %q", got)
		}
	})
}

// TestNonStringEventID: docs/semantics.md §7 makes a non-string event_id (null
// included) schema.envelope, the one finding of its event; it is not also a
// missing event_id.
func TestNonStringEventID(t *testing.T) {
	t.Parallel()
	cp := evLine("e4", at(4), "opencode", "", TypeCheckpoint, "T1", "F", `{"evidence":"x"}`)
	for _, raw := range []string{`null`, `4`, `{}`, `["e4"]`, `true`} {
		t.Run(raw, func(t *testing.T) {
			line := strings.Replace(cp, `"event_id":"e4"`, `"event_id":`+raw, 1)
			res := started().add(line).replay()
			got := []rej{}
			for _, r := range rejs(res) {
				got = append(got, rej{Line: r.Line, Code: r.Code})
			}
			assertRejs(t, got, []rej{{Line: 4, Code: CodeSchemaEnvelope}})
			if st := statuses(res.State); st != "T1=in_progress F=in_progress" {
				t.Errorf("statuses %q", st)
			}
		})
	}
}

func TestDuplicateEventID(t *testing.T) {
	t.Parallel()
	t.Run("byte-identical copy: warning, left out", func(t *testing.T) {
		t.Parallel()
		l := review()
		l.add(l.lines[3])
		res := l.replay()
		assertRejs(t, rejs(res), []rej{{5, CodeEventIDDuplicate, "T1", "F"}})
		if !res.Rejections[0].Identical {
			t.Error("a byte-identical copy must be marked Identical")
		}
		if !strings.Contains(res.Rejections[0].Message, "already used on line 4") {
			t.Errorf("message %q", res.Rejections[0].Message)
		}
		if got := statuses(res.State); got != "T1=awaiting_review F=awaiting_review" {
			t.Errorf("statuses %q", got)
		}
	})
	t.Run("identical apart from line terminators", func(t *testing.T) {
		t.Parallel()
		l := review()
		text := strings.Join(l.lines, "\r\n") + "\n" + l.lines[3] + "\n"
		_, res := replayText(text)
		assertRejs(t, rejs(res), []rej{{5, CodeEventIDDuplicate, "T1", "F"}})
		if len(res.Rejections) == 1 && !res.Rejections[0].Identical {
			t.Error("CRLF and LF copies are byte-identical lines")
		}
	})
	t.Run("identical apart from the file's BOM", func(t *testing.T) {
		t.Parallel()
		l := new(logb).init()
		_, res := replayText("\xEF\xBB\xBF" + l.lines[0] + "\n" + l.lines[0] + "\n")
		assertRejs(t, rejs(res), []rej{{2, CodeEventIDDuplicate, "", ""}})
		if len(res.Rejections) == 1 && !res.Rejections[0].Identical {
			t.Error("the BOM is not part of line 1")
		}
	})
	t.Run("different line: error, left out even though valid", func(t *testing.T) {
		t.Parallel()
		l := review().add(evLine("e4", at(5), "claude-opus", "", TypeAccept, "T1", "F", ""))
		res := l.replay()
		assertRejs(t, rejs(res), []rej{{5, CodeEventIDDuplicate, "T1", "F"}})
		if res.Rejections[0].Identical {
			t.Error("different lines are not identical")
		}
		if got := statuses(res.State); got != "T1=awaiting_review F=awaiting_review" {
			t.Errorf("statuses %q", got)
		}
	})
	t.Run("whitespace differences are different lines", func(t *testing.T) {
		t.Parallel()
		l := review()
		l.add(strings.Replace(l.lines[3], `,"payload"`, `, "payload"`, 1))
		res := l.replay()
		assertRejs(t, rejs(res), []rej{{5, CodeEventIDDuplicate, "T1", "F"}})
		if res.Rejections[0].Identical {
			t.Error("a re-spaced line is not byte-identical")
		}
	})
	t.Run("the later line in file order is the duplicate even with an earlier ts", func(t *testing.T) {
		t.Parallel()
		l := started().
			add(evLine("X", at(10), "claude-opus", "", TypeAccept, "T1", "F", "")).
			add(evLine("X", at(4), "opencode", "", TypeCheckpoint, "T1", "F", `{"evidence":"x"}`))
		res := l.replay()
		assertRejs(t, rejs(res), []rej{{4, CodeInvalidTransition, "T1", "F"}, {5, CodeEventIDDuplicate, "T1", "F"}})
		if got := statuses(res.State); got != "T1=in_progress F=in_progress" {
			t.Errorf("statuses %q", got)
		}
	})
	t.Run("a rejected first line still claims its event_id", func(t *testing.T) {
		t.Parallel()
		l := started().
			add(evLine("X", at(4), "opencode", "admin", TypeCheckpoint, "T1", "F", `{"evidence":"x"}`)).
			add(evLine("X", at(5), "opencode", "", TypeCheckpoint, "T1", "F", `{"evidence":"x"}`))
		res := l.replay()
		assertRejs(t, rejs(res), []rej{{4, CodeSchemaEnvelope, "", ""}, {5, CodeEventIDDuplicate, "T1", "F"}})
	})
	t.Run("three copies: two duplicates of the first", func(t *testing.T) {
		t.Parallel()
		l := new(logb).init()
		l.add(l.lines[0]).add(l.lines[0])
		res := l.replay()
		assertRejs(t, rejs(res), []rej{{2, CodeEventIDDuplicate, "", ""}, {3, CodeEventIDDuplicate, "", ""}})
		for _, r := range res.Rejections {
			if !strings.Contains(r.Message, "line 1") {
				t.Errorf("message %q should name line 1", r.Message)
			}
		}
	})
}

func TestInitMissingAtTheEnd(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"empty log":          "",
		"blank lines only":   "\n \n\t\r\n",
		"BOM only":           "\xEF\xBB\xBF",
		"malformed only":     "nope\n",
		"unknown types only": `{"event_type":"x"}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, res := replayText(text)
			if len(res.Rejections) != 1 || res.Rejections[0].Code != CodeInitMissing || res.Rejections[0].Line != 0 {
				t.Errorf("rejections %+v, want exactly one lineless init.missing", res.Rejections)
			}
		})
	}
	t.Run("the lineless finding comes last", func(t *testing.T) {
		t.Parallel()
		res := new(logb).assign("T1", "F", "opencode", "claude-opus").replay()
		assertRejs(t, rejs(res), []rej{{1, CodeInitMissing, "T1", "F"}, noInit})
	})
}

func TestFailClosedOnNewerVersion(t *testing.T) {
	t.Parallel()
	v := func(id, when, version string) string {
		return evLine(id, when, "lead", "", TypeInit, "", "", strings.Replace(initPayload(rosterJSON), `"protocol_version":1`, `"protocol_version":`+version, 1))
	}
	cases := []struct {
		name     string
		lines    []string
		line     int
		version  string
		noClaims bool
	}{
		{"a lone v2 init", []string{v("i", at(1), "2")}, 1, "2", false},
		{"a v2 init after a valid log with errors", append(append([]string{}, review().lines...), "garbage", evLine("", "bad", "X", "", TypeMerge, "", "", ""), v("i2", at(9), "2")), 7, "2", false},
		{"first in replay order, not file order", []string{initLine("i", at(1)), v("a", at(5), "3"), v("b", at(2), "2")}, 3, "2", false},
		{"a claim with a valid ts beats one without", []string{v("a", "never", "3"), v("b", at(5), "2")}, 2, "2", false},
		{"claims without valid ts: file order", []string{v("a", "never", "3"), v("b", "later", "2")}, 1, "3", false},
		{"claims at the same ts: file order", []string{v("a", at(5), "3"), v("b", at(5), "2")}, 1, "3", false},
		{"the literal is reported as written", []string{v("i", at(1), "100000000000000000000000000000")}, 1, "100000000000000000000000000000", false},
		{"10 is above 1", []string{v("i", at(1), "10")}, 1, "10", false},
		{"a claim on an init with a broken envelope", []string{strings.Replace(v("i", at(1), "2"), `"task_id":""`, `"task_id":"T1"`, 1)}, 1, "2", false},
		{"a claim on an init with a contradicting role", []string{strings.Replace(v("i", at(1), "2"), `"role":"orchestrator"`, `"role":"worker"`, 1)}, 1, "2", false},
		{"a claim on an init with an unusable roster", []string{strings.Replace(v("i", at(1), "2"), rosterJSON, `"nope"`, 1)}, 1, "2", false},
		{"a duplicate event_id does not hide a claim", []string{initLine("i", at(1)), v("i", at(2), "2")}, 2, "2", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, res := replayText(strings.Join(tc.lines, "\n") + "\n")
			u := res.Unsupported
			if u == nil {
				t.Fatalf("no fail-closed; rejections %v", rejs(res))
			}
			if u.Code != CodeVersionUnsupported || u.Line != tc.line {
				t.Errorf("got %s on line %d, want version.unsupported on line %d", u.Code, u.Line, tc.line)
			}
			if !strings.Contains(u.Message, "protocol_version "+tc.version+" ") || !strings.Contains(u.Message, "upgrade") {
				t.Errorf("message %q should name version %s and say to upgrade", u.Message, tc.version)
			}
			if len(res.Rejections) != 0 || res.State.Initialized || res.State.Applied != 0 || len(res.State.Tasks) != 0 {
				t.Errorf("nothing else may be judged: rejections %v, state %+v", rejs(res), res.State)
			}
		})
	}
	notClaims := []struct {
		name string
		line string
		want []rej
	}{
		{"2.0 is a payload defect, not a claim", v("i", at(1), "2.0"), []rej{{1, CodeSchemaPayload, "", ""}, noInit}},
		{"2e0 is a payload defect, not a claim", v("i", at(1), "2e0"), []rej{{1, CodeSchemaPayload, "", ""}, noInit}},
		{"a string 2 is a payload defect", v("i", at(1), `"2"`), []rej{{1, CodeSchemaPayload, "", ""}, noInit}},
		{"protocol_version 2 on a non-init event is ignored", evLine("c", at(2), "lead", "", TypeMerge, "", "F", `{"protocol_version":2}`),
			[]rej{{1, CodeInitMissing, "", "F"}, noInit}},
		{"an unknown type carrying protocol_version 2 is ignored", `{"event_type":"init2","payload":{"protocol_version":2}}`, []rej{noInit}},
	}
	for _, tc := range notClaims {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, res := replayText(tc.line + "\n")
			if res.Unsupported != nil {
				t.Fatalf("unexpected fail-closed %+v", res.Unsupported)
			}
			assertRejs(t, rejs(res), tc.want)
		})
	}
}
