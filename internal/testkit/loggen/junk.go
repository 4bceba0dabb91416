package loggen

import (
	"fmt"
	"strings"
)

// JunkShape is one kind of hostile line a log can be flooded with: lines
// a reader must judge within a memory bounded by the bytes it reads
// (docs/semantics.md §7), whatever they hold.
type JunkShape struct {
	Name string
	// Line is the i-th line (from 0), without its line break.
	Line func(i int) string
}

// junkTS is a valid ts that varies with i, so repeated lines differ.
func junkTS(i int) string {
	return fmt.Sprintf("2030-01-01T%02d:%02d:%02dZ", i/3600%24, i/60%60, i%60)
}

func junkEvent(id, ts, agent, typ, task, payload string) string {
	return fmt.Sprintf(`{"event_id":%q,"ts":%q,"agent_id":%q,"role":"worker","event_type":%q,"task_id":%q,"feature":"","payload":%s}`,
		id, ts, agent, typ, task, payload)
}

func junkHexID(i int) string { return fmt.Sprintf("%032x", i+1) }

// nestedPayload is a payload of about 1 KiB of nested objects.
var nestedPayload = `{"evidence":"x","k":[` + strings.TrimSuffix(strings.Repeat(strings.Repeat(`{"a":`, 60)+"1"+strings.Repeat("}", 60)+",", 3), ",") + `]}`

// manyMembers is an object of about 16 KiB of distinct members.
var manyMembers = func() string {
	var b strings.Builder
	b.WriteString("{")
	for j := range 2000 {
		if j > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"m%d":%d`, j, j)
	}
	b.WriteString("}")
	return b.String()
}()

// longValue is a string that keeps a line just under projection's
// MaxLineBytes (1 MiB).
var longValue = strings.Repeat("x", 1<<20-300)

// Junk lists the hostile shapes the bounded-memory tests flood a log
// with: short lines that are not events, envelope defects with and
// without an event_id, payload defects, ignored event types, one
// event_id repeated, ids of the forms kept as strings, large payloads,
// many members, and values near the line bound.
var Junk = []JunkShape{
	{"number", func(int) string { return "1" }},
	{"empty object", func(int) string { return "{}" }},
	{"bare accept", func(int) string { return `{"event_type":"accept"}` }},
	{"id only", func(i int) string { return fmt.Sprintf(`{"event_id":"e%d"}`, i) }},
	{"unknown type", func(i int) string { return junkEvent(junkHexID(i), junkTS(i), "dev", "nope", "T1", "{}") }},
	{"payload defect", func(i int) string { return junkEvent(junkHexID(i), junkTS(i), "dev", "join", "", "{}") }},
	{"one id", func(i int) string {
		return junkEvent(junkHexID(0), junkTS(i), "dev", "checkpoint", "T1", `{"evidence":"x"}`)
	}},
	{"string ids", func(i int) string {
		return junkEvent(fmt.Sprintf("e%d", i), junkTS(i), "dev", "checkpoint", "T1", `{"evidence":"x"}`)
	}},
	{"nested payload", func(i int) string {
		return junkEvent(junkHexID(i), junkTS(i), "dev", "checkpoint", "T1", nestedPayload)
	}},
	{"many members", func(int) string { return manyMembers }},
	{"long id", func(i int) string {
		return junkEvent(fmt.Sprintf("%d%s", i, longValue), junkTS(i), "dev", "checkpoint", "T1", "{}")
	}},
	{"long agent", func(i int) string { return junkEvent(junkHexID(i), junkTS(i), longValue, "checkpoint", "T1", "{}") }},
}

// JunkLog is about size bytes (at least one line) of shape's lines, each
// ended by a line break.
func JunkLog(shape JunkShape, size int) []byte {
	var b strings.Builder
	for i := 0; i == 0 || b.Len() < size; i++ {
		b.WriteString(shape.Line(i))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}
